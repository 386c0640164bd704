// Deep pages of the door history start from the time bucket that holds their first row
// (opening_buckets, kept by triggers). These tests check that the pages stay exactly those of a
// plain ORDER BY … OFFSET on the engine under test, whatever the times (ties, bucket edges,
// times before 1970, backfills far in the past) and after inserts, deletes and time changes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { COARSE_BUCKET_BITS, FINE_BUCKET_BITS } from '../../../src/db/migrations.js';
import { DIRECT_OFFSET_LIMIT, listOpenings, OpeningPositions } from '../../../src/apps/space/openings.js';
import type { Db } from '../../../src/db/connection.js';
import { wireUtcMicros } from '../../support/contract.js';
import { request } from '../../support/http.js';
import { startServer, type TestServer } from '../../support/server.js';

const FINE = 2 ** FINE_BUCKET_BITS;
const COARSE = 2 ** COARSE_BUCKET_BITS;
const BASE_US = Date.UTC(2024, 0, 1) * 1000;

interface Row {
  id: number;
  time_us: number;
  is_open: number;
}

/** A small deterministic generator, so that a failure can be replayed. */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Times that stress the buckets: dense runs, exact ties, both sides of bucket edges, before 1970. */
function awkwardTimes(count: number, random: () => number): number[] {
  const times: number[] = [];
  const edge = Math.floor(BASE_US / COARSE) * COARSE;
  for (let i = 0; times.length < count; i++) {
    const kind = i % 6;
    if (kind === 0) times.push(BASE_US + Math.floor(random() * 400 * 86_400e6));
    else if (kind === 1)
      times.push(BASE_US - 3 * 86_400e6); // one instant many times over
    else if (kind === 2) times.push(edge + (random() < 0.5 ? 0 : -1) + Math.floor(random() * 3) * FINE);
    else if (kind === 3) times.push(Date.UTC(1965, 2, 1) * 1000 + Math.floor(random() * 1e12));
    else if (kind === 4)
      times.push(BASE_US + Math.floor(random() * 2 * 86_400e6)); // a busy couple of days
    else times.push(BASE_US - Math.floor(random() * 20 * 365 * 86_400e6));
  }
  return times;
}

/** What every page must be: the plain ordering, computed here. */
function expectedOrder(rows: Row[]): Row[] {
  return [...rows].sort((a, b) => b.time_us - a.time_us || b.id - a.id);
}

async function allRows(db: Db): Promise<Row[]> {
  const rows = await db.selectFrom('openings').select(['id', 'time_us', 'is_open']).execute();
  return rows.map((r) => ({ id: Number(r.id), time_us: Number(r.time_us), is_open: Number(r.is_open) }));
}

async function assertBucketsExact(db: Db): Promise<void> {
  for (const [level, bits] of [
    [0, FINE_BUCKET_BITS],
    [1, COARSE_BUCKET_BITS],
  ] as const) {
    const kept = await db.selectFrom('opening_buckets').select(['bucket', 'n']).where('level', '=', level).orderBy('bucket').execute();
    const { rows: counted } = await sql<{ bucket: number; n: number }>`
      select time_us >> ${sql.lit(bits)} as bucket, count(*) as n from openings group by 1 order by 1`.execute(db);
    assert.deepEqual(
      kept.map((r) => [Number(r.bucket), Number(r.n)]),
      counted.map((r) => [Number(r.bucket), Number(r.n)]),
      `level ${level} bucket counts match a recount`,
    );
  }
}

/** Kept across the tests, as the server keeps it across requests: it must notice every change. */
const positions = new OpeningPositions();

