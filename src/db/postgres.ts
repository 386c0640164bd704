import { Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient } from 'kysely';
import pg from 'pg';
import type { DatabaseHandle } from './handle.js';
import type { Database } from './schema.js';
import { isPostgresConnectionFailure } from './postgres-errors.js';
import { describeUrl } from './postgres-url.js';
import { ReadLease } from './read-lease.js';
import { anyChange, FreshRead, snapshotOf, type VersionSnapshot } from './table-versions.js';

const INT8_OID = 20;

/**
 * bigint columns (microsecond times, counts) come back as strings from pg; every value we store
 * fits a double exactly (times until year 2255), so read them as numbers.
 */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary' ? Number : (pg.types.getTypeParser(oid, format) as (value: string) => unknown)) as typeof pg.types.getTypeParser,
};

export interface PostgresOptions {
  url: string;
  poolSize: number;
  statementTimeoutMs: number;
  /** Told when the read lease's connection failed (reads then ask the database each time). */
  onLeaseLost?: (error: Error, retryInMs: number) => void;
}

export function openPostgres(options: PostgresOptions): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize,
    statement_timeout: options.statementTimeoutMs,
    // A request must not hang on a dead server: give up on the query (a little after the server's
    // own statement_timeout would have answered) and on the connection.
    query_timeout: options.statementTimeoutMs + queryTimeoutMargin(options.statementTimeoutMs),
    connectionTimeoutMillis: options.statementTimeoutMs,
    types,
  });
  // An idle client whose server went away emits 'error'; without a listener the process would die.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: guardedPool(pool) }) });
  // The same snapshot object while nothing changed: the response cache compares them by identity first.
  let latest: VersionSnapshot | null = null;
  const adopt = (rows: ReadonlyArray<{ name: string; version: number | string; changed_us: number | string }>) => {
    const snapshot = snapshotOf(rows);
    if (latest === null || anyChange(latest, snapshot)) latest = snapshot;
    return latest;
  };
  // Without a lease: one round trip serves every request that arrived while the previous one ran.
  const fresh = new FreshRead(async () => {
    // Named: each connection plans it once.
    const { rows } = await pool.query<{ name: string; version: number; changed_us: number }>({
      name: 'table_versions',
      text: 'select name, version, changed_us from table_versions',
    });
    return adopt(rows);
  });
  const lease = new ReadLease({
    url: options.url,
    adopt,
    onConnectionLost: (error, retryInMs) => options.onLeaseLost?.(error, retryInMs),
  });
  return {
    db,
    engine: 'postgres',
    location: describeUrl(options.url),
    // Table versions are bumped by statement triggers on every table: exact across processes.
    versions: () => {
      const held = lease.current();
      return held !== null ? Promise.resolve(held) : fresh.get();
    },
    versionsNow: () => lease.current(),
    noteWrite: () => {},
    ping: async () => {
      await pool.query('select 1');
    },
    poolUse: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: options.poolSize }),
    close: async () => {
      await lease.close();
      await db.destroy();
      // Kysely ends the pool only if it ran a query itself; version reads use the pool directly.
      if (!pool.ended) await pool.end();
    },
  };
}

/**
 * How much longer than statement_timeout the client waits for an answer before it gives up on
 * the connection: long enough for the server's own cancellation (which keeps the connection
 * usable) to arrive first, short enough that a silent server costs little more than the timeout.
 */
export function queryTimeoutMargin(statementTimeoutMs: number): number {
  return Math.min(1000, Math.max(250, Math.round(statementTimeoutMs / 4)));
}

/**
 * The pool as Kysely sees it. pg-pool only watches idle clients: a checked-out client whose
 * connection breaks emits an 'error' event that nobody handles, which would end the process, and
 * a client whose query was given up on by query_timeout still waits for that query's answer, so
 * Kysely's ROLLBACK after the failure would wait out a second timeout and the client would go
 * back to the pool hung. Here the first connection-level failure of a checked-out client poisons
 * it: every later query on it fails at once with that error, and on release it is removed from
 * the pool and its socket destroyed.
 */
function guardedPool(pool: pg.Pool): PostgresPool {
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      let failure: Error | undefined;
      const onError = (error: Error) => {
        failure ??= error;
      };
      client.on('error', onError);
      const query = async (text: string, parameters: ReadonlyArray<unknown>) => {
        if (failure) throw failure;
        try {
          return await client.query(text, parameters as unknown[]);
        } catch (error) {
          if (!(error instanceof pg.DatabaseError) && isPostgresConnectionFailure(error)) failure ??= error as Error;
          throw error;
        }
      };
      return {
        // Only plain queries: no cursor class is configured, so Kysely never passes one.
        query: query as unknown as PostgresPoolClient['query'],
        release() {
          client.off('error', onError);
          // An error removes the client from the pool; pg destroys a socket with a query pending.
          client.release(failure);
        },
      };
    },
    end: () => pool.end(),
  };
}
