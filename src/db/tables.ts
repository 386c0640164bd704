import type { Database } from './schema.js';

/**
 * Every table of today's schema, declared once: its columns, what keeps it (counts, versions),
 * the collection and the original's model it holds, what it refers to, and its named indexes.
 * The counted and versioned tables, the collection registry's tables, the interchange models'
 * order, the join tables and the references a user's deletion must clear are derived from here;
 * test/registry.test.ts checks that migrating a new database gives exactly this.
 * Migrations never import it: each spells out the tables it touches as they were then.
 */
export interface TableDeclaration<Row> {
  /** Every column (the compiler checks them against schema.ts). */
  readonly columns: readonly (keyof Row & string)[];
  /** Its row count is kept in collection_counts by triggers, so that `count` never scans it. */
  readonly counted?: true;
  /** Every write bumps its version in table_versions (responses are built from it). */
  readonly versioned?: true;
  /** The API collection it stores, by its path under `/api/` (drf/collections.ts). */
  readonly collection?: string;
  /** The original's model it stores (`app.model`, as Django fixtures name it), for import and export. */
  readonly model?: string;
  /** Columns of ours that the original's model lacks: an import leaves them as they are, an export skips them. */
  readonly localColumns?: readonly (keyof Row & string)[];
  /** A join table of a many-to-many field: the owner's column and the target's. */
  readonly link?: { readonly owner: keyof Row & string; readonly target: keyof Row & string };
  readonly foreignKeys?: readonly ForeignKey<Row>[];
  /** Indexes created by name (not those a primary key or a unique column makes). */
  readonly indexes?: readonly string[];
  /** The engines it exists on, when not every one (handle.ts's Engine; importing it would close a cycle). */
  readonly engines?: readonly ('sqlite' | 'postgres')[];
}

export interface ForeignKey<Row> {
  readonly column: keyof Row & string;
  readonly references: keyof Database;
  /** What deleting the referenced row does: refused (restrict, no action) or this row goes too (cascade). */
  readonly onDelete: 'restrict' | 'cascade' | 'no action';
}

/** In Django's dependency order (a model's table after those it refers to), join tables after their owner. */
export const TABLES = {
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
    ],
    counted: true,
    versioned: true,
    collection: 'users',
    model: 'users.user',
    localColumns: ['show_name'],
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
  openings: {
    columns: ['id', 'time_us', 'is_open'],
    counted: true,
    versioned: true,
    collection: 'space/openings',
    model: 'space.spacestatus',
    indexes: ['openings_time_id'],
  },
  projects: {
    columns: ['id', 'title', 'maintainer_id', 'status', 'progress', 'short_description', 'content', 'created_us', 'modified_us', 'picture'],
    counted: true,
    versioned: true,
    collection: 'projects',
    model: 'projects.project',
    foreignKeys: [{ column: 'maintainer_id', references: 'users', onDelete: 'restrict' }],
    indexes: ['projects_maintainer'],
  },
  project_participants: {
    columns: ['project_id', 'user_id'],
    versioned: true,
    link: { owner: 'project_id', target: 'user_id' },
    foreignKeys: [
      { column: 'project_id', references: 'projects', onDelete: 'cascade' },
      { column: 'user_id', references: 'users', onDelete: 'cascade' },
    ],
    indexes: ['project_participants_user'],
  },
  project_dependencies: {
    columns: ['project_id', 'dependency_id'],
    link: { owner: 'project_id', target: 'dependency_id' },
    foreignKeys: [
      { column: 'project_id', references: 'projects', onDelete: 'cascade' },
      { column: 'dependency_id', references: 'projects', onDelete: 'cascade' },
    ],
    indexes: ['project_dependencies_dependency'],
  },
  events: {
    columns: ['id', 'title', 'place', 'start_us', 'stop_us', 'status', 'organizer_id', 'description', 'picture', 'is_talk'],
    counted: true,
    versioned: true,
    collection: 'events',
    model: 'events.event',
    foreignKeys: [{ column: 'organizer_id', references: 'users', onDelete: 'restrict' }],
    indexes: ['events_start_stop', 'events_organizer'],
  },
  event_interested: {
    columns: ['event_id', 'user_id'],
    link: { owner: 'event_id', target: 'user_id' },
    foreignKeys: [
      { column: 'event_id', references: 'events', onDelete: 'cascade' },
      { column: 'user_id', references: 'users', onDelete: 'cascade' },
    ],
    indexes: ['event_interested_user'],
  },
  meetings: {
    columns: ['id', 'event_id', 'agenda', 'minutes', 'pad', 'ongoing'],
    counted: true,
    versioned: true,
    collection: 'meetings',
    model: 'events.meeting',
    foreignKeys: [{ column: 'event_id', references: 'events', onDelete: 'restrict' }],
  },
  meeting_members: {
    columns: ['meeting_id', 'user_id'],
    versioned: true,
    link: { owner: 'meeting_id', target: 'user_id' },
    foreignKeys: [
      { column: 'meeting_id', references: 'meetings', onDelete: 'cascade' },
      { column: 'user_id', references: 'users', onDelete: 'cascade' },
    ],
    indexes: ['meeting_members_user'],
  },
  collection_counts: { columns: ['collection', 'n'] },
  api_tokens: {
    columns: ['id', 'name', 'scope', 'secret_hash', 'created_us', 'last_used_us', 'revoked_us'],
    indexes: ['api_tokens_active_name'],
  },
  audit_log: {
    columns: ['id', 'time_us', 'token_id', 'token_name', 'method', 'path', 'collection', 'record_id', 'status'],
    foreignKeys: [{ column: 'token_id', references: 'api_tokens', onDelete: 'no action' }],
  },
  // PostgreSQL identities never reuse an id; SQLite needs this (migration 0004).
  deleted_id_high_water: { columns: ['collection', 'id'], engines: ['sqlite'] },
  table_versions: { columns: ['name', 'version', 'changed_us'] },
  opening_buckets: { columns: ['level', 'bucket', 'n'] },
  webhook_deliveries: {
    columns: [
      'id',
      'event',
      'event_id',
      'body',
      'url_key',
      'target',
      'status',
      'attempts',
      'created_us',
      'first_attempt_us',
      'last_attempt_us',
      'next_attempt_us',
      'next_delay_ms',
      'claimed_by',
      'claimed_until_us',
      'last_error',
      'finished_us',
    ],
    indexes: ['webhook_deliveries_due', 'webhook_deliveries_created'],
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
} as const satisfies { readonly [T in keyof Database]: TableDeclaration<Database[T]> };

