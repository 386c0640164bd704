// Writes: authentication (Token/Bearer, DRF's messages), scopes on every write route, the
// failure throttle, the door's rule (also under concurrency and across processes), the legacy
// door route, the audit log and its CLI, CORS, and secrets kept out of logs and responses.
// Real HTTP against the app built in-process (or real `serve` processes); both engines.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../src/app.js';
import { throttled } from '../src/drf/errors.js';
import { FailureThrottle } from '../src/drf/throttle.js';
import { configFrom } from '../src/config.js';
import { listAudit } from '../src/resources/audit.js';
import { createToken, listTokens, revokeToken } from '../src/resources/tokens.js';
import { request, type HttpResponse, assertJson, idOf } from './support/http.js';
import { BIN, freePort, killAll, startService, waitUntilServing, type Service } from './support/processes.js';
import { freshDatabase, sampleRecords, startServer, TEST_ENGINE, type FreshDatabase, type TestServer } from './support/server.js';
import { nowUs } from './support/clock.js';

after(() => killAll());

/**
 * The command line's UTC time of an instant in microseconds, written here without src/time.ts:
 * `2024-05-01T10:20:30.123456Z`, the fraction (6 digits) only when not zero.
 */
function utcText(us: number): string {
  const fraction = us % 1_000_000;
  const seconds = new Date((us - fraction) / 1000).toISOString().slice(0, 19);
  return fraction === 0 ? `${seconds}Z` : `${seconds}.${String(fraction).padStart(6, '0')}Z`;
}

const NOT_PROVIDED = { detail: 'Authentication credentials were not provided.' };
const INVALID_TOKEN = { detail: 'Invalid token.' };
const FORBIDDEN = { detail: 'You do not have permission to perform this action.' };
const NOT_FOUND = { detail: 'Not found.' };
const NO_CREDENTIALS_IN_HEADER = { detail: 'Invalid token header. No credentials provided.' };
const SPACES_IN_HEADER = { detail: 'Invalid token header. Token string should not contain spaces.' };
const EXPOSED = 'Allow, ETag, Link, Location, Retry-After, WWW-Authenticate';

interface Call {
  method?: string;
  /** Sent as `Authorization: <scheme> <secret>` (scheme `Token` unless given). */
  secret?: string;
  scheme?: string;
  /** The whole Authorization header, as is. */
  authorization?: string;
  /** A JSON body (Content-Type application/json). */
  json?: unknown;
  /** A URL-encoded form body. */
  form?: string;
  body?: string;
  headers?: Record<string, string>;
  /** The client address, as X-Forwarded-For (for servers started with TRUST_PROXY=true). */
  from?: string;
}

/** One real HTTP request; POST when a body is given and no method is. */
function call(base: string, path: string, options: Call = {}): Promise<HttpResponse> {
  const headers: Record<string, string> = {};
  let body = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] = 'application/json';
  }
  if (options.form !== undefined) {
    body = options.form;
    headers['content-type'] = 'application/x-www-form-urlencoded';
  }
  if (options.authorization !== undefined) headers.authorization = options.authorization;
  else if (options.secret !== undefined) headers.authorization = `${options.scheme ?? 'Token'} ${options.secret}`;
  if (options.from !== undefined) headers['x-forwarded-for'] = options.from;
  Object.assign(headers, options.headers);
  return request(base, path, { method: options.method ?? (body === undefined ? 'GET' : 'POST'), headers, body });
}

function assertUnauthorized(res: HttpResponse, body: unknown, what: string): void {
  assertJson(res, 401, body, what);
  assert.equal(res.headers['www-authenticate'], 'Token', `${what}: WWW-Authenticate`);
}

let tokenCounter = 0;

/** An admin and a door token with names unique to this run. */
async function tokensFor(server: { database: TestServer['database'] }) {
  const n = ++tokenCounter;
  const admin = await createToken(server.database.db, `admin ${n}`, 'admin', nowUs());
  const door = await createToken(server.database.db, `door ${n}`, 'door', nowUs());
  return { admin: admin.secret, door: door.secret, adminToken: admin.token, doorToken: door.token };
}

let clientCounter = 0;
/** A client address of its own, so that one test's failed authentications never throttle another's. */
const newClient = () => `198.51.${Math.floor(++clientCounter / 250)}.${(clientCounter % 250) + 1}`;

/** The whole door history, newest first. */
async function openings(base: string): Promise<{ count: number; results: { time: string; is_open: boolean }[] }> {
  const res = await call(base, '/api/space/openings/?page_size=1000');
  assert.equal(res.status, 200, res.body);
  return res.json();
}

function assertAlternating(results: { is_open: boolean }[], what: string): void {
  for (let i = 1; i < results.length; i++) {
    assert.notEqual(results[i].is_open, results[i - 1].is_open, `${what}: records ${i - 1} and ${i} of the newest-first history have the same state\n${JSON.stringify(results)}`);
  }
}

/** Servers started by a describe, closed by its after(). */
function serverPool() {
  const servers: TestServer[] = [];
  after(() => Promise.all(servers.map((s) => s.close())));
  return async (options: Parameters<typeof startServer>[0] = {}) => {
    const server = await startServer(options);
    servers.push(server);
    return server;
  };
}

const COLLECTION_PATHS = ['users', 'space/openings', 'projects', 'meetings', 'events'] as const;

// ---------------------------------------------------------------------------------------------

