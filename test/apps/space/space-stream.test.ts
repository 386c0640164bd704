// The push stream, GET /api/space/stream/ (Server-Sent Events): the current state on connect, one
// event per change from every write path, Last-Event-ID resumption without gaps or duplicates,
// heartbeats, negotiation and the API's route checks, cleanup of departed clients, shutdown, and
// delivery across two real `serve` processes (PostgreSQL LISTEN/NOTIFY, the SQLite poll).
// Real HTTP; both engines (TEST_ENGINE).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { currentSpaceState } from '../../../src/apps/space/openings.js';
import { createToken } from '../../../src/resources/tokens.js';
import { importRecords } from '../../../src/installed-apps.js';
import { request, type HttpResponse, idOf } from '../../support/http.js';
import { freePort, killAll, startService, waitUntilServing, type Service } from '../../support/processes.js';
import { freshDatabase, postgresOnly, sampleRecords, startServer, TEST_ENGINE, type FreshDatabase, type TestServer } from '../../support/server.js';
import { dataOf, openStream, type SseClient, type SseEvent } from '../../support/sse.js';
import { until, within } from '../../support/wait.js';
import { nowUs } from '../../support/clock.js';
import { doorPost } from '../../support/door.js';

after(() => killAll());

const STREAM = '/api/space/stream/';
const NOT_ACCEPTABLE = { detail: 'Could not satisfy the request Accept header.' };

/**
 * The current state and the event a client gets for it, as the contract defines them (found
 * without src/): `id` is the id of the opening that holds the state, the latest by time (read from
 * the table), and `data` exactly the body of /api/space/status/.
 */
async function currentState(server: TestServer) {
  const latest = await server.database.db.selectFrom('openings').select('id').orderBy('time_us', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
  const status = await request(server.base, '/api/space/status/');
  assert.equal(status.status, 200, status.body);
  const data = status.json() as { is_open: boolean | null; since: string | null };
  return { id: latest?.id ?? null, isOpen: data.is_open, event: { event: 'state', id: String(latest?.id ?? 0), data } };
}

let tokenCounter = 0;
async function tokens(db: TestServer['database']['db']) {
  const n = ++tokenCounter;
  return {
    door: (await createToken(db, `stream door ${n}`, 'door', nowUs())).secret,
    admin: (await createToken(db, `stream admin ${n}`, 'admin', nowUs())).secret,
  };
}

function call(
  base: string,
  path: string,
  options: { method?: string; secret?: string; json?: unknown; form?: string; headers?: Record<string, string> } = {},
): Promise<HttpResponse> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] = 'application/json';
  }
  if (options.form !== undefined) {
    body = options.form;
    headers['content-type'] = 'application/x-www-form-urlencoded';
  }
  if (options.secret !== undefined) headers.authorization = `Token ${options.secret}`;
  return request(base, path, { method: options.method ?? (body === undefined ? 'GET' : 'POST'), headers, body });
}

/** Records a change (201) and returns the event a client should get for it. */
async function change(base: string, secret: string, isOpen: boolean): Promise<{ id: string; data: { is_open: boolean; since: string } }> {
  const res = await doorPost(base, secret, isOpen);
  assert.equal(res.status, 201, res.body);
  const record = res.json();
  return { id: String(idOf(res)), data: { is_open: record.is_open, since: record.time } };
}

function simple(events: readonly SseEvent[]) {
  return events.map((e) => ({ event: e.event, id: e.id, data: dataOf(e) }));
}

async function latestIsOpen(db: TestServer['database']['db']): Promise<boolean> {
  return (await currentSpaceState(db)).isOpen ?? false;
}

