import { sql } from 'kysely';
import { engineOf, type Db } from '../db/connection.js';
import type { TableShape } from './catalog.js';

/**
 * The id each table would give its next new row, per table with an `id` column. Ids are never
 * reused (a deleted record's URL and audit entries must not pass to another), so a restore moves
 * the target's numbering past them: PostgreSQL keeps this in identity sequences, SQLite in
 * deleted_id_high_water (migration 0004) above max(id).
 */
export async function readNextIds(db: Db, tables: readonly TableShape[]): Promise<Map<string, number>> {
  const next = new Map<string, number>();
  const postgres = engineOf(db) === 'postgres';
  const highWater = new Map<string, number>();
  if (!postgres && (await hasHighWater(db))) {
    const { rows } = await sql<{ collection: string; id: number }>`select collection, id from deleted_id_high_water`.execute(db);
    for (const row of rows) highWater.set(row.collection, Number(row.id));
  }
  for (const table of tables) {
    if (!table.columns.includes('id')) continue;
    const { rows } = await sql<{ max: number | null }>`select max(id) as max from ${sql.table(table.name)}`.execute(db);
    let value = Number(rows[0]?.max ?? 0) + 1;
    if (postgres) {
      const sequence = await sequenceOf(db, table.name);
      if (sequence !== null) {
        const { rows: seq } = await sql<{ last_value: number; is_called: boolean }>`select last_value, is_called from ${sql.raw(sequence)}`.execute(db);
        if (seq[0]) value = Math.max(value, Number(seq[0].last_value) + (seq[0].is_called ? 1 : 0));
      }
    } else {
      value = Math.max(value, (highWater.get(table.name) ?? 0) + 1);
    }
    next.set(table.name, value);
  }
  return next;
}

/** Moves the target's numbering to `next` (where it is above the rows just written, which it always is after a restore). */
export async function applyNextIds(db: Db, tables: readonly TableShape[], next: ReadonlyMap<string, number>): Promise<void> {
  const postgres = engineOf(db) === 'postgres';
  for (const table of tables) {
    if (!table.columns.includes('id')) continue;
    const { rows } = await sql<{ max: number | null }>`select max(id) as max from ${sql.table(table.name)}`.execute(db);
    const value = Math.max(Number(rows[0]?.max ?? 0) + 1, next.get(table.name) ?? 1);
    if (postgres) {
      const sequence = await sequenceOf(db, table.name);
      if (sequence !== null) await sql`select setval(${sequence}, ${value}, false)`.execute(db);
    } else {
      // Migration 0004 gave every SQLite database this table, with a row per counted table.
      await sql`update deleted_id_high_water set id = ${value - 1} where collection = ${table.name}`.execute(db);
    }
  }
}

async function hasHighWater(db: Db): Promise<boolean> {
  const { rows } = await sql<{ n: number }>`select count(*) as n from sqlite_master where type = 'table' and name = 'deleted_id_high_water'`.execute(db);
  return Number(rows[0]?.n) > 0;
}

async function sequenceOf(db: Db, table: string): Promise<string | null> {
  const { rows } = await sql<{ sequence: string | null }>`select pg_get_serial_sequence(quote_ident(current_schema()) || '.' || quote_ident(${table}), 'id') as sequence`.execute(
    db,
  );
  return rows[0]?.sequence ?? null;
}