describe('authentication', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ records: sampleRecords(), env: { TRUST_PROXY: 'true' } });
  });
  after(() => server.close());

  it('accepts `Token <secret>` and `Bearer <secret>` (scheme in any case), on reads and writes', async () => {
    const { door } = await tokensFor(server);
    const from = newClient();
    for (const scheme of ['Token', 'Bearer', 'token', 'BEARER']) {
      const options = await call(server.base, '/api/space/openings/', { method: 'OPTIONS', secret: door, scheme, from });
      assert.equal(options.status, 200, `${scheme}: ${options.body}`);
      // Only an authenticated door sees the fields it may write.
      assert.deepEqual(
        options.json().actions,
        {
          POST: {
            time: { type: 'datetime', required: false, read_only: true, label: 'Time' },
            is_open: { type: 'boolean', required: true, read_only: false, label: 'Is open' },
          },
        },
        scheme,
      );
      assert.equal((await call(server.base, '/api/users/1/', { secret: door, scheme, from })).status, 200, scheme);
      const latest = (await openings(server.base)).results[0];
      const posted = await call(server.base, '/api/space/openings/', { json: { is_open: !latest.is_open }, secret: door, scheme, from });
      assert.equal(posted.status, 201, `${scheme}: ${posted.body}`);
      assert.equal(posted.json().is_open, !latest.is_open);
    }
    const anonymous = await call(server.base, '/api/space/openings/', { method: 'OPTIONS' });
    assert.equal(anonymous.json().actions, undefined, 'no actions without a token');
  });

  it('a write without credentials is 401 "not provided" with WWW-Authenticate: Token, on every write route', async () => {
    const before = await openings(server.base);
    const cases: [string, string][] = [];
    for (const c of COLLECTION_PATHS) cases.push(['POST', `/api/${c}/`], ['PUT', `/api/${c}/1/`], ['PATCH', `/api/${c}/1/`], ['DELETE', `/api/${c}/1/`]);
    // Methods the route lacks, and the root: authentication comes before the method check.
    cases.push(['PUT', '/api/users/'], ['POST', '/api/users/1/'], ['POST', '/api/'], ['DELETE', '/api/']);
    for (const [method, path] of cases) {
      const res = await call(server.base, path, { method, json: { is_open: true } });
      assertUnauthorized(res, NOT_PROVIDED, `${method} ${path}`);
      assert.ok(res.headers.allow, `${method} ${path}: Allow on the route's 401`);
      assert.equal(res.headers.vary, 'Accept, Accept-Encoding');
    }
    // Before the body is looked at: a malformed body or an unsupported type changes nothing.
    assertUnauthorized(await call(server.base, '/api/users/', { body: '{"broken', headers: { 'content-type': 'application/json' } }), NOT_PROVIDED, 'malformed JSON');
    assertUnauthorized(await call(server.base, '/api/users/', { body: 'x', headers: { 'content-type': 'text/plain' } }), NOT_PROVIDED, 'text/plain');
    assert.deepEqual(await openings(server.base), before, 'nothing was written');
    assert.equal((await call(server.base, '/api/space/openings/1/')).status, 200, 'nothing was deleted');
  });

  it('an unknown token is 401 "Invalid token." on GET, HEAD, OPTIONS and writes', async () => {
    const cases: [string, string][] = [
      ['GET', '/api/'],
      ['GET', '/api/users/'],
      ['GET', '/api/users/1/'],
      ['HEAD', '/api/users/'],
      ['OPTIONS', '/api/users/'],
      ['POST', '/api/space/openings/'],
      ['PUT', '/api/space/openings/1/'],
      ['PATCH', '/api/users/1/'],
      ['DELETE', '/api/events/1/'],
    ];
    for (const [method, path] of cases) {
      for (const secret of ['hs_unknown', 'nothing-like-a-token']) {
        const res = await call(server.base, path, { method, secret, from: newClient(), json: method === 'GET' || method === 'HEAD' ? undefined : { is_open: true } });
        if (method === 'HEAD') {
          assert.equal(res.status, 401, `HEAD ${path}`);
          assert.equal(res.headers['www-authenticate'], 'Token');
          assert.equal(res.body, '');
        } else {
          assertUnauthorized(res, INVALID_TOKEN, `${method} ${path} ${secret}`);
        }
      }
    }
    // Bearer too.
    assertUnauthorized(await call(server.base, '/api/users/', { secret: 'hs_unknown', scheme: 'Bearer', from: newClient() }), INVALID_TOKEN, 'Bearer');
  });

  it('a revoked token is refused on the very next request, by name or by id', async () => {
    const { door, doorToken, admin, adminToken } = await tokensFor(server);
    const from = newClient();
    assert.equal((await call(server.base, '/api/users/', { secret: door, from })).status, 200);
    assert.equal((await call(server.base, '/api/users/', { secret: admin, from })).status, 200);
    await revokeToken(server.database.db, doorToken.name, nowUs());
    await revokeToken(server.database.db, String(adminToken.id), nowUs());
    for (const secret of [door, admin]) {
      for (const method of ['GET', 'OPTIONS']) {
        assertUnauthorized(await call(server.base, '/api/users/', { method, secret, from: newClient() }), INVALID_TOKEN, `${method} with a revoked token`);
      }
      const head = await call(server.base, '/api/users/', { method: 'HEAD', secret, from: newClient() });
      assert.equal(head.status, 401);
      assertUnauthorized(await call(server.base, '/api/space/openings/', { json: { is_open: true }, secret, from: newClient() }), INVALID_TOKEN, 'POST with a revoked token');
      assertUnauthorized(await call(server.base, '/api/users/1/', { method: 'DELETE', secret, from: newClient() }), INVALID_TOKEN, 'DELETE with a revoked token');
    }
    assert.equal((await call(server.base, '/api/users/1/')).status, 200, 'the user was not deleted');
  });

  it("malformed Token/Bearer headers get DRF's messages, on reads and writes", async () => {
    const cases: [string, unknown][] = [
      ['Token', NO_CREDENTIALS_IN_HEADER],
      ['Token   ', NO_CREDENTIALS_IN_HEADER],
      ['Bearer', NO_CREDENTIALS_IN_HEADER],
      ['Token a b', SPACES_IN_HEADER],
      ['Bearer a b c', SPACES_IN_HEADER],
    ];
    for (const [authorization, body] of cases) {
      for (const method of ['GET', 'OPTIONS', 'POST']) {
        const res = await call(server.base, '/api/space/openings/', { method, authorization, from: newClient(), json: method === 'POST' ? { is_open: true } : undefined });
        assertUnauthorized(res, body, `${method} with ${JSON.stringify(authorization)}`);
      }
    }
    // A valid secret followed by anything is still a header with spaces.
    const { door } = await tokensFor(server);
    assertUnauthorized(
      await call(server.base, '/api/space/openings/', { authorization: `Token ${door} extra`, from: newClient(), json: { is_open: true } }),
      SPACES_IN_HEADER,
      'secret plus extra',
    );
  });

  it('other schemes (Basic, Digest) and an empty header are anonymous: reads work, writes are "not provided"', async () => {
    const { door } = await tokensFor(server);
    for (const authorization of ['Basic dXNlcjpwYXNz', `Basic ${door}`, 'Digest username="x"', '']) {
      const from = newClient();
      assert.equal((await call(server.base, '/api/users/', { authorization, from })).status, 200, authorization);
      const options = await call(server.base, '/api/space/openings/', { method: 'OPTIONS', authorization, from });
      assert.equal(options.json().actions, undefined, `${authorization}: anonymous, so no actions`);
      assertUnauthorized(await call(server.base, '/api/space/openings/', { authorization, from, json: { is_open: true } }), NOT_PROVIDED, authorization);
    }
  });

  it('records when a token was last used (listTokens and `token list`), on reads as well as writes', async () => {
    const { door, doorToken, admin, adminToken } = await tokensFor(server);
    const lastUsed = async (id: number) => (await listTokens(server.database.db)).find((t) => t.id === id)!.lastUsedUs;
    assert.equal(await lastUsed(doorToken.id), null);
    assert.equal(await lastUsed(adminToken.id), null);

    const t0 = nowUs();
    assert.equal((await call(server.base, '/api/', { secret: admin, from: newClient() })).status, 200);
    const t1 = nowUs();
    const adminUsed = await lastUsed(adminToken.id);
    assert.ok(adminUsed !== null && adminUsed >= t0 && adminUsed <= t1, `admin last used ${adminUsed} within [${t0}, ${t1}]`);
    assert.equal(await lastUsed(doorToken.id), null, 'another token is untouched');

    const latest = (await openings(server.base)).results[0];
    const t2 = nowUs();
    assert.equal((await call(server.base, '/api/space/openings/', { json: { is_open: !latest.is_open }, secret: door, from: newClient() })).status, 201);
    const doorUsed = await lastUsed(doorToken.id);
    assert.ok(doorUsed !== null && doorUsed >= t2 && doorUsed <= nowUs(), 'door last used');

    // A failed authentication touches nothing.
    await call(server.base, '/api/', { secret: door + 'x', from: newClient() });
    assert.equal(await lastUsed(doorToken.id), doorUsed);

    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: server.url, LOG_LEVEL: 'silent' };
    delete env.NODE_TEST_CONTEXT;
    const listed = spawnSync(process.execPath, [BIN, 'token', 'list'], { env, encoding: 'utf8', timeout: 60_000 });
    assert.equal(listed.status, 0, listed.stderr);
    const row = listed.stdout.split('\n').find((line) => line.startsWith(`${doorToken.id} `));
    assert.ok(row, listed.stdout);
    assert.equal(row.split(/\s{2,}/)[4], utcText(Math.floor(doorUsed / 1_000_000) * 1_000_000), row);
    assert.ok(!listed.stdout.includes(door) && !listed.stdout.includes(admin), 'no secret in token list');
  });
});

// ---------------------------------------------------------------------------------------------

