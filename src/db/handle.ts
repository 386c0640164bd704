import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { VersionSnapshot } from './table-versions.js';

/*
 * The types every engine module shares (connection.ts opens a handle through postgres.ts or
 * sqlite.ts, which build one): here, below all of them, so that none imports connection.ts back.
 * connection.ts re-exports them for the rest of the code.
 */

export type Db = Kysely<Database>;
export type Engine = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  readonly db: Db;
  readonly engine: Engine;
  /** A human-readable description of where the data is (never contains a password). */
  readonly location: string;
  /**
   * The versions of the tables responses are built from (table-versions.ts), reflecting at least
   * every commit made before the call, by any process: what cached responses are checked against.
   */
  versions(): Promise<VersionSnapshot>;
  /** versions() without waiting, where the engine answers at once (SQLite); null where it cannot. */
  versionsNow(): VersionSnapshot | null;
  /** Call after committing a write through this handle (SQLite does not count its own commits). */
  noteWrite(): void;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  /** The connection pool's use now (PostgreSQL); null where there is no pool (SQLite: one connection, used synchronously). */
  poolUse(): PoolUse | null;
  close(): Promise<void>;
}

export interface PoolUse {
  /** Connections open. */
  total: number;
  /** Open and not in use. */
  idle: number;
  /** Queries waiting for a connection. */
  waiting: number;
  /** The most it opens (DATABASE_POOL_SIZE). */
  max: number;
}

export interface DatabaseEvents {
  /** PostgreSQL: the read lease's connection failed; reads ask the database until it is back. */
  leaseLost?: (error: Error, retryInMs: number) => void;
}
