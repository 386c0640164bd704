import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { configFrom } from '../src/config.js';
import { openDatabase, type Db } from '../src/db/connection.js';
import { importRecords, migrate as migrateToLatest } from '../src/installed-apps.js';
import { request } from './support/http.js';
import { BIN, freePort, killAll, startService, waitUntilServing, type Service } from './support/processes.js';
import { freshDatabase, postgresOnly, sampleRecords, sqliteOnly, TEST_ENGINE, type FreshDatabase } from './support/server.js';
import { until, within } from './support/wait.js';

/*
 * `backup` and `restore`, as an operator runs them: real CLI processes against a real `serve`
 * process that keeps taking door posts during the backup, on the engine under test.
 */

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The CLI, run asynchronously: the door posts of the same test keep going meanwhile. */
function cli(args: string[], env: Record<string, string>): Promise<Run> {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...withoutTestContext(process.env), LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return within(
    new Promise<Run>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (status) => resolve({ status, stdout, stderr }));
    }),
    `hackerspace-api ${args.join(' ')}`,
    120_000,
  );
}

function withoutTestContext(env: NodeJS.ProcessEnv): Record<string, string> {
  const copy: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && !['NODE_TEST_CONTEXT', 'NODE_OPTIONS', 'DATABASE_URL'].includes(key)) copy[key] = value;
  }
  return copy;
}

/** The tables a backup must bring back row for row, each by its key. */
const DATA_TABLES = {
  users: ['id'],
  openings: ['id'],
  projects: ['id'],
  project_participants: ['project_id', 'user_id'],
  events: ['id'],
  meetings: ['id'],
  meeting_members: ['meeting_id', 'user_id'],
  api_tokens: ['id'],
  audit_log: ['id'],
} as const;
type DataTable = keyof typeof DATA_TABLES;
type Rows = Record<DataTable, Array<Record<string, unknown>>> & { counts: Record<string, number> };

/** Every row of the data tables, and the trigger-kept counts, read in one transaction. */
async function readAll(db: Db): Promise<Rows> {
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const rows = {} as Rows;
      for (const [table, key] of Object.entries(DATA_TABLES) as Array<[DataTable, readonly string[]]>) {
        let query = trx.selectFrom(table).selectAll();
        for (const column of key) query = query.orderBy(column as never);
        rows[table] = await query.execute();
      }
      const counts = await trx.selectFrom('collection_counts').selectAll().execute();
      rows.counts = Object.fromEntries(counts.map((c) => [c.collection, Number(c.n)]));
      return rows;
    });
}

async function readUrl(url: string): Promise<Rows> {
  const database = await openDatabase(configFrom({ DATABASE_URL: url }).database);
  try {
    return await readAll(database.db);
  } finally {
    await database.close();
  }
}