describe('scopes on every write route', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ records: sampleRecords(), env: { TRUST_PROXY: 'true' } });
  });
  after(() => server.close());

  it('a door token gets 403 everywhere but POST /api/space/openings/, and nothing changes', async () => {
    const { door } = await tokensFor(server);
    const from = newClient();
    const cases: [string, string][] = [
      ['POST', '/api/users/'],
      ['POST', '/api/projects/'],
      ['POST', '/api/meetings/'],
      ['POST', '/api/events/'],
      // Methods the route lacks: the permission is checked first, as DRF does.
      ['PUT', '/api/space/openings/'],
      ['DELETE', '/api/space/openings/'],
      ['POST', '/api/space/openings/1/'],
      ['POST', '/api/'],
    ];
    for (const c of COLLECTION_PATHS) for (const method of ['PUT', 'PATCH', 'DELETE']) cases.push([method, `/api/${c}/1/`]);
    // Also for a record that does not exist: the permission comes before the lookup.
    cases.push(['DELETE', '/api/users/99999/'], ['PATCH', '/api/space/openings/99999/']);
    const before = new Map<string, string>();
    for (const c of COLLECTION_PATHS) before.set(c, (await call(server.base, `/api/${c}/?page_size=1000`)).body);
    for (const [method, path] of cases) {
      const res = await call(server.base, path, { method, secret: door, from, json: { is_open: false, username: 'door-made', title: 'door-made' } });
      assertJson(res, 403, FORBIDDEN, `door ${method} ${path}`);
      assert.ok(res.headers.allow, `${method} ${path}: Allow on the 403`);
      assert.equal(res.headers['www-authenticate'], undefined);
      // Even with a malformed body: 403 before the body is read.
      const malformed = await call(server.base, path, { method, secret: door, from, body: '{"x', headers: { 'content-type': 'application/json' } });
      assertJson(malformed, 403, FORBIDDEN, `door ${method} ${path} (malformed body)`);
    }
    for (const c of COLLECTION_PATHS) assert.equal((await call(server.base, `/api/${c}/?page_size=1000`)).body, before.get(c), `${c} unchanged`);
    assert.deepEqual(await listAudit(server.database.db, 100), [], 'no audit entry for refused writes');
  });

  it('a door token may POST an opening, but not with a `time`', async () => {
    const { door } = await tokensFor(server);
    const from = newClient();
    const history = await openings(server.base);
    const wanted = !history.results[0].is_open;
    for (const time of ['2010-01-01T00:00:00Z', new Date().toISOString()]) {
      assertJson(await call(server.base, '/api/space/openings/', { json: { time, is_open: wanted }, secret: door, from }), 403, FORBIDDEN, `door with time ${time}`);
      assertJson(
        await call(server.base, '/api/space/openings/', { form: `is_open=${wanted}&time=${encodeURIComponent(time)}`, secret: door, from }),
        403,
        FORBIDDEN,
        `door form with time ${time}`,
      );
    }
    assert.equal((await openings(server.base)).count, history.count, 'nothing recorded');
    const res = await call(server.base, '/api/space/openings/', { json: { is_open: wanted }, secret: door, from });
    assert.equal(res.status, 201, res.body);
    assert.equal(res.json().is_open, wanted);
  });

  it('an admin token may create, replace, update and delete in every collection', async () => {
    const { admin } = await tokensFor(server);
    const from = newClient();
    const base = server.base;
    const write = (method: string, path: string, json?: unknown) => call(base, path, { method, json, secret: admin, from });
    const user = (id: number) => `${base}/api/users/${id}/`;
    const expectStatus = async (res: Promise<HttpResponse>, status: number, what: string) => {
      const r = await res;
      assert.equal(r.status, status, `${what}: ${r.body}`);
      return r;
    };

    const u = idOf(await expectStatus(write('POST', '/api/users/', { username: 'scope admin user', email: 'scope.admin@example.org', has_key: false }), 201, 'POST user'));
    const p = idOf(
      await expectStatus(write('POST', '/api/projects/', { title: 'Laser', maintainer: user(u), status: 'i', progress: 40, short_description: 'Fix it' }), 201, 'POST project'),
    );
    const e = idOf(await expectStatus(write('POST', '/api/events/', { title: 'Workshop', status: 'r', organizer: user(u) }), 201, 'POST event'));
    const m = idOf(await expectStatus(write('POST', '/api/meetings/', { event: `${base}/api/events/${e}/`, members: [user(u)] }), 201, 'POST meeting'));
    const o = idOf(await expectStatus(write('POST', '/api/space/openings/', { time: '2010-01-01T00:00:00Z', is_open: false }), 201, 'POST backfilled opening'));

    await expectStatus(write('PUT', `/api/users/${u}/`, { username: 'scope admin user 2', has_key: true }), 200, 'PUT user');
    await expectStatus(write('PATCH', `/api/users/${u}/`, { has_key: false }), 200, 'PATCH user');
    await expectStatus(write('PUT', `/api/projects/${p}/`, { title: 'Laser 2', maintainer: user(u), status: 'f', progress: 100, short_description: 'Fixed' }), 200, 'PUT project');
    await expectStatus(write('PATCH', `/api/projects/${p}/`, { progress: 90 }), 200, 'PATCH project');
    await expectStatus(write('PUT', `/api/events/${e}/`, { title: 'Workshop 2', status: 'i', organizer: user(u) }), 200, 'PUT event');
    await expectStatus(write('PATCH', `/api/events/${e}/`, { place: 'Lab' }), 200, 'PATCH event');
    await expectStatus(write('PUT', `/api/meetings/${m}/`, { event: `${base}/api/events/${e}/`, pad: 'https://pad.example.org/p/x' }), 200, 'PUT meeting');
    await expectStatus(write('PATCH', `/api/meetings/${m}/`, { OJ: 'agenda' }), 200, 'PATCH meeting');
    await expectStatus(write('PUT', `/api/space/openings/${o}/`, { time: '2010-01-02T00:00:00Z', is_open: false }), 200, 'PUT opening');
    await expectStatus(write('PATCH', `/api/space/openings/${o}/`, { is_open: true }), 200, 'PATCH opening');
    assert.deepEqual((await call(base, `/api/space/openings/${o}/`)).json(), { time: '2010-01-02T00:00:00+00:00', is_open: true });

    for (const path of [`/api/meetings/${m}/`, `/api/events/${e}/`, `/api/projects/${p}/`, `/api/users/${u}/`, `/api/space/openings/${o}/`]) {
      const res = await expectStatus(write('DELETE', path), 204, `DELETE ${path}`);
      assert.equal(res.body, '');
      assertJson(await call(base, path), 404, NOT_FOUND, `GET ${path} after DELETE`);
    }
    // An admin on a method the route lacks: 405 (authenticated, allowed, but no such method).
    assertJson(await write('PUT', '/api/users/', {}), 405, { detail: 'Method "PUT" not allowed.' }, 'PUT on a collection');
    assertJson(await write('POST', '/api/users/1/', {}), 405, { detail: 'Method "POST" not allowed.' }, 'POST on a record');
    assertJson(await write('DELETE', '/api/'), 405, { detail: 'Method "DELETE" not allowed.' }, 'DELETE on the root');
    assertJson(await write('DELETE', '/api/users/99999/'), 404, NOT_FOUND, 'DELETE of an unknown record');
  });

  it('routing comes first for writes too: a missing slash is 301, an unknown path or format 404', async () => {
    const { door, admin } = await tokensFor(server);
    const from = newClient();
    const credentials: (string | undefined)[] = [undefined, door, admin, 'hs_bogus'];
    for (const secret of credentials) {
      for (const [method, path, location] of [
        ['POST', '/api/users', '/api/users/'],
        ['POST', '/api/space/openings?x=1', '/api/space/openings/?x=1'],
        ['DELETE', '/api/users/1', '/api/users/1/'],
        ['PUT', '/api/events/3', '/api/events/3/'],
      ] as const) {
        const res = await call(server.base, path, { method, secret, from, json: { is_open: true } });
        assert.equal(res.status, 301, `${method} ${path} with ${secret}: ${res.body}`);
        assert.equal(res.headers.location, location);
        assert.equal(res.body, '');
        assert.equal(res.headers.allow, undefined);
      }
      for (const [method, path] of [
        ['POST', '/api/nope/'],
        ['POST', '/api/nope'],
        ['DELETE', '/api/users/1/extra/'],
        ['POST', '/space/nope'],
        ['POST', '/api/users.xml'],
        ['PATCH', '/api/users/1/?format=xml'],
      ]) {
        const res = await call(server.base, path, { method, secret, from, json: { is_open: true } });
        assertJson(res, 404, NOT_FOUND, `${method} ${path} with ${secret}`);
        assert.equal(res.headers['www-authenticate'], undefined);
      }
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('throttling failed authentications', () => {
  const start = serverPool();

  it('FailureThrottle: a sliding window of the newest `limit` failures per client', () => {
    const throttle = new FailureThrottle(3, 1000);
    throttle.recordFailure('a', 0);
    throttle.recordFailure('a', 100);
    assert.equal(throttle.waitSeconds('a', 200), 0, 'two of three');
    throttle.recordFailure('a', 200);
    assert.equal(throttle.waitSeconds('a', 200), 1);
    assert.equal(throttle.waitSeconds('a', 999), 1, 'never less than one second while throttled');
    assert.equal(throttle.waitSeconds('a', 1000), 0, 'the oldest failure aged out');
    assert.equal(throttle.waitSeconds('b', 200), 0, 'other clients are not affected');
    throttle.recordFailure('a', 1000);
    assert.equal(throttle.waitSeconds('a', 1000), 1, 'three in the window again');
    assert.equal(throttle.waitSeconds('a', 1200), 0);
    assert.equal(throttle.waitSeconds('a', 5000), 0, 'all aged out');
    throttle.recordFailure('a', 5000);
    assert.equal(throttle.waitSeconds('a', 5000), 0, 'a fresh window: one failure');

    const minute = new FailureThrottle();
    for (let i = 0; i < 10; i++) {
      assert.equal(minute.waitSeconds('c', i * 1000), 0, `before failure ${i + 1}`);
      minute.recordFailure('c', i * 1000);
    }
    assert.equal(minute.waitSeconds('c', 9000), 51, 'until the first failure is a minute old');
    assert.equal(minute.waitSeconds('c', 9001), 51);
    assert.equal(minute.waitSeconds('c', 59_999), 1);
    assert.equal(minute.waitSeconds('c', 60_000), 0, 'the first failure left the window');
    minute.recordFailure('c', 60_000);
    assert.equal(minute.waitSeconds('c', 60_000), 1, 'ten again: wait for the second failure to age out');
    for (let i = 0; i < 5; i++) minute.recordFailure('c', 61_000 + i * 1000);
    assert.equal(minute.waitSeconds('c', 65_000), 1, 'failures at 6000..9000 and 60000..64000: the one at 6000 ages out next');
    assert.equal(minute.waitSeconds('c', 66_000), 0);
  });

  it('FailureThrottle: memory per client and in clients stays bounded', () => {
    const small = new FailureThrottle(1, 1000, 2);
    small.recordFailure('a', 0);
    small.recordFailure('b', 0);
    small.recordFailure('c', 0);
    assert.equal(small.waitSeconds('a', 0), 0, 'the least recently failing client was forgotten');
    assert.equal(small.waitSeconds('b', 0), 1);
    assert.equal(small.waitSeconds('c', 0), 1);
    const many = new FailureThrottle(10, 60_000);
    for (let i = 0; i < 1000; i++) many.recordFailure('d', i);
    assert.equal(many.waitSeconds('d', 1000), 60);
    assert.equal(many.waitSeconds('d', 60_989), 1, 'the newest ten failures (990..999) decide');
    assert.equal(many.waitSeconds('d', 60_990), 0);
  });

  it('the 429 message follows DRF (singular for one second)', () => {
    assert.equal(throttled(60).message, 'Request was throttled. Expected available in 60 seconds.');
    assert.equal(throttled(2).message, 'Request was throttled. Expected available in 2 seconds.');
    assert.equal(throttled(1).message, 'Request was throttled. Expected available in 1 second.');
    assert.deepEqual(throttled(7).headers, { 'retry-after': '7' });
  });

  it('after 10 failures in a minute, bad credentials get 429 with Retry-After; valid tokens and anonymous requests still work', async () => {
    const server = await start({ records: sampleRecords() });
    const { door, admin } = await tokensFor(server);
    // Anonymous requests, other schemes, and requests that never reach authentication do not count.
    for (let i = 0; i < 12; i++) {
      assertUnauthorized(await call(server.base, '/api/space/openings/', { json: { is_open: true } }), NOT_PROVIDED, 'anonymous write');
      assert.equal((await call(server.base, '/api/users/', { authorization: 'Basic dXNlcjpwYXNz' })).status, 200);
      assertJson(await call(server.base, '/api/nope/', { secret: 'hs_bogus' }), 404, NOT_FOUND, 'unknown path');
      assert.equal((await call(server.base, '/api/users', { method: 'POST', secret: 'hs_bogus' })).status, 301);
    }
    // Ten failures, of every kind (unknown secret, malformed header; reads and writes).
    const failures: Call[] = [
      { secret: 'hs_bogus' },
      { secret: 'hs_bogus', method: 'HEAD' },
      { secret: 'hs_bogus', method: 'OPTIONS' },
      { authorization: 'Token' },
      { authorization: 'Token a b' },
      { secret: 'x', scheme: 'Bearer' },
      { secret: 'hs_bogus', json: { is_open: true } },
      { secret: door + 'x', json: { is_open: true } },
      { secret: 'hs_bogus', method: 'DELETE' },
      { secret: 'hs_bogus' },
    ];
    for (const [i, failure] of failures.entries()) {
      const res = await call(server.base, '/api/space/openings/', failure);
      assert.equal(res.status, 401, `failure ${i + 1}: ${res.body}`);
    }
    // The 11th presenting bad credentials, on any method.
    for (const attempt of [
      { secret: 'hs_bogus' },
      { secret: door + 'y', json: { is_open: true } },
      { secret: 'x', scheme: 'Bearer', method: 'OPTIONS' },
      { authorization: 'Token' },
      { authorization: 'Token a b' },
    ] as Call[]) {
      const res = await call(server.base, '/api/space/openings/', attempt);
      assert.equal(res.status, 429, `${JSON.stringify(attempt)}: ${res.body}`);
      const wait = Number(res.headers['retry-after']);
      assert.ok(Number.isInteger(wait) && wait >= 1 && wait <= 60, `Retry-After ${res.headers['retry-after']}`);
      assert.equal(res.headers['content-type'], 'application/json');
      assert.deepEqual(res.json(), { detail: `Request was throttled. Expected available in ${wait} second${wait === 1 ? '' : 's'}.` });
      assert.equal(res.headers.allow, 'GET, POST, HEAD, OPTIONS');
    }
    const head = await call(server.base, '/api/users/', { method: 'HEAD', secret: 'hs_bogus' });
    assert.equal(head.status, 429);
    assert.equal(head.body, '');
    // A valid token is never throttled: a neighbour's broken script must not lock the door out.
    assert.equal((await call(server.base, '/api/users/', { secret: admin })).status, 200);
    assert.equal((await call(server.base, '/api/users/', { secret: admin, scheme: 'Bearer', method: 'OPTIONS' })).status, 200);
    const latestState = (await openings(server.base)).results[0].is_open;
    const doorPost = await call(server.base, '/api/space/openings/', { secret: door, json: { is_open: !latestState } });
    assert.equal(doorPost.status, 201, doorPost.body);
    assert.equal((await call(server.base, '/space/change_status', { form: `secret=${encodeURIComponent(door)}&open=${latestState ? 1 : 0}` })).status, 200);
    // The legacy door route shares the throttle, in its own shape.
    const legacy = await call(server.base, '/space/change_status', { form: `secret=hs_bogus&open=1` });
    assert.equal(legacy.status, 429, legacy.body);
    const legacyWait = Number(legacy.headers['retry-after']);
    assert.ok(legacyWait >= 1 && legacyWait <= 60);
    assert.deepEqual(legacy.json(), { error: `Request was throttled. Expected available in ${legacyWait} second${legacyWait === 1 ? '' : 's'}.` });
    assert.equal(legacy.headers['content-type'], 'application/json');
    // Without credentials, everything still works.
    const count = (await openings(server.base)).count;
    assert.equal(count, 302, 'the door post and the legacy post were recorded');
    assert.equal((await call(server.base, '/api/users/')).status, 200);
    assert.equal((await call(server.base, '/api/users/', { method: 'HEAD' })).status, 200);
    assert.equal((await call(server.base, '/api/users/', { method: 'OPTIONS' })).status, 200);
    assertUnauthorized(await call(server.base, '/api/space/openings/', { json: { is_open: true } }), NOT_PROVIDED, 'anonymous write while throttled');
    assert.equal((await openings(server.base)).count, 302, 'nothing more was recorded');
  });

  it('is per client address: X-Forwarded-For counts only behind a trusted proxy', async () => {
    const direct = await start({ records: sampleRecords() });
    // Without TRUST_PROXY, a forged X-Forwarded-For does not give a new address.
    for (let i = 0; i < 10; i++) {
      assertUnauthorized(await call(direct.base, '/api/users/', { secret: 'hs_bogus', from: `203.0.113.${i + 1}` }), INVALID_TOKEN, `failure ${i + 1}`);
    }
    assert.equal((await call(direct.base, '/api/users/', { secret: 'hs_bogus', from: '203.0.113.99' })).status, 429);

    const proxied = await start({ records: sampleRecords(), env: { TRUST_PROXY: 'true' } });
    const { door } = await tokensFor(proxied);
    for (let i = 0; i < 10; i++) {
      assertUnauthorized(await call(proxied.base, '/api/users/', { secret: 'hs_bogus', from: '203.0.113.7' }), INVALID_TOKEN, `failure ${i + 1}`);
    }
    const throttledRes = await call(proxied.base, '/api/space/openings/', { secret: door + 'x', from: '203.0.113.7', json: { is_open: true } });
    assert.equal(throttledRes.status, 429, throttledRes.body);
    // Another address is not affected: its failures are its own, and a good token works.
    for (let i = 0; i < 9; i++) {
      assertUnauthorized(await call(proxied.base, '/api/users/', { secret: 'hs_bogus', from: '203.0.113.8' }), INVALID_TOKEN, `other address, failure ${i + 1}`);
    }
    const latest = (await openings(proxied.base)).results[0];
    const ok = await call(proxied.base, '/api/space/openings/', { secret: door, from: '203.0.113.8', json: { is_open: !latest.is_open } });
    assert.equal(ok.status, 201, ok.body);
    assertUnauthorized(await call(proxied.base, '/api/users/', { secret: 'hs_bogus', from: '203.0.113.8' }), INVALID_TOKEN, 'the tenth failure');
    assert.equal((await call(proxied.base, '/api/users/', { secret: door + 'x', from: '203.0.113.8' })).status, 429);
    // The throttled address may still read anonymously.
    assert.equal((await call(proxied.base, '/api/users/', { from: '203.0.113.7' })).status, 200);
  });
});

// ---------------------------------------------------------------------------------------------

describe('the door', () => {
  const start = serverPool();

  it('records a change (201 + Location), a repeated state records nothing (200 with the latest record), JSON or form', async () => {
    const server = await start();
    const { door } = await tokensFor(server);
    const post = (options: Call) => call(server.base, '/api/space/openings/', { secret: door, ...options });

    const t0 = Date.now();
    const opened = await post({ json: { is_open: true } });
    assert.equal(opened.status, 201, opened.body);
    assert.equal(opened.headers['content-type'], 'application/json');
    const first = opened.json();
    assert.deepEqual(Object.keys(first), ['time', 'is_open']);
    assert.equal(first.is_open, true);
    const time = Date.parse(first.time);
    assert.ok(time >= t0 - 1 && time <= Date.now(), `${first.time} is the current time`);
    assert.match(first.time, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{6})?\+00:00$/);
    const id = idOf(opened);
    assert.equal(opened.headers.location, `${server.base}/api/space/openings/${id}/`);
    assertJson(await call(server.base, `/api/space/openings/${id}/`), 200, first, 'the Location resolves');

    for (const options of [{ json: { is_open: true } }, { form: 'is_open=1' }, { form: 'is_open=true' }, { json: { is_open: 'on' } }] as Call[]) {
      const again = await post(options);
      assertJson(again, 200, first, `same state ${JSON.stringify(options)}`);
      assert.equal(again.headers.location, undefined);
    }
    assert.deepEqual(await openings(server.base), { count: 1, next: null, previous: null, results: [first] });

    const closed = await post({ form: 'is_open=0' });
    assert.equal(closed.status, 201, closed.body);
    const second = closed.json();
    assert.equal(second.is_open, false);
    assert.ok(idOf(closed) > id);
    assertJson(await post({ json: { is_open: false } }), 200, second, 'closed again');
    assertJson(await post({ form: 'is_open=false' }), 200, second, 'closed again (form)');

    const reopened = await post({ form: 'is_open=1' });
    assert.equal(reopened.status, 201, reopened.body);
    const history = await openings(server.base);
    assert.equal(history.count, 3);
    assert.deepEqual(
      history.results.map((r) => r.is_open),
      [true, false, true],
    );
    assert.deepEqual(history.results.slice(1), [second, first]);
    assert.equal((await listAudit(server.database.db, 100)).length, 3, 'one audit entry per recorded change');
  });

  it('an admin may backfill with `time`: placed by time in the history, judged against the state at that time', async () => {
    const server = await start();
    const { admin, door } = await tokensFor(server);
    const post = (secret: string, json: unknown) => call(server.base, '/api/space/openings/', { secret, json });

    const now = await post(door, { is_open: true });
    assert.equal(now.status, 201);
    const past = await post(admin, { time: '2020-01-01T00:00:00Z', is_open: false });
    assert.equal(past.status, 201, past.body);
    assert.deepEqual(past.json(), { time: '2020-01-01T00:00:00+00:00', is_open: false });
    assert.equal(past.headers.location, `${server.base}/api/space/openings/${idOf(past)}/`);
    // The same state as at that time: nothing new, the record describing that moment.
    assertJson(await post(admin, { time: '2021-06-01T12:00:00+02:00', is_open: false }), 200, { time: '2020-01-01T00:00:00+00:00', is_open: false }, 'same state as in 2021');
    // A different one whose next record already sets it: refused, two opens in a row would follow.
    assertJson(
      await post(admin, { time: '2021-06-01T12:00:00.5+02:00', is_open: true }),
      400,
      { time: ['The next recorded change after this time already sets this state: correct that record instead.'] },
      'open before an open',
    );
    // Before any history: compared with nothing, so recorded.
    const earliest = await post(admin, { time: '2019-12-31T23:00:00', is_open: true });
    assert.equal(earliest.status, 201, earliest.body);
    // Admin without time: the door's rule at the current time.
    assertJson(await post(admin, { is_open: true }), 200, now.json(), 'admin, same state now');

    const history = await openings(server.base);
    assert.deepEqual(history.results, [now.json(), past.json(), { time: '2019-12-31T23:00:00+00:00', is_open: true }]);

    const count = history.count;
    const future = new Date(Date.now() + 3_600_000).toISOString();
    assertJson(await post(admin, { time: future, is_open: false }), 400, { time: ['This time is in the future.'] }, 'an hour ahead');
    assertJson(await post(admin, { time: '2200-01-01T00:00:00Z', is_open: false }), 400, { time: ['This time is in the future.'] }, 'far ahead');
    assertJson(
      await post(admin, { time: '9999-01-01T00:00:00Z', is_open: false }),
      400,
      { time: ['Datetime is out of the supported range (years up to 2255).'] },
      'beyond exact microseconds',
    );
    assert.equal((await openings(server.base)).count, count, 'nothing recorded');
  });

  it('the rule holds under 40 simultaneous posts alternating true/false', async () => {
    const server = await start();
    const { door, admin } = await tokensFor(server);
    const n = 40;
    const answers = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        call(server.base, '/api/space/openings/', i % 3 === 0 ? { secret: admin, form: `is_open=${i % 2}` } : { secret: door, json: { is_open: i % 2 === 0 } }),
      ),
    );
    const statuses = answers.map((r) => r.status);
    assert.ok(
      statuses.every((s) => s === 200 || s === 201),
      statuses.join(' '),
    );
    const created = answers.filter((r) => r.status === 201);
    assert.ok(created.length >= 1);
    const history = await openings(server.base);
    assert.equal(history.count, created.length, 'one row per 201');
    assert.equal(history.results.length, created.length);
    assertAlternating(history.results, 'single process');
    assert.equal(new Set(created.map(idOf)).size, created.length, 'distinct Locations');
    assert.equal((await listAudit(server.database.db, 1000)).length, created.length, 'one audit entry per 201');
    // Every 200 answered with a record that exists.
    const times = new Set(history.results.map((r) => JSON.stringify(r)));
    for (const r of answers.filter((a) => a.status === 200)) assert.ok(times.has(r.body), `${r.body} is in the history`);
  });

  describe(`across two serve processes on one ${TEST_ENGINE} database`, () => {
    let fresh: FreshDatabase;
    let services: Service[] = [];
    before(async () => {
      fresh = await freshDatabase();
      const env = { DATABASE_URL: fresh.url, LOG_LEVEL: 'warn' };
      services = await Promise.all([startService(['serve'], { ...env, PORT: String(await freePort()) }), startService(['serve'], { ...env, PORT: String(await freePort()) })]);
      await Promise.all(services.map((s) => waitUntilServing(s)));
    });
    after(async () => {
      await Promise.all(services.map((s) => s.stop()));
      await fresh?.cleanup();
    });

    it('60 simultaneous posts spread over both processes never record the same state twice in a row', async () => {
      const { door } = await tokensFor({ database: fresh.handle });
      const n = 60;
      const answers = await Promise.all(
        Array.from({ length: n }, (_, i) => call(services[i % 2].base, '/api/space/openings/', { secret: door, json: { is_open: Math.floor(i / 2) % 2 === 0 } })),
      );
      const statuses = answers.map((r) => r.status);
      assert.ok(
        statuses.every((s) => s === 200 || s === 201),
        `${statuses.join(' ')}\n${services.map((s) => s.output()).join('\n')}`,
      );
      const created = answers.filter((r) => r.status === 201).length;
      for (const service of services) {
        const history = await openings(service.base);
        assert.equal(history.count, created, `${service.name}: one row per 201`);
        assertAlternating(history.results, service.name);
      }
      assert.equal((await listAudit(fresh.handle.db, 1000)).length, created);
    });
  });
});

