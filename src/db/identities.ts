import { sql } from 'kysely';
import { engineOf, type Db } from './connection.js';
import { countedTablesOf, modelTablesOf, type Tables } from './tables.js';

/**
 * After rows were written with explicit ids (an import), PostgreSQL's identity sequences must
 * move past them, or the next row created without an id would collide. SQLite needs nothing.
 */
export async function syncIdentities(db: Db, tables: Tables): Promise<void> {
  if (engineOf(db) !== 'postgres') return;
  for (const table of new Set([...countedTablesOf(tables), ...modelTablesOf(tables).map((entry) => entry.table)])) {
    await sql`select setval(pg_get_serial_sequence(${table}, 'id'), coalesce((select max(id) from ${sql.table(table)}), 0) + 1, false)`.execute(db);
  }
}
