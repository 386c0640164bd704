/**
 * A database made by the release before the apps (apps.md: "a database made by today's release
 * upgrades without re-running anything"): the release's own code, taken from the repository's
 * history at its commit, migrates a new database on the engine under test and loads the sample
 * data; the code of today then starts on it. Nothing is re-run, the applied migrations are those
 * of a fresh install, and so is the schema, object by object, as the engine itself describes it.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { PassThrough } from 'node:stream';
import { exportFixture, INSTALLED_MIGRATIONS, migrate } from '../src/installed-apps.js';
import { freshDatabase, SAMPLE_FIXTURE, TEST_ENGINE, type FreshDatabase } from './support/server.js';

/** The last commit before `src/apps/`: its migrations are 0001 to 0012, all in src/db/migrations.ts. */
const RELEASE_BEFORE_APPS = 'aa334285830c11d22dc6766a59c56d61ce3a9073';
const REPO = path.resolve(import.meta.dirname, '..');

/** The release's source tree in a temporary folder, with this checkout's node_modules (its dependencies are the same). */
function checkOutRelease(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hackerspace-api-release-'));
  try {
    const archive = execFileSync('git', ['archive', '--format=tar', RELEASE_BEFORE_APPS, 'src', 'package.json', 'tsconfig.json'], { cwd: REPO, maxBuffer: 256 * 1024 * 1024 });
    execFileSync('tar', ['-x', '-C', dir], { input: archive });
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`the release before the apps (${RELEASE_BEFORE_APPS}) is not in this clone's history: fetch it (git fetch --unshallow)`, { cause: error });
  }
  fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(dir, 'node_modules'));
  return dir;
}

/** Runs the release's command line on a database; resolves with its standard output, rejects with its standard error. */
function runRelease(dir: string, url: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(dir, 'src/cli/main.ts'), ...args], {
      cwd: dir,
      env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${args.join(' ')} exited ${code}: ${err}`))));
  });
}

/** Every object of the schema, as the engine describes it, the schema's own name written as `SCHEMA`. */
async function schemaOf(db: Kysely<any>): Promise<string[]> {
  const lines = async (query: ReturnType<typeof sql<{ line: string }>>) => (await query.execute(db)).rows.map((r) => r.line);
  if (TEST_ENGINE === 'sqlite') {
    return lines(sql<{ line: string }>`select type || ' ' || name || ' on ' || tbl_name || ': ' || coalesce(sql, '') as line from sqlite_master order by type, name`);
  }
  const [{ schema }] = (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows;
  const all = [
    ...(await lines(sql<{ line: string }>`select 'column ' || table_name || '.' || column_name || ' #' || ordinal_position || ' ' || data_type || ' null=' || is_nullable
      || ' default=' || coalesce(column_default, '') || ' collate=' || coalesce(collation_name, '') || ' identity=' || is_identity as line
      from information_schema.columns where table_schema = current_schema() order by 1`)),
    ...(await lines(sql<{ line: string }>`select 'constraint ' || c.relname || '.' || k.conname || ': ' || pg_get_constraintdef(k.oid) as line
      from pg_constraint k join pg_class c on c.oid = k.conrelid join pg_namespace n on n.oid = c.relnamespace where n.nspname = current_schema() order by 1`)),
    ...(await lines(sql<{ line: string }>`select 'index ' || indexname || ': ' || indexdef as line from pg_indexes where schemaname = current_schema() order by 1`)),
    ...(await lines(sql<{ line: string }>`select 'trigger ' || c.relname || '.' || t.tgname || ': ' || pg_get_triggerdef(t.oid) as line
      from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace where not t.tgisinternal and n.nspname = current_schema() order by 1`)),
    ...(await lines(sql<{ line: string }>`select 'function ' || p.proname || ': ' || pg_get_functiondef(p.oid) as line
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = current_schema() order by 1`)),
  ];
  return all.map((line) => line.replaceAll(schema, 'SCHEMA'));
}

/** What `export` writes of a database, as text. */
async function exported(db: Parameters<typeof exportFixture>[0]): Promise<string> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (chunk: Buffer) => chunks.push(chunk));
  await exportFixture(db, out);
  return Buffer.concat(chunks).toString('utf8');
}

async function appliedMigrations(db: Kysely<any>): Promise<string[]> {
  return (await sql<{ name: string }>`select name from kysely_migration order by timestamp, name`.execute(db)).rows.map((r) => r.name);
}

describe('a database made by the release before the apps', () => {
  let release: string;
  let old: FreshDatabase;
  let fresh: FreshDatabase;
  let appliedByUpgrade: string[];
  let appliedByRelease: string[];
  let exportedByRelease: string;

  before(async () => {
    release = checkOutRelease();
    old = await freshDatabase({ migrate: false });
    fresh = await freshDatabase();
    await runRelease(release, old.url, ['migrate']);
    await runRelease(release, old.url, ['import', SAMPLE_FIXTURE]);
    const exportFile = path.join(old.dir, 'by-release.json');
    await runRelease(release, old.url, ['export', exportFile]);
    exportedByRelease = fs.readFileSync(exportFile, 'utf8');
    appliedByRelease = await appliedMigrations(old.handle.db as Kysely<any>);
    appliedByUpgrade = await migrate(old.handle.db);
  });
  after(async () => {
    await old?.cleanup();
    await fresh?.cleanup();
    if (release) fs.rmSync(release, { recursive: true, force: true });
  });

  it('has every migration of the release applied, and today runs only those added since', async () => {
    // The release recorded its twelve; the upgrade runs none of them again, only the migrations written since.
    assert.deepEqual(
      appliedByRelease.map((name) => name.slice(0, 4)),
      ['0001', '0002', '0003', '0004', '0005', '0006', '0007', '0008', '0009', '0010', '0011', '0012'],
    );
    assert.deepEqual(
      appliedByUpgrade,
      Object.keys(INSTALLED_MIGRATIONS).filter((name) => !appliedByRelease.includes(name)),
    );
    assert.deepEqual(await appliedMigrations(old.handle.db as Kysely<any>), Object.keys(INSTALLED_MIGRATIONS));
  });

  it('records the same migrations as a fresh install, in the same order', async () => {
    assert.deepEqual(await appliedMigrations(old.handle.db as Kysely<any>), await appliedMigrations(fresh.handle.db as Kysely<any>));
  });

  it('has the schema of a fresh install, object by object', async () => {
    assert.deepEqual(await schemaOf(old.handle.db as Kysely<any>), await schemaOf(fresh.handle.db as Kysely<any>));
  });

  it("exports the release's records as the release did", async () => {
    assert.equal(await exported(old.handle.db), exportedByRelease);
  });
});