// ---------------------------------------------------------------------------------------------

describe('legacy POST /space/change_status', () => {
  const start = serverPool();
  const legacy = (base: string, form: string | undefined, extra: Call = {}) =>
    call(base, '/space/change_status', { method: 'POST', ...(form === undefined ? {} : { form }), ...extra });

  /** No secret anywhere in the answer: body or any header. */
  function assertNoSecret(res: HttpResponse, secrets: string[], what: string): void {
    const everything = res.body + '\n' + JSON.stringify(res.headers);
    for (const secret of secrets) {
      assert.ok(!everything.includes(secret), `${what}: the secret appears in the response`);
      assert.ok(!everything.includes(encodeURIComponent(secret)), `${what}: the encoded secret appears in the response`);
    }
  }

  it('answers 200 {"open": 0|1} whether or not the state changed; the history changes once', async () => {
    const server = await start();
    const { door, admin, doorToken, adminToken } = await tokensFor(server);
    const s = encodeURIComponent(door);
    for (let i = 0; i < 2; i++) {
      const res = await legacy(server.base, `secret=${s}&open=1`);
      assertJson(res, 200, { open: 1 }, `open=1 #${i + 1}`);
      assertNoSecret(res, [door], 'success');
    }
    let history = await openings(server.base);
    assert.equal(history.count, 1);
    assert.equal(history.results[0].is_open, true);
    for (let i = 0; i < 2; i++) assertJson(await legacy(server.base, `open=0&secret=${s}`), 200, { open: 0 }, `open=0 #${i + 1}`);
    history = await openings(server.base);
    assert.deepEqual(
      history.results.map((r) => r.is_open),
      [false, true],
    );
    // An admin secret works too, and the path with a slash.
    assertJson(await call(server.base, '/space/change_status/', { form: `secret=${encodeURIComponent(admin)}&open=1` }), 200, { open: 1 }, 'admin, trailing slash');
    history = await openings(server.base);
    assert.deepEqual(
      history.results.map((r) => r.is_open),
      [true, false, true],
    );
    // The recorded opening is at the current time.
    assert.ok(Math.abs(Date.parse(history.results[0].time) - Date.now()) < 60_000);
    // Audited, once per change.
    const entries = await listAudit(server.database.db, 100);
    assert.deepEqual(
      entries.map((e) => [e.tokenName, e.method, e.path, e.collection, e.status]),
      [
        [adminToken.name, 'POST', '/space/change_status', 'space/openings', 200],
        [doorToken.name, 'POST', '/space/change_status', 'space/openings', 200],
        [doorToken.name, 'POST', '/space/change_status', 'space/openings', 200],
      ],
    );
  });

  it('multipart bodies work too, as Django filled request.POST from them (curl -F)', async () => {
    const server = await start();
    const { door } = await tokensFor(server);
    const multipart = (fields: Record<string, string>) => {
      const form = new FormData();
      for (const [k, v] of Object.entries(fields)) form.append(k, v);
      return new Response(form);
    };
    const send = async (fields: Record<string, string>) => {
      const res = multipart(fields);
      const body = Buffer.from(await res.arrayBuffer()).toString('latin1');
      return call(server.base, '/space/change_status', { body, headers: { 'content-type': res.headers.get('content-type')! } });
    };
    assertJson(await send({ secret: door, open: '1' }), 200, { open: 1 }, 'multipart');
    assert.deepEqual(
      (await openings(server.base)).results.map((r) => r.is_open),
      [true],
    );
    assertJson(await send({ secret: door, open: 'x' }), 400, { error: 'Did not understand open: expected 0 or 1' }, 'bad open');
    assertJson(
      await call(server.base, '/space/change_status', { body: 'garbage', headers: { 'content-type': 'multipart/form-data; boundary=zz' } }),
      400,
      { error: 'Malformed multipart body' },
      'malformed',
    );
    // The API's own routes parse JSON and forms only, as the contract lists.
    const res = multipart({ is_open: 'false' });
    const type = res.headers.get('content-type')!;
    const api = await call(server.base, '/api/space/openings/', { secret: door, body: Buffer.from(await res.arrayBuffer()).toString('latin1'), headers: { 'content-type': type } });
    assertJson(api, 415, { detail: `Unsupported media type "${type}" in request.` }, 'multipart on the API');
  });

  it('400 {"error": …} for a missing secret, a missing or bad `open`, and for GET; never echoing the secret', async () => {
    const server = await start();
    const { door } = await tokensFor(server);
    const s = encodeURIComponent(door);
    const cases: [string, Call, string][] = [
      ['no body', {}, 'You must query this endpoint with a secret.'],
      ['no secret', { form: 'open=1' }, 'You must query this endpoint with a secret.'],
      ['no open', { form: `secret=${s}` }, 'Parameter open is required'],
      ['open=2', { form: `secret=${s}&open=2` }, 'Did not understand open: expected 0 or 1'],
      ['open=true', { form: `secret=${s}&open=true` }, 'Did not understand open: expected 0 or 1'],
      ['open empty', { form: `secret=${s}&open=` }, 'Did not understand open: expected 0 or 1'],
      ['open = secret', { form: `secret=${s}&open=${s}` }, 'Did not understand open: expected 0 or 1'],
      ['GET', { method: 'GET' }, 'Only POST requests are allowed'],
      ['GET with a query', { method: 'GET', headers: {} }, 'Only POST requests are allowed'],
      ['PUT', { method: 'PUT', form: `secret=${s}&open=1` }, 'Only POST requests are allowed'],
    ];
    for (const [what, options, error] of cases) {
      const path = what === 'GET with a query' ? `/space/change_status?secret=${s}&open=1` : '/space/change_status';
      const res = await call(server.base, path, { method: 'POST', ...options });
      assertJson(res, 400, { error }, what);
      assertNoSecret(res, [door], what);
    }
    assert.equal((await openings(server.base)).count, 0, 'nothing recorded');
    assert.deepEqual(await listAudit(server.database.db, 100), []);
  });

  it('403 for an unknown or revoked secret, checked before `open`; never echoing it', async () => {
    const server = await start();
    const { door, doorToken } = await tokensFor(server);
    await revokeToken(server.database.db, doorToken.name, nowUs());
    const unknown = 'hs_' + 'A'.repeat(43);
    for (const [secret, open] of [
      [unknown, '1'],
      [door, '1'],
      [unknown, '7'],
      [door, ''],
      ['', '1'],
    ]) {
      const res = await legacy(server.base, `secret=${encodeURIComponent(secret)}&open=${open}`);
      assertJson(res, 403, { error: 'Bad secret: it is not in the allowed list' }, `secret ${secret.slice(0, 6)}… open=${open}`);
      if (secret) assertNoSecret(res, [secret], 'bad secret');
    }
    const noOpen = await legacy(server.base, `secret=${unknown}`);
    assertJson(noOpen, 403, { error: 'Bad secret: it is not in the allowed list' }, 'bad secret, no open');
    assert.equal((await openings(server.base)).count, 0);
  });
});

