"""Django settings for the stock judge (test/apps/stock/stock-loaddata.test.ts): the original's
stock models and a user model with the original's fields, on Django's auth, in SQLite."""
import os

SECRET_KEY = 'test only'
INSTALLED_APPS = [
    'django.contrib.auth',
    'django.contrib.contenttypes',
    'stock_judge.apps.Users',
    'stock_judge.apps.Stock',
]
DATABASES = {'default': {'ENGINE': 'django.db.backends.sqlite3', 'NAME': os.environ['JUDGE_DATABASE']}}
AUTH_USER_MODEL = 'users.User'
USE_TZ = True
TIME_ZONE = 'UTC'
DEFAULT_AUTO_FIELD = 'django.db.models.AutoField'