async function assertPagesExact(db: Db, what: string): Promise<void> {
  const expected = expectedOrder(await allRows(db));
  const offsets = [0, 1, DIRECT_OFFSET_LIMIT - 1, DIRECT_OFFSET_LIMIT, expected.length - 1, expected.length, expected.length + 5];
  for (let offset = DIRECT_OFFSET_LIMIT; offset < expected.length; offset += 53) offsets.push(offset);
  for (const offset of offsets) {
    const want = expected.slice(offset, offset + 40).map((r) => [r.time_us, r.is_open]);
    for (const openingPositions of [positions, undefined]) {
      const page = await listOpenings(db, { offset, limit: 40, openingPositions });
      assert.deepEqual(
        page.map((r) => [Number(r.time_us), Number(r.is_open)]),
        want,
        `${what}: offset ${offset}`,
      );
    }
  }
}

describe('deep pages of openings', () => {
  let server: TestServer;
  let db: Db;
  const random = lcg(20261124);
  let nextId = 1;

  async function insert(times: number[]): Promise<void> {
    const values = times.map((time_us) => ({ id: nextId++, time_us, is_open: nextId % 2 }));
    for (let i = 0; i < values.length; i += 500)
      await db
        .insertInto('openings')
        .values(values.slice(i, i + 500))
        .execute();
  }

  before(async () => {
    server = await startServer();
    db = server.database.db;
    // Ids in an order unrelated to time, as after years of backfills and imports.
    const times = awkwardTimes(6000, random);
    for (let i = times.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [times[i], times[j]] = [times[j], times[i]];
    }
    await insert(times);
  });
  after(() => server?.close());

  it('keeps bucket counts equal to a recount, at both levels', () => assertBucketsExact(db));

  it('gives every offset the rows a plain OFFSET gives', () => assertPagesExact(db, 'after the load'));

  it('locates nothing past the last opening', async () => {
    const count = (await allRows(db)).length;
    assert.equal(await positions.locate(db, count), undefined);
    assert.notEqual(await positions.locate(db, count - 1), undefined);
  });

  it('stays exact after backfills, deletions and moved times', async () => {
    // Backfills: old times arriving last, with the highest ids.
    await insert(awkwardTimes(700, random).map((t) => t - 30 * 365 * 86_400e6));
    // Deletions spread over the history, and a whole dense run.
    const rows = await allRows(db);
    const doomed = rows.filter((_, i) => i % 7 === 3).map((r) => r.id);
    for (let i = 0; i < doomed.length; i += 500)
      await db
        .deleteFrom('openings')
        .where('id', 'in', doomed.slice(i, i + 500))
        .execute();
    await db
      .deleteFrom('openings')
      .where('time_us', '=', BASE_US - 3 * 86_400e6)
      .execute();
    // Times moved across buckets, one row at a time and many in one statement.
    const moved = (await allRows(db)).filter((_, i) => i % 11 === 5);
    for (const row of moved.slice(0, 40)) {
      await db
        .updateTable('openings')
        .set({ time_us: row.time_us + 3 * COARSE + 17 })
        .where('id', '=', row.id)
        .execute();
    }
    await db
      .updateTable('openings')
      .set({ time_us: sql`time_us - ${FINE}` })
      .where(
        'id',
        'in',
        moved.slice(40, 400).map((r) => r.id),
      )
      .execute();
    await assertBucketsExact(db);
    await assertPagesExact(db, 'after the changes');
  });

  it('serves deep pages over HTTP exactly as the plain ordering says', async () => {
    const expected = expectedOrder(await allRows(db));
    assert.equal(server.config.timeZone, 'UTC', 'the default time zone');
    const size = 1000;
    const pages = Math.ceil(expected.length / size);
    for (const page of [1, 2, 3, pages - 1, pages]) {
      const res = await request(server.base, `/api/space/openings/?page=${page}&page_size=${size}`);
      assert.equal(res.status, 200, `page ${page}`);
      const body = res.json();
      assert.equal(body.count, expected.length);
      assert.deepEqual(
        body.results,
        expected.slice((page - 1) * size, page * size).map((r) => ({ time: wireUtcMicros(r.time_us), is_open: r.is_open === 1 })),
        `page ${page} of ${size}`,
      );
    }
    const last = await request(server.base, `/api/space/openings/?page=last&page_size=7`);
    assert.equal(last.json().results.length, expected.length % 7 || 7);
  });
});