// ---------------------------------------------------------------------------------------------

describe('audit log', () => {
  const start = serverPool();
  const cliEnv = (url: string): NodeJS.ProcessEnv => {
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent' };
    delete env.NODE_TEST_CONTEXT;
    return env;
  };
  const cli = (url: string, ...args: string[]) => spawnSync(process.execPath, [BIN, 'audit', ...args], { env: cliEnv(url), encoding: 'utf8', timeout: 60_000 });

  it('records each successful write (token, method, path, record, status) and nothing for failed ones', async () => {
    const server = await start({ records: sampleRecords() });
    const { admin, door, adminToken, doorToken } = await tokensFor(server);
    const email = 'audited.person@example.org';
    const base = server.base;
    const t0 = nowUs();

    const created = await call(base, '/api/users/?format=json', { json: { username: 'audited', email, has_key: true }, secret: admin });
    assert.equal(created.status, 201, created.body);
    const u = idOf(created);
    assert.equal((await call(base, `/api/users/${u}/`, { method: 'PATCH', json: { has_key: false }, secret: admin })).status, 200);
    assert.equal((await call(base, `/api/users/0${u}/`, { method: 'PUT', json: { username: 'audited 2', email: 'other.person@example.org' }, secret: admin })).status, 200);
    assert.equal((await call(base, `/api/users/${u}/`, { method: 'DELETE', secret: admin })).status, 204);
    const latest = (await openings(base)).results[0];
    const opened = await call(base, '/api/space/openings/', { json: { is_open: !latest.is_open }, secret: door, scheme: 'Bearer' });
    assert.equal(opened.status, 201);
    const o = idOf(opened);
    assert.equal((await call(base, '/api/space/openings/', { json: { is_open: !latest.is_open }, secret: door })).status, 200, 'same state: no entry');

    // Failed writes of every kind.
    const failures: [string, string, Call, number][] = [
      ['POST', '/api/users/', { json: { username: 'x' }, secret: door }, 403],
      ['POST', '/api/users/', { json: {}, secret: admin }, 400],
      ['POST', '/api/users/', { json: { username: 'y', email: 'not an email' }, secret: admin }, 400],
      ['POST', '/api/users/', { body: '{"username": ', headers: { 'content-type': 'application/json' }, secret: admin }, 400],
      ['POST', '/api/users/', { body: 'x', headers: { 'content-type': 'text/plain' }, secret: admin }, 415],
      ['PUT', '/api/users/99999/', { json: { username: 'z' }, secret: admin }, 404],
      ['DELETE', '/api/users/18/', { secret: admin }, 409],
      ['PUT', '/api/users/', { json: {}, secret: admin }, 405],
      ['POST', '/api/users/', { json: { username: 'w' } }, 401],
      ['POST', '/api/users/', { json: { username: 'w' }, secret: 'hs_bogus' }, 401],
      ['POST', '/api/space/openings/', { json: { is_open: 'maybe' }, secret: door }, 400],
      ['POST', '/api/space/openings/', { json: { time: '2999-01-01T00:00:00Z', is_open: true }, secret: admin }, 400],
    ];
    for (const [method, path, options, status] of failures) {
      const res = await call(base, path, { method, ...options });
      assert.equal(res.status, status, `${method} ${path}: ${res.body}`);
    }
    const legacyOk = await call(base, '/space/change_status', { form: `secret=${encodeURIComponent(door)}&open=${latest.is_open ? 1 : 0}` });
    assertJson(legacyOk, 200, { open: latest.is_open ? 1 : 0 }, 'legacy');
    const legacyId = (await server.database.db.selectFrom('openings').select('id').orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow()).id;
    assertJson(
      await call(base, '/space/change_status', { form: `secret=${encodeURIComponent(door)}&open=${latest.is_open ? 1 : 0}` }),
      200,
      { open: latest.is_open ? 1 : 0 },
      'legacy, same state',
    );
    assertJson(
      await call(base, '/space/change_status', { form: `secret=${encodeURIComponent(door)}&open=5` }),
      400,
      { error: 'Did not understand open: expected 0 or 1' },
      'legacy, bad open',
    );
    const t1 = nowUs();

    const entries = await listAudit(server.database.db, 100);
    assert.deepEqual(
      entries.map(({ id: _id, timeUs: _t, ...rest }) => rest),
      [
        { tokenId: doorToken.id, tokenName: doorToken.name, method: 'POST', path: '/space/change_status', collection: 'space/openings', recordId: legacyId, status: 200 },
        { tokenId: doorToken.id, tokenName: doorToken.name, method: 'POST', path: '/api/space/openings/', collection: 'space/openings', recordId: o, status: 201 },
        { tokenId: adminToken.id, tokenName: adminToken.name, method: 'DELETE', path: `/api/users/${u}/`, collection: 'users', recordId: u, status: 204 },
        { tokenId: adminToken.id, tokenName: adminToken.name, method: 'PUT', path: `/api/users/0${u}/`, collection: 'users', recordId: u, status: 200 },
        { tokenId: adminToken.id, tokenName: adminToken.name, method: 'PATCH', path: `/api/users/${u}/`, collection: 'users', recordId: u, status: 200 },
        { tokenId: adminToken.id, tokenName: adminToken.name, method: 'POST', path: '/api/users/', collection: 'users', recordId: u, status: 201 },
      ],
    );
    for (const e of entries) assert.ok(e.timeUs >= t0 && e.timeUs <= t1, `entry ${e.id} time`);
    assert.ok(
      entries.every((e, i) => i === 0 || e.id < entries[i - 1].id),
      'newest first',
    );
    assert.deepEqual(
      (await listAudit(server.database.db, 2)).map((e) => e.id),
      entries.slice(0, 2).map((e) => e.id),
    );

    const table = JSON.stringify(await server.database.db.selectFrom('audit_log').selectAll().execute());
    for (const secret of [admin, door]) assert.ok(!table.includes(secret) && !table.includes(secret.slice(3)), 'no secret in the audit table');
    assert.ok(!table.includes('example.org') && !table.includes('@'), 'no e-mail address in the audit table');
  });

  it('`hackerspace-api audit` lists the same entries (table and --json), without secrets or e-mail addresses', async () => {
    const server = await start({ records: sampleRecords() });
    const { admin, door, doorToken } = await tokensFor(server);
    const email = 'cli.audit@example.org';
    const created = await call(server.base, '/api/users/', { json: { username: 'cli audited', email }, secret: admin });
    assert.equal(created.status, 201, created.body);
    const u = idOf(created);
    assert.equal(
      (await call(server.base, `/api/users/${u}/?x=${encodeURIComponent(email)}`, { method: 'PATCH', json: { email: 'cli.other@example.org' }, secret: admin })).status,
      200,
    );
    const latest = (await openings(server.base)).results[0];
    assert.equal((await call(server.base, '/api/space/openings/', { json: { is_open: !latest.is_open }, secret: door })).status, 201);
    assert.equal((await call(server.base, '/api/users/', { json: { username: 'nope' }, secret: door })).status, 403);

    const entries = await listAudit(server.database.db, 100);
    assert.equal(entries.length, 3);
    assert.equal(entries[1].path, `/api/users/${u}/`, 'stored without its query');

    const json = cli(server.url, '--json');
    assert.equal(json.status, 0, json.stderr);
    assert.deepEqual(
      json.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line)),
      entries.map((e) => ({
        id: e.id,
        time: utcText(e.timeUs),
        token: e.tokenName,
        method: e.method,
        path: e.path,
        record: e.recordId,
        status: e.status,
      })),
    );
    assert.match(json.stdout.split('\n')[0], /^\{"id":\d+,"time":"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z","token":/);

    const text = cli(server.url);
    assert.equal(text.status, 0, text.stderr);
    const lines = text.stdout.trimEnd().split('\n');
    assert.deepEqual(lines[0].split(/\s{2,}/), ['ID', 'TIME', 'TOKEN', 'METHOD', 'PATH', 'RECORD', 'STATUS']);
    assert.deepEqual(
      lines.slice(1).map((line) => line.split(/\s{2,}/)),
      entries.map((e) => [String(e.id), utcText(e.timeUs), e.tokenName, e.method, e.path, String(e.recordId), String(e.status)]),
    );
    assert.equal(lines[1].split(/\s{2,}/)[2], doorToken.name);

    const limited = cli(server.url, '--limit', '1', '--json');
    assert.equal(limited.status, 0, limited.stderr);
    assert.equal(limited.stdout.trimEnd().split('\n').length, 1);
    assert.equal(cli(server.url, '--limit', '0').status, 2);

    for (const output of [json.stdout, json.stderr, text.stdout, text.stderr, limited.stdout]) {
      for (const secret of [admin, door]) assert.ok(!output.includes(secret), 'no secret in the CLI output');
      assert.ok(!output.includes('@'), `no e-mail address in the CLI output:\n${output}`);
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('CORS', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ records: sampleRecords() });
  });
  after(() => server.close());
  const origin = { origin: 'https://elsewhere.example' };

  it('reads (GET, HEAD, OPTIONS) may be made from any origin', async () => {
    for (const path of ['/api/', '/api/users/', '/api/users/1/', '/api/space/openings/?page=2', '/api/nope/', '/api/users/99999/']) {
      for (const method of ['GET', 'HEAD', 'OPTIONS']) {
        for (const headers of [origin, {}]) {
          const res = await call(server.base, path, { method, headers });
          assert.equal(res.headers['access-control-allow-origin'], '*', `${method} ${path}`);
          assert.equal(res.headers['access-control-expose-headers'], EXPOSED, `${method} ${path}`);
          assert.equal(res.headers['access-control-allow-methods'], undefined, `${method} ${path}: not a preflight`);
        }
      }
    }
  });

  it('a preflight for a write is answered without allowing it', async () => {
    for (const [path, method] of [
      ['/api/space/openings/', 'POST'],
      ['/api/users/1/', 'DELETE'],
      ['/api/users/1/', 'PUT'],
      ['/api/users/', 'GET'],
    ]) {
      const res = await call(server.base, path, {
        method: 'OPTIONS',
        headers: { ...origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization, content-type' },
      });
      assert.equal(res.status, 200, res.body);
      assert.equal(res.headers['access-control-allow-origin'], '*');
      assert.equal(res.headers['access-control-allow-methods'], 'GET, HEAD, OPTIONS', `${method} is not allowed`);
      assert.doesNotMatch(String(res.headers['access-control-allow-methods']), /POST|PUT|PATCH|DELETE/);
      assert.equal(res.headers['access-control-allow-headers'], 'Accept, Authorization, If-Modified-Since, If-None-Match, Last-Event-ID');
      assert.equal(res.headers['access-control-max-age'], '86400');
    }
  });

  it('write responses, successful or not, carry no CORS headers', async () => {
    const { admin, door } = await tokensFor(server);
    const latest = (await openings(server.base)).results[0];
    const cases: [string, string, Call, number][] = [
      ['POST', '/api/space/openings/', { json: { is_open: !latest.is_open }, secret: door }, 201],
      ['POST', '/api/space/openings/', { json: { is_open: !latest.is_open }, secret: door }, 200],
      ['POST', '/api/users/', { json: { username: 'cors user' }, secret: admin }, 201],
      ['PATCH', '/api/users/2/', { json: { has_key: true }, secret: admin }, 200],
      ['POST', '/api/users/', { json: {} }, 401],
      ['PUT', '/api/users/1/', { json: {}, secret: door }, 403],
      ['POST', '/api/users/', { json: {}, secret: admin }, 400],
      ['DELETE', '/api/users/99999/', { secret: admin }, 404],
      ['POST', '/api/users/1/', { secret: admin }, 405],
      ['POST', '/space/change_status', { form: `secret=${encodeURIComponent(door)}&open=1` }, 200],
      ['POST', '/space/change_status', { form: 'open=1' }, 400],
    ];
    for (const [method, path, options, status] of cases) {
      const res = await call(server.base, path, { method, ...options, headers: origin });
      assert.equal(res.status, status, `${method} ${path}: ${res.body}`);
      assert.equal(res.headers['access-control-allow-origin'], undefined, `${method} ${path}`);
      assert.equal(res.headers['access-control-expose-headers'], undefined, `${method} ${path}`);
    }
    const created = await call(server.base, '/api/events/', { json: { title: 'CORS', status: 'r' }, secret: admin, headers: origin });
    assert.equal(created.status, 201);
    const deleted = await call(server.base, `/api/events/${idOf(created)}/`, { method: 'DELETE', secret: admin, headers: origin });
    assert.equal(deleted.status, 204);
    assert.equal(deleted.headers['access-control-allow-origin'], undefined);
  });
});

