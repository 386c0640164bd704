import { Kysely, PostgresAdapter } from 'kysely';
import type { DatabaseTarget } from '../config.js';
import { isPostgresConnectionFailure, openPostgres } from './postgres.js';
import type { Database } from './schema.js';
import { openSqlite } from './sqlite.js';
import type { VersionSnapshot } from './table-versions.js';

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
  close(): Promise<void>;
}

export interface DatabaseEvents {
  /** PostgreSQL: the read lease's connection failed; reads ask the database until it is back. */
  leaseLost?(error: Error, retryInMs: number): void;
}

export function openDatabase(target: DatabaseTarget, events: DatabaseEvents = {}): DatabaseHandle {
  return target.engine === 'sqlite' ? openSqlite(target.path) : openPostgres({ ...target, onLeaseLost: events.leaseLost });
}

/** Which engine a Kysely handle (or transaction) talks to, for the few dialect branches. */
export function engineOf(db: Kysely<any>): Engine {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/**
 * Errors that mean "the database can't answer right now" rather than "this request is wrong":
 * SQLite busy or unreadable; PostgreSQL unreachable, shutting down, out of connections, or a
 * statement cancelled by the timeout.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^SQLITE_(BUSY|LOCKED|CANTOPEN|IOERR|FULL)/.test(code)) return true;
  return isPostgresConnectionFailure(error);
}

/** A unique, foreign-key or check constraint refused a write (SQLite or PostgreSQL class 23). */
export function isConstraintViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_CONSTRAINT') || /^23[0-9A-Z]{3}$/.test(code));
}
