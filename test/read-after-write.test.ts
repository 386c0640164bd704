// Read after write, with real processes: once a write's response has been sent, no client sees
// the data as it was before, neither from the process that made the write (A) nor from another
// `serve` process on the same database (B), for every collection and for the space's status.
// Runs on the engine under test (TEST_ENGINE).
//
// Every process keeps a response cache, so each test first fills both caches (and remembers the
// ETag of every body): a write that failed to invalidate a cached body would then be caught by
// the very next read. Reads follow writes at once — no sleep, no retry: "eventually" is not the
// promise being tested.
//
// The whole suite runs twice, as two kinds of client:
// - plain: GETs without validators (a script, a bot without a cache);
// - conditional: GETs with `If-None-Match: <the last ETag this client got for this URL>` (a
//   browser, a polling widget). A 304 must never hide a write, every 200 carries a strong ETag,
//   and sending it back answers 304 with an empty body.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createToken } from '../src/resources/tokens.js';
import { importRecords } from '../src/installed-apps.js';
import { COLLECTION_PATHS, pathOf } from './support/contract.js';
import { request, type HttpResponse, idOf } from './support/http.js';
import { freePort, killAll, startService, waitUntilServing, type Service } from './support/processes.js';
import { freshDatabase, sampleRecords, TEST_ENGINE } from './support/server.js';

after(() => killAll());

/** Links in bodies do not depend on which process answered: A and B give the same bytes. */
const PUBLIC_URL = 'https://space.example.org';
const STATUS = '/api/space/status/';
const OPENINGS = '/api/space/openings/';
const NOT_FOUND = { detail: 'Not found.' };
/** RFC 9110 entity-tag, strong (no `W/`): a double-quoted run of visible characters. */
const STRONG_ETAG = /^"[\x21\x23-\x7e\x80-\xff]*"$/;

type Collection = (typeof COLLECTION_PATHS)[number];

const MODEL_COLLECTIONS: Record<string, Collection> = {
  'users.user': 'users',
  'space.spacestatus': 'space/openings',
  'projects.project': 'projects',
  'events.event': 'events',
  'events.meeting': 'meetings',
};

/** The pk of the first sample record of each collection. */
function firstSamplePks(): Record<Collection, number> {
  const pks: Partial<Record<Collection, number>> = {};
  for (const record of sampleRecords() as Array<{ model: string; pk: number }>) {
    const collection = MODEL_COLLECTIONS[record.model];
    if (collection !== undefined) pks[collection] ??= record.pk;
  }
  for (const collection of COLLECTION_PATHS) assert.ok(pks[collection] !== undefined, `the sample has ${collection}`);
  return pks as Record<Collection, number>;
}
const SAMPLE_PK = firstSamplePks();

const userUrl = (id: number) => `${PUBLIC_URL}/api/users/${id}/`;
// ---------------------------------------------------------------------------------------------
// Two processes on one database

/**
 * One of the two processes, seen by a client that remembers the last ETag it was given for each
 * URL (and, as a conditional client, sends it back).
 */
interface Side {
  name: 'A' | 'B';
  service: Service;
  etags: Map<string, string>;
}

interface Cluster {
  /** The process every write goes through. */
  a: Side;
  /** The other process, which only learns of writes through the database. */
  b: Side;
  /** An admin token's secret. */
  admin: string;
  conditional: boolean;
  stop(): Promise<void>;
}

/** A fresh database with the sample data and an admin token, and two `serve` processes on it. */
async function startCluster(conditional: boolean): Promise<Cluster> {
  const fresh = await freshDatabase();
  const services: Service[] = [];
  try {
    const records = sampleRecords();
    await fresh.handle.db.transaction().execute((trx) => importRecords(trx, records));
    const { secret } = await createToken(fresh.handle.db, 'read-after-write admin', 'admin', Date.now() * 1000);
    // The response cache is on by default; said here because its invalidation is what is tested.
    const env = { DATABASE_URL: fresh.url, LOG_LEVEL: 'warn', PUBLIC_URL, RESPONSE_CACHE_MB: '64' };
    for (let i = 0; i < 2; i++) services.push(await startService(['serve'], { ...env, PORT: String(await freePort()) }));
    await Promise.all(services.map((service) => waitUntilServing(service)));
    const [a, b] = services;
    return {
      a: { name: 'A', service: a, etags: new Map() },
      b: { name: 'B', service: b, etags: new Map() },
      admin: secret,
      conditional,
      async stop() {
        await Promise.all(services.map((service) => service.stop()));
        await fresh.cleanup();
      },
    };
  } catch (error) {
    await Promise.all(services.map((service) => service.stop()));
    await fresh.cleanup();
    throw error;
  }
}