// ---------------------------------------------------------------------------------------------

describe('secrets and e-mail addresses stay out of logs and responses', () => {
  let fresh: FreshDatabase;
  let base: string;
  let close: () => Promise<void>;
  const lines: string[] = [];

  before(async () => {
    fresh = await freshDatabase();
    const config = configFrom({ DATABASE_URL: fresh.url, TRUST_PROXY: 'true' });
    const stream = { write: (line: string) => void lines.push(line) };
    const app = await buildApp(config, { database: fresh.handle, logger: { level: 'trace', stream } });
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    close = () => app.close();
  });
  after(async () => {
    await close?.();
    await fresh?.cleanup();
  });

  it('good and bad tokens, the legacy route and malformed bodies leave no secret or e-mail address behind', async () => {
    const { admin, door } = await tokensFor({ database: fresh.handle });
    const revoked = await createToken(fresh.handle.db, `revoked ${++tokenCounter}`, 'door', nowUs());
    await revokeToken(fresh.handle.db, revoked.token.name, nowUs());
    const unknown = 'hs_' + 'Z'.repeat(43);
    const secrets = [admin, door, revoked.secret, unknown];
    const emails = ['log.secret.person@example.org', 'second.hidden@example.net'];
    const responses: HttpResponse[] = [];
    const send = async (path: string, options: Call, status: number) => {
      const res = await call(base, path, { from: newClient(), ...options });
      assert.equal(res.status, status, `${options.method ?? 'POST'} ${path}: ${res.body}`);
      responses.push(res);
      return res;
    };

    // Good tokens, both schemes, reads and writes.
    await send('/api/users/', { secret: admin, method: 'GET' }, 200);
    await send('/api/users/', { secret: admin, scheme: 'Bearer', method: 'OPTIONS' }, 200);
    await send('/api/space/openings/', { secret: door, json: { is_open: true } }, 201);
    await send('/api/space/openings/', { secret: door, scheme: 'Bearer', form: 'is_open=1' }, 200);
    const user = await send('/api/users/', { secret: admin, json: { username: 'logged', email: emails[0], has_key: true } }, 201);
    await send(`/api/users/${idOf(user)}/`, { secret: admin, method: 'PATCH', form: `email=${encodeURIComponent(emails[1])}` }, 200);
    // Validation errors about an e-mail address do not repeat it.
    await send('/api/users/', { secret: admin, json: { username: 'logged', email: emails[0] } }, 400);
    await send('/api/users/', { secret: admin, json: { username: 'other', email: `${emails[1]}@@` } }, 400);
    // Bad tokens: unknown, revoked, malformed headers containing a real secret.
    await send('/api/users/', { secret: unknown, method: 'GET' }, 401);
    await send('/api/users/', { secret: revoked.secret, json: { is_open: true } }, 401);
    await send('/api/space/openings/', { authorization: `Token ${door} ${door}`, json: { is_open: true } }, 401);
    await send('/api/space/openings/', { authorization: `Bearer ${admin} x`, method: 'GET' }, 401);
    await send('/api/space/openings/', { authorization: `Basic ${admin}`, json: { is_open: true } }, 401);
    // Malformed JSON holding a secret and an e-mail address.
    for (const body of [`{"is_open": true, "secret": "${door}"`, `{"secret": "${door}", "email": "${emails[0]}"}}`, `"${door}`, `${door}`, `{"${admin}": 1,}`]) {
      const res = await send('/api/space/openings/', { secret: door, body, headers: { 'content-type': 'application/json' } }, 400);
      assert.match(res.json().detail, /^JSON parse error - /);
    }
    await send('/api/users/', { secret: admin, body: `{"username": "x", "email": "${emails[1]}"`, headers: { 'content-type': 'application/json' } }, 400);
    // The legacy route: good secret, bad open; good and bad secrets.
    await send('/space/change_status', { form: `secret=${encodeURIComponent(door)}&open=0` }, 200);
    await send('/space/change_status', { form: `secret=${encodeURIComponent(door)}&open=${encodeURIComponent(door)}` }, 400);
    await send('/space/change_status', { form: `secret=${encodeURIComponent(door)}&open=yes` }, 400);
    await send('/space/change_status', { form: `secret=${encodeURIComponent(door)}` }, 400);
    await send('/space/change_status', { form: `secret=${encodeURIComponent(unknown)}&open=1` }, 403);
    await send('/space/change_status', { form: `secret=${encodeURIComponent(revoked.secret)}&open=${encodeURIComponent(revoked.secret)}` }, 403);
    await send('/space/change_status', { body: `{"secret": "${door}", "open": "x"}`, headers: { 'content-type': 'application/json' } }, 400);
    await send('/space/change_status', { body: `{"secret": "${door}", "open": `, headers: { 'content-type': 'application/json' } }, 400);
    await send('/space/change_status', { body: `secret=${door}&open=1`, headers: { 'content-type': 'text/plain' } }, 415);
    // Secrets put in a URL by careless clients are redacted from the request log.
    await send(`/space/change_status?secret=${encodeURIComponent(door)}&open=1`, { method: 'GET' }, 400);
    await send(`/api/users/?token=${encodeURIComponent(admin)}`, { method: 'GET' }, 200);
    await send(`/api/users/?q=${encodeURIComponent(admin)}`, { method: 'GET' }, 200);
    // Throttled, then the same secrets again.
    for (let i = 0; i < 10; i++) await call(base, '/api/users/', { secret: unknown, from: '192.0.2.1' });
    const throttledRes = await call(base, '/api/users/', { secret: admin + 'x', from: '192.0.2.1' });
    assert.equal(throttledRes.status, 429);
    responses.push(throttledRes);

    const logs = lines.join('');
    assert.ok(lines.length > 40, `the app logged (${lines.length} lines)`);
    assert.ok(logs.includes('incoming request') && logs.includes('request completed'), 'request logging at trace level');
    const encodings = (s: string) => [s, s.slice(3), encodeURIComponent(s), Buffer.from(s).toString('base64')];
    for (const secret of secrets) {
      for (const form of encodings(secret)) {
        assert.ok(!logs.includes(form), `a secret (${form.slice(0, 8)}…) appears in the logs`);
        for (const res of responses) {
          const everything = res.body + JSON.stringify(res.headers);
          assert.ok(!everything.includes(form), `a secret appears in the response ${res.status} ${res.body}`);
        }
      }
    }
    for (const email of emails) {
      for (const form of [email, encodeURIComponent(email), email.split('@')[0]]) {
        assert.ok(!logs.includes(form), `an e-mail address appears in the logs`);
        for (const res of responses) assert.ok(!(res.body + JSON.stringify(res.headers)).includes(form), `an e-mail address appears in the response ${res.body}`);
      }
    }
  });
});
