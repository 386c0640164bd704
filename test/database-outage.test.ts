/**
 * The health check (`/healthz`) and the service's behaviour when its database goes away: the
 * contract's 503 with Retry-After within the statement timeout (plus a little), and recovery on
 * its own when the database comes back.
 *
 * On PostgreSQL the outages are real: the service reaches the server through a TCP proxy run by
 * this test, which resets connections, stops listening, or silently swallows traffic (a network
 * partition), at a chosen moment or in the middle of a chosen query. The PostgreSQL server itself
 * is never touched. On SQLite (in WAL mode, reads are never blocked by other processes) the only
 * failure that can be caused honestly is the service's database handle closing under it.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before, describe, it, type TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { configFrom } from '../src/config.js';
import { isDatabaseUnavailable, openDatabase, type DatabaseHandle } from '../src/db/connection.js';
import { LEASE_MS } from '../src/db/read-lease.js';
import pg from 'pg';
import { importRecords } from '../src/installed-apps.js';
import { assertSecurityHeaders } from './support/contract.js';
import { request, type HttpRequestOptions, type HttpResponse, assertJson } from './support/http.js';
import { freshDatabase, postgresOnly, sampleRecords, startServer, type FreshDatabase, type TestServer } from './support/server.js';
import { TcpProxy } from './support/tcp-proxy.js';
import { until, within } from './support/wait.js';

const UP = { status: 'ok', database: 'up' };
const DOWN = { status: 'unavailable', database: 'down' };
const UNAVAILABLE = { detail: 'Service temporarily unavailable.' };

/**
 * The answer to a request, waited for (a request that never gets one fails the test after the
 * safety timeout, naming it), with how long it took: only for the diagnostics and for lower
 * bounds (a failure that can only be noticed by a timeout); durations are not asserted from above.
 */
async function timed(base: string, path: string, options?: HttpRequestOptions, safetyMs?: number): Promise<HttpResponse & { ms: number }> {
  const start = performance.now();
  const res = await within(request(base, path, options), `an answer to ${options?.method ?? 'GET'} ${path}`, safetyMs);
  return { ...res, ms: Math.round(performance.now() - start) };
}

function assertHealthHeaders(res: HttpResponse, what: string): void {
  assert.equal(res.headers['content-type'], 'application/json', `${what} content-type`);
  assert.equal(res.headers['cache-control'], 'no-store', `${what} cache-control`);
  assertSecurityHeaders(res.headers, what);
  // Not an API view: none of DRF's headers.
  assert.equal(res.headers.vary, undefined, `${what} vary`);
}

function assertHealthDown(res: HttpResponse, what: string): void {
  assert.equal(res.status, 503, `${what} status (body ${res.body.slice(0, 200)})`);
  assertHealthHeaders(res, what);
  assert.match(String(res.headers['retry-after']), /^\d+$/, `${what} retry-after`);
  if (res.body !== '') assert.deepEqual(res.json(), DOWN, `${what} body`);
}

describe('which failures mean "database unavailable"', () => {
  it("pg's client-side failures (no code: told apart by pg's fixed sentences) and network errors", () => {
    const failures = [
      'Query read timeout',
      'timeout exceeded when trying to connect',
      'timeout expired',
      'Connection terminated unexpectedly',
      'Connection terminated due to connection timeout',
      'Client has encountered a connection error and is not queryable',
      'Client was closed and is not queryable',
    ];
    for (const message of failures) assert.equal(isDatabaseUnavailable(new Error(message)), true, message);
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENETUNREACH']) {
      assert.equal(isDatabaseUnavailable(Object.assign(new Error(`connect ${code}`), { code })), true, code);
    }
  });

  it('server errors by SQLSTATE class: connection, resources, operator intervention; not faults of the query', () => {
    const serverError = (code: string) => Object.assign(new pg.DatabaseError('x', 0, 'error'), { code });
    for (const code of ['08006', '53300', '57P01', '57P03', '57014']) assert.equal(isDatabaseUnavailable(serverError(code)), true, code);
    for (const code of ['42P01', '22P02', '23505', '28P01']) assert.equal(isDatabaseUnavailable(serverError(code)), false, code);
    assert.equal(isDatabaseUnavailable(new Error('Connection to the moon lost')), false);
    assert.equal(isDatabaseUnavailable(new TypeError('Cannot read properties of undefined')), false);
  });
});

