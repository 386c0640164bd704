import { sql, type Kysely } from 'kysely';
import { engineOf } from './connection.js';

/**
 * Gives a table an app's migration creates a version that every write bumps, as migration 0005
 * did for the tables of then (db/table-versions.ts): its row in table_versions and the triggers,
 * SQLite's per row, PostgreSQL's per statement through 0005's bump_table_version(). Migrations
 * call it, so it is history like them: change what it does only by adding another function.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a migration runs on the database as it was then.
export async function addTableVersion(db: Kysely<any>, table: string): Promise<void> {
  await db
    .insertInto('table_versions')
    .values({ name: table, version: 1, changed_us: Date.now() * 1000 })
    .execute();
  if (engineOf(db) === 'postgres') {
    await sql`create trigger ${sql.id(`${table}_version`)} after insert or update or delete on ${sql.table(table)}
      for each statement execute function bump_table_version()`.execute(db);
    return;
  }
  for (const event of ['insert', 'update', 'delete'] as const) {
    await sql`create trigger ${sql.id(`${table}_version_${event}`)} after ${sql.raw(event)} on ${sql.table(table)}
      begin update table_versions set version = version + 1,
        changed_us = cast(unixepoch('subsec') * 1000000 as integer) where name = ${sql.lit(table)}; end`.execute(db);
  }
}

/**
 * Counts the rows of a table an app's migration creates in collection_counts, as migration 0001
 * did for the tables of then: SQLite's triggers per row, PostgreSQL's per statement through 0001's
 * count_inserted() and count_deleted(). History like addTableVersion.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a migration runs on the database as it was then.
export async function addTableCount(db: Kysely<any>, table: string): Promise<void> {
  await sql`insert into collection_counts (collection, n) select ${table}, count(*) from ${sql.table(table)}`.execute(db);
  if (engineOf(db) === 'postgres') {
    await sql`create trigger ${sql.id(`${table}_count_insert`)} after insert on ${sql.table(table)}
      referencing new table as inserted for each statement execute function count_inserted()`.execute(db);
    await sql`create trigger ${sql.id(`${table}_count_delete`)} after delete on ${sql.table(table)}
      referencing old table as deleted for each statement execute function count_deleted()`.execute(db);
    return;
  }
  const name = sql.lit(table);
  await sql`create trigger ${sql.id(`${table}_count_insert`)} after insert on ${sql.table(table)}
    begin update collection_counts set n = n + 1 where collection = ${name}; end`.execute(db);
  await sql`create trigger ${sql.id(`${table}_count_delete`)} after delete on ${sql.table(table)}
    begin update collection_counts set n = n - 1 where collection = ${name}; end`.execute(db);
}
