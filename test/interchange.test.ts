import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Db } from '../src/db/connection.js';
import { pythonJson } from '../src/interchange/fixture-writer.js';
import { FixtureTimeFormatter, parseCanonicalUtc } from '../src/interchange/fixture-time.js';
import { ImportError, readFixture, type ImportReport } from '../src/interchange/import.js';
import { JsonArraySplitter } from '../src/interchange/json-array-splitter.js';
import { parseRun } from '../src/interchange/fixture-reader.js';
import { formatIsoUtc, parseIsoMicros } from '../src/time.js';
import { getJson } from './support/http.js';
import { freshDatabase, SAMPLE_FIXTURE, sampleRecords, startServer } from './support/server.js';
import { exportText } from './support/interchange.js';
import { importRecords } from '../src/installed-apps.js';

const REPO_ROOT = path.resolve(import.meta.dirname, '..');
const CLI = path.join(REPO_ROOT, 'bin/hackerspace-api.js');

type Fresh = Awaited<ReturnType<typeof freshDatabase>>;

function importInto(db: Db, records: Iterable<unknown> | AsyncIterable<unknown>): Promise<ImportReport> {
  return db.transaction().execute((trx) => importRecords(trx, records));
}

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'hackerspace-interchange-'));
}

function writeFile(dir: string, name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

async function collect(records: AsyncIterable<unknown>): Promise<unknown[]> {
  const all: unknown[] = [];
  for await (const record of records) all.push(record);
  return all;
}

const user = (pk: unknown, username: string, extra: Record<string, unknown> = {}) => ({
  model: 'users.user',
  pk,
  fields: { username, email: `${username}@example.org`, has_key: false, ...extra },
});

/** The sample has no auth or stock records (their models are counted all the same). */
const SAMPLE_COUNTS = {
  'contenttypes.contenttype': 0,
  'auth.permission': 0,
  'auth.group': 0,
  'users.user': 30,
  'space.spacestatus': 300,
  'projects.project': 15,
  'events.event': 20,
  'events.meeting': 12,
  'stock.category': 0,
  'stock.product': 0,
  'stock.transfertransaction': 0,
  'stock.topuptransaction': 0,
  'stock.producttransaction': 0,
  'stock.misctransaction': 0,
  'stock.fundzone': 0,
  'stock.paymenttransaction': 0,
  'stock.refundtransaction': 0,
};
/**
 * The sample's members have balances and no transactions: the ledger opens each balance that is
 * not zero with an opening entry, which an export writes as a misc transaction (ledger.md §5).
 */
const SAMPLE_OPENINGS = (sampleRecords() as { model: string; fields: { balance?: string } }[]).filter(
  (r) => r.model === 'users.user' && Number(r.fields.balance ?? 0) !== 0,
).length;
/** What an export of the sample holds: its records and the openings. */
const SAMPLE_EXPORTED = 377 + SAMPLE_OPENINGS;

describe('import of the sample fixture', () => {
  let fresh: Fresh;
  let report: ImportReport;
  before(async () => {
    fresh = await freshDatabase();
    report = await importInto(fresh.handle.db, readFixture(SAMPLE_FIXTURE));
  });
  after(() => fresh.cleanup());

  test('reports the expected counts and skipped fields', () => {
    assert.deepEqual(report.imported, SAMPLE_COUNTS);
    assert.deepEqual(report.skippedModels, {});
    // Every field of the original's five models is kept (issue 18).
    assert.deepEqual(report.skippedFields, {});
  });

  test('stores the rows, and the triggers count them', async () => {
    const db = fresh.handle.db;
    const counts = await db.selectFrom('collection_counts').selectAll().execute();
    assert.deepEqual(Object.fromEntries(counts.map((c) => [c.collection, Number(c.n)])), {
      users: 30,
      openings: 300,
      projects: 15,
      events: 20,
      meetings: 12,
      stock_categories: 0,
      stock_products: 0,
    });
    const opening = await db.selectFrom('openings').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
    // 2015-01-07T06:35:19.369318Z: `date -u -d 2015-01-07T06:35:19Z +%s` is 1420612519.
    assert.equal(opening.time_us, 1420612519_369318);
    assert.equal(opening.is_open, 1);
    const leading = await db.selectFrom('users').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
    assert.equal(leading.username, ' leadingspace');
  });

  test("keeps pictures ('' and null apart), null times and many-to-many fields", async () => {
    const db = fresh.handle.db;
    const events = await db.selectFrom('events').select(['id', 'picture', 'start_us', 'stop_us', 'organizer_id']).orderBy('id').execute();
    assert.equal(events[0].picture, '');
    assert.equal(events[1].picture, null);
    assert.equal(events[5].picture, 'event_pictures/poster.jpg');
    assert.equal(events[6].start_us, null);
    assert.equal(events[3].stop_us, null);
    // 2021-10-07T08:30:00Z: `date -u -d 2021-10-07T08:30:00Z +%s` is 1633595400.
    assert.equal(events[0].start_us, 1633595400_000000);
    const participants = await db.selectFrom('project_participants').select('user_id').where('project_id', '=', 1).orderBy('user_id').execute();
    assert.deepEqual(
      participants.map((p) => p.user_id),
      [4, 5, 8, 10, 18, 19, 24, 26, 27],
    );
    const meeting = await db.selectFrom('meetings').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
    assert.equal(meeting.event_id, 14);
    assert.ok(meeting.agenda.startsWith('* données hackerspace'));
  });

  test('importing the same file again changes nothing', async () => {
    const db = fresh.handle.db;
    const first = await exportText(db);
    const again = await importInto(db, readFixture(SAMPLE_FIXTURE));
    assert.deepEqual(again.imported, SAMPLE_COUNTS);
    assert.equal(await exportText(db), first);
    const counts = await db.selectFrom('collection_counts').select('n').where('collection', '=', 'openings').executeTakeFirstOrThrow();
    assert.equal(Number(counts.n), 300);
  });
});

describe('export', () => {
  test('writes Django dumpdata records in model and pk order', async () => {
    const fresh = await freshDatabase();
    try {
      await importInto(fresh.handle.db, sampleRecords());
      const text = await exportText(fresh.handle.db);
      const records = JSON.parse(text) as { model: string; pk: number; fields: Record<string, unknown> }[];
      assert.equal(records.length, SAMPLE_EXPORTED);
      const order = records.map(
        (r) =>
          `${['users.user', 'space.spacestatus', 'projects.project', 'events.event', 'events.meeting', 'stock.misctransaction'].indexOf(r.model)}:${String(r.pk).padStart(6, '0')}`,
      );
      assert.deepEqual(order, [...order].sort());
      // Every field as the original wrote it, in its order.
      const sampleUser = sampleRecords()[0] as { fields: Record<string, unknown> };
      assert.equal(text.split('\n')[1], `{"model": "users.user", "pk": 1, "fields": ${pythonJson(sampleUser.fields)}},`);
      assert.ok(text.startsWith('[\n') && text.endsWith('}}\n]\n'));
      const byKey = new Map(records.map((r) => [`${r.model}:${r.pk}`, r.fields]));
      assert.deepEqual(byKey.get('space.spacestatus:1'), { time: '2015-01-07T06:35:19.369318Z', is_open: true });
      assert.deepEqual(byKey.get('space.spacestatus:2'), { time: '2015-02-05T08:20:20.232000Z', is_open: false });
      assert.equal(byKey.get('events.event:1')?.picture, '');
      assert.equal(byKey.get('events.event:7')?.start, null);
      assert.deepEqual(byKey.get('projects.project:1')?.participants, [4, 5, 8, 10, 18, 19, 24, 26, 27]);
      assert.deepEqual(Object.keys(byKey.get('events.meeting:1') ?? {}), ['event', 'OJ', 'PV', 'members', 'pad', 'ongoing']);
    } finally {
      await fresh.cleanup();
    }
  });

  test('an empty database exports an empty array', async () => {
    const fresh = await freshDatabase();
    try {
      assert.deepEqual(JSON.parse(await exportText(fresh.handle.db)), []);
    } finally {
      await fresh.cleanup();
    }
  });

  test('export → import into a fresh database → export is byte-identical', async () => {
    const first = await freshDatabase();
    const second = await freshDatabase();
    try {
      await importInto(first.handle.db, readFixture(SAMPLE_FIXTURE));
      const exported = await exportText(first.handle.db);
      const file = writeFile(first.dir, 'export.json', exported);
      const report = await importInto(second.handle.db, readFixture(file));
      assert.deepEqual(report.imported, { ...SAMPLE_COUNTS, 'stock.misctransaction': SAMPLE_OPENINGS });
      assert.deepEqual(report.skippedFields, {});
      assert.equal(await exportText(second.handle.db), exported);
    } finally {
      await first.cleanup();
      await second.cleanup();
    }
  });

  test('the API serves the same data after a round trip', async () => {
    const original = await startServer({ records: sampleRecords() });
    let roundTripped: Awaited<ReturnType<typeof startServer>> | undefined;
    try {
      const exported = JSON.parse(await exportText(original.database.db)) as unknown[];
      roundTripped = await startServer({ records: exported });
      for (const collection of ['users', 'space/openings', 'projects', 'events', 'meetings']) {
        const a = await getJson(original.base, `/api/${collection}/?page_size=1000`);
        const b = await getJson(roundTripped.base, `/api/${collection}/?page_size=1000`);
        assert.equal(a.status, 200, collection);
        assert.equal(b.body.replaceAll(roundTripped.base, 'BASE'), a.body.replaceAll(original.base, 'BASE'), collection);
      }
    } finally {
      await original.close();
      await roundTripped?.close();
    }
  });
});

describe('upserts', () => {
  test('updates records by pk and replaces many-to-many fields', async () => {
    const fresh = await freshDatabase();
    try {
      const db = fresh.handle.db;
      await importInto(db, sampleRecords());
      const started = Date.now() * 1000;
      const report = await importInto(db, [
        user(2, 'zero-day', { has_key: true }),
        { model: 'projects.project', pk: 1, fields: { title: 'Renamed', maintainer: 2, participants: [3, 2, 3], status: 'f', progress: 100 } },
        { model: 'events.meeting', pk: 1, fields: { event: 14, members: [] } },
      ]);
      assert.equal(report.imported['projects.project'], 1);
      const renamed = await db.selectFrom('users').select(['id', 'username', 'email', 'has_key']).where('id', '=', 2).executeTakeFirstOrThrow();
      assert.deepEqual(renamed, { id: 2, username: 'zero-day', email: 'zero-day@example.org', has_key: 1 });
      const participants = await db.selectFrom('project_participants').select('user_id').where('project_id', '=', 1).orderBy('user_id').execute();
      assert.deepEqual(
        participants.map((p) => p.user_id),
        [2, 3],
      );
      const project = await db.selectFrom('projects').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
      assert.equal(project.content, '');
      // A record that does not say when it was made was made by this import.
      assert.ok(project.created_us !== null && project.created_us >= started && project.created_us <= Date.now() * 1000, String(project.created_us));
      assert.equal(project.modified_us, project.created_us);
      const members = await db.selectFrom('meeting_members').selectAll().where('meeting_id', '=', 1).execute();
      assert.deepEqual(members, []);
      const counts = await db.selectFrom('collection_counts').selectAll().execute();
      assert.equal(Number(counts.find((c) => c.collection === 'users')?.n), 30);
    } finally {
      await fresh.cleanup();
    }
  });

  test('records may come in any order and refer to rows already in the database', async () => {
    const fresh = await freshDatabase();
    try {
      const db = fresh.handle.db;
      await importInto(db, [
        { model: 'events.meeting', pk: 5, fields: { event: 9, members: [1, 2] } },
        { model: 'events.event', pk: 9, fields: { title: 'AG', status: 'r', organizer: 2, start: '2024-01-01T18:00:00+01:00', stop: null } },
        user(1, 'alice'),
        user(2, 'bob'),
      ]);
      await importInto(db, [{ model: 'projects.project', pk: 3, fields: { title: 'P', maintainer: 1, participants: [2], status: 'p', progress: 0 } }]);
      const event = await db.selectFrom('events').selectAll().where('id', '=', 9).executeTakeFirstOrThrow();
      assert.equal(event.start_us, Date.UTC(2024, 0, 1, 17) * 1000);
      assert.equal(
        await db
          .selectFrom('projects')
          .select('id')
          .executeTakeFirst()
          .then((r) => r?.id),
        3,
      );
    } finally {
      await fresh.cleanup();
    }
  });

  test('a user may take a username that the same file frees', async () => {
    const fresh = await freshDatabase();
    try {
      await importInto(fresh.handle.db, [user(1, 'alice'), user(1, 'alicia'), user(2, 'alice')]);
      const names = await fresh.handle.db.selectFrom('users').select(['id', 'username']).orderBy('id').execute();
      assert.deepEqual(names, [
        { id: 1, username: 'alicia' },
        { id: 2, username: 'alice' },
      ]);
    } finally {
      await fresh.cleanup();
    }
  });

  test('a username held in the database may move to another user once it is freed', async () => {
    const fresh = await freshDatabase();
    try {
      const db = fresh.handle.db;
      await importInto(db, [user(4, 'Alice')]);
      await importInto(db, [user(4, 'Alicia'), user(100, 'Alice')]);
      const names = await db.selectFrom('users').select(['id', 'username']).orderBy('id').execute();
      assert.deepEqual(names, [
        { id: 4, username: 'Alicia' },
        { id: 100, username: 'Alice' },
      ]);
    } finally {
      await fresh.cleanup();
    }
  });

  test('unknown models and fields are skipped and counted', async () => {
    const fresh = await freshDatabase();
    try {
      const report = await importInto(fresh.handle.db, [
        { model: 'admin.logentry', pk: 1, fields: { action_flag: 1 } },
        { model: 'admin.logentry', pk: 2, fields: { action_flag: 2 } },
        { model: 'sessions.session', pk: 'abc', fields: {} },
        user(1, 'alice', { nickname: 'al', balance: '3.00' }),
        user(2, 'bob', { nickname: 'bobby' }),
        { model: 'space.spacestatus', pk: 1, fields: { time: '2020-01-01T00:00:00Z', is_open: true, door: 'front' } },
      ]);
      assert.deepEqual(report.skippedModels, { 'admin.logentry': 2, 'sessions.session': 1 });
      assert.deepEqual(report.skippedFields, { 'users.user.nickname': 2, 'space.spacestatus.door': 1 });
      assert.deepEqual(report.imported, { ...Object.fromEntries(Object.keys(SAMPLE_COUNTS).map((m) => [m, 0])), 'users.user': 2, 'space.spacestatus': 1 });
    } finally {
      await fresh.cleanup();
    }
  });
});

describe('import errors name the record and leave the database unchanged', () => {
  let fresh: Fresh;
  let before_: string;
  before(async () => {
    fresh = await freshDatabase();
    await importInto(fresh.handle.db, sampleRecords());
    before_ = await exportText(fresh.handle.db);
  });
  after(() => fresh.cleanup());

  async function expectFailure(records: Iterable<unknown> | AsyncIterable<unknown>, model: string | undefined, pk: unknown, pattern: RegExp) {
    const error = await importInto(fresh.handle.db, records).then(
      () => assert.fail('the import should have failed'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof ImportError, `expected an ImportError, got ${String(error)}`);
    assert.equal(error.model, model);
    assert.deepEqual(error.pk, pk);
    if (model !== undefined) assert.ok(error.message.includes(`${model} pk ${JSON.stringify(pk)}`), error.message);
    assert.match(error.message, pattern);
    assert.equal(await exportText(fresh.handle.db), before_, 'the database changed');
    return error;
  }

  // A valid record first, so that each failure has something to roll back.
  const valid = { model: 'space.spacestatus', pk: 9999, fields: { time: '2030-01-01T00:00:00Z', is_open: true } };
  const project = (pk: number, fields: Record<string, unknown>) => ({
    model: 'projects.project',
    pk,
    fields: { title: 'T', maintainer: 1, participants: [], status: 'p', progress: 0, ...fields },
  });
  const event = (pk: number, fields: Record<string, unknown>) => ({
    model: 'events.event',
    pk,
    fields: { title: 'E', status: 'r', organizer: null, start: null, stop: null, ...fields },
  });

  test('malformed JSON reports the line and column', async () => {
    const dir = tempDir();
    try {
      const text =
        '[\n{"model": "space.spacestatus", "pk": 9999, "fields": {"time": "2030-01-01T00:00:00Z", "is_open": true}},\n' +
        '{"model": "users.user", "pk": 99, "fields": {"username": "x",}}\n]\n';
      const error = await expectFailure(readFixture(writeFile(dir, 'bad.json', text)), undefined, undefined, /malformed JSON at line 3, column 62: /);
      assert.equal(error.position?.line, 3);
      await expectFailure(readFixture(writeFile(dir, 'truncated.json', '[\n{"model": "users.user", "pk": 99')), undefined, undefined, /line 2.*end of file/);
      await expectFailure(readFixture(writeFile(dir, 'object.json', '{"model": "users.user"}')), undefined, undefined, /line 1, column 1: .*JSON array/);
      await expectFailure(readFixture(writeFile(dir, 'comma.json', '[{"model": "x", "pk": 1, "fields": {}},\n]')), undefined, undefined, /line 2, column 1: expected a value/);
      await expectFailure(readFixture(writeFile(dir, 'after.json', '[] []')), undefined, undefined, /column 4: unexpected data after the end/);
      await expectFailure(readFixture(writeFile(dir, 'empty.json', '')), undefined, undefined, /no JSON array/);
      fs.writeFileSync(path.join(dir, 'latin1.json'), Buffer.from('[{"model": "users.user", "pk": 99, "fields": {"username": "caf\xe9"}}]', 'latin1'));
      await expectFailure(readFixture(path.join(dir, 'latin1.json')), undefined, undefined, /not valid UTF-8/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('records that are not dumpdata records', async () => {
    await expectFailure([valid, 42], undefined, undefined, /record 2: expected an object/);
    await expectFailure([valid, { pk: 3, fields: {} }], undefined, 3, /record 2 \(pk 3\): "model" must be a string/);
    await expectFailure([valid, { model: 'users.user', pk: 3, fields: [] }], 'users.user', 3, /"fields" must be an object/);
  });

  test('bad pks', async () => {
    for (const pk of [0, -1, '5', 1.5, 2 ** 31, 2 ** 53, null]) {
      await expectFailure([valid, user(pk, 'newcomer')], 'users.user', pk, /pk must be a whole number from 1 to 2147483647/);
    }
    await expectFailure([valid, { model: 'users.user', fields: { username: 'x' } }], 'users.user', undefined, /pk must be/);
  });

  test('unknown references, checked against the file and the database', async () => {
    await expectFailure([valid, project(1, { maintainer: 999 })], 'projects.project', 1, /field "maintainer": refers to users.user pk 999, which is neither/);
    await expectFailure([valid, project(50, { participants: [1, 998] })], 'projects.project', 50, /field "participants": refers to users.user pk 998/);
    await expectFailure([valid, event(3, { organizer: 997 })], 'events.event', 3, /field "organizer": refers to users.user pk 997/);
    await expectFailure([valid, { model: 'events.meeting', pk: 77, fields: { event: 996, members: [] } }], 'events.meeting', 77, /field "event": refers to events.event pk 996/);
    await expectFailure([valid, { model: 'events.meeting', pk: 1, fields: { event: 14, members: [995] } }], 'events.meeting', 1, /field "members": refers to users.user pk 995/);
    await expectFailure([valid, project(1, { maintainer: 'alice' })], 'projects.project', 1, /field "maintainer": must be the pk of a record/);
  });

  test('invalid status letters and other bad values', async () => {
    await expectFailure([valid, project(2, { status: 'x' })], 'projects.project', 2, /field "status": must be one of "a", "d", "f", "i", "p", got "x"/);
    await expectFailure([valid, event(4, { status: 'R' })], 'events.event', 4, /field "status": must be one of "r", "i"/);
    await expectFailure([valid, project(2, { progress: 101 })], 'projects.project', 2, /field "progress": must be a whole number from 0 to 100/);
    await expectFailure([valid, project(2, { progress: 5.5 })], 'projects.project', 2, /field "progress"/);
    await expectFailure([valid, user(3, 'x', { has_key: 'yes' })], 'users.user', 3, /field "has_key": must be true or false/);
    await expectFailure([valid, user(3, 'x', { username: 42 })], 'users.user', 3, /field "username": must be a string, got 42/);
    await expectFailure([valid, { model: 'users.user', pk: 3, fields: { email: 'x@example.org' } }], 'users.user', 3, /field "username": is missing/);
    await expectFailure([valid, { model: 'space.spacestatus', pk: 5, fields: { time: '2020-01-01T00:00:00Z', is_open: null } }], 'space.spacestatus', 5, /field "is_open"/);
    await expectFailure([valid, event(4, { picture: 7 })], 'events.event', 4, /field "picture"/);
  });

  test('duplicate usernames, in the file or against the database', async () => {
    await expectFailure(
      [valid, user(100, 'newcomer'), user(101, 'newcomer')],
      'users.user',
      101,
      /field "username": "newcomer" is already the username of users.user pk 100 in this file/,
    );
    await expectFailure([valid, user(100, 'Alice')], 'users.user', 100, /field "username": "Alice" is already the username of users.user pk 4 in the database/);
  });

  test('bad times', async () => {
    const opening = (time: unknown) => [valid, { model: 'space.spacestatus', pk: 5, fields: { time, is_open: true } }];
    await expectFailure(opening('2015-01-07T06:35:19'), 'space.spacestatus', 5, /field "time": "2015-01-07T06:35:19" has no UTC offset/);
    await expectFailure(opening('yesterday'), 'space.spacestatus', 5, /field "time": "yesterday" is not an ISO 8601 date-time/);
    await expectFailure(opening('2015-02-30T00:00:00Z'), 'space.spacestatus', 5, /is not an ISO 8601 date-time/);
    await expectFailure(opening(1420612519), 'space.spacestatus', 5, /field "time": must be an ISO 8601 date-time string/);
    await expectFailure(opening(null), 'space.spacestatus', 5, /field "time": must be a date-time, got null/);
    await expectFailure(opening('2300-01-01T00:00:00Z'), 'space.spacestatus', 5, /too far from 1970/);
    await expectFailure([valid, project(2, { modified: '2015-01-07 06:35' })], 'projects.project', 2, /field "modified": .* has no UTC offset/);
    await expectFailure([valid, event(4, { stop: 'soon' })], 'events.event', 4, /field "stop"/);
  });

  test('a second meeting for one event, in the file or against the database', async () => {
    await expectFailure(
      [valid, { model: 'events.meeting', pk: 1, fields: { event: 14 } }, { model: 'events.meeting', pk: 40, fields: { event: 14 } }],
      'events.meeting',
      40,
      /field "event": events.event pk 14 already has a meeting \(events.meeting pk 1 in this file\)/,
    );
    await expectFailure(
      [valid, { model: 'events.meeting', pk: 40, fields: { event: 14 } }],
      'events.meeting',
      40,
      /field "event": events.event pk 14 already has a meeting \(events.meeting pk 1 in the database\)/,
    );
  });

  test('a record error is reported even when the file goes on', async () => {
    const dir = tempDir();
    try {
      const text = JSON.stringify([valid, project(2, { status: 'x' }), ...Array.from({ length: 3000 }, (_, i) => ({ ...valid, pk: 10_000 + i }))]);
      await expectFailure(readFixture(writeFile(dir, 'late.json', text), { readSize: 4096 }), 'projects.project', 2, /status/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('readFixture and the array splitter', () => {
  test('stream the same records as JSON.parse, whatever the chunk size', async () => {
    const expected = sampleRecords();
    assert.deepEqual(await collect(readFixture(SAMPLE_FIXTURE)), expected);
    // Small reads split multi-byte characters (é, emoji) and escapes across chunks.
    assert.deepEqual(await collect(readFixture(SAMPLE_FIXTURE, { readSize: 7 })), expected);
  });

  const tricky = '\ufeff [ {"a": "x\\\\", "b": "\\"}]{["}, [1, [2, {"c": []}]], "top", -1.5e3, true, null, {"d": "\\\\\\""} , {} ]  \n';

  test('handle strings, escapes, nesting and bare values at every chunk boundary', () => {
    const expected = JSON.parse(tricky.slice(1));
    for (const size of [1, 2, 3, 5, 8, 13, 1000]) {
      const splitter = new JsonArraySplitter();
      const out: unknown[] = [];
      for (let i = 0; i < tricky.length; i += size) for (const run of splitter.push(tricky.slice(i, i + size))) out.push(...parseRun(run));
      splitter.end();
      assert.deepEqual(out, expected, `chunk size ${size}`);
    }
  });

  test('accept an empty array', async () => {
    const dir = tempDir();
    try {
      assert.deepEqual(await collect(readFixture(writeFile(dir, 'empty.json', ' [ ]\n'))), []);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('report a missing comma where it is', () => {
    const splitter = new JsonArraySplitter();
    splitter.push('[\n  {"a": 1}\n  {"b": 2}]');
    assert.throws(() => splitter.throwIfFailed(), /line 3, column 3: expected "," or "]" after an array element, found "\{"/);
  });
});

describe('fast time paths agree with src/time.ts', () => {
  test('parseCanonicalUtc matches parseIsoMicros', () => {
    const pad = (v: number, w: number) => String(v).padStart(w, '0');
    const samples = [
      '2024-02-29T23:59:59.999999Z',
      '2023-02-29T00:00:00Z',
      '1000-01-01T00:00:00Z',
      '9999-12-31T23:59:59.123456789Z',
      '1969-12-31T23:59:59.5Z',
      '2015-01-07T06:35:19.Z',
      '2015-13-01T00:00:00Z',
      '2015-01-07T24:00:00Z',
    ];
    let seed = 42;
    const random = (n: number) => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % n;
    for (let i = 0; i < 20_000; i++) {
      const digits = random(10);
      const fraction = digits ? '.' + pad(random(10 ** Math.min(digits, 9)), digits) : '';
      samples.push(`${pad(1000 + random(9000), 4)}-${pad(random(14), 2)}-${pad(random(33), 2)}T${pad(random(25), 2)}:${pad(random(61), 2)}:${pad(random(61), 2)}${fraction}Z`);
    }
    for (const text of samples) {
      const fast = parseCanonicalUtc(text);
      if (fast !== null) assert.equal(fast, parseIsoMicros(text), text);
      else assert.equal(parseIsoMicros(text), null, text);
    }
  });

  test('FixtureTimeFormatter matches formatIsoUtc', () => {
    const formatter = new FixtureTimeFormatter();
    const min = -62_135_596_800_000_000; // 0001-01-01
    const max = 253_402_300_799_999_968; // 9999-12-31T23:59:59.999968: the latest instant of year 9999 a double holds exactly
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const values = [min, max, 0, -1, 1, 86_400_000_000, 86_399_999_999, -86_400_000_001];
    for (let i = 0; i < 5_000; i++) values.push(Math.floor(min + random() * (max - min)));
    // Runs of close times, as an export of openings meets them (same day, then the next).
    let micros = Date.UTC(2015, 0, 1) * 1000;
    for (let i = 0; i < 5_000; i++) values.push((micros += Math.floor(random() * 3_600_000_000)), Math.floor(micros / 1e6) * 1e6);
    for (const value of values) assert.equal(formatter.format(value), formatIsoUtc(value), String(value));
  });
});

describe('CLI import and export', () => {
  let fresh: Fresh;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    fresh = await freshDatabase();
    dir = fresh.dir;
    env = { ...process.env, DATABASE_URL: fresh.url, LOG_LEVEL: 'silent' };
  });
  after(() => fresh.cleanup());

  const cli = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { cwd: dir, env, encoding: 'utf8', timeout: 60_000 });

  test('import prints a report and export reproduces the data', () => {
    const imported = cli('import', SAMPLE_FIXTURE);
    assert.equal(imported.status, 0, imported.stderr);
    assert.equal(imported.stdout, '');
    assert.match(imported.stderr, /imported 377 records from .*sample-dumpdata\.json/);
    assert.match(imported.stderr, /space\.spacestatus\s+300\n/);
    assert.doesNotMatch(imported.stderr, /skipped/);

    const toFile = cli('export', 'out.json');
    assert.equal(toFile.status, 0, toFile.stderr);
    assert.match(toFile.stderr, new RegExp(`exported ${SAMPLE_EXPORTED} records to out\\.json`));
    assert.equal(toFile.stdout, '');
    const toStdout = cli('export');
    assert.equal(toStdout.status, 0, toStdout.stderr);
    assert.equal(toStdout.stdout, fs.readFileSync(path.join(dir, 'out.json'), 'utf8'));
    assert.deepEqual(
      fs.readdirSync(dir).filter((f) => f.includes('partial')),
      [],
    );
    assert.equal(JSON.parse(toStdout.stdout).length, SAMPLE_EXPORTED);
  });

  test('a bad file fails with exit code 1 and leaves the database unchanged', () => {
    const before = cli('export').stdout;
    const bad = writeFile(
      dir,
      'bad.json',
      JSON.stringify([
        { model: 'space.spacestatus', pk: 1, fields: { time: '2000-01-01T00:00:00Z', is_open: false } },
        { model: 'projects.project', pk: 1, fields: { title: 'T', maintainer: 12345, status: 'p', progress: 0 } },
      ]),
    );
    const failed = cli('import', bad);
    assert.equal(failed.status, 1);
    assert.match(failed.stderr, /^import failed: projects\.project pk 1: field "maintainer": refers to users\.user pk 12345/);
    assert.equal(cli('export').stdout, before);
  });

  test('usage errors and --help', () => {
    const help = cli('import', '--help');
    assert.equal(help.status, 0);
    assert.match(help.stdout, /^hackerspace-api import <file\.json>/);
    const noFile = cli('import');
    assert.equal(noFile.status, 2);
    assert.match(noFile.stderr, /import: expected exactly one fixture file/);
  });
});