describe('/healthz with the database up', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ records: sampleRecords() });
  });
  after(() => server?.close());

  it('GET → 200 {"status":"ok","database":"up"}, never cached, with the security headers', async () => {
    const res = await request(server.base, '/healthz');
    assertJson(res, 200, UP, 'GET /healthz');
    assertHealthHeaders(res, 'GET /healthz');
    assert.equal(res.headers.allow, undefined);
    assert.equal(res.headers['retry-after'], undefined);
  });

  it('HEAD → 200 with the same headers and no body', async () => {
    const get = await request(server.base, '/healthz');
    const head = await request(server.base, '/healthz', { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
    assertHealthHeaders(head, 'HEAD /healthz');
    assert.equal(head.headers['content-length'], get.headers['content-length']);
  });

  it('ignores a query string; other paths near it are ordinary 404s', async () => {
    assertJson(await request(server.base, '/healthz?probe=lb-1'), 200, UP);
    for (const path of ['/healthz/', '/healthz.json', '/HEALTHZ', '/api/healthz/']) {
      assertJson(await request(server.base, path), 404, { detail: 'Not found.' }, path);
    }
  });

  it('other methods → 405 JSON with Allow: GET, HEAD (a body is not even read)', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      const res = await request(server.base, '/healthz', {
        method,
        headers: { 'content-type': 'application/json', authorization: 'Token nope' },
        body: '{"not json',
      });
      assertJson(res, 405, { detail: `Method "${method}" not allowed.` }, method);
      assert.equal(res.headers.allow, 'GET, HEAD', `${method} allow`);
      assertHealthHeaders(res, method);
    }
  });

  it('answers a burst of overlapping checks', async () => {
    const all = await Promise.all(Array.from({ length: 25 }, () => request(server.base, '/healthz')));
    for (const res of all) assertJson(res, 200, UP);
  });
});

describe('/healthz when the database handle fails', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ records: sampleRecords() });
  });
  after(() => server?.close());

  it('503 {"status":"unavailable","database":"down"} with Retry-After, for GET and HEAD', async (t) => {
    assertJson(await request(server.base, '/healthz'), 200, UP);
    // The service's own handle, closed under it: its ping now fails for real.
    await server.database.close();
    const get = await timed(server.base, '/healthz');
    assertHealthDown(get, 'GET');
    assert.notEqual(get.body, '');
    const head = await timed(server.base, '/healthz', { method: 'HEAD' });
    assertHealthDown(head, 'HEAD');
    assert.equal(head.body, '');
    t.diagnostic(`answered in ${get.ms} / ${head.ms} ms`);
  });
});

