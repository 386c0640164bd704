"""The original's stock models, field for field (stock/models.py of UrLab/incubator); only their
fields and constraints matter here, so their methods are left out."""
from django.db import models
from django.utils import timezone


class Category(models.Model):
    name = models.CharField(max_length=100)


class Product(models.Model):
    name = models.CharField(max_length=100)
    price = models.DecimalField(max_digits=6, decimal_places=2)
    category = models.ForeignKey(Category, on_delete=models.DO_NOTHING)
    active = models.BooleanField(default=True)


class Transaction(models.Model):
    user = models.ForeignKey("users.User", on_delete=models.DO_NOTHING)
    when = models.DateTimeField(auto_now_add=True)

    class Meta:
        abstract = True


class TransferTransaction(Transaction):
    receiver = models.ForeignKey("users.User", related_name="incoming_transfers", on_delete=models.DO_NOTHING)
    amount = models.DecimalField(max_digits=6, decimal_places=2)


class TopupTransaction(Transaction):
    amount = models.DecimalField(max_digits=6, decimal_places=2)
    topup_type = models.CharField(max_length=20, choices=[("BANK", "Virement"), ("CASH", "Caisse")])


class ProductTransaction(Transaction):
    product = models.ForeignKey("stock.Product", on_delete=models.DO_NOTHING)


class MiscTransaction(Transaction):
    amount = models.DecimalField(max_digits=6, decimal_places=2)
    info = models.TextField()


class FundZone(models.Model):
    payment_method = (("BANK", "Virement"), ("CASH", "Caisse"))

    name = models.CharField(max_length=50)
    method = models.CharField(max_length=4, choices=payment_method)


class PaymentTransaction(Transaction):
    ways = (("a", "Dépense"), ("b", "Réception"))

    amount = models.DecimalField(max_digits=6, decimal_places=2)
    way = models.CharField(max_length=1, default="a", choices=ways)
    receipt = models.FileField(upload_to="souches", null=True, blank=True)
    zone = models.ForeignKey("stock.FundZone", on_delete=models.SET_NULL, null=True, blank=True)
    comments = models.CharField(max_length=200, null=True, blank=True)
    payment_date = models.DateField(default=timezone.now)


class RefundTransaction(Transaction):
    title = models.CharField(max_length=200)
    amount = models.DecimalField(max_digits=6, decimal_places=2)
    payment = models.ForeignKey("stock.PaymentTransaction", on_delete=models.CASCADE, null=True, blank=True)
    receipt = models.FileField(upload_to="souches", null=True, blank=True)
