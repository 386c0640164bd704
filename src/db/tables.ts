import { EVENTS_TABLES } from '../apps/events/tables.js';
import { PROJECTS_TABLES } from '../apps/projects/tables.js';
import { SPACE_TABLES } from '../apps/space/tables.js';
import { USERS_TABLES } from '../apps/users/tables.js';
import type { Database } from './schema.js';
import type { ForeignKey, TableDeclaration } from './table-declaration.js';

export type { ForeignKey, TableDeclaration } from './table-declaration.js';

/**
 * Every table: each app's (its tables.ts) and the machinery's below, in Django's dependency order
 * (a model's table after those it refers to), which the interchange models' order follows.
 */
export const TABLES = {
  ...USERS_TABLES,
  ...SPACE_TABLES,
  ...PROJECTS_TABLES,
  ...EVENTS_TABLES,
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
} as const satisfies { readonly [T in keyof Database]: TableDeclaration<Database[T]> };

export type Tables = typeof TABLES;
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
const entriesOf = (tables: Tables) => Object.entries(tables) as [TableName, AnyTable][];
const namesWith = (tables: Tables, has: (table: AnyTable) => boolean) =>
  entriesOf(tables)
    .filter(([, table]) => has(table))
    .map(([name]) => name);

/** The tables counted in collection_counts, in their order. */
export function countedTablesOf(tables: Tables): readonly CountedTable[] {
  return namesWith(tables, (t) => t.counted === true) as CountedTable[];
}

/** The tables whose versions table_versions keeps, in their order. */
export function versionedTablesOf(tables: Tables): readonly VersionedTable[] {
  return namesWith(tables, (t) => t.versioned === true) as VersionedTable[];
}

/** The original's models, in the tables' order (Django's dependency order: the order `dumpdata` writes them), each with its table. */
export function modelTablesOf(tables: Tables): readonly { model: ModelName; table: ModelTable }[] {
  return entriesOf(tables).flatMap(([name, table]) => (table.model === undefined ? [] : [{ model: table.model as ModelName, table: name as ModelTable }]));
}

/** A foreign key of some table to another, with the table that holds it. */
export interface Reference {
  readonly table: TableName;
  readonly column: string;
  readonly references: TableName;
  readonly onDelete: ForeignKey<AnyTable>['onDelete'];
}

/** Every foreign key, in the tables' order. */
export function referencesOf(tables: Tables): readonly Reference[] {
  return entriesOf(tables).flatMap(([name, table]) => (table.foreignKeys ?? []).map((key) => ({ table: name, ...key })));
}

export const TABLE_NAMES: readonly TableName[] = entriesOf(TABLES).map(([name]) => name);
export const COUNTED_TABLES = countedTablesOf(TABLES);
export const VERSIONED_TABLES = versionedTablesOf(TABLES);
export const MODEL_TABLES = modelTablesOf(TABLES);
export const REFERENCES = referencesOf(TABLES);

/** The foreign keys that refer to a table. */
export function referencesTo(table: TableName): Reference[] {
  return REFERENCES.filter((key) => key.references === table);
}