describe('PostgreSQL outages, through a TCP proxy', () => {
  /** DATABASE_STATEMENT_TIMEOUT_MS of the service under test. */
  const TIMEOUT = 1000;
  const POOL_SIZE = 3;
  /**
   * A hung request fails its test instead of hanging the run: the test's own timeout bounds every
   * wait below (each request also has a safety timeout of its own, which names it). On SQLite the
   * tests are reported as skipped: that pass has no network between the service and its data.
   */
  const HANG = { timeout: 10 * TIMEOUT, ...postgresOnly('a network between the service and its database to break (SQLite has none)') };

  let fresh: FreshDatabase;
  let proxy: TcpProxy;
  let database: DatabaseHandle;
  let app: FastifyInstance;
  let base: string;
  /** Bodies served before any outage, to compare with what is served after recovery. */
  const healthy = new Map<string, string>();

  before(async () => {
    if (HANG.skip) return; // nothing to set up for skipped tests
    // Schema and data through a direct connection; the service only ever sees the proxy.
    fresh = await freshDatabase();
    const records = sampleRecords();
    await fresh.handle.db.transaction().execute((trx) => importRecords(trx, records));
    const direct = new URL(fresh.url);
    proxy = await TcpProxy.start({ host: direct.hostname, port: Number(direct.port || 5432) });
    const viaProxy = new URL(fresh.url); // keeps the database and the search_path options
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const config = configFrom({
      DATABASE_URL: viaProxy.toString(),
      DATABASE_STATEMENT_TIMEOUT_MS: String(TIMEOUT),
      DATABASE_POOL_SIZE: String(POOL_SIZE),
      LOG_LEVEL: 'silent',
    });
    database = await openDatabase(config.database);
    app = await buildApp(config, { database, logger: false });
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });

  after(async () => {
    // The proxy first: nothing can then wait on a swallowed connection.
    await proxy?.close();
    await app?.close();
    await database?.close();
    await fresh?.cleanup();
  });

  afterEach(() => proxy?.restore());

  let uncached = 0;
  /**
   * 200 with the same body as before any outage (the first time: records it), both for the path
   * (possibly from the response cache) and for a variant never asked before (an ignored query
   * parameter), which must be built from the database.
   */
  async function assertServes(path: string, what: string): Promise<void> {
    const variant = `${path}${path.includes('?') ? '&' : '?'}uncached=${++uncached}`;
    for (const target of [path, variant]) {
      const res = await request(base, target);
      assert.equal(res.status, 200, `${what}: ${target} status (body ${res.body.slice(0, 200)})`);
      const before = healthy.get(path);
      if (before === undefined) healthy.set(path, res.body);
      else assert.equal(res.body, before, `${what}: ${target} body`);
    }
  }

  async function assertHealthy(what: string): Promise<void> {
    for (const path of ['/api/users/', '/api/users/3/', '/api/events/?ordering=-start', '/api/meetings/']) {
      await assertServes(path, what);
    }
    assertJson(await request(base, '/healthz'), 200, UP, `${what}: /healthz`);
  }

  /** Fills the pool with idle connections, so that an outage catches some of them. */
  async function warmPool(): Promise<void> {
    await Promise.all(Array.from({ length: POOL_SIZE }, (_, i) => request(base, `/api/projects/?warm=${i}`)));
  }

  /** The request got its 503 answer (it did not hang: `timed` waits for it within the test's timeout). */
  function assertUnavailable(t: TestContext, res: HttpResponse & { ms: number }, what: string): void {
    assertJson(res, 503, UNAVAILABLE, what);
    assert.match(String(res.headers['retry-after']), /^\d+$/, `${what} retry-after`);
    assertSecurityHeaders(res.headers, what);
    t.diagnostic(`${what}: 503 in ${res.ms} ms`);
  }

  /** Reads until the service holds a read lease: cached reads are then answered without a round trip. */
  async function leaseHeld(): Promise<void> {
    await until(
      async () => {
        if (database.versionsNow() !== null) return true;
        await request(base, '/api/users/');
        return false;
      },
      'the service to hold a read lease',
      5 * TIMEOUT,
      20,
    );
  }

  /**
   * A lease whose connection is gone or silent is trusted for LEASE_MS at most after it was last
   * renewed (no write can commit meanwhile: it would have to wait for this lease); from then on
   * every read asks the database. Waits for the service to give it up (the safety timeout only
   * keeps a lease that is never given up from hanging the test).
   */
  async function leaseEnded(t: TestContext, label: string): Promise<void> {
    const start = performance.now();
    await until(() => database.versionsNow() === null, `${label}: the service to give up its lease (trusted for ${LEASE_MS} ms at most)`, 5 * TIMEOUT);
    t.diagnostic(`${label}: lease given up ${Math.round(performance.now() - start)} ms after the outage began`);
  }

  /** API requests (cached and not) and health checks, all at once, during an outage. */
  async function duringOutage(t: TestContext, label: string) {
    const paths = ['/api/users/', '/api/users/3/', `/api/events/?outage=${label}`, `/api/meetings/1/?outage=${label}`, '/api/'];
    const [api, health] = await Promise.all([
      Promise.all(paths.map((path) => timed(base, path))),
      Promise.all([timed(base, '/healthz'), timed(base, '/healthz', { method: 'HEAD' })]),
    ]);
    // The API root is built without the database... but only after the data version is read.
    api.forEach((res, i) => assertUnavailable(t, res, `${label} GET ${paths[i]}`));
    for (const [i, res] of health.entries()) {
      const what = `${label} ${i ? 'HEAD' : 'GET'} /healthz`;
      assertHealthDown(res, what);
      t.diagnostic(`${what}: 503 down in ${res.ms} ms`);
    }
    return { api, health };
  }

  it('serves normally through the proxy', HANG, async () => {
    await assertHealthy('before any outage');
    assert.ok(proxy.connections > 0, 'the service reaches PostgreSQL through the proxy');
  });

  it('server down (connections reset, port closed) → 503 at once; recovers when it is back', HANG, async (t) => {
    await warmPool();
    await leaseHeld();
    await proxy.refuse();
    await leaseEnded(t, 'refused');
    await duringOutage(t, 'refused');
    // Still down: every request tries again, and fails again, quickly.
    assertUnavailable(t, await timed(base, '/api/users/'), 'refused, again');
    await proxy.restore();
    await assertHealthy('after the server came back');
  });

  it('connection reset in the middle of a query, inside a transaction → 503, and the next request is served', HANG, async (t) => {
    await warmPool();
    // After the data version was read and the transaction begun: the page's count is in flight.
    const fired = proxy.tripOn('collection_counts', 'reset');
    assertUnavailable(t, await timed(base, '/api/events/?reset=1'), 'reset mid-transaction GET /api/events/');
    await fired;
    // A restarted server: new connections get through at once, no restore needed.
    await assertServes('/api/events/?ordering=-start', 'just after the reset');

    const firedAgain = proxy.tripOn('from "users"', 'reset');
    assertUnavailable(t, await timed(base, '/api/users/7/?reset=2'), 'reset mid-query GET /api/users/7/');
    await firedAgain;
    await assertHealthy('after the resets');
  });

  it('blackhole (nothing answers, nothing is refused) → 503 within the timeout; recovers when the network heals', HANG, async (t) => {
    await warmPool();
    await leaseHeld();
    proxy.blackhole();
    // Under the lease, a cached page is still the current one.
    const cached = await timed(base, '/api/users/');
    assert.equal(cached.status, 200, 'a cached page within the lease');
    assert.equal(cached.body, healthy.get('/api/users/'));
    await leaseEnded(t, 'blackhole');
    const { api, health } = await duringOutage(t, 'blackhole');
    // Nothing but a timeout can end these: the proxy never refuses anything.
    for (const res of [...api, ...health]) assert.ok(res.ms >= TIMEOUT * 0.9, `a silent server is only noticed by a timeout (${res.ms} ms)`);
    await proxy.restore();
    await assertHealthy('after the partition healed');
  });

  it('blackhole in the middle of a transaction → 503 within the timeout (the rollback does not wait again)', HANG, async (t) => {
    await warmPool();
    const fired = proxy.tripOn('collection_counts', 'blackhole');
    assertUnavailable(t, await timed(base, '/api/space/openings/?blackhole=1'), 'blackhole mid-transaction GET /api/space/openings/');
    await fired;
    // The network is still partitioned: the next requests fail within the timeout too.
    assertUnavailable(t, await timed(base, '/api/space/openings/?blackhole=2'), 'blackhole, next request');
    await proxy.restore();
    await assertHealthy('after the partition healed');
  });

  it('pool exhausted (every connection held) → 503 after waiting the timeout for one; served once they are free', HANG, async (t) => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const holders = Array.from({ length: POOL_SIZE }, () => database.db.connection().execute(() => held));
    try {
      const [api, health] = await Promise.all([timed(base, '/api/users/?exhausted=1'), timed(base, '/healthz')]);
      assertUnavailable(t, api, 'pool exhausted GET /api/users/');
      assert.ok(api.ms >= TIMEOUT * 0.9, `waited for a connection (${api.ms} ms)`);
      assertHealthDown(health, 'pool exhausted /healthz');
      t.diagnostic(`pool exhausted /healthz: 503 down in ${health.ms} ms`);
    } finally {
      release();
      await Promise.all(holders);
    }
    await assertHealthy('after the pool was freed');
  });
});
