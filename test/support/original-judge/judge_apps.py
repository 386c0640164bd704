"""Plain AppConfigs for the original's apps: theirs (apps.py) connect activity streams and
signals that the models do not need and that would need more packages."""
from django.apps import AppConfig


class Incubator(AppConfig):
    name = 'incubator'


class Users(AppConfig):
    name = 'users'


class Space(AppConfig):
    name = 'space'


class Projects(AppConfig):
    name = 'projects'


class Events(AppConfig):
    name = 'events'