async function openingCount(db: Db): Promise<number> {
  const row = await db
    .selectFrom('openings')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A source database of the engine under test with the sample data and a door token. */
async function sourceWithToken(): Promise<{ fresh: FreshDatabase; secret: string }> {
  const fresh = await freshDatabase();
  await fresh.handle.db.transaction().execute((trx) => importRecords(trx, sampleRecords()));
  const created = await cli(['token', 'create', '--name', 'door', '--scope', 'door'], { DATABASE_URL: fresh.url });
  assert.equal(created.status, 0, created.stderr);
  return { fresh, secret: created.stdout.trim() };
}

interface UnderLoad {
  fresh: FreshDatabase;
  secret: string;
  backup: Run;
  /** Openings in the source when the backup started, and when it had finished. */
  openingsBefore: number;
  openingsAfter: number;
  /** Door posts answered while the backup process ran. */
  postsDuring: number;
  /** The source once the door posts stopped. */
  final: Rows;
}

/**
 * A `serve` process on the source takes door posts in a loop (open, closed, open, …) while
 * `backup FILE` runs, and for a few posts more after it has finished; then everything stops.
 */
async function backupUnderLoad(file: string, backupArgs: string[] = [], backupEnv: Record<string, string> = {}): Promise<UnderLoad> {
  const { fresh, secret } = await sourceWithToken();
  const service = await startService(['serve'], { DATABASE_URL: fresh.url, PORT: String(await freePort()), LOG_LEVEL: 'warn' });
  let posts = 0;
  let stop = false;
  try {
    await waitUntilServing(service);
    const loop = (async () => {
      let open = true;
      while (!stop) {
        const res = await request(service.base, '/api/space/openings/', {
          method: 'POST',
          headers: { authorization: `Token ${secret}`, 'content-type': 'application/json' },
          body: JSON.stringify({ is_open: open }),
        });
        assert.ok(res.status === 201 || res.status === 200, `door post: ${res.status} ${res.body}`);
        open = !open;
        posts++;
      }
    })();
    loop.catch(() => {});
    await until(() => posts >= 10, 'ten door posts before the backup');
    const openingsBefore = await openingCount(fresh.handle.db);
    const postsAtStart = posts;
    const backup = await cli(['backup', ...backupArgs, file], { DATABASE_URL: fresh.url, ...backupEnv });
    const postsDuring = posts - postsAtStart;
    const openingsAfter = await openingCount(fresh.handle.db);
    await until(() => posts >= postsAtStart + postsDuring + 6, 'door posts after the backup');
    stop = true;
    await within(loop, 'the door-post loop to end');
    await service.stop();
    return { fresh, secret, backup, openingsBefore, openingsAfter, postsDuring, final: await readAll(fresh.handle.db) };
  } catch (error) {
    stop = true;
    await service.stop();
    await fresh.cleanup();
    throw error;
  }
}

/**
 * The restored database holds the source as it was at one moment during the backup: tables the
 * posts did not touch are identical; openings and audit entries are a prefix of the final ones
 * (both are only appended to), and they agree with each other (each opening a post created has
 * its audit entry, written in the same transaction); counts and buckets match the rows.
 */
async function assertConsistentCopy(restoredUrl: string, load: UnderLoad): Promise<Rows> {
  const restored = await readUrl(restoredUrl);
  const { final } = load;
  for (const table of ['users', 'projects', 'project_participants', 'events', 'meetings', 'meeting_members'] as const) {
    assert.deepEqual(restored[table], final[table], table);
  }
  const n = restored.openings.length;
  assert.ok(n >= load.openingsBefore && n <= load.openingsAfter, `${n} openings restored: between ${load.openingsBefore} and ${load.openingsAfter}`);
  assert.ok(n < final.openings.length, 'the door posts after the backup are not in it');
  assert.deepEqual(restored.openings, final.openings.slice(0, n));
  assert.deepEqual(restored.audit_log, final.audit_log.slice(0, restored.audit_log.length));
  const sampleMax = 300;
  assert.deepEqual(
    restored.audit_log.map((entry) => entry.record_id),
    restored.openings.filter((o) => Number(o.id) > sampleMax).map((o) => o.id),
    'the audit entries are exactly those of the restored openings',
  );
  assert.deepEqual(
    restored.api_tokens.map(({ last_used_us: _, ...token }) => token),
    final.api_tokens.map(({ last_used_us: _, ...token }) => token),
  );
  assert.deepEqual(restored.counts, {
    users: restored.users.length,
    openings: n,
    projects: restored.projects.length,
    events: restored.events.length,
    meetings: restored.meetings.length,
    // The load writes no stock; their counts are restored as zero.
    stock_categories: 0,
    stock_products: 0,
  });
  return restored;
}

/** A `serve` process on the restored database answers reads, and the door token from before still writes. */
async function assertServes(url: string, restored: Rows, secret: string): Promise<void> {
  let service: Service | undefined;
  try {
    service = await startService(['serve'], { DATABASE_URL: url, PORT: String(await freePort()), LOG_LEVEL: 'warn' });
    await waitUntilServing(service);
    const latest = restored.openings.reduce((a, b) => (Number(b.time_us) > Number(a.time_us) || (b.time_us === a.time_us && Number(b.id) > Number(a.id)) ? b : a));
    const status = await request(service.base, '/api/space/status/');
    assert.equal(status.status, 200, status.body);
    assert.equal(status.json().is_open, latest.is_open === 1);
    const openings = await request(service.base, '/api/space/openings/');
    assert.equal(openings.json().count, restored.openings.length);
    const post = await request(service.base, '/api/space/openings/', {
      method: 'POST',
      headers: { authorization: `Token ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ is_open: latest.is_open !== 1 }),
    });
    assert.equal(post.status, 201, post.body);
    const maxId = Math.max(...restored.openings.map((o) => Number(o.id)));
    const newId = Number(/\/api\/space\/openings\/(\d+)\/$/.exec(String(post.headers.location))?.[1]);
    assert.ok(newId > maxId, `a new opening gets a new id (${post.headers.location} after ${maxId})`);
    // Counted by the restored triggers.
    assert.equal((await request(service.base, '/api/space/openings/')).json().count, restored.openings.length + 1);
  } finally {
    await service?.stop();
  }
}

/**
 * PostgreSQL: a new database whose search_path leads to the schema `url` uses (a pg_dump archive
 * restores into the schema it was taken from), optionally created and migrated.
 */
async function postgresTwin(url: string, migrated: boolean): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `hackerspace_restore_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const twin = new URL(url);
  twin.pathname = `/${name}`;
  if (migrated) {
    const schema = /search_path=(\S+)/.exec(twin.searchParams.get('options') ?? '')![1];
    const client = new pg.Client({ connectionString: twin.toString() });
    await client.connect();
    await client.query(`create schema ${schema}`);
    await client.end();
    const database = await openDatabase(configFrom({ DATABASE_URL: twin.toString() }).database);
    await migrateToLatest(database.db);
    await database.close();
  }
  return {
    url: twin.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}

/** Where a backup of the engine under test restores in full: a new SQLite file, or a new PostgreSQL database. */
async function emptyTarget(dir: string, sourceUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  if (TEST_ENGINE === 'sqlite') return { url: `sqlite:${path.join(dir, 'restored', 'hackerspace.sqlite')}`, drop: async () => {} };
  return postgresTwin(sourceUrl, false);
}

after(() => killAll());

describe('backup under concurrent door posts, restored into an empty database', () => {
  it('is one consistent moment of the source, and the restored database serves it', async () => {
    const file = path.join(freshDir(), TEST_ENGINE === 'sqlite' ? 'backup.sqlite' : 'backup.dump');
    const load = await backupUnderLoad(file);
    const target = await emptyTarget(load.fresh.dir, load.fresh.url);
    try {
      assert.equal(load.backup.status, 0, load.backup.stderr);
      assert.match(load.backup.stderr, TEST_ENGINE === 'sqlite' ? /backed up .* \(SQLite database, [\d,]+ bytes\)/ : /\(pg_dump archive, [\d,]+ bytes\)/);
      assert.ok(load.postsDuring > 0, 'door posts were answered while the backup ran');
      assert.deepEqual(
        fs.readdirSync(path.dirname(file)).filter((f) => f !== path.basename(file)),
        [],
        'no temporary file left beside the backup',
      );
      const head = fs.readFileSync(file).subarray(0, 16).toString('latin1');
      assert.ok(TEST_ENGINE === 'sqlite' ? head === 'SQLite format 3\0' : head.startsWith('PGDMP'), head);
      const restore = await cli(['restore', file], { DATABASE_URL: target.url });
      assert.equal(restore.status, 0, restore.stderr);
      const restored = await assertConsistentCopy(target.url, load);
      await assertServes(target.url, restored, load.secret);
    } finally {
      await target.drop();
      await load.fresh.cleanup();
    }
  });

  it(
    'without pg_dump, PostgreSQL writes the portable SQLite format from one snapshot; it restores into PostgreSQL and SQLite',
    postgresOnly('pg_dump and the snapshot copy are PostgreSQL backups'),
    async () => {
      const file = path.join(freshDir(), 'backup.sqlite');
      // No PATH: pg_dump cannot be found, as on a server without the PostgreSQL client.
      const load = await backupUnderLoad(file, [], { PATH: '/nonexistent' });
      const intoPostgres = await freshDatabase();
      try {
        assert.equal(load.backup.status, 0, load.backup.stderr);
        assert.match(load.backup.stderr, /pg_dump is not installed: wrote the portable SQLite format/);
        assert.ok(load.postsDuring > 0, 'door posts were answered while the backup ran');
        // The migrated, empty schema `serve` would have made counts as empty.
        const toPostgres = await cli(['restore', file], { DATABASE_URL: intoPostgres.url });
        assert.equal(toPostgres.status, 0, toPostgres.stderr);
        const restored = await assertConsistentCopy(intoPostgres.url, load);
        await assertServes(intoPostgres.url, restored, load.secret);
        const sqliteUrl = `sqlite:${path.join(load.fresh.dir, 'from-postgres.sqlite')}`;
        const toSqlite = await cli(['restore', file], { DATABASE_URL: sqliteUrl });
        assert.equal(toSqlite.status, 0, toSqlite.stderr);
        assert.deepEqual(await readUrl(sqliteUrl), restored);
      } finally {
        await intoPostgres.cleanup();
        await load.fresh.cleanup();
      }
    },
  );
});

const dirs: string[] = [];
function freshDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hackerspace-backup-test-'));
  dirs.push(dir);
  return dir;
}
after(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** Writes a file of the test's own and returns its path. */
function writeFile(dir: string, name: string, content: string | Buffer): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, content);
  return file;
}

async function sampleDatabase(): Promise<FreshDatabase> {
  const fresh = await freshDatabase();
  await fresh.handle.db.transaction().execute((trx) => importRecords(trx, sampleRecords()));
  return fresh;
}

function assertCleanFailure(run: Run, message: RegExp, what: string): void {
  assert.equal(run.status, 1, `${what}: ${run.stderr}`);
  assert.match(run.stderr, message, what);
  assert.doesNotMatch(run.stderr, /\n\s+at /, `${what}: no stack trace`);
  assert.equal(run.stdout, '', what);
}

describe('restore refuses what it cannot restore, and changes nothing', () => {
  it('a missing file, garbage, a JSON export, a truncated backup or a stray archive get a clear error', async () => {
    const target = await sampleDatabase();
    try {
      const dir = freshDir();
      const good = path.join(dir, 'good.backup');
      const made = await cli(['backup', good], { DATABASE_URL: target.url });
      assert.equal(made.status, 0, made.stderr);
      const whole = fs.readFileSync(good);
      const before = await readAll(target.handle.db);
      const cases: Array<[string, string, RegExp]> = [
        ['a missing file', path.join(dir, 'missing.backup'), /^restore failed: cannot read the backup .*missing\.backup: no such file\n$/],
        ['a directory', dir, /^restore failed: cannot read the backup .*: it is a directory\n$/],
        ['an empty file', writeFile(dir, 'empty.backup', ''), /is not a backup made by `hackerspace-api backup`: expected an SQLite database or a pg_dump archive/],
        ['random bytes', writeFile(dir, 'random.backup', randomBytes(5000)), /is not a backup made by `hackerspace-api backup`/],
        [
          'a JSON export',
          writeFile(dir, 'export.json', JSON.stringify(sampleRecords())),
          /is not a backup but JSON \(an `export`\?\): load a dumpdata fixture with `hackerspace-api import`/,
        ],
        [
          'half a backup',
          writeFile(dir, 'half.backup', whole.subarray(0, Math.floor(whole.length / 2))),
          TEST_ENGINE === 'sqlite' ? /the backup .*half\.backup (cannot be read|is damaged)/ : /pg_restore failed, nothing was restored|not a readable pg_dump archive/,
        ],
        [
          "a pg_dump archive's signature and garbage",
          writeFile(dir, 'fake.dump', Buffer.concat([Buffer.from('PGDMP'), randomBytes(3000)])),
          TEST_ENGINE === 'sqlite' ? /is a pg_dump archive: it restores into PostgreSQL only, and DATABASE_URL is SQLite/ : /is not a readable pg_dump archive/,
        ],
      ];
      for (const [what, file, message] of cases) {
        // --replace: even allowed to replace everything, a bad file changes nothing.
        assertCleanFailure(await cli(['restore', '--replace', file], { DATABASE_URL: target.url }), message, what);
        assert.deepEqual(await readAll(target.handle.db), before, `${what}: the database is unchanged`);
      }
      if (TEST_ENGINE === 'sqlite') {
        const notCreated = path.join(dir, 'new', 'target.sqlite');
        assertCleanFailure(await cli(['restore', cases[3][1]], { DATABASE_URL: `sqlite:${notCreated}` }), /is not a backup/, 'into a new file');
        assert.equal(fs.existsSync(path.dirname(notCreated)), false, 'a bad file does not even create the target');
      }
    } finally {
      await target.cleanup();
    }
  });

  it('a database holding data is refused; --replace replaces all of it', async () => {
    const source = await sampleDatabase();
    const file = path.join(freshDir(), 'source.backup');
    const twin = TEST_ENGINE === 'postgres' ? await postgresTwin(source.url, true) : { url: `sqlite:${path.join(source.dir, 'other.sqlite')}`, drop: async () => {} };
    try {
      const made = await cli(['backup', file], { DATABASE_URL: source.url });
      assert.equal(made.status, 0, made.stderr);
      const other = await openDatabase(configFrom({ DATABASE_URL: twin.url }).database);
      try {
        await migrateToLatest(other.db);
        await other.db.transaction().execute((trx) => importRecords(trx, [{ model: 'users.user', pk: 7, fields: { username: 'someone-else', email: '' } }]));
      } finally {
        await other.close();
      }
      const before = await readUrl(twin.url);
      assertCleanFailure(
        await cli(['restore', file], { DATABASE_URL: twin.url }),
        /^restore failed: the database is not empty \(rows in users\): restore into an empty database, or add --replace to replace all its data\n$/,
        'a database with a user',
      );
      assert.deepEqual(await readUrl(twin.url), before);
      const replaced = await cli(['restore', '--replace', file], { DATABASE_URL: twin.url });
      assert.equal(replaced.status, 0, replaced.stderr);
      assert.deepEqual(await readUrl(twin.url), await readAll(source.handle.db));
    } finally {
      await twin.drop();
      await source.cleanup();
    }
  });

  it('a restore that fails half-way (a dangling reference found at commit) changes nothing', async () => {
    const source = await sampleDatabase();
    const empty = await freshDatabase();
    const holding = await sampleDatabase();
    try {
      const file = path.join(freshDir(), 'broken.sqlite');
      const made = await cli(['backup', '--format', 'sqlite', file], { DATABASE_URL: source.url });
      assert.equal(made.status, 0, made.stderr);
      // The last project's maintainer does not exist: every table copies, then the commit's check fails.
      const broken = new BetterSqlite3(file);
      broken.pragma('foreign_keys = OFF');
      broken.prepare('update projects set maintainer_id = 999999 where id = (select max(id) from projects)').run();
      broken.close();
      const emptyBefore = await readAll(empty.handle.db);
      assertCleanFailure(
        await cli(['restore', file], { DATABASE_URL: empty.url }),
        /^restore failed: the backup could not be restored, nothing was changed: .*foreign key/i,
        'into an empty database',
      );
      assert.deepEqual(await readAll(empty.handle.db), emptyBefore);
      assert.equal(emptyBefore.openings.length, 0);
      const holdingBefore = await readAll(holding.handle.db);
      assertCleanFailure(await cli(['restore', '--replace', file], { DATABASE_URL: holding.url }), /nothing was changed: .*foreign key/i, 'with --replace');
      assert.deepEqual(await readAll(holding.handle.db), holdingBefore);
    } finally {
      await source.cleanup();
      await empty.cleanup();
      await holding.cleanup();
    }
  });
});

describe('backup fails cleanly', () => {
  it('to a directory that does not exist, or onto a directory, with exit code 1 and no partial file', async () => {
    const source = await sampleDatabase();
    try {
      const dir = freshDir();
      assertCleanFailure(
        await cli(['backup', path.join(dir, 'nope', 'backup')], { DATABASE_URL: source.url }),
        /^backup failed: cannot write .*backup: the directory .*nope does not exist/,
        'into a missing directory',
      );
      assert.deepEqual(fs.readdirSync(dir), []);
      // The copy is made, then the rename onto a directory fails: the temporary file must go.
      fs.mkdirSync(path.join(dir, 'taken'));
      assertCleanFailure(
        await cli(['backup', path.join(dir, 'taken')], { DATABASE_URL: source.url }),
        /^backup failed: backup to .*taken failed: .*(EISDIR|directory)/i,
        'onto a directory',
      );
      assert.deepEqual(fs.readdirSync(dir), ['taken']);
      assert.deepEqual(fs.readdirSync(path.join(dir, 'taken')), []);
      const badFormat = await cli(['backup', '--format', 'tar', path.join(dir, 'b')], { DATABASE_URL: source.url });
      assert.equal(badFormat.status, 2, badFormat.stderr);
      assert.match(badFormat.stderr, /^backup: --format expects auto, sqlite, pg_dump, got "tar"/);
      assert.deepEqual(fs.readdirSync(dir), ['taken']);
    } finally {
      await source.cleanup();
    }
  });

  it('refuses to write over the database it backs up', sqliteOnly('only SQLite keeps the database in a file a backup could be renamed over'), async () => {
    const source = await sampleDatabase();
    try {
      const live = configFrom({ DATABASE_URL: source.url }).database;
      assert.equal(live.engine, 'sqlite');
      const before = await readAll(source.handle.db);
      for (const target of [live.path, `${live.path}-wal`]) {
        assertCleanFailure(await cli(['backup', target], { DATABASE_URL: source.url }), /is the database itself: write the backup to another file/, target);
      }
      assert.deepEqual(await readAll(source.handle.db), before);
    } finally {
      await source.cleanup();
    }
  });

  it('--format pg_dump without pg_dump installed says so and writes nothing', postgresOnly('pg_dump archives are PostgreSQL backups'), async () => {
    const source = await sampleDatabase();
    try {
      const dir = freshDir();
      assertCleanFailure(
        await cli(['backup', '--format', 'pg_dump', path.join(dir, 'b.dump')], { DATABASE_URL: source.url, PATH: '/nonexistent' }),
        /^backup failed: pg_dump is not installed \(not on PATH\): install the PostgreSQL client, or use --format sqlite\n$/,
        'without pg_dump',
      );
      assert.deepEqual(fs.readdirSync(dir), []);
    } finally {
      await source.cleanup();
    }
  });
});
