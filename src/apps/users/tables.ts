import type { Database } from '../../db/schema.js';
import type { TableDeclaration } from '../../db/table-declaration.js';

/** The users app's tables, declared once (db/table-declaration.ts); in Django's dependency order, join tables after their owner. */
export const USERS_TABLES = {
  content_types: { columns: ['id', 'app_label', 'model'], model: 'contenttypes.contenttype', indexes: ['content_types_natural'] },
  auth_permissions: {
    columns: ['id', 'content_type_id', 'codename', 'name'],
    model: 'auth.permission',
    foreignKeys: [{ column: 'content_type_id', references: 'content_types', onDelete: 'cascade' }],
    indexes: ['auth_permissions_natural'],
  },
  auth_groups: { columns: ['id', 'name'], model: 'auth.group' },
  group_permissions: {
    columns: ['group_id', 'permission_id'],
    link: { owner: 'group_id', target: 'permission_id' },
    foreignKeys: [
      { column: 'group_id', references: 'auth_groups', onDelete: 'cascade' },
      { column: 'permission_id', references: 'auth_permissions', onDelete: 'cascade' },
    ],
    indexes: ['group_permissions_permission'],
  },
  users: {
    columns: [
      'id',
      'username',
      'email',
      'has_key',
      'password',
      'last_login_us',
      'is_superuser',
      'created_us',
      'edited_us',
      'first_name',
      'last_name',
      'balance_cents',
      'hide_pamela',
      'newsletter',
      'is_active',
      'description',
      'show_name',
      'language',
    ],
    counted: true,
    versioned: true,
    collection: 'users',
    model: 'users.user',
    localColumns: ['show_name', 'language'],
  },
  user_groups: {
    columns: ['user_id', 'group_id'],
    link: { owner: 'user_id', target: 'group_id' },
    foreignKeys: [{ column: 'user_id', references: 'users', onDelete: 'cascade' }],
  },
  user_permissions: {
    columns: ['user_id', 'permission_id'],
    link: { owner: 'user_id', target: 'permission_id' },
    foreignKeys: [{ column: 'user_id', references: 'users', onDelete: 'cascade' }],
  },
  sessions: {
    columns: ['id_hash', 'user_id', 'created_us', 'last_seen_us', 'expires_us'],
    foreignKeys: [{ column: 'user_id', references: 'users', onDelete: 'cascade' }],
    indexes: ['sessions_user', 'sessions_expires'],
  },
  login_failures: { columns: ['id', 'time_us', 'account', 'client'], indexes: ['login_failures_account_client', 'login_failures_client', 'login_failures_time'] },
  password_links: {
    columns: ['token_hash', 'user_id', 'purpose', 'created_us', 'expires_us', 'used_us'],
    foreignKeys: [{ column: 'user_id', references: 'users', onDelete: 'cascade' }],
    indexes: ['password_links_user'],
  },
  member_tokens: {
    columns: ['id', 'user_id', 'name', 'secret_hash', 'created_us', 'last_used_us', 'revoked_us'],
    foreignKeys: [{ column: 'user_id', references: 'users', onDelete: 'cascade' }],
    indexes: ['member_tokens_user'],
  },
  oidc_links: {
    columns: ['issuer', 'subject', 'user_id', 'created_us', 'last_login_us'],
    foreignKeys: [{ column: 'user_id', references: 'users', onDelete: 'cascade' }],
    indexes: ['oidc_links_user'],
  },
  oidc_flows: { columns: ['id_hash', 'state', 'nonce', 'code_verifier', 'next_path', 'expires_us'], indexes: ['oidc_flows_expires'] },
  passkeys: {
    columns: ['id', 'user_id', 'credential_id', 'public_key', 'counter', 'transports', 'user_handle', 'name', 'created_us', 'last_used_us'],
    foreignKeys: [{ column: 'user_id', references: 'users', onDelete: 'cascade' }],
    indexes: ['passkeys_user'],
  },
  passkey_challenges: {
    columns: ['challenge_hash', 'browser_hash', 'purpose', 'user_id', 'user_handle', 'expires_us'],
    foreignKeys: [{ column: 'user_id', references: 'users', onDelete: 'cascade' }],
    indexes: ['passkey_challenges_expires', 'passkey_challenges_browser'],
  },
} as const satisfies {
  readonly [
    T in
      | 'content_types'
      | 'auth_permissions'
      | 'auth_groups'
      | 'group_permissions'
      | 'users'
      | 'user_groups'
      | 'user_permissions'
      | 'sessions'
      | 'login_failures'
      | 'password_links'
      | 'member_tokens'
      | 'oidc_links'
      | 'oidc_flows'
      | 'passkeys'
      | 'passkey_challenges'
  ]: TableDeclaration<Database[T]>;
};

/** The users app's tables, added to every table's declaration (db/tables.ts). */
declare module '../../db/tables.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the declaration merges UsersTables's members into Tables.
  interface Tables extends UsersTables {}
}
type UsersTables = typeof USERS_TABLES;
