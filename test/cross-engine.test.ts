import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { configFrom } from '../src/config.js';
import { openDatabase, type DatabaseHandle, type Db } from '../src/db/connection.js';
import { demoRecords, importRecords, migrate as migrateToLatest } from '../src/installed-apps.js';
import { freshDatabase, sampleRecords, TEST_ENGINE, type FreshDatabase } from './support/server.js';
import { exportText } from './support/interchange.js';

/*
 * Data moves between engines through the interchange format: SQLite → engine under test →
 * SQLite gives identical fixtures and identical API output. On the PostgreSQL pass of the suite
 * this crosses engines; on the SQLite pass it is the same round trip within SQLite.
 */

async function load(db: Db, records: Iterable<unknown>): Promise<void> {
  await db.transaction().execute((trx) => importRecords(trx, records));
}

/** Every page of every collection and every record, through the real app (inject), as text. */
async function apiSnapshot(handle: DatabaseHandle): Promise<string[]> {
  const config = configFrom({ DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent', PUBLIC_URL: 'https://space.example', PAGE_SIZE: '7', TIME_ZONE: 'Europe/Brussels' });
  const app: FastifyInstance = await buildApp(config, { database: handle, logger: false });
  const bodies: string[] = [];
  try {
    for (const collection of ['users', 'space/openings', 'projects', 'meetings', 'events']) {
      for (const query of ['', '?ordering=-start,stop']) {
        let url: string | null = `/api/${collection}/${query}`;
        while (url) {
          const res: { statusCode: number; body: string; json(): { next: string | null } } = await app.inject({ url });
          assert.equal(res.statusCode, 200, url);
          bodies.push(res.body);
          const next: string | null = res.json().next;
          url = next && next.replace('https://space.example', '');
        }
      }
      for (let id = 1; id <= 40; id++) bodies.push(`${id} ${(await app.inject({ url: `/api/${collection}/${id}/` })).body}`);
    }
  } finally {
    await app.close();
  }
  return bodies;
}

describe(`moving data between SQLite and ${TEST_ENGINE}`, () => {
  let dir: string;
  let sqliteA: DatabaseHandle;
  let sqliteB: DatabaseHandle;
  let target: FreshDatabase;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hackerspace-cross-'));
    sqliteA = await openDatabase({ engine: 'sqlite', path: path.join(dir, 'a.sqlite') });
    sqliteB = await openDatabase({ engine: 'sqlite', path: path.join(dir, 'b.sqlite') });
    await migrateToLatest(sqliteA.db);
    await migrateToLatest(sqliteB.db);
    target = await freshDatabase();
  });
  after(async () => {
    await sqliteA.close();
    await sqliteB.close();
    await target.cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('export → import → export is identical, and the API answers identically on both sides', async () => {
    await load(sqliteA.db, sampleRecords());
    // The demo's pks start at 1 like the sample's: move them out of the way.
    await load(
      sqliteA.db,
      [...demoRecords({ users: 25, openings: 400, projects: 12, events: 15, meetings: 10 }, 7)].map((r) => shift(r, 1000)),
    );
    const fromSqlite = await exportText(sqliteA.db);

    await load(target.handle.db, JSON.parse(fromSqlite));
    const fromTarget = await exportText(target.handle.db);
    assert.equal(fromTarget, fromSqlite, `the ${TEST_ENGINE} export differs from the SQLite one`);

    await load(sqliteB.db, JSON.parse(fromTarget));
    assert.equal(await exportText(sqliteB.db), fromSqlite, 'the round trip back to SQLite differs');

    const [a, t] = [await apiSnapshot(sqliteA), await apiSnapshot(target.handle)];
    assert.equal(t.length, a.length);
    for (let i = 0; i < a.length; i++) assert.equal(t[i], a[i], `API body ${i} differs`);
  });

  it('migrations are safe to run again and from two connections at once', async () => {
    const fresh = await freshDatabase();
    const second = await openDatabase(configFrom({ DATABASE_URL: fresh.url }).database);
    try {
      // freshDatabase migrated already: both run again, at the same time.
      const results = await Promise.all([migrateToLatest(fresh.handle.db), migrateToLatest(second.db)]);
      assert.deepEqual(results, [[], []]);
      const tables = await second.db.selectFrom('collection_counts').select('collection').orderBy('collection').execute();
      assert.deepEqual(
        tables.map((t) => t.collection),
        ['events', 'meetings', 'openings', 'projects', 'stock_categories', 'stock_products', 'users'],
      );
    } finally {
      await second.close();
      await fresh.cleanup();
    }
  });
});

/** Offsets every pk and reference of a demo record, so that it can sit beside the sample data. */
function shift(record: { model: string; pk: number; fields: Record<string, unknown> }, by: number) {
  const fields = { ...record.fields };
  for (const key of ['maintainer', 'organizer', 'event']) if (typeof fields[key] === 'number') fields[key] = fields[key] + by;
  for (const key of ['participants', 'members']) if (Array.isArray(fields[key])) fields[key] = (fields[key] as number[]).map((id) => id + by);
  if (record.model === 'users.user') fields.username = `${String(fields.username)} (demo)`;
  return { ...record, pk: record.pk + by, fields };
}
