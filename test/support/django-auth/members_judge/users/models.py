"""The original's user model's fields (users/models.py of the original), on Django's auth."""
from django.contrib.auth.models import AbstractBaseUser, PermissionsMixin, UserManager
from django.db import models


class User(AbstractBaseUser, PermissionsMixin):
    username = models.CharField(max_length=30, unique=True)
    email = models.EmailField(max_length=255, unique=True)
    created = models.DateTimeField(auto_now_add=True)
    edited = models.DateTimeField(auto_now=True)
    first_name = models.CharField(max_length=127, blank=True)
    last_name = models.CharField(max_length=127, blank=True)
    balance = models.DecimalField(default=0, max_digits=6, decimal_places=2)
    has_key = models.BooleanField(default=False)
    hide_pamela = models.BooleanField(default=False)
    newsletter = models.BooleanField(default=True)
    is_active = models.BooleanField(default=True)
    description = models.TextField(max_length=255, null=True, blank=True)

    objects = UserManager()
    USERNAME_FIELD = 'username'
    REQUIRED_FIELDS = ['email']

    @property
    def is_staff(self):
        return self.is_superuser
