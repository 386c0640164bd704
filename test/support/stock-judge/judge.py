"""Django's own word on the slate's round trip (test/apps/stock/stock-loaddata.test.ts), with the
original's stock models (stock_judge/stock/models.py) and a user model with the original's fields.

  judge.py make DUMP.json
      migrates a fresh database and records, with Django's ORM and as the original's views do
      (each transaction moves the balance with an F expression), members, categories, products
      (an inactive one, an `urtip` category), every transaction model, fund zones, payments with
      and without receipt, zone or comment, refunds completed and not, and a balance edited by
      hand; dumps users and stock.
  judge.py check EXPORT.json VERDICT.json
      migrates a fresh database, loads EXPORT.json with loaddata, checks every stored value
      against the models' max_length, choices and validators (SQLite enforces none of them), and
      writes the dump of users and stock, each member's stored balance, the balance recomputed
      from the transaction rows as the original's views move it, and the problems found.
"""
import json
import sys
from decimal import Decimal

import django
from django.core import validators
from django.core.exceptions import ValidationError
from django.core.management import call_command

django.setup()

from django.apps import apps  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.db.models import F  # noqa: E402

from stock_judge.stock.models import (  # noqa: E402
    Category, FundZone, MiscTransaction, PaymentTransaction, Product, ProductTransaction,
    RefundTransaction, TopupTransaction, TransferTransaction,
)

LABELS = ['users.user', 'stock.category', 'stock.product', 'stock.transfertransaction', 'stock.topuptransaction',
          'stock.producttransaction', 'stock.misctransaction', 'stock.fundzone', 'stock.paymenttransaction',
          'stock.refundtransaction']
CHECKED = (validators.MaxValueValidator, validators.MinValueValidator, validators.DecimalValidator, validators.MaxLengthValidator)


def move(user, amount):
    user.balance = F('balance') + amount
    user.save()
    user.refresh_from_db()


def make(dump_file):
    call_command('migrate', run_syncdb=True, verbosity=0, interactive=False)
    User = get_user_model()
    alice = User.objects.create(username='alice', email='alice@example.org')
    bob = User.objects.create(username='bob', email='bob@example.org')
    carol = User.objects.create(username='carol', email='carol@example.org')
    dave = User.objects.create(username='dave', email='dave@example.org', is_active=False)
    User.objects.create(username='erin', email='erin@example.org')

    drinks = Category.objects.create(name='Boissons')
    tips = Category.objects.create(name='urtip')
    snacks = Category.objects.create(name='Snacks')
    mate = Product.objects.create(name='Club-Mate', price=Decimal('1.50'), category=drinks)
    cola = Product.objects.create(name='Coca', price=Decimal('1.00'), category=drinks)
    tip = Product.objects.create(name='Tip', price=Decimal('0.50'), category=tips)
    chips = Product.objects.create(name='Chips', price=Decimal('1.20'), category=snacks)

    def top(user, amount, kind):
        TopupTransaction.objects.create(user=user, amount=Decimal(amount), topup_type=kind)
        move(user, Decimal(amount))

    def buy(user, product):
        ProductTransaction.objects.create(user=user, product=product)
        move(user, -product.price)

    def spend(user, amount, info):
        MiscTransaction.objects.create(user=user, amount=Decimal(amount), info=info)
        move(user, -Decimal(amount))

    def transfer(sender, receiver, amount):
        TransferTransaction.objects.create(user=sender, receiver=receiver, amount=Decimal(amount))
        move(sender, -Decimal(amount))
        move(receiver, Decimal(amount))

    top(alice, '20.00', 'BANK')
    top(bob, '10.00', 'CASH')
    buy(alice, mate)
    buy(alice, mate)
    buy(alice, tip)
    buy(bob, cola)
    buy(bob, chips)
    buy(carol, tip)
    buy(carol, mate)
    spend(bob, '3.40', 'Câbles\tUSB')
    spend(carol, '0.01', 'un centime')
    transfer(alice, bob, '5.00')
    transfer(carol, alice, '2.50')
    # Bought while it was sold; inactive since.
    cola.active = False
    cola.save()
    # Balances edited by hand in the admin: carol's off her transactions, dave's with none.
    carol.balance = carol.balance + Decimal('1.00')
    carol.save()
    dave.balance = Decimal('-7.77')
    dave.save()

    cash = FundZone.objects.create(name='Caisse du bar', method='CASH')
    bank = FundZone.objects.create(name='Compte en banque', method='BANK')
    FundZone.objects.create(name='Coffre', method='CASH')
    paid = PaymentTransaction.objects.create(user=alice, amount=Decimal('42.50'), way='a', receipt='souches/ticket.pdf', zone=cash,
                                             comments="Remboursement 'Pizzas' à bob", payment_date='2024-04-27')
    PaymentTransaction.objects.create(user=bob, amount=Decimal('100.00'), way='b', receipt='', zone=bank, comments=None, payment_date='2024-05-01')
    PaymentTransaction.objects.create(user=alice, amount=Decimal('0.75'), way='a', receipt=None, zone=None, comments='', payment_date='2024-05-02')
    RefundTransaction.objects.create(user=bob, title='Pizzas', amount=Decimal('42.50'), payment=paid, receipt='souches/ticket.pdf')
    RefundTransaction.objects.create(user=carol, title='Vis et écrous', amount=Decimal('3.20'), payment=None, receipt='')

    call_command('dumpdata', *LABELS, output=dump_file, verbosity=0)