/** A write through A, with the admin token and a JSON body. */
function write(c: Cluster, method: string, path: string, json?: unknown): Promise<HttpResponse> {
  const headers: Record<string, string> = { authorization: `Token ${c.admin}` };
  if (json !== undefined) headers['content-type'] = 'application/json';
  return request(c.a.service.base, path, { method, headers, body: json === undefined ? undefined : JSON.stringify(json) });
}

function assertStatus(res: HttpResponse, status: number, what: string): void {
  assert.equal(res.status, status, `${what} → ${res.status} ${res.body.slice(0, 300)}`);
}

// ---------------------------------------------------------------------------------------------
// Reading as a client

/**
 * One GET of `path` on a process. Right after a write (`afterWrite`), a conditional client sends
 * the ETag it last got for `path`: the body has changed since, so a 304 is a failure, and the
 * 200 must carry another ETag. Warm-up reads are plain GETs (they fill the cache and give the
 * body; a 304 would give neither). A conditional client also checks every 200's validator: a
 * strong ETag which, sent back, gets `304` with an empty body.
 */
async function read(c: Cluster, side: Side, path: string, expected: 200 | 404, afterWrite: boolean): Promise<HttpResponse> {
  const known = c.conditional && afterWrite ? side.etags.get(path) : undefined;
  const where = `GET ${path} on ${side.name}${known === undefined ? '' : ` with If-None-Match: ${known}`}`;
  const res = await request(side.service.base, path, { headers: known === undefined ? {} : { 'if-none-match': known } });
  assert.notEqual(res.status, 304, `${where}: 304 Not Modified would keep the client on the body from before the write`);
  assertStatus(res, expected, where);
  if (expected === 404) {
    assert.deepEqual(res.json(), NOT_FOUND, where);
    side.etags.delete(path);
    return res;
  }
  const etag = res.headers.etag;
  if (c.conditional) {
    assert.match(etag ?? '(none)', STRONG_ETAG, `${where}: a strong ETag`);
    if (known !== undefined) assert.notEqual(etag, known, `${where}: a changed body has a new ETag`);
    await assertRevalidates(side, path, etag!);
  }
  if (etag === undefined) side.etags.delete(path);
  else side.etags.set(path, etag);
  return res;
}

/** The validator just given names the current body: sent back, it gets 304 and no body. */
async function assertRevalidates(side: Side, path: string, etag: string): Promise<void> {
  const where = `GET ${path} on ${side.name} with If-None-Match: ${etag} (its current ETag)`;
  const again = await request(side.service.base, path, { headers: { 'if-none-match': etag } });
  assertStatus(again, 304, where);
  assert.equal(again.body, '', `${where}: a 304 has no body`);
  // RFC 9110 §15.4.5: a 304 carries the ETag a 200 would have.
  assert.equal(again.headers.etag, etag, `${where}: the 304 repeats the ETag`);
}

/** What one read must show; `where` names the read for messages. */
type Check = (body: any, where: string) => void;

const is =
  (expected: unknown): Check =>
  (body, where) =>
    assert.deepEqual(body, expected, where);
const countIs =
  (count: number): Check =>
  (page, where) =>
    assert.equal(page.count, count, `${where}: count`);

/**
 * Right after a write: each path read once on B (the process that did not write), then on A,
 * must pass all its checks.
 */
async function expectEverywhere(c: Cluster, when: string, checks: Array<[string, Check]>): Promise<void> {
  const byPath = new Map<string, Check[]>();
  for (const [path, check] of checks) byPath.set(path, [...(byPath.get(path) ?? []), check]);
  for (const side of [c.b, c.a]) {
    for (const [path, pathChecks] of byPath) {
      const body = (await read(c, side, path, 200, true)).json();
      for (const check of pathChecks) check(body, `${when}: GET ${path} on ${side.name}`);
    }
  }
}

