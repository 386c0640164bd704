import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { DatabaseHandle } from './connection.js';
import type { Database } from './schema.js';

const INT8_OID = 20;

/**
 * bigint columns (microsecond times, counts) come back as strings from pg; every value we store
 * fits a double exactly (times until year 2255), so read them as numbers.
 */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary' ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export interface PostgresOptions {
  url: string;
  poolSize: number;
  statementTimeoutMs: number;
}

export function openPostgres(options: PostgresOptions): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize,
    statement_timeout: options.statementTimeoutMs,
    // A request must not hang on a dead server: give up on the query and on the connection.
    query_timeout: options.statementTimeoutMs + 1000,
    connectionTimeoutMillis: options.statementTimeoutMs,
    types,
  });
  // An idle client whose server went away emits 'error'; without a listener the process would die.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    engine: 'postgres',
    location: describeUrl(options.url),
    // A row bumped by statement triggers on every table: exact across processes.
    dataVersion: async () => {
      const { rows } = await pool.query<{ version: number }>('select version from data_version');
      return String(rows[0]?.version ?? 0);
    },
    noteWrite: () => {},
    ping: async () => {
      await pool.query('select 1');
    },
    close: () => db.destroy(),
  };
}

/** The URL without its password, for logs and messages. */
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

/** SQLSTATE classes: 08 connection exception, 53 insufficient resources, 57 operator intervention (incl. statement timeout). */
const UNAVAILABLE_SQLSTATE = /^(08|53|57)/;
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/**
 * pg reports its own client-side timeouts and dropped connections with plain Errors that carry
 * no code; these fixed sentences are the only way to tell them apart.
 */
const CLIENT_FAILURES = /^(Query read timeout|timeout exceeded when trying to connect|Connection terminated)/;

export function isPostgresConnectionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return NETWORK_CODES.has(code) || (error instanceof pg.DatabaseError && UNAVAILABLE_SQLSTATE.test(code));
  return CLIENT_FAILURES.test(error.message);
}
