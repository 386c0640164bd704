import fs from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Db } from '../db/connection.js';
import type { MigrationSet } from '../db/migrations.js';
import type { Database } from '../db/schema.js';
import { BackupError } from './backup-error.js';

/**
 * SQLite's online backup API, from a connection of its own to the service's file: the copy is
 * the database as of one commit, WAL included, while the service keeps reading and writing.
 * Every page is copied in one step: between steps, a write by another process (the service)
 * would restart the copy, and under a steady stream of writes it might never finish.
 */
export async function backupSqliteFile(databaseFile: string, partial: string): Promise<void> {
  if (!fs.existsSync(databaseFile)) throw new BackupError(`there is no database at ${databaseFile}: nothing to back up`);
  const source = new BetterSqlite3(databaseFile, { fileMustExist: true });
  try {
    source.pragma('busy_timeout = 5000');
    const migrated = source.prepare("select count(*) as n from sqlite_master where type = 'table' and name = 'kysely_migration'").pluck().get() as number;
    if (migrated === 0) throw new BackupError(`${databaseFile} is not a hackerspace-api database (it was never migrated): nothing to back up`);
    await source.backup(partial, { progress: () => 0x7fffffff });
  } finally {
    source.close();
  }
  makeSelfContained(partial);
}

/**
 * Leaves a backup as one file in rollback-journal mode, checked: a WAL-mode file needs its -shm
 * companion to be read, and cannot be opened read-only in a read-only directory.
 */
export function makeSelfContained(file: string): void {
  const db = new BetterSqlite3(file, { fileMustExist: true });
  try {
    db.pragma('journal_mode = DELETE');
    const check = db.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new BackupError(`the copy failed its integrity check: ${String(check)}`);
  } finally {
    db.close();
  }
}

/** A backup file opened read-only, checked, as a Kysely handle to copy from. */
export interface BackupDatabase {
  db: Db;
  migrations: string[];
  close(): Promise<void>;
}

/**
 * Opens an SQLite backup read-only and checks that it is whole and ours: readable pages, a
 * migration history this version knows (a newer version's backup may hold what this one would
 * drop).
 */
export function openBackupDatabase(file: string, migrations: MigrationSet): BackupDatabase {
  let sqlite: BetterSqlite3.Database | undefined;
  try {
    sqlite = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
    const check = sqlite.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new BackupError(`the backup ${file} is damaged: ${String(check)}`);
    const hasMigrations = sqlite.prepare("select count(*) from sqlite_master where type = 'table' and name = 'kysely_migration'").pluck().get() as number;
    if (hasMigrations === 0) throw new BackupError(`${file} is an SQLite database but not a hackerspace-api backup (it has no migration history)`);
    const applied = sqlite.prepare('select name from kysely_migration order by name').pluck().all() as string[];
    const unknown = applied.filter((name) => !(name in migrations));
    if (unknown.length > 0) {
      throw new BackupError(`the backup ${file} was made by a newer version of hackerspace-api (migrations ${unknown.join(', ')}): restore it with that version`);
    }
  } catch (error) {
    sqlite?.close();
    if (error instanceof BackupError) throw error;
    throw new BackupError(`the backup ${file} cannot be read: ${(error as Error).message}`);
  }
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  const applied = sqlite.prepare('select name from kysely_migration order by name').pluck().all() as string[];
  return { db, migrations: applied, close: () => db.destroy() };
}