/** Right after a DELETE: the record is `404 Not found.` on B and on A. */
async function expectGoneEverywhere(c: Cluster, path: string): Promise<void> {
  for (const side of [c.b, c.a]) await read(c, side, path, 404, true);
}

/** Bodies before the write, by path (the same on both processes). */
type Warm = Map<string, any>;

/** The status, and each collection's first page, a second page, its last page and a record. */
function warmPaths(): string[] {
  const paths = [STATUS];
  for (const collection of COLLECTION_PATHS) {
    const list = `/api/${collection}/`;
    paths.push(list, `${list}?page=2&page_size=3`, `${list}?page=last&page_size=3`, `${list}${SAMPLE_PK[collection]}/`);
  }
  return paths;
}

/**
 * Fills both processes' response caches, so that a write which left a cached body in place would
 * be served stale, and remembers each body's ETag; returns the bodies.
 */
async function warmUp(c: Cluster, extraPaths: string[] = []): Promise<Warm> {
  const warm: Warm = new Map();
  for (const path of [...warmPaths(), ...extraPaths]) {
    const onA = await read(c, c.a, path, 200, false);
    const onB = await read(c, c.b, path, 200, false);
    assert.equal(onB.body, onA.body, `${path}: both processes give the same body`);
    warm.set(path, onA.json());
  }
  return warm;
}

// ---------------------------------------------------------------------------------------------
// Create, update and delete one record, reading after each write

type Phase = 'created' | 'patched' | 'deleted';

interface WriteCase {
  collection: Collection;
  /** The POST body (for openings: a door report, which records a change of state). */
  create: Record<string, unknown>;
  /** The PATCH body: a field that every representation of the record shows. */
  patch: Record<string, unknown>;
  /** The page that shows the new record (the collection's first page or `page=last`)… */
  page: string;
  /** …and the record where the collection's order puts it on that page. */
  pick(results: any[], record: any): any;
  /** Reads of other routes that the write changes (the space's status, an event's meeting). */
  alsoChanges?(phase: Phase, record: any, warm: Warm): Array<[string, Check]>;
}

/**
 * POST a record through A, PATCH it, DELETE it; after each write, at once, the collection's pages
 * and the record's URL (from Location) show it on B and on A. After the DELETE everything reads
 * exactly as before the POST.
 */
async function createPatchDelete(c: Cluster, wc: WriteCase, extraWarmPaths: string[] = []): Promise<void> {
  const list = `/api/${wc.collection}/`;
  const second = `${list}?page=2&page_size=3`;
  const warm = await warmUp(c, extraWarmPaths);
  const initialCount = warm.get(list).count;
  const related = (phase: Phase, record: any) => wc.alsoChanges?.(phase, record, warm) ?? [];

  const created = await write(c, 'POST', list, wc.create);
  assertStatus(created, 201, `POST ${list}`);
  const record = created.json();
  const detail = pathOf(created.headers.location ?? '');
  await expectEverywhere(c, `after POST ${list}`, [
    [list, countIs(initialCount + 1)],
    // A page that does not show the record still has the new count: no page is left stale.
    [second, countIs(initialCount + 1)],
    [wc.page, (page, where) => assert.deepEqual(wc.pick(page.results, record), record, `${where}: the new record, where the order puts it`)],
    [detail, is(record)],
    ...related('created', record),
  ]);

  const patched = await write(c, 'PATCH', detail, wc.patch);
  assertStatus(patched, 200, `PATCH ${detail}`);
  const updated = patched.json();
  for (const [field, value] of Object.entries(wc.patch)) assert.deepEqual(updated[field], value, `PATCH ${detail} changed ${field}`);
  assert.notDeepEqual(updated, record, `PATCH ${detail} changed what the API shows`);
  await expectEverywhere(c, `after PATCH ${detail}`, [
    [detail, is(updated)],
    [wc.page, (page, where) => assert.deepEqual(wc.pick(page.results, updated), updated, `${where}: the updated record`)],
    ...related('patched', updated),
  ]);

  assertStatus(await write(c, 'DELETE', detail), 204, `DELETE ${detail}`);
  await expectGoneEverywhere(c, detail);
  await expectEverywhere(c, `after DELETE ${detail}`, [
    [list, is(warm.get(list))],
    [second, is(warm.get(second))],
    [wc.page, is(warm.get(wc.page))],
    ...related('deleted', updated),
  ]);
}