describe(`GET ${STREAM} on ${TEST_ENGINE}`, () => {
  let server: TestServer;
  let secrets: { door: string; admin: string };
  const clients: SseClient[] = [];
  const connect = async (headers: Record<string, string> = {}, path = STREAM) => {
    const client = await openStream(server.base, path, headers);
    clients.push(client);
    return client;
  };

  before(async () => {
    server = await startServer({ records: sampleRecords(), env: { STREAM_HEARTBEAT_MS: '150' } });
    secrets = await tokens(server.database.db);
  });
  after(async () => {
    for (const client of clients) client.close();
    await server.close();
  });

  it("answers text/event-stream with the contract's headers, and first sends the current state", async () => {
    const client = await connect();
    assert.equal(client.status, 200);
    assert.equal(client.headers['content-type'], 'text/event-stream');
    assert.equal(client.headers['cache-control'], 'no-cache');
    assert.equal(client.headers['x-accel-buffering'], 'no');
    assert.equal(client.headers['allow'], 'GET, HEAD, OPTIONS');
    assert.equal(client.headers['vary'], 'Accept');
    assert.equal(client.headers['access-control-allow-origin'], '*');
    assert.equal(client.headers['x-content-type-options'], 'nosniff');
    assert.equal(client.headers['x-frame-options'], 'DENY');
    assert.equal(client.headers['content-length'], undefined);
    const [first] = await client.waitForEvents(1);
    const state = await currentState(server);
    assert.ok(state.id !== null, 'the sample has openings');
    assert.deepEqual(simple([first]), [state.event]);
    client.close();
  });

  it('sends each change the moment a door post records it, from the JSON route and the legacy one; nothing for a repeated state', async () => {
    const client = await connect();
    await client.waitForEvents(1);
    const isOpen = await latestIsOpen(server.database.db);
    const expected = [await change(server.base, secrets.door, !isOpen)];
    assert.deepEqual(
      simple(await client.waitForEvents(2)).slice(1),
      expected.map((e) => ({ event: 'state', ...e })),
    );
    // The same state again records nothing, and sends nothing.
    assert.equal((await doorPost(server.base, secrets.door, !isOpen)).status, 200);
    const legacy = await call(server.base, '/space/change_status', { form: `secret=${encodeURIComponent(secrets.door)}&open=${isOpen ? 1 : 0}` });
    assert.equal(legacy.status, 200, legacy.body);
    const [, , viaLegacy] = await client.waitForEvents(3);
    const state = await currentState(server);
    assert.deepEqual(simple([viaLegacy]), [state.event]);
    assert.equal(state.isOpen, isOpen);
    expected.push(await change(server.base, secrets.door, !isOpen));
    const events = await client.waitForEvents(4);
    assert.deepEqual(simple(events).slice(3), [{ event: 'state', ...expected[1] }]);
    assert.equal(events.length, 4, 'no event for the repeated state');
    client.close();
  });

  it('resumes from Last-Event-ID (header or ?lastEventId=): the missed changes, then live ones; nothing when up to date', async () => {
    const first = await connect();
    const [initial] = await first.waitForEvents(1);
    first.close();
    let isOpen = await latestIsOpen(server.database.db);
    const missed = [];
    for (let i = 0; i < 3; i++) missed.push({ event: 'state', ...(await change(server.base, secrets.door, (isOpen = !isOpen))) });

    const byHeader = await connect({ 'last-event-id': initial.id! });
    const byQuery = await connect({}, `${STREAM}?lastEventId=${initial.id}`);
    assert.deepEqual(simple(await byHeader.waitForEvents(3)), missed);
    assert.deepEqual(simple(await byQuery.waitForEvents(3)), missed);
    // Its replay (none) was written with its headers, before connect() returned: the next change is its first event.
    const upToDate = await connect({ 'last-event-id': missed[2].id });

    const live = { event: 'state', ...(await change(server.base, secrets.door, !isOpen)) };
    assert.deepEqual(simple(await byHeader.waitForEvents(4)).slice(3), [live]);
    assert.deepEqual(simple(await byQuery.waitForEvents(4)).slice(3), [live]);
    assert.deepEqual(simple(await upToDate.waitForEvents(1)), [live], 'a client that saw the latest event gets nothing before the next change');
    for (const client of [byHeader, byQuery, upToDate]) client.close();

    // An id that means nothing here (garbage, or from another database): the current state.
    for (const lastEventId of ['garbage', '999999999']) {
      const client = await connect({ 'last-event-id': lastEventId });
      assert.deepEqual(simple(await client.waitForEvents(1)), [live], `Last-Event-ID ${lastEventId}`);
      client.close();
    }
  });

  it('never skips nor repeats a change for clients that resume while changes are being recorded', async () => {
    const start = await connect();
    const [initial] = await start.waitForEvents(1);
    start.close();
    let isOpen = await latestIsOpen(server.database.db);
    const expected: { event: string; id: string; data: unknown }[] = [];
    const resuming: Promise<SseClient>[] = [];
    for (let i = 0; i < 12; i++) {
      // Clients join while posts are in flight: commits race with their replay reads.
      const joining = i % 3 === 2 ? null : connect({ 'last-event-id': initial.id! });
      expected.push({ event: 'state', ...(await change(server.base, secrets.door, (isOpen = !isOpen))) });
      if (joining) resuming.push(joining);
    }
    const clients = await Promise.all(resuming);
    for (const client of clients) assert.deepEqual(simple(await client.waitForEvents(expected.length)), expected);
    // A later change is the marker: a duplicate of an earlier one would arrive before it.
    const later = { event: 'state', ...(await change(server.base, secrets.door, !isOpen)) };
    for (const client of clients) {
      assert.deepEqual(simple(await client.waitForEvents(expected.length + 1)), [...expected, later], 'no duplicate after the last change');
      client.close();
    }
  });

  it('follows admin edits: a backfill behind the latest opening sends nothing (and is not replayed); one ahead of it, edits and deletes of the latest do', async () => {
    const client = await connect();
    const [initial] = await client.waitForEvents(1);
    const isOpen = await latestIsOpen(server.database.db);
    // A change before the first opening ever: history, not the current state.
    const first = await server.database.db.selectFrom('openings').select('is_open').orderBy('time_us').orderBy('id').limit(1).executeTakeFirstOrThrow();
    const backfill = await call(server.base, '/api/space/openings/', { secret: secrets.admin, json: { is_open: first.is_open !== 1, time: '1990-01-01T00:00:00Z' } });
    assert.equal(backfill.status, 201, backfill.body);
    const next = await change(server.base, secrets.door, !isOpen);
    assert.deepEqual(simple(await client.waitForEvents(2)).slice(1), [{ event: 'state', ...next }], 'the backfill sent nothing');
    const resumed = await connect({ 'last-event-id': initial.id! });
    assert.deepEqual(simple(await resumed.waitForEvents(1)), [{ event: 'state', ...next }], 'the backfill is not replayed');

    // Correcting the latest opening: the same opening (id), another state.
    const patched = await call(server.base, `/api/space/openings/${next.id}/`, { method: 'PATCH', secret: secrets.admin, json: { is_open: isOpen } });
    assert.equal(patched.status, 200, patched.body);
    const corrected = { event: 'state', id: next.id, data: { is_open: isOpen, since: next.data.since } };
    assert.deepEqual(simple(await client.waitForEvents(3)).slice(2), [corrected]);
    // The correction is the resumed client's next event: nothing of the backfill came before it.
    assert.deepEqual(simple(await resumed.waitForEvents(2)), [{ event: 'state', ...next }, corrected], 'the backfill is not replayed');
    resumed.close();
    // Deleting it: the opening before it is the state again.
    assert.equal((await call(server.base, `/api/space/openings/${next.id}/`, { method: 'DELETE', secret: secrets.admin })).status, 204);
    const state = await currentState(server);
    assert.deepEqual(simple(await client.waitForEvents(4)).slice(3), [state.event]);
    // Editing an older opening leaves the state alone: no event.
    const older = (await server.database.db.selectFrom('openings').select('id').where('id', '<', state.id!).orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow()).id;
    assert.equal((await call(server.base, `/api/space/openings/${older}/`, { method: 'PATCH', secret: secrets.admin, json: { time: '2001-01-01T00:00:00Z' } })).status, 200);
    const after = await change(server.base, secrets.door, !state.isOpen);
    assert.deepEqual(simple(await client.waitForEvents(5)).slice(4), [{ event: 'state', ...after }]);
    // A backfill between the latest opening and now is the new state: a time the clock has passed since that opening.
    const afterUs = Date.parse(after.data.since) * 1000;
    await until(() => (Date.now() - 10) * 1000 > afterUs, 'the clock to pass the latest opening by 10 ms');
    const ahead = await call(server.base, '/api/space/openings/', { secret: secrets.admin, json: { is_open: state.isOpen, time: new Date(Date.now() - 10).toISOString() } });
    assert.equal(ahead.status, 201, ahead.body);
    assert.deepEqual(simple(await client.waitForEvents(6)).slice(5), [{ event: 'state', id: String(idOf(ahead)), data: { is_open: state.isOpen, since: ahead.json().time } }]);
    client.close();
  });

  it('sends a heartbeat comment on idle streams (STREAM_HEARTBEAT_MS)', async () => {
    const client = await connect();
    await client.waitForEvents(1);
    await client.waitForComment('heartbeat', 2000);
    assert.match(client.raw(), /\n\n: heartbeat\n\n/);
    client.close();
  });

  it('negotiates its own media type: text/event-stream, text/*, */* or no Accept; anything else is a 406 in JSON', async () => {
    for (const accept of ['text/event-stream', 'text/*', '*/*', 'application/json, text/event-stream;q=0.5', '']) {
      const client = await connect(accept === '' ? {} : { accept });
      assert.equal(client.status, 200, `Accept: ${accept}`);
      assert.equal(client.headers['content-type'], 'text/event-stream');
      client.close();
    }
    for (const accept of ['application/xml', 'application/json', 'text/html', 'text/event-stream;q=0']) {
      const res = await call(server.base, STREAM, { headers: { accept } });
      assert.equal(res.status, 406, `Accept: ${accept}`);
      assert.equal(res.headers['content-type'], 'application/json');
      assert.deepEqual(res.json(), NOT_ACCEPTABLE);
      assert.equal(res.headers['allow'], 'GET, HEAD, OPTIONS');
      assert.equal(res.headers['vary'], 'Accept');
    }
  });

  it("goes through the API's route checks: HEAD, OPTIONS, 301 without the slash, 404 for a suffix, 401/403/405 for writes", async () => {
    const head = await call(server.base, STREAM, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers['content-type'], 'text/event-stream');
    assert.equal(head.headers['allow'], 'GET, HEAD, OPTIONS');
    assert.equal(head.body, '');
    const options = await call(server.base, STREAM, { method: 'OPTIONS', secret: secrets.admin });
    assert.equal(options.status, 200);
    assert.equal(options.headers['content-type'], 'application/json');
    assert.deepEqual(options.json().renders, ['text/event-stream']);
    assert.equal(options.json().actions, undefined);
    // A cross-origin EventSource that resumes sends Last-Event-ID: its preflight allows it.
    const preflight = await call(server.base, STREAM, {
      method: 'OPTIONS',
      headers: { origin: 'https://dash.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'last-event-id' },
    });
    assert.equal(preflight.headers['access-control-allow-origin'], '*');
    assert.match(String(preflight.headers['access-control-allow-headers']), /Last-Event-ID/);
    const redirect = await call(server.base, '/api/space/stream?lastEventId=3');
    assert.equal(redirect.status, 301);
    assert.equal(redirect.headers.location, `${STREAM}?lastEventId=3`);
    assert.equal((await call(server.base, '/api/space/stream.json')).status, 404);
    assert.equal((await call(server.base, `${STREAM}?format=xml`)).status, 404);
    assert.equal((await call(server.base, STREAM, { method: 'POST', json: {} })).status, 401);
    assert.equal((await call(server.base, STREAM, { method: 'POST', secret: secrets.door, json: {} })).status, 403);
    const post = await call(server.base, STREAM, { method: 'POST', secret: secrets.admin, json: {} });
    assert.equal(post.status, 405);
    assert.deepEqual(post.json(), { detail: 'Method "POST" not allowed.' });
    assert.equal((await call(server.base, STREAM, { headers: { authorization: 'Token hs_bogus' } })).status, 401);
  });

  it('serves hundreds of idle clients with one event each per change, and forgets every client that disconnects (no timer left)', async () => {
    for (const client of clients) client.close();
    await until(() => server.app.live.feed.size === 0, 'the earlier clients to be gone');
    const baseline = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const many = await Promise.all(Array.from({ length: 300 }, () => openStream(server.base)));
    await Promise.all(many.map((c) => c.waitForEvents(1)));
    assert.equal(server.app.live.feed.size, 300);
    assert.equal(server.app.live.feed.activity.heartbeat, true);
    const next = await change(server.base, secrets.door, !(await latestIsOpen(server.database.db)));
    for (const client of many) assert.deepEqual(simple(await client.waitForEvents(2)).slice(1), [{ event: 'state', ...next }]);
    for (const client of many) client.close();
    await until(() => server.app.live.feed.size === 0, 'every client to be forgotten');
    assert.deepEqual(server.app.live.feed.activity, { heartbeat: false, poll: false, retry: false, listening: TEST_ENGINE === 'postgres' });
    // The stream's timers go with its last client: wait for them to be cleared (a timer left behind never is).
    await until(() => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length === baseline, "the stream's timers to be cleared (no timer left behind)");
    assert.equal(process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length, baseline, 'no timer left behind');
    // A client that leaves before its first event was sent is forgotten too.
    const quick = await openStream(server.base);
    quick.close();
    await until(() => server.app.live.feed.size === 0, 'the quick client to be forgotten');
  });
});

describe(`the stream behind a proxy, and at shutdown, on ${TEST_ENGINE}`, () => {
  it('works with TRUST_PROXY and PUBLIC_URL, and app.close() ends open streams instead of hanging', async () => {
    const server = await startServer({ records: sampleRecords(), env: { TRUST_PROXY: 'true', PUBLIC_URL: 'https://space.example.org/hs' } });
    try {
      const clients = await Promise.all([openStream(server.base, STREAM, { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'space.example.org' }), openStream(server.base)]);
      for (const client of clients) {
        assert.equal(client.status, 200);
        await client.waitForEvents(1);
      }
      // Both end, instead of hanging: waited for, with a safety timeout only.
      await within(server.app.close(), 'app.close() with open streams to return');
      await within(Promise.all(clients.map((c) => c.ended)), 'the open streams to end at close');
      assert.equal(server.app.live.feed.size, 0);
    } finally {
      await server.close();
    }
  });
});

describe(`the stream across two serve processes on one ${TEST_ENGINE} database`, () => {
  let fresh: FreshDatabase;
  let one: Service;
  let two: Service;
  let secret: string;

  before(async () => {
    fresh = await freshDatabase();
    const records = sampleRecords();
    await fresh.handle.db.transaction().execute((trx) => importRecords(trx, records));
    secret = (await createToken(fresh.handle.db, 'door', 'door', nowUs())).secret;
    const env = { DATABASE_URL: fresh.url, LOG_LEVEL: 'info', STREAM_POLL_MS: '100' };
    [one, two] = await Promise.all([startService(['serve'], { ...env, PORT: String(await freePort()) }), startService(['serve'], { ...env, PORT: String(await freePort()) })]);
    await Promise.all([waitUntilServing(one), waitUntilServing(two)]);
  });

  after(async () => {
    await Promise.all([one?.stop(), two?.stop()]);
    await fresh?.cleanup();
  });

  it('a change recorded by one process reaches the stream clients of both, once, in order', async () => {
    const onOne = await openStream(one.base);
    const onTwo = await openStream(two.base);
    const [initial] = await onOne.waitForEvents(1);
    assert.deepEqual(simple(await onTwo.waitForEvents(1)), simple([initial]));
    let isOpen = (dataOf(initial) as { is_open: boolean }).is_open;
    const expected = [initial].map((e) => ({ event: e.event, id: e.id, data: dataOf(e) }));
    for (let i = 0; i < 4; i++) {
      // Alternate the process that records the change.
      expected.push({ event: 'state', ...(await change(i % 2 === 0 ? one.base : two.base, secret, (isOpen = !isOpen))) });
    }
    assert.deepEqual(simple(await onOne.waitForEvents(5)), expected);
    assert.deepEqual(simple(await onTwo.waitForEvents(5)), expected);
    // A later change is the marker: a second copy of an earlier one would arrive before it.
    expected.push({ event: 'state', ...(await change(two.base, secret, !isOpen)) });
    assert.deepEqual(simple(await onOne.waitForEvents(6)), expected, 'each change once');
    assert.deepEqual(simple(await onTwo.waitForEvents(6)), expected, 'each change once');
    // Resuming on the other process replays from the same database.
    const resumed = await openStream(one.base, STREAM, { 'last-event-id': expected[2].id! });
    assert.deepEqual(simple(await resumed.waitForEvents(3)), expected.slice(3));
    for (const client of [onOne, onTwo, resumed]) client.close();
  });

  it(
    'catches up after its LISTEN connection was cut: a change committed meanwhile still arrives',
    postgresOnly('a LISTEN connection to cut (SQLite processes poll the file)'),
    async () => {
      const onTwo = await openStream(two.base);
      const [initial] = await onTwo.waitForEvents(1);
      const admin = new pg.Client({ connectionString: process.env.TEST_POSTGRES_URL });
      await admin.connect();
      try {
        const { rowCount } = await admin.query(
          `select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query ilike 'listen%' and pid <> pg_backend_pid()`,
        );
        assert.ok((rowCount ?? 0) >= 1, 'a LISTEN connection to cut');
      } finally {
        await admin.end();
      }
      const isOpen = (dataOf(initial) as { is_open: boolean }).is_open;
      const next = await change(one.base, secret, !isOpen);
      assert.deepEqual(simple(await onTwo.waitForEvents(2, 10_000)).slice(1), [{ event: 'state', ...next }]);
      const after = await change(one.base, secret, isOpen);
      assert.deepEqual(simple(await onTwo.waitForEvents(3, 10_000)).slice(2), [{ event: 'state', ...after }]);
      onTwo.close();
      await two.waitForLog((line) => line.msg === 'space state listener: listening again', 'the reconnection log');
    },
  );
});
