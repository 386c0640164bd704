import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import type { DatabaseTarget } from '../config.js';
import { openDatabase, type DatabaseHandle } from '../db/connection.js';
import { migrateToLatest, type MigrationSet } from '../db/migrations.js';
import { describeUrl } from '../db/postgres-url.js';
import { writeTransaction } from '../db/write-transaction.js';
import { BackupError } from './backup-error.js';
import { migrationsOf } from './catalog.js';
import { copyTables } from './copy.js';
import { checkTargetDirectory, commitPartial, partialPath, removePartial } from './files.js';
import { connectionFor, firstLine, runTool, schemaPattern } from './pg-tools.js';
import { backupSqliteFile, makeSelfContained } from './sqlite-file.js';

/** `sqlite`: an SQLite database file (from either engine); `pg_dump`: a pg_dump custom-format archive; `auto`: the engine's own. */
export type BackupFormat = 'auto' | 'sqlite' | 'pg_dump';

export interface BackupResult {
  format: 'sqlite' | 'pg_dump';
  bytes: number;
  /** Rows per table, when this process copied them (the portable format from PostgreSQL). */
  rows?: Record<string, number>;
  /** Why `auto` did not use pg_dump. */
  note?: string;
}

/**
 * Writes a consistent copy of the database to `file` while the service keeps running: SQLite with
 * its online backup API; PostgreSQL with pg_dump (one snapshot, custom format) when it is
 * installed, else as an SQLite file copied from one REPEATABLE READ snapshot. The copy is written
 * beside `file` and renamed when complete: a failure leaves no partial file under that name.
 */
export async function backupDatabase(target: DatabaseTarget, file: string, format: BackupFormat, migrations: MigrationSet): Promise<BackupResult> {
  checkTargetDirectory(file);
  if (target.engine === 'sqlite') {
    if (format === 'pg_dump') throw new BackupError('--format pg_dump is for PostgreSQL: DATABASE_URL is an SQLite database');
    if (target.path === ':memory:') throw new BackupError('an in-memory database (sqlite::memory:) has nothing to back up');
    refuseLiveFile(target.path, file);
  }
  const partial = partialPath(file);
  try {
    let result: BackupResult;
    if (target.engine === 'sqlite') {
      await backupSqliteFile(target.path, partial);
      result = { format: 'sqlite', bytes: 0 };
    } else if (format === 'sqlite') {
      result = { format: 'sqlite', bytes: 0, rows: await copyPostgresToSqlite(target, partial, migrations) };
    } else {
      const dumped = await pgDump(target.url, partial);
      if (dumped === 'absent' && format === 'pg_dump') throw new BackupError('pg_dump is not installed (not on PATH): install the PostgreSQL client, or use --format sqlite');
      result =
        dumped === 'absent'
          ? { format: 'sqlite', bytes: 0, rows: await copyPostgresToSqlite(target, partial, migrations), note: 'pg_dump is not installed: wrote the portable SQLite format' }
          : { format: 'pg_dump', bytes: 0 };
    }
    await commitPartial(partial, file);
    return { ...result, bytes: fs.statSync(file).size };
  } catch (error) {
    await removePartial(partial);
    if (error instanceof BackupError) throw error;
    throw new BackupError(`backup to ${file} failed: ${(error as Error).message}`, { cause: error });
  }
}

/** Renaming a copy over the live database (or its WAL) would corrupt it under the service. */
function refuseLiveFile(databaseFile: string, file: string): void {
  const resolved = path.resolve(file);
  const live = path.resolve(databaseFile);
  if ([live, `${live}-wal`, `${live}-shm`, `${live}-journal`].includes(resolved)) {
    throw new BackupError(`${file} is the database itself: write the backup to another file`);
  }
}

/** pg_dump of the schema our tables are in; 'absent' when pg_dump is not installed. */
async function pgDump(url: string, partial: string): Promise<'done' | 'absent'> {
  const schema = await ourSchema(url);
  const { dbname, env } = connectionFor(url);
  const result = await runTool('pg_dump', ['--format=custom', `--schema=${schemaPattern(schema)}`, `--file=${partial}`, `--dbname=${dbname}`], env);
  if (result === null) return 'absent';
  if (result.code !== 0) throw new BackupError(`pg_dump failed on ${describeUrl(url)}: ${firstLine(result.stderr)}`);
  return 'done';
}

/** The schema DATABASE_URL's tables are in (its search_path's first), checked to hold ours. */
async function ourSchema(url: string): Promise<string> {
  const database = await openDatabase({ engine: 'postgres', url, poolSize: 1, statementTimeoutMs: 30_000 });
  try {
    const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(database.db);
    const schema = rows[0]?.schema ?? null;
    if (schema === null || (await migrationsOf(database.db)).length === 0) {
      throw new BackupError(`${describeUrl(url)} holds no hackerspace-api database (it was never migrated): nothing to back up`);
    }
    return schema;
  } finally {
    await database.close();
  }
}

/**
 * The portable format from PostgreSQL: every table read in one REPEATABLE READ, read-only
 * transaction (one snapshot, however long the copy takes and whatever the service writes
 * meanwhile) into a new SQLite file of the same schema.
 */
async function copyPostgresToSqlite(target: Extract<DatabaseTarget, { engine: 'postgres' }>, partial: string, migrations: MigrationSet): Promise<Record<string, number>> {
  const source = await openDatabase({ ...target, poolSize: 1, statementTimeoutMs: 3_600_000 });
  let copy: DatabaseHandle | undefined;
  try {
    if ((await migrationsOf(source.db)).length === 0) {
      throw new BackupError(`${source.location} holds no hackerspace-api database (it was never migrated): nothing to back up`);
    }
    copy = await openDatabase({ engine: 'sqlite', path: partial });
    await migrateToLatest(copy.db, migrations);
    const into = copy.db;
    const rows = await source.db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (snapshot) => {
        await sql`set transaction read only`.execute(snapshot);
        return writeTransaction(into, (trx) => copyTables(snapshot, trx));
      });
    await copy.close();
    copy = undefined;
    makeSelfContained(partial);
    return rows;
  } finally {
    await copy?.close();
    await source.close();
  }
}
