"""Django settings for the members' judge (test/django-passwords.test.ts): Django's own auth with a
user model shaped like the original's (`users.User`) and the original's three permission-bearing
models, so that `check_password`, `has_perm`, `dumpdata` and `loaddata` are Django's own."""
import os

SECRET_KEY = 'test only'
INSTALLED_APPS = [
    'django.contrib.auth',
    'django.contrib.contenttypes',
    'members_judge.apps.Users',
    'members_judge.apps.Projects',
    'members_judge.apps.Events',
]
DATABASES = {'default': {'ENGINE': 'django.db.backends.sqlite3', 'NAME': os.environ['JUDGE_DATABASE']}}
AUTH_USER_MODEL = 'users.User'
USE_TZ = True
TIME_ZONE = 'UTC'
DEFAULT_AUTO_FIELD = 'django.db.models.AutoField'
# Every hasher the original may have used that this Django has; the first makes new hashes.
PASSWORD_HASHERS = [
    'django.contrib.auth.hashers.PBKDF2PasswordHasher',
    'django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher',
    'django.contrib.auth.hashers.Argon2PasswordHasher',
    'django.contrib.auth.hashers.BCryptSHA256PasswordHasher',
    'django.contrib.auth.hashers.BCryptPasswordHasher',
    'django.contrib.auth.hashers.MD5PasswordHasher',
]
