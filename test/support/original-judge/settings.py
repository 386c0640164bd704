"""Settings for the original's models under test: only what the five models need.

Written to <temp>/incubator/settings.py: space/models.py imports `incubator.settings`.
"""
import os

SECRET_KEY = 'test only'
INSTALLED_APPS = [
    'django.contrib.auth',
    'django.contrib.contenttypes',
    'judge_apps.Incubator',
    'judge_apps.Users',
    'judge_apps.Space',
    'judge_apps.Projects',
    'judge_apps.Events',
]
DATABASES = {'default': {'ENGINE': 'django.db.backends.sqlite3', 'NAME': os.environ['JUDGE_DATABASE']}}
AUTH_USER_MODEL = 'users.User'
USE_TZ = True
TIME_ZONE = 'UTC'
DEFAULT_AUTO_FIELD = 'django.db.models.AutoField'
ROOT_URL = 'http://localhost'
