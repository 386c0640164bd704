import { sql } from 'kysely';
import { engineOf, type Db } from '../db/connection.js';

/** A table as the catalog describes it: its columns in order, and the tables its foreign keys point to. */
export interface TableShape {
  name: string;
  columns: string[];
  references: string[];
}

/**
 * Tables a backup does not carry as rows: the migration bookkeeping (the target is migrated by
 * this version), and what triggers derive from the data tables as rows are inserted (counts,
 * opening buckets, table versions; 0001's data_version on an old PostgreSQL database). SQLite's
 * deleted-id high water travels as "next ids" instead (ids.ts), so that no engine reuses an id.
 */
export const NOT_COPIED = new Set(['kysely_migration', 'kysely_migration_lock', 'collection_counts', 'opening_buckets', 'table_versions', 'data_version', 'deleted_id_high_water']);

/** Every table of the database (PostgreSQL: of the current schema), whatever the migrations added. */
export async function tablesOf(db: Db): Promise<TableShape[]> {
  if (engineOf(db) === 'postgres') {
    const { rows: columns } = await sql<{ table_name: string; column_name: string }>`
      select c.table_name, c.column_name from information_schema.columns c
      join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
      where c.table_schema = current_schema() and t.table_type = 'BASE TABLE'
      order by c.table_name, c.ordinal_position`.execute(db);
    const { rows: keys } = await sql<{ child: string; parent: string }>`
      select c.relname as child, p.relname as parent from pg_constraint k
      join pg_class c on c.oid = k.conrelid join pg_class p on p.oid = k.confrelid
      where k.contype = 'f' and c.relnamespace = (select oid from pg_namespace where nspname = current_schema())`.execute(db);
    return shapes(
      columns.map((c) => [c.table_name, c.column_name]),
      keys.map((k) => [k.child, k.parent]),
    );
  }
  const { rows: tables } = await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite\\_%' escape '\\'`.execute(db);
  const columns: Array<[string, string]> = [];
  const keys: Array<[string, string]> = [];
  for (const { name } of tables) {
    const { rows } = await sql<{ name: string }>`select name from pragma_table_info(${name}) order by cid`.execute(db);
    for (const row of rows) columns.push([name, row.name]);
    const { rows: fks } = await sql<{ table: string }>`select "table" from pragma_foreign_key_list(${name})`.execute(db);
    for (const fk of fks) keys.push([name, fk.table]);
  }
  return shapes(columns, keys);
}

function shapes(columns: Array<[string, string]>, keys: Array<[string, string]>): TableShape[] {
  const byName = new Map<string, TableShape>();
  for (const [table, column] of columns) {
    let shape = byName.get(table);
    if (!shape) byName.set(table, (shape = { name: table, columns: [], references: [] }));
    shape.columns.push(column);
  }
  for (const [child, parent] of keys) {
    const shape = byName.get(child);
    if (shape && parent !== child && !shape.references.includes(parent)) shape.references.push(parent);
  }
  return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Parents before children, so that rows can be inserted in this order and deleted in the reverse
 * one: most of our foreign keys are deferred to commit, but not all (audit_log → api_tokens).
 */
export function parentsFirst(tables: readonly TableShape[]): TableShape[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const ordered: TableShape[] = [];
  const placed = new Set<string>();
  const visit = (table: TableShape, path: Set<string>) => {
    if (placed.has(table.name) || path.has(table.name)) return;
    path.add(table.name);
    for (const parent of table.references) {
      const shape = byName.get(parent);
      if (shape) visit(shape, path);
    }
    placed.add(table.name);
    ordered.push(table);
  };
  for (const table of tables) visit(table, new Set());
  return ordered;
}

/** The migrations applied to a database, in order (empty when it was never migrated). */
export async function migrationsOf(db: Db): Promise<string[]> {
  const tables = await tablesOf(db);
  if (!tables.some((t) => t.name === 'kysely_migration')) return [];
  const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
  return rows.map((r) => r.name);
}
