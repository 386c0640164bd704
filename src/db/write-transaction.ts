import { sql, type RawBuilder } from 'kysely';
import { engineOf, type Db } from './connection.js';
import { announceWrite, finishWrite, takeLeases } from './read-lease.js';

/**
 * Runs `work` in a transaction that no other writer overlaps, in this process or another, so that
 * read-then-write rules (the door's "same state records nothing", unique names, "nobody refers to
 * this record") hold under concurrency. SQLite: BEGIN IMMEDIATE takes the database's write lock
 * up front (a deferred transaction would fail on upgrade instead of waiting). PostgreSQL: the
 * writers' advisory lock, and the read leases of every serving process (read-lease.ts), so that
 * none of them answers from versions this write makes stale. Writes are rare next to reads, so
 * one lock for all of them costs little and rules out deadlocks between tables.
 *
 * `beforeCommit`, when given, runs last in the transaction, told which tables it changed.
 */
export async function writeTransaction<T>(db: Db, work: (trx: Db) => Promise<T>, beforeCommit?: BeforeCommit): Promise<T> {
  if (engineOf(db) === 'postgres') {
    return db.connection().execute(async (connection) => {
      try {
        await announceWrite(connection);
        await takeLeases(connection);
        return await connection.transaction().execute(async (trx) => {
          const result = await work(trx);
          const changed = await restampChanges(
            trx,
            sql`(extract(epoch from transaction_timestamp()) * 1000000)::bigint`,
            sql`(extract(epoch from clock_timestamp()) * 1000000)::bigint`,
          );
          await beforeCommit?.(trx, changed);
          return result;
        });
      } finally {
        // Session locks outlive a rollback: let go of them whatever happened.
        await finishWrite(connection);
      }
    });
  }
  return db.connection().execute(async (connection) => {
    await sql`begin immediate`.execute(connection);
    const startedUs = Date.now() * 1000;
    try {
      const result = await work(connection);
      const changed = await restampChanges(connection, sql`${startedUs}`, sql`cast(unixepoch('subsec') * 1000000 as integer)`);
      await beforeCommit?.(connection, changed);
      await sql`commit`.execute(connection);
      return result;
    } catch (error) {
      // A failed COMMIT (a deferred constraint) leaves the transaction open: end it either way.
      await sql`rollback`.execute(connection).catch(() => {});
      throw error;
    }
  });
}

/** The last step of a write transaction, given the names of the tables it changed (table_versions). */
export type BeforeCommit = (trx: Db, changedTables: readonly string[]) => Promise<void>;

/**
 * Moves the change times that this transaction's triggers wrote (each at its statement's end) to
 * just before the commit. A long transaction (an import) would otherwise publish a change time
 * seconds older than the moment its data became visible, and a client that holds a response
 * dated in that earlier second would be told "not modified" (Last-Modified has whole seconds).
 * Returns the tables it restamped: those this transaction changed (it holds the write lock).
 */
async function restampChanges(trx: Db, startedUs: RawBuilder<unknown>, nowUs: RawBuilder<unknown>): Promise<readonly string[]> {
  const { rows } = await sql<{ name: string }>`update table_versions set changed_us = ${nowUs} where changed_us >= ${startedUs} returning name`.execute(trx);
  return rows.map((row) => row.name);
}