def recomputed():
    """Each member's balance as the original's views move it, from the transaction rows alone."""
    User = get_user_model()
    total = {user.pk: Decimal('0') for user in User.objects.all()}
    for row in TopupTransaction.objects.all():
        total[row.user_id] += row.amount
    for row in ProductTransaction.objects.select_related('product'):
        total[row.user_id] -= row.product.price
    for row in MiscTransaction.objects.all():
        total[row.user_id] -= row.amount
    for row in TransferTransaction.objects.all():
        total[row.user_id] -= row.amount
        total[row.receiver_id] += row.amount
    return {str(pk): str(amount) for pk, amount in total.items()}


def check(export_file, verdict_file):
    call_command('migrate', run_syncdb=True, verbosity=0, interactive=False)
    call_command('loaddata', export_file, verbosity=0)
    problems = []
    for label in LABELS:
        model = apps.get_model(label)
        for obj in model.objects.all():
            for field in model._meta.concrete_fields:
                value = getattr(obj, field.attname)
                if hasattr(value, 'name') and not isinstance(value, str):
                    value = value.name
                if value is None:
                    continue
                where = '%s pk %s: %s' % (label, obj.pk, field.name)
                if field.max_length and isinstance(value, str) and len(value) > field.max_length:
                    problems.append('%s: longer than max_length %d' % (where, field.max_length))
                if field.choices and value not in [choice for choice, _ in field.choices]:
                    problems.append('%s: not one of the choices' % where)
                for validator in field.validators:
                    if isinstance(validator, CHECKED):
                        try:
                            validator(value)
                        except ValidationError as error:
                            problems.append('%s: %s' % (where, '; '.join(error.messages)))
    dump_file = verdict_file + '.dump.json'
    call_command('dumpdata', *LABELS, output=dump_file, verbosity=0)
    with open(dump_file, encoding='utf8') as f:
        dump = json.load(f)
    stored = {str(user.pk): str(user.balance) for user in get_user_model().objects.all()}
    with open(verdict_file, 'w', encoding='utf8') as f:
        json.dump({'dump': dump, 'stored': stored, 'recomputed': recomputed(), 'problems': problems}, f)


if __name__ == '__main__':
    if sys.argv[1] == 'make':
        make(sys.argv[2])
    elif sys.argv[1] == 'check':
        check(sys.argv[2], sys.argv[3])
    else:
        sys.exit('usage: judge.py make DUMP.json | check EXPORT.json VERDICT.json')