/** A POST through A that must succeed; returns the new record's path and body. */
async function postRecord(c: Cluster, collection: Collection, body: Record<string, unknown>): Promise<{ path: string; id: number; record: any }> {
  const res = await write(c, 'POST', `/api/${collection}/`, body);
  assertStatus(res, 201, `POST /api/${collection}/`);
  return { path: pathOf(res.headers.location ?? ''), id: idOf(res), record: res.json() };
}

/** The space's status as the current opening shows it. */
const statusOf = (opening: { is_open: boolean; time: string }) => ({ is_open: opening.is_open, since: opening.time });

// ---------------------------------------------------------------------------------------------

function readAfterWriteSuite(conditional: boolean): void {
  const client = conditional ? 'GETs with If-None-Match see every write at once (never a stale 304)' : 'plain GETs see every write at once';
  describe(`read after write on ${TEST_ENGINE}, two serve processes: ${client}`, () => {
    let c: Cluster;
    before(async () => {
      c = await startCluster(conditional);
    });
    after(() => c?.stop());

    it('users: create, PATCH has_key, delete', async () => {
      await createPatchDelete(c, {
        collection: 'users',
        create: { username: 'read-after-write', email: 'raw@example.org', has_key: false },
        patch: { has_key: true },
        // Users are in code-point order of their names; the sample's 31 fit on the first page.
        page: '/api/users/',
        pick: (results, record) => results.find((u: any) => u.username === record.username),
      });
    });

    it('space/openings: a door report, PATCH is_open, delete; /api/space/status/ follows each', async () => {
      const { is_open: isOpen } = (await request(c.a.service.base, STATUS)).json();
      await createPatchDelete(c, {
        collection: 'space/openings',
        create: { is_open: !isOpen },
        // An admin's correction of the latest opening: the state goes back, "since" stays.
        patch: { is_open: isOpen },
        page: OPENINGS,
        // Newest first.
        pick: (results) => results[0],
        alsoChanges: (phase, record, warm) => {
          const checks: Array<[string, Check]> = [[STATUS, is(phase === 'deleted' ? warm.get(STATUS) : statusOf(record))]];
          if (phase === 'created') {
            // Every later page shifts by one: the second page of three now starts with what was the third opening.
            const shifted = warm.get(OPENINGS).results.slice(2, 5);
            checks.push([`${OPENINGS}?page=2&page_size=3`, (page, where) => assert.deepEqual(page.results, shifted, `${where}: results`)]);
          }
          return checks;
        },
      });
    });

    it('projects: create, PATCH title, delete', async () => {
      await createPatchDelete(c, {
        collection: 'projects',
        create: { title: 'Read after write', maintainer: userUrl(SAMPLE_PK.users), status: 'i', progress: 10, short_description: 'fresh' },
        patch: { title: 'Read after write, renamed' },
        // By id: a new project is the last one.
        page: '/api/projects/?page=last&page_size=3',
        pick: (results) => results.at(-1),
      });
    });

    it('events: create, PATCH title, delete', async () => {
      await createPatchDelete(c, {
        collection: 'events',
        create: { title: 'Read after write night', status: 'r', start: '2099-01-01T18:00:00Z', stop: '2099-01-01T23:00:00Z' },
        patch: { title: 'Read after write night, renamed' },
        // By start: later than every sample event.
        page: '/api/events/?page=last&page_size=3',
        pick: (results) => results.at(-1),
      });
    });

    it('meetings: create, PATCH pad, delete; the event links to its meeting at once', async () => {
      const event = await postRecord(c, 'events', { title: 'Read after write meeting', status: 'r', start: '2099-02-01T18:00:00Z' });
      await createPatchDelete(
        c,
        {
          collection: 'meetings',
          create: { event: `${PUBLIC_URL}${event.path}`, pad: 'https://pad.example.org/p/raw' },
          patch: { pad: 'https://pad.example.org/p/raw-2' },
          page: '/api/meetings/?page=last&page_size=3',
          pick: (results) => results.at(-1),
          // The event's record shows its meeting: a meetings write changes an events body.
          alsoChanges: (phase, record) =>
            phase === 'patched'
              ? []
              : [[event.path, (body, where) => assert.equal(body.meeting, phase === 'created' ? `${PUBLIC_URL}/api/meetings/${record.id}/` : null, `${where}: meeting`)]],
        },
        [event.path],
      );
      // Deleted after its meeting: an event that has a meeting cannot be deleted (409).
      assertStatus(await write(c, 'DELETE', event.path), 204, `DELETE ${event.path}`);
      await expectGoneEverywhere(c, event.path);
    });

    it('a project and a meeting show at once a participant renamed (new order) and a participant deleted', async () => {
      // Participants and members are listed in code-point order of their usernames, so these
      // bodies change with writes to users, not only with writes to projects and meetings.
      const x = await postRecord(c, 'users', { username: 'raw-x' });
      const y = await postRecord(c, 'users', { username: 'raw-y' });
      const project = await postRecord(c, 'projects', {
        title: 'Shared',
        maintainer: userUrl(SAMPLE_PK.users),
        participants: [userUrl(x.id), userUrl(y.id)],
        status: 'p',
        progress: 0,
        short_description: 'shared',
      });
      const event = await postRecord(c, 'events', { title: 'Shared meeting', status: 'r' });
      const meeting = await postRecord(c, 'meetings', { event: `${PUBLIC_URL}${event.path}`, members: [userUrl(x.id), userUrl(y.id)] });
      assert.deepEqual(project.record.participants, [userUrl(x.id), userUrl(y.id)]);
      assert.deepEqual(meeting.record.members, [userUrl(x.id), userUrl(y.id)]);
      const lastProjects = '/api/projects/?page=last&page_size=3';
      await warmUp(c, [project.path, meeting.path]);

      assertStatus(await write(c, 'PATCH', y.path, { username: 'raw-a' }), 200, `PATCH ${y.path}`);
      const renamedOrder = [userUrl(y.id), userUrl(x.id)];
      await expectEverywhere(c, `after renaming user ${y.id}`, [
        [y.path, (body, where) => assert.equal(body.username, 'raw-a', where)],
        [project.path, (body, where) => assert.deepEqual(body.participants, renamedOrder, `${where}: participants`)],
        [lastProjects, (page, where) => assert.deepEqual(page.results.at(-1).participants, renamedOrder, `${where}: participants`)],
        [meeting.path, (body, where) => assert.deepEqual(body.members, renamedOrder, `${where}: members`)],
      ]);

      assertStatus(await write(c, 'DELETE', x.path), 204, `DELETE ${x.path}`);
      await expectGoneEverywhere(c, x.path);
      await expectEverywhere(c, `after deleting user ${x.id}`, [
        [project.path, (body, where) => assert.deepEqual(body.participants, [userUrl(y.id)], `${where}: participants`)],
        [lastProjects, (page, where) => assert.deepEqual(page.results.at(-1).participants, [userUrl(y.id)], `${where}: participants`)],
        [meeting.path, (body, where) => assert.deepEqual(body.members, [userUrl(y.id)], `${where}: members`)],
      ]);

      // Clean up, in dependency order.
      for (const path of [meeting.path, event.path, project.path, y.path]) assertStatus(await write(c, 'DELETE', path), 204, `DELETE ${path}`);
    });

    it('20 back-to-back door reports through A: the very next read on B and on A shows each one', async () => {
      const warm = await warmUp(c);
      let isOpen = !warm.get(STATUS).is_open;
      for (let round = 1; round <= 20; round++, isOpen = !isOpen) {
        const posted = await write(c, 'POST', OPENINGS, { is_open: isOpen });
        assertStatus(posted, 201, `round ${round}: POST ${OPENINGS} is_open=${isOpen}`);
        const opening = posted.json();
        await expectEverywhere(c, `round ${round}`, [
          [OPENINGS, (page, where) => assert.deepEqual(page.results[0], opening, `${where}: results[0] is the opening just posted`)],
          [STATUS, is(statusOf(opening))],
        ]);
      }
    });
  });
}

readAfterWriteSuite(false);
readAfterWriteSuite(true);
