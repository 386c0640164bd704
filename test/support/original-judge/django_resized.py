"""Stand-in for the django-resized package (not a Debian package): its ResizedImageField only
resizes uploads; in the database it is an ImageField, a varchar(100) like this FileField (which,
unlike ImageField, needs no Pillow). Installed as the package django_resized, with a forms
module that re-exports it (the original's migrations name django_resized.forms.ResizedImageField)."""
from django.db import models


class ResizedImageField(models.FileField):
    def __init__(self, *args, size=None, crop=None, quality=None, keep_meta=None, force_format=None, scale=None, **kwargs):
        super().__init__(*args, **kwargs)
