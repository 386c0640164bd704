"""Django's own word on members' passwords and rights (test/django-passwords.test.ts).

  judge.py make PEOPLE.json DUMP.json NATURAL_DUMP.json VERDICT.json
      migrates a fresh database, creates the members of PEOPLE.json (name, password, hasher,
      active, superuser, groups, direct rights) and the groups, hashes each password with the
      named hasher, dumps auth, contenttypes and users twice (by number, and with --natural-foreign),
      and writes each member's has_perm for every right and check_password as Django sees them.
  judge.py check PEOPLE.json EXPORT.json VERDICT.json
      migrates a fresh database, loads the service's export (its auth, contenttypes and users
      records) with loaddata, and writes the same verdict plus each stored hash's algorithm.
"""
import json
import sys

import django
from django.core.management import call_command

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.contrib.auth.hashers import make_password  # noqa: E402
from django.contrib.auth.models import Group, Permission  # noqa: E402

RIGHTS = [
    'projects.add_project', 'projects.change_project', 'projects.delete_project',
    'events.add_event', 'events.change_event', 'events.delete_event',
    'events.add_meeting', 'events.change_meeting', 'events.delete_meeting',
    # A right the service does not use: kept through the round trip all the same.
    'projects.view_project',
]
KEPT = {'auth.permission', 'auth.group', 'contenttypes.contenttype', 'users.user'}


def permission(right):
    app_label, codename = right.split('.')
    return Permission.objects.get(content_type__app_label=app_label, codename=codename)


def verdict(people):
    User = get_user_model()
    result = {}
    for person in people:
        user = User.objects.get(username=person['username'])
        stored = user.password
        result[person['username']] = {
            # Read before check_password, which upgrades the stored hash.
            'algorithm': stored.split('$')[0],
            'iterations': int(stored.split('$')[1]) if stored.startswith('pbkdf2') else None,
            'password': user.check_password(person['password']),
            'rights': {right: user.has_perm(right) for right in RIGHTS},
            'groups': sorted(group.name for group in user.groups.all()),
        }
    return result


def make(people_file, dump_file, natural_file, verdict_file):
    people = json.load(open(people_file))
    call_command('migrate', run_syncdb=True, verbosity=0, interactive=False)
    User = get_user_model()
    for name, rights in people['groups'].items():
        group = Group.objects.create(name=name)
        group.permissions.set([permission(right) for right in rights])
    for person in people['members']:
        user = User(username=person['username'], email=person['email'], is_active=person['active'], is_superuser=person['superuser'])
        user.password = make_password(person['password'], hasher=person['hasher'])
        user.save()
        user.groups.set(Group.objects.filter(name__in=person['groups']))
        user.user_permissions.set([permission(right) for right in person['rights']])
    call_command('dumpdata', 'contenttypes', 'auth', 'users', output=dump_file, verbosity=0)
    call_command('dumpdata', 'contenttypes', 'auth', 'users', natural_foreign=True, output=natural_file, verbosity=0)
    json.dump(verdict(people['members']), open(verdict_file, 'w'))


def check(people_file, export_file, verdict_file):
    people = json.load(open(people_file))
    call_command('migrate', run_syncdb=True, verbosity=0, interactive=False)
    records = [record for record in json.load(open(export_file)) if record['model'] in KEPT]
    kept_file = export_file + '.auth.json'
    json.dump(records, open(kept_file, 'w'))
    call_command('loaddata', kept_file, verbosity=0)
    json.dump(verdict(people['members']), open(verdict_file, 'w'))


if __name__ == '__main__':
    {'make': make, 'check': check}[sys.argv[1]](*sys.argv[2:])