type Tables = typeof TABLES;
export type TableName = keyof Tables;

/** The tables whose declaration has `Shape`. */
type TablesWith<Shape> = { [T in TableName]: Tables[T] extends Shape ? T : never }[TableName];

/** The compiler names a column of schema.ts that TABLES does not list (`columns` checks the other way). */
type UndeclaredColumns = { [T in TableName]: Exclude<keyof Database[T], Tables[T]['columns'][number]> }[TableName];
export type EveryColumnDeclared = AssertNone<UndeclaredColumns>;
type AssertNone<T extends never> = T;

export type CountedTable = TablesWith<{ counted: true }>;
export type VersionedTable = TablesWith<{ versioned: true }>;
export type CollectionTable = TablesWith<{ collection: string }>;
export type ModelTable = TablesWith<{ model: string }>;
export type LinkTable = TablesWith<{ link: object }>;
/** `table.column` for each foreign key to `Target` whose deletion `OnDelete` governs. */
export type ReferenceTo<Target extends TableName, OnDelete extends ForeignKey<unknown>['onDelete'] = ForeignKey<unknown>['onDelete']> = {
  [T in TableName]: Tables[T] extends { foreignKeys: readonly (infer Key)[] }
    ? Key extends { column: infer Column extends string; references: Target; onDelete: OnDelete }
      ? `${T}.${Column}`
      : never
    : never;
}[TableName];
/** The original's models, as fixtures name them. */
export type ModelName = Tables[ModelTable]['model'];

type AnyTable = TableDeclaration<Record<string, unknown>>;
const declared = Object.entries(TABLES) as [TableName, AnyTable][];
const namesWith = (has: (table: AnyTable) => boolean) => declared.filter(([, table]) => has(table)).map(([name]) => name);

export const TABLE_NAMES: readonly TableName[] = declared.map(([name]) => name);
export const COUNTED_TABLES = namesWith((t) => t.counted === true) as readonly CountedTable[];
export const VERSIONED_TABLES = namesWith((t) => t.versioned === true) as readonly VersionedTable[];

/** The original's models, in Django's dependency order (the order `dumpdata` writes them), each with its table. */
export const MODEL_TABLES = declared.flatMap(([name, table]) => (table.model === undefined ? [] : [{ model: table.model, table: name }])) as readonly {
  model: ModelName;
  table: ModelTable;
}[];

/** A foreign key of some table to another, with the table that holds it. */
export interface Reference {
  readonly table: TableName;
  readonly column: string;
  readonly references: TableName;
  readonly onDelete: ForeignKey<AnyTable>['onDelete'];
}

/** Every foreign key, in the tables' order. */
export const REFERENCES: readonly Reference[] = declared.flatMap(([name, table]) => (table.foreignKeys ?? []).map((key) => ({ table: name, ...key })));

/** The foreign keys that refer to a table. */
export function referencesTo(table: TableName): Reference[] {
  return REFERENCES.filter((key) => key.references === table);
}
