import { PostgresAdapter, type Kysely } from 'kysely';
import type { DatabaseTarget } from '../config.js';
import type { DatabaseEvents, DatabaseHandle, Engine } from './handle.js';
import { isPostgresConnectionFailure } from './postgres-errors.js';

export type { DatabaseEvents, DatabaseHandle, Db, Engine } from './handle.js';

/**
 * Opens a handle on the target. Each engine's module is loaded with the first database of that
 * engine: a server on SQLite never loads pg (see pg-driver.ts). The SQLite addon is loaded at
 * start either way (backup/sqlite-file.ts, which the CLI imports, needs it).
 */
export async function openDatabase(target: DatabaseTarget, events: DatabaseEvents = {}): Promise<DatabaseHandle> {
  if (target.engine === 'sqlite') return (await import('./sqlite.js')).openSqlite(target.path);
  return (await import('./postgres.js')).openPostgres({ ...target, onLeaseLost: events.leaseLost });
}

/** Which engine a Kysely handle (or transaction) talks to, for the few dialect branches. */
export function engineOf(db: Pick<Kysely<unknown>, 'getExecutor'>): Engine {
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
