import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import type { DatabaseTarget } from '../config.js';
import { openDatabase, type Db } from '../db/connection.js';
import { migrateToLatest, type MigrationSet } from '../db/migrations.js';
import { describeUrl } from '../db/postgres-url.js';
import { writeTransaction } from '../db/write-transaction.js';
import { BackupError } from './backup-error.js';
import { NOT_COPIED, tablesOf } from './catalog.js';
import { copyTables } from './copy.js';
import { kindOfBackup, type BackupKind } from './files.js';
import { connectionFor, firstLine, parseToc, runTool, withoutSchema } from './pg-tools.js';
import { openBackupDatabase } from './sqlite-file.js';

export interface RestoreOptions {
  /** Replace whatever the target holds; without it, a target holding any row is refused. */
  replace?: boolean;
  /** The installed apps' migrations (installed-apps.ts): the target is brought to them first. */
  migrations: MigrationSet;
}

export interface RestoreResult {
  kind: BackupKind;
  /** Rows per table, when this process copied them (from an SQLite backup). */
  rows?: Record<string, number>;
}

/**
 * Brings a backup back into DATABASE_URL, all or nothing. The file is checked before the target
 * is even opened. An SQLite backup (from either engine) is copied table by table in one write
 * transaction of the target, of either engine; a pg_dump archive goes through pg_restore in one
 * transaction, into PostgreSQL only. A target holding data is refused unless `replace`.
 */
export async function restoreDatabase(target: DatabaseTarget, file: string, options: RestoreOptions): Promise<RestoreResult> {
  const kind = await kindOfBackup(file);
  if (kind === 'pg_dump') {
    if (target.engine !== 'postgres') {
      throw new BackupError(
        `${file} is a pg_dump archive: it restores into PostgreSQL only, and DATABASE_URL is SQLite (a backup made with --format sqlite restores into either engine)`,
      );
    }
    await pgRestore(target.url, file, options.replace ?? false, options.migrations);
    return { kind };
  }
  const backup = openBackupDatabase(file, options.migrations);
  try {
    const database = await openDatabase(target);
    try {
      await migrateToLatest(database.db, options.migrations);
      const rows = await writeTransaction(database.db, (trx) => copyTables(backup.db, trx, options)).catch((error: unknown) => {
        if (error instanceof BackupError) throw error;
        // A row the target refuses (a constraint, a dangling reference at commit): rolled back.
        throw new BackupError(`the backup could not be restored, nothing was changed: ${(error as Error).message}`, { cause: error });
      });
      database.noteWrite();
      return { kind, rows };
    } finally {
      await database.close();
    }
  } finally {
    await backup.close();
  }
}

/**
 * pg_restore in one transaction (--single-transaction --exit-on-error: any error rolls all of it
 * back). An archive names its schema and pg_restore cannot rename it, so the target's search_path
 * must lead to the same schema. A target that already has our tables (migrated by `serve`, or
 * holding data with --replace) has them dropped and recreated inside that same transaction.
 */
async function pgRestore(url: string, file: string, replace: boolean, migrations: MigrationSet): Promise<void> {
  const { dbname, env } = connectionFor(url);
  const listed = await runTool('pg_restore', ['--list', file], env);
  if (listed === null) throw new BackupError('pg_restore is not installed (not on PATH): install the PostgreSQL client to restore a pg_dump archive');
  if (listed.code !== 0) throw new BackupError(`${file} is not a readable pg_dump archive: ${firstLine(listed.stderr)}`);
  const toc = parseToc(listed.stdout);
  const archived = toc.tables;
  const schemas = [...new Set(archived.map((entry) => entry.schema))];
  if (schemas.length !== 1 || !archived.some((entry) => entry.name === 'kysely_migration')) {
    throw new BackupError(
      `${file} is a pg_dump archive but not one made by \`hackerspace-api backup\` (tables of ${schemas.length} schemas, migration history ${archived.some((e) => e.name === 'kysely_migration') ? 'present' : 'absent'})`,
    );
  }
  const schema = schemas[0];
  const database = await openDatabase({ engine: 'postgres', url, poolSize: 1, statementTimeoutMs: 3_600_000 });
  const list = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hackerspace-api-restore-')), 'toc.list');
  try {
    const targetSchema = await searchPathSchema(database.db);
    if (targetSchema !== schema) {
      throw new BackupError(
        `${file} holds schema "${schema}", and DATABASE_URL (${describeUrl(url)}) keeps its tables in "${targetSchema}": pg_restore cannot rename a schema; restore into a database whose search_path leads to "${schema}"`,
      );
    }
    const existing = (await schemaExists(database.db, schema)) ? (await tablesOf(database.db)).map((t) => t.name) : [];
    const holding: string[] = [];
    for (const table of existing.filter((name) => !NOT_COPIED.has(name))) {
      const { rows } = await sql`select 1 as one from ${sql.table(table)} limit 1`.execute(database.db);
      if (rows.length > 0) holding.push(table);
    }
    if (holding.length > 0 && !replace) {
      throw new BackupError(`the database is not empty (rows in ${holding.join(', ')}): restore into an empty database, or add --replace to replace all its data`);
    }
    // The schema itself is the target's (pg_restore would try to create it, or drop it with --clean).
    fs.writeFileSync(list, withoutSchema(toc));
    if (existing.length === 0) await sql`create schema if not exists ${sql.id(schema)}`.execute(database.db);
    const clean = archived.some((entry) => existing.includes(entry.name)) ? ['--clean', '--if-exists'] : [];
    const restored = await runTool(
      'pg_restore',
      ['--single-transaction', '--exit-on-error', '--no-owner', '--no-privileges', ...clean, `--use-list=${list}`, `--dbname=${dbname}`, file],
      env,
    );
    if (restored === null) throw new BackupError('pg_restore is not installed (not on PATH)');
    if (restored.code !== 0) throw new BackupError(`pg_restore failed, nothing was restored: ${firstLine(restored.stderr.replace(/^pg_restore: /gm, ''))}`);
    // An archive of an older version: bring it to this one's schema, as `serve` would.
    await migrateToLatest(database.db, migrations);
  } finally {
    fs.rmSync(path.dirname(list), { recursive: true, force: true });
    await database.close();
  }
}

/**
 * The schema unqualified names are created in: current_schema(), or where none of search_path's
 * schemas exists yet (a new database for a restore), the first one named ("$user": the role's).
 */
async function searchPathSchema(db: Db): Promise<string> {
  const { rows } = await sql<{ current: string | null; path: string; user: string }>`
    select current_schema() as current, current_setting('search_path') as path, current_user as user`.execute(db);
  const row = rows[0];
  if (row.current !== null) return row.current;
  const first = row.path.split(',')[0]?.trim() ?? '';
  const unquoted = first.startsWith('"') ? first.slice(1, -1).replaceAll('""', '"') : first;
  return unquoted === '$user' ? row.user : unquoted;
}

async function schemaExists(db: Db, schema: string): Promise<boolean> {
  const { rows } = await sql`select 1 as one from pg_namespace where nspname = ${schema}`.execute(db);
  return rows.length > 0;
}
