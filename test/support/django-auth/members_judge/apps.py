"""Three apps with the original's labels: users (the user model), projects and events (the models
whose add/change/delete permissions the service reads)."""
from django.apps import AppConfig


class Users(AppConfig):
    name = 'members_judge.users'
    label = 'users'


class Projects(AppConfig):
    name = 'members_judge.projects'
    label = 'projects'


class Events(AppConfig):
    name = 'members_judge.events'
    label = 'events'
