"""The original's user model's fields (users/models.py of UrLab/incubator), on Django's auth."""
from django.contrib.auth.models import AbstractBaseUser, PermissionsMixin, UserManager
from django.db import models


class User(AbstractBaseUser, PermissionsMixin):
    username = models.CharField(max_length=30, unique=True)
    email = models.EmailField(max_length=255, unique=True)
    created = models.DateTimeField(auto_now_add=True)
    edited = models.DateTimeField(auto_now=True)
    first_name = models.CharField(max_length=127, blank=True)
    last_name = models.CharField(max_length=127, blank=True)
    balance = models.DecimalField(max_digits=6, decimal_places=2, default=0)
    has_key = models.BooleanField(default=False)
    hide_pamela = models.BooleanField(default=False)
    newsletter = models.BooleanField(default=True)
    is_active = models.BooleanField(default=True)
    description = models.TextField(default="", max_length=255, null=True)

    objects = UserManager()
    USERNAME_FIELD = 'username'
    REQUIRED_FIELDS = ['email']
