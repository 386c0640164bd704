"""Two apps with the original's labels: users (the user model) and stock (the slate's models)."""
from django.apps import AppConfig


class Users(AppConfig):
    name = 'stock_judge.users'
    label = 'users'


class Stock(AppConfig):
    name = 'stock_judge.stock'
    label = 'stock'
