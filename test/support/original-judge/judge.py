"""The original service as the judge of our export (test/original-loaddata.test.ts).

Run with the original's five models' apps (users, space, projects, events, incubator) copied
beside this file's settings at test time: migrates a fresh SQLite database with the original's
own migrations, loads the fixture with `loaddata`, checks every stored value against the models'
own max_length, choices and validators (SQLite does not enforce them), dumps the five models
again and prints the counts, the problems and the dump as JSON.
"""
import json
import sys

import django
from django.core import validators
from django.core.exceptions import ValidationError
from django.core.management import call_command

django.setup()

from django.apps import apps  # noqa: E402

LABELS = ['users.user', 'space.spacestatus', 'projects.project', 'events.event', 'events.meeting']
CHECKED = (validators.MaxValueValidator, validators.MinValueValidator, validators.DecimalValidator, validators.MaxLengthValidator)

call_command('migrate', verbosity=0, interactive=False)
call_command('loaddata', sys.argv[1], verbosity=0)

counts = {}
problems = []
for label in LABELS:
    model = apps.get_model(label)
    counts[label] = model.objects.count()
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

call_command('dumpdata', *LABELS, output=sys.argv[2], verbosity=0)
print(json.dumps({'counts': counts, 'problems': problems}))
