import { CompiledQuery, sql, type Kysely } from 'kysely';
import { engineOf, type Db, type Engine } from '../db/connection.js';
import { BackupError } from './backup-error.js';
import { NOT_COPIED, parentsFirst, tablesOf, type TableShape } from './catalog.js';
import { applyNextIds, readNextIds } from './next-ids.js';

/** SQLite's limit on bound parameters per statement (PostgreSQL allows 65,535). */
const MAX_PARAMETERS = 32_766;
const MAX_ROWS = 5_000;

export interface CopyOptions {
  /** Delete the target's rows first; otherwise a target holding any row is refused. */
  replace?: boolean;
}

/**
 * Copies every table's rows from `source` to `target`, both inside transactions the caller owns
 * (the source's one snapshot, the target's one write transaction, so that a failure leaves the
 * target as it was). Tables are found in the catalogs, not listed here: whatever a migration adds
 * travels too. Derived tables are not copied: the target's triggers rebuild them from the rows
 * (NOT_COPIED). Returns the rows copied per table.
 */
export async function copyTables(source: Db, target: Db, options: CopyOptions = {}): Promise<Record<string, number>> {
  const sourceTables = (await tablesOf(source)).filter((t) => !NOT_COPIED.has(t.name));
  const targetTables = parentsFirst((await tablesOf(target)).filter((t) => !NOT_COPIED.has(t.name)));
  const known = new Set(targetTables.map((t) => t.name));
  const unknown = sourceTables.filter((t) => !known.has(t.name)).map((t) => t.name);
  if (unknown.length > 0) {
    throw new BackupError(`the backup holds tables this version does not have (${unknown.join(', ')}): restore it with the version of hackerspace-api that made it`);
  }
  await emptyTarget(target, targetTables, options.replace ?? false);
  const nextIds = await readNextIds(source, sourceTables);
  const bySource = new Map(sourceTables.map((t) => [t.name, t]));
  const engine = engineOf(target);
  const copied: Record<string, number> = {};
  for (const table of targetTables) {
    const from = bySource.get(table.name);
    if (!from) continue;
    const columns = table.columns.filter((c) => from.columns.includes(c));
    copied[table.name] = 0;
    for await (const rows of readBatches(source, table.name, columns, batchRows(columns.length))) {
      await insertRows(
        target,
        table.name,
        columns,
        rows.map((row) => columns.map((c) => toEngine(row[c], engine))),
      );
      copied[table.name] += rows.length;
    }
  }
  await applyNextIds(target, targetTables, nextIds);
  return copied;
}

/** Refuses a target with rows (naming its tables), or deletes them, children first, with --replace. */
async function emptyTarget(target: Db, tables: readonly TableShape[], replace: boolean): Promise<void> {
  const holding: string[] = [];
  for (const table of tables) {
    const { rows } = await sql`select 1 as one from ${sql.table(table.name)} limit 1`.execute(target);
    if (rows.length > 0) holding.push(table.name);
  }
  if (holding.length === 0) return;
  if (!replace) {
    throw new BackupError(`the database is not empty (rows in ${holding.join(', ')}): restore into an empty database, or add --replace to replace all its data`);
  }
  // DELETE, not TRUNCATE: the triggers must see the rows go, so that counts and buckets stay exact.
  for (const table of [...tables].reverse()) await sql`delete from ${sql.table(table.name)}`.execute(target);
}

function batchRows(columnCount: number): number {
  return Math.max(1, Math.min(MAX_ROWS, Math.floor(MAX_PARAMETERS / Math.max(columnCount, 1))));
}

/**
 * The rows of one table in batches, in constant memory. SQLite streams a statement; PostgreSQL
 * needs a cursor, which lives in the caller's transaction (the snapshot being copied).
 */
async function* readBatches(db: Db, table: string, columns: string[], size: number): AsyncGenerator<Array<Record<string, unknown>>> {
  if (engineOf(db) === 'sqlite') {
    let batch: Array<Record<string, unknown>> = [];
    // Untyped: the tables come from the catalog, not from the typed schema.
    const untyped = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
    for await (const row of untyped.selectFrom(table).select(columns).stream(size)) {
      batch.push(row);
      if (batch.length >= size) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
    return;
  }
  const select = sql`select ${sql.join(columns.map((c) => sql.ref(c)))} from ${sql.table(table)}`;
  await sql`declare backup_rows no scroll cursor for ${select}`.execute(db);
  try {
    for (;;) {
      const { rows } = await sql<Record<string, unknown>>`fetch forward ${sql.lit(size)} from backup_rows`.execute(db);
      if (rows.length > 0) yield rows;
      if (rows.length < size) return;
    }
  } finally {
    await sql`close backup_rows`.execute(db);
  }
}

async function insertRows(db: Db, table: string, columns: string[], rows: unknown[][]): Promise<void> {
  if (rows.length === 0) return;
  const postgres = engineOf(db) === 'postgres';
  let n = 0;
  const placeholder = () => (postgres ? `$${++n}` : '?');
  const tuples = rows.map((row) => `(${row.map(placeholder).join(', ')})`).join(', ');
  const text = `insert into ${quote(table)} (${columns.map(quote).join(', ')}) values ${tuples}`;
  await (db as Kysely<unknown>).executeQuery(CompiledQuery.raw(text, rows.flat()));
}

/**
 * A value as the target engine stores it. Both engines keep our data as integers and text; a
 * PostgreSQL-only type in a future table (boolean, json, timestamp) becomes SQLite's equivalent.
 */
function toEngine(value: unknown, engine: Engine): unknown {
  if (engine === 'postgres' || value === null || typeof value !== 'object' || Buffer.isBuffer(value)) {
    return typeof value === 'boolean' && engine === 'sqlite' ? Number(value) : value;
  }
  return value instanceof Date ? value.toISOString() : JSON.stringify(value);
}

function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}
