import { formatHundredths, linked, optionalTime } from '../../../interchange/export.js';
import { link, type ModelDeclaration, type ModelDeclarations } from '../../../interchange/models.js';
import { untagEmail } from '../../../interchange/original-fit.js';
import { USERS_TABLES } from '../tables.js';

const GROUP_PERMISSIONS = link('permissions', USERS_TABLES, 'group_permissions');
const USER_GROUPS = link('groups', USERS_TABLES, 'user_groups');
const USER_PERMISSIONS = link('user_permissions', USERS_TABLES, 'user_permissions');

// Django's auth models, kept whole for the round trip (members.md §3). Natural keys (dumpdata's
// --natural-foreign and --natural-primary) are turned into pks before these read a record
// (auth-models.ts). The export writes them as imported (or as grantRights made them), with the
// same pks: users refer to them by number.

const contentTypes: ModelDeclaration = {
  fields: new Set(['app_label', 'model']),
  read: (f) => ({ values: [f.string('app_label', undefined, 100), f.string('model', undefined, 100)] }),
  page: async (db, after, limit) => {
    const rows = await db.selectFrom('content_types').select(['id', 'app_label', 'model']).where('id', '>', after).orderBy('id').limit(limit).execute();
    return rows.map((r) => ({ pk: r.id, fields: { app_label: r.app_label, model: r.model } }));
  },
};

const permissions: ModelDeclaration = {
  fields: new Set(['name', 'content_type', 'codename']),
  read: (f) => ({ values: [f.reference('content_type'), f.string('codename', undefined, 100), f.string('name', undefined, 255)] }),
  page: async (db, after, limit) => {
    const rows = await db.selectFrom('auth_permissions').select(['id', 'name', 'content_type_id', 'codename']).where('id', '>', after).orderBy('id').limit(limit).execute();
    return rows.map((r) => ({ pk: r.id, fields: { name: r.name, content_type: r.content_type_id, codename: r.codename } }));
  },
};

const groups: ModelDeclaration = {
  fields: new Set(['name', 'permissions']),
  read: (f) => ({ values: [f.string('name', undefined, 150)], links: [f.references('permissions')] }),
  links: [GROUP_PERMISSIONS],
  page: async (db, after, limit) => {
    const rows = await db.selectFrom('auth_groups').select(['id', 'name']).where('id', '>', after).orderBy('id').limit(limit).execute();
    const permissions = await linked(
      db,
      GROUP_PERMISSIONS,
      rows.map((r) => r.id),
    );
    return rows.map((r) => ({ pk: r.id, fields: { name: r.name, permissions: permissions.get(r.id) ?? [] } }));
  },
};

const users: ModelDeclaration = {
  fields: new Set([
    'username',
    'email',
    'has_key',
    'password',
    'last_login',
    'is_superuser',
    'created',
    'edited',
    'first_name',
    'last_name',
    'balance',
    'hide_pamela',
    'newsletter',
    'is_active',
    'description',
    'groups',
    'user_permissions',
  ]),
  read: (f, d, pk) => {
    const created = f.nullableTime('created') ?? d.nowUs;
    return {
      values: [
        f.string('username'),
        untagEmail(f.string('email', '', 255), pk),
        f.boolean('has_key', false),
        f.givenString('password', 128) ?? d.password(),
        f.nullableTime('last_login'),
        f.boolean('is_superuser', false),
        created,
        f.nullableTime('edited') ?? created,
        f.string('first_name', '', 127),
        f.string('last_name', '', 127),
        f.decimal('balance', 6, 2),
        f.boolean('hide_pamela', false),
        f.boolean('newsletter', true),
        f.boolean('is_active', true),
        f.nullableString('description', ''),
      ],
      links: [f.references('groups'), f.references('user_permissions')],
    };
  },
  privateFields: new Set([
    'password',
    'last_login',
    'is_superuser',
    'created',
    'edited',
    'first_name',
    'last_name',
    'balance',
    'hide_pamela',
    'newsletter',
    'is_active',
    'description',
    'groups',
    'user_permissions',
  ]),
  links: [USER_GROUPS, USER_PERMISSIONS],
  unique: {
    field: 'username',
    column: 'username',
    index: 0,
    describe: (value, otherPk, where) => `${JSON.stringify(value)} is already the username of users.user pk ${otherPk} ${where === 'file' ? 'in this file' : 'in the database'}`,
  },
  page: async (db, after, limit, fit) => {
    const rows = await db.selectFrom('users').selectAll().where('id', '>', after).orderBy('id').limit(limit).execute();
    const ids = rows.map((r) => r.id);
    const groups = await linked(db, USER_GROUPS, ids);
    const permissions = await linked(db, USER_PERMISSIONS, ids);
    const times = fit.times;
    // Django's order: AbstractBaseUser's fields, PermissionsMixin's, the model's; many-to-many last.
    return rows.map((r) => ({
      pk: r.id,
      fields: {
        password: r.password,
        last_login: optionalTime(times, r.last_login_us),
        is_superuser: r.is_superuser === 1,
        username: fit.username(r.username),
        email: fit.email(r.id, r.email),
        created: times.format(Number(r.created_us)),
        edited: times.format(Number(r.edited_us)),
        first_name: r.first_name,
        last_name: r.last_name,
        balance: formatHundredths(r.balance_cents),
        has_key: r.has_key === 1,
        hide_pamela: r.hide_pamela === 1,
        newsletter: r.newsletter === 1,
        is_active: r.is_active === 1,
        description: r.description,
        groups: groups.get(r.id) ?? [],
        user_permissions: permissions.get(r.id) ?? [],
      },
    }));
  },
};

/** The original's models the users app imports and exports: Django's auth models and the members. */
export const USERS_MODELS: ModelDeclarations<typeof USERS_TABLES> = {
  'contenttypes.contenttype': contentTypes,
  'auth.permission': permissions,
  'auth.group': groups,
  'users.user': users,
};
