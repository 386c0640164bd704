import { sql, type ColumnDefinitionBuilder, type Kysely, type Migration } from 'kysely';
import { engineOf } from '../../db/connection.js';
import type { MigrationSet } from '../../db/migrations.js';

/**
 * The members' migrations since the founding history (db/migrations.ts), frozen like it: each
 * names the tables it touches as they were then. Foreign keys are deferred to commit, so that an
 * import may insert records in any order.
 */
const deferred = sql`deferrable initially deferred`;

/**
 * What members need to log in (members.md): the original's auth tables, kept as the original has
 * them so that `export` gives them back (content types, permissions, groups and their rights);
 * sessions and set-password links, stored only as hashes of their secrets; the failed logins that
 * throttling counts, shared by every process; members' personal API tokens (beside the operator's
 * door and admin tokens, which stay as they are); and whether a
 * member's public page shows their name. None is versioned: no cached response is built from them.
 */
const members: Migration = {
  async up(db: Kysely<any>) {
    const engine = engineOf(db);
    const id = (c: ColumnDefinitionBuilder) => (engine === 'postgres' ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey());
    const text = engine === 'postgres' ? sql`text collate "C"` : 'text';
    await db.schema
      .createTable('content_types')
      .addColumn('id', 'integer', id)
      .addColumn('app_label', text, (c) => c.notNull())
      .addColumn('model', text, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('content_types_natural').on('content_types').columns(['app_label', 'model']).unique().execute();
    await db.schema
      .createTable('auth_permissions')
      .addColumn('id', 'integer', id)
      .addColumn('content_type_id', 'integer', (c) => c.notNull().references('content_types.id').onDelete('cascade').modifyEnd(deferred))
      .addColumn('codename', text, (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('auth_permissions_natural').on('auth_permissions').columns(['content_type_id', 'codename']).unique().execute();
    await db.schema
      .createTable('auth_groups')
      .addColumn('id', 'integer', id)
      .addColumn('name', text, (c) => c.notNull().unique())
      .execute();
    await db.schema
      .createTable('group_permissions')
      .addColumn('group_id', 'integer', (c) => c.notNull().references('auth_groups.id').onDelete('cascade').modifyEnd(deferred))
      .addColumn('permission_id', 'integer', (c) => c.notNull().references('auth_permissions.id').onDelete('cascade').modifyEnd(deferred))
      .addPrimaryKeyConstraint('group_permissions_pk', ['group_id', 'permission_id'])
      .execute();
    await db.schema.createIndex('group_permissions_permission').on('group_permissions').column('permission_id').execute();

    await db.schema
      .createTable('sessions')
      .addColumn('id_hash', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade').modifyEnd(deferred))
      .addColumn('created_us', 'bigint', (c) => c.notNull())
      .addColumn('last_seen_us', 'bigint', (c) => c.notNull())
      .addColumn('expires_us', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();
    await db.schema.createIndex('sessions_expires').on('sessions').column('expires_us').execute();

    await db.schema
      .createTable('login_failures')
      .addColumn('id', 'integer', id)
      .addColumn('time_us', 'bigint', (c) => c.notNull())
      .addColumn('account', 'text', (c) => c.notNull())
      .addColumn('client', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('login_failures_account_client').on('login_failures').columns(['account', 'client', 'time_us']).execute();
    await db.schema.createIndex('login_failures_client').on('login_failures').columns(['client', 'time_us']).execute();
    await db.schema.createIndex('login_failures_time').on('login_failures').column('time_us').execute();

    await db.schema
      .createTable('password_links')
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade').modifyEnd(deferred))
      .addColumn('purpose', 'text', (c) => c.notNull().check(sql`purpose in ('invitation', 'reset', 'first-superuser')`))
      .addColumn('created_us', 'bigint', (c) => c.notNull())
      .addColumn('expires_us', 'bigint', (c) => c.notNull())
      .addColumn('used_us', 'bigint')
      .execute();
    await db.schema.createIndex('password_links_user').on('password_links').column('user_id').execute();

    await db.schema
      .createTable('member_tokens')
      .addColumn('id', 'integer', id)
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade').modifyEnd(deferred))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
      .addColumn('created_us', 'bigint', (c) => c.notNull())
      .addColumn('last_used_us', 'bigint')
      .addColumn('revoked_us', 'bigint')
      .execute();
    await db.schema.createIndex('member_tokens_user').on('member_tokens').column('user_id').execute();
    await db.schema
      .alterTable('users')
      .addColumn('show_name', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
};

/**
 * Single sign-on (members.md §5): the provider's subjects linked to members, so that a change of
 * address at the provider keeps the member; and the logins begun and not yet finished, in the
 * database so that any process can finish a login another began. Neither is versioned.
 */
const oidc: Migration = {
  async up(db: Kysely<any>) {
    const text = engineOf(db) === 'postgres' ? sql`text collate "C"` : 'text';
    await db.schema
      .createTable('oidc_links')
      .addColumn('issuer', text, (c) => c.notNull())
      .addColumn('subject', text, (c) => c.notNull())
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade').modifyEnd(deferred))
      .addColumn('created_us', 'bigint', (c) => c.notNull())
      .addColumn('last_login_us', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('oidc_links_pk', ['issuer', 'subject'])
      .execute();
    await db.schema.createIndex('oidc_links_user').on('oidc_links').column('user_id').execute();
    await db.schema
      .createTable('oidc_flows')
      .addColumn('id_hash', 'text', (c) => c.primaryKey())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('nonce', 'text', (c) => c.notNull())
      .addColumn('code_verifier', 'text', (c) => c.notNull())
      .addColumn('next_path', 'text', (c) => c.notNull())
      .addColumn('expires_us', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('oidc_flows_expires').on('oidc_flows').column('expires_us').execute();
  },
};

/**
 * Passkeys (members.md §5): each member's WebAuthn credentials, found by their credential id at a
 * login; and the challenges given and not yet answered, kept as hashes with the browser they were
 * given to, in the database so that any process can finish a ceremony another began. Neither is
 * versioned.
 */
const passkeys: Migration = {
  async up(db: Kysely<any>) {
    const engine = engineOf(db);
    const id = (c: ColumnDefinitionBuilder) => (engine === 'postgres' ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey());
    const text = engine === 'postgres' ? sql`text collate "C"` : 'text';
    await db.schema
      .createTable('passkeys')
      .addColumn('id', 'integer', id)
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade').modifyEnd(deferred))
      .addColumn('credential_id', text, (c) => c.notNull().unique())
      .addColumn('public_key', 'text', (c) => c.notNull())
      .addColumn('counter', 'bigint', (c) => c.notNull())
      .addColumn('transports', 'text', (c) => c.notNull())
      .addColumn('user_handle', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('created_us', 'bigint', (c) => c.notNull())
      .addColumn('last_used_us', 'bigint')
      .execute();
    await db.schema.createIndex('passkeys_user').on('passkeys').column('user_id').execute();
    await db.schema
      .createTable('passkey_challenges')
      .addColumn('challenge_hash', 'text', (c) => c.primaryKey())
      .addColumn('browser_hash', 'text', (c) => c.notNull())
      .addColumn('purpose', 'text', (c) => c.notNull().check(sql`purpose in ('register', 'login')`))
      .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade').modifyEnd(deferred))
      .addColumn('user_handle', 'text')
      .addColumn('expires_us', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('passkey_challenges_expires').on('passkey_challenges').column('expires_us').execute();
    await db.schema.createIndex('passkey_challenges_browser').on('passkey_challenges').column('browser_hash').execute();
  },
};

/** Languages (languages.md): the language a member chose for pages and mails; empty for none (the browser's, else LANGUAGE_CODE). */
const language: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .alterTable('users')
      .addColumn('language', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
  },
};

/** Under the names databases recorded them by before the apps (new ones: `users.<number>_<what>`). */
export const USERS_MIGRATIONS: MigrationSet = {
  '0010_members': members,
  '0011_oidc': oidc,
  '0012_passkeys': passkeys,
  'users.0013_language': language,
};
