import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, type SqliteDatabase } from 'kysely';
import type { DatabaseHandle } from './handle.js';
import type { Database } from './schema.js';
import { snapshotOf, type VersionSnapshot } from './table-versions.js';

export function openSqlite(file: string): DatabaseHandle {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new BetterSqlite3(file);
  // WAL with synchronous=FULL survived every kill -9 we tried and is safe against power loss.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // The default 2 MB page cache is evicted by the million-row openings index between requests.
  sqlite.pragma('cache_size = -32768');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  // Two statements, not `select … from pragma_data_version`, which parses its PRAGMA per call (~7,000 instructions).
  const dataVersion = sqlite.prepare('PRAGMA data_version').pluck();
  const totalChanges = sqlite.prepare('select total_changes()').pluck();
  let ownWrites = 0;
  // Re-read only when a commit happened: data_version counts other connections' commits,
  // noteWrite() our own write transactions, and total_changes() this connection's statements
  // outside them (a token revoked through this handle), counted only outside a transaction, whose
  // changes are not committed yet. A call then costs one local read.
  let readAt = { dataVersion: -1, ownWrites: -1, changes: -1 };
  let versions: VersionSnapshot | undefined;
  let readVersions: BetterSqlite3.Statement | undefined;
  const currentVersions = (): VersionSnapshot => {
    const dataVersionNow = dataVersion.get() as number;
    const changesNow = totalChanges.get() as number;
    const ownChanges = changesNow !== readAt.changes && !sqlite.inTransaction;
    if (versions === undefined || dataVersionNow !== readAt.dataVersion || ownWrites !== readAt.ownWrites || ownChanges) {
      // Prepared on first use: a brand-new file has no table_versions until it is migrated.
      readVersions ??= sqlite.prepare('select name, version, changed_us from table_versions');
      versions = snapshotOf(readVersions.all() as Array<{ name: string; version: number; changed_us: number }>);
      readAt = { dataVersion: dataVersionNow, ownWrites, changes: sqlite.inTransaction ? readAt.changes : changesNow };
    }
    return versions;
  };
  return {
    db,
    engine: 'sqlite',
    location: file,
    versions: async () => currentVersions(),
    versionsNow: () => currentVersions(),
    noteWrite: () => {
      ownWrites++;
    },
    ping: async () => {
      // Reads the file's schema page (a bare `select 1` would not), so a broken or closed file
      // shows; it exists before any migration, so a brand-new database passes.
      sqlite.prepare('select count(*) from sqlite_master').get();
    },
    poolUse: () => null,
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
