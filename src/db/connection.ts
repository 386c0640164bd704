import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, type SqliteDatabase } from 'kysely';
import type { DatabaseTarget } from '../config.js';
import type { Database } from './schema.js';

export type Db = Kysely<Database>;

export interface DatabaseHandle {
  readonly db: Db;
  readonly engine: 'sqlite';
  /** A human-readable description of where the data is (never contains a password). */
  readonly location: string;
  /**
   * Changes whenever committed data may have changed. SQLite's data_version counts commits by
   * other connections (a CLI import, another process); this connection's own commits must call
   * noteWrite(), since data_version does not count them.
   */
  dataVersion(): string;
  noteWrite(): void;
  close(): Promise<void>;
}

export function openDatabase(target: DatabaseTarget): DatabaseHandle {
  if (target.path !== ':memory:') fs.mkdirSync(path.dirname(target.path), { recursive: true });
  const sqlite = new BetterSqlite3(target.path);
  // WAL with synchronous=FULL survived every kill -9 we tried and is safe against power loss.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // The default 2 MB page cache is evicted by the million-row openings index between requests.
  sqlite.pragma('cache_size = -32768');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  const dataVersion = sqlite.prepare('PRAGMA data_version').pluck();
  let ownWrites = 0;
  return {
    db,
    engine: 'sqlite',
    location: target.path,
    dataVersion: () => `${dataVersion.get()}.${ownWrites}`,
    noteWrite: () => {
      ownWrites++;
    },
    close: () => db.destroy(),
  };
}

const STATEMENT_CACHE_SIZE = 200;

/**
 * Kysely prepares every query afresh; a request runs the same few statements each time, so keep
 * them (SQLite re-prepares a kept statement by itself if the schema changes). A statement still
 * being iterated is busy and cannot be shared: then a fresh one is prepared.
 */
function withStatementCache(sqlite: BetterSqlite3.Database): SqliteDatabase {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      const kept = statements.get(sql);
      if (kept !== undefined && !kept.busy) return kept;
      const statement = sqlite.prepare(sql);
      if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value!);
      statements.set(sql, statement);
      return statement;
    },
  };
}

/**
 * Errors that mean "the database can't answer right now" rather than "this request is wrong":
 * SQLite busy or locked beyond the busy timeout, or its file unreadable. Decided by error code.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^SQLITE_(BUSY|LOCKED|CANTOPEN|IOERR|FULL)/.test(code);
}
