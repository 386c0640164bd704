import type { Database } from './schema.js';
import type { ForeignKey, TableDeclaration } from './table-declaration.js';

export type { ForeignKey, TableDeclaration } from './table-declaration.js';

/** The machinery's own tables; the installed list puts them after the apps' (src/installed-apps.ts). */
export const MACHINERY_TABLES = {
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
} as const satisfies { readonly [T in keyof Database]?: TableDeclaration<Database[T]> };

/**
 * Every table's declaration, by name: the machinery's, and each app's, which its tables.ts adds
 * (`declare module`), as its schema.ts adds its rows to Database. A value of this type is a set of
 * installed tables, in Django's dependency order (a model's table after those it refers to), which
 * the interchange models' order follows; the composition makes it from the installed apps.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the apps' tables.ts add theirs.
export interface Tables extends MachineryTables {}
type MachineryTables = typeof MACHINERY_TABLES;
export type TableName = keyof Tables;

/** Some tables' declarations, as an app's tables.ts gives them. */
export type TableDeclarations = Readonly<Record<string, TableDeclaration<Record<string, unknown>>>>;

/** The tables whose declaration has `Shape`. */
type TablesWith<Shape> = { [T in TableName]: Tables[T] extends Shape ? T : never }[TableName];

/** The compiler names a column of schema.ts that no declaration lists (`columns` checks the other way). */
type UndeclaredColumns = { [T in TableName]: Exclude<keyof Database[T], Tables[T]['columns'][number]> }[TableName];
export type EveryColumnDeclared = AssertNone<UndeclaredColumns>;
/** The compiler names a table of schema.ts that no tables.ts declares. */
export type EveryTableDeclared = AssertNone<Exclude<keyof Database, TableName>>;
type AssertNone<T extends never> = T;

export type CountedTable = TablesWith<{ counted: true }>;
export type VersionedTable = TablesWith<{ versioned: true }>;
export type CollectionTable = TablesWith<{ collection: string }>;
export type ModelTable = TablesWith<{ model: string }> | TablesWith<{ models: readonly string[] }>;
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
export type ModelName = {
  [T in ModelTable]: Tables[T] extends { model: infer Model extends string } ? Model : Tables[T] extends { models: readonly (infer Model extends string)[] } ? Model : never;
}[ModelTable];

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

/**
 * The original's models, in the tables' order (Django's dependency order: the order `dumpdata`
 * writes them), each with its table; a table of several models gives them in its `models` order.
 */
export function modelTablesOf(tables: Tables): readonly { model: ModelName; table: ModelTable; shared: boolean }[] {
  return entriesOf(tables).flatMap(([name, table]): { model: ModelName; table: ModelTable; shared: boolean }[] => {
    if (table.model !== undefined) return [{ model: table.model as ModelName, table: name as ModelTable, shared: false }];
    return (table.models ?? []).map((model) => ({ model: model as ModelName, table: name as ModelTable, shared: true }));
  });
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

/** The installed tables: the apps' (each app's in its order, the apps in the installed order), then the machinery's. */
export function installedTables(apps: readonly TableDeclarations[]): Tables {
  return Object.assign({}, ...apps, MACHINERY_TABLES) as Tables;
}
