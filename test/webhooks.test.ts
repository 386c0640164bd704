// Webhooks: each change of the space's state POSTed to every WEBHOOK_URLS entry, signed with
// X-Signature-256 (HMAC-SHA256 of the raw body), retried with backoff and the byte-identical body
// when a receiver fails, never slowing the door post, given up after WEBHOOK_GIVE_UP_S, delivered
// once with several processes, configuration checks, and the documented example receiver.
// Real HTTP; both engines (TEST_ENGINE).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { ConfigError, configFrom } from '../src/config.js';
import { importRecords } from '../src/installed-apps.js';
import { countPendingDeliveries } from '../src/live/webhook-outbox.js';
import { currentSpaceState } from '../src/apps/space/openings.js';
import { createToken } from '../src/resources/tokens.js';
import { request, idOf } from './support/http.js';
import { freePort, killAll, startService, waitUntilServing, type Service } from './support/processes.js';
import { freshDatabase, sampleRecords, TEST_ENGINE, type FreshDatabase } from './support/server.js';
import { until, within } from './support/wait.js';
import { nowUs } from './support/clock.js';
import { doorPost } from './support/door.js';

after(() => killAll());

const SECRET = 'correct horse battery staple \u00e9';
const sign = (body: Buffer | string, secret = SECRET) => 'sha256=' + createHmac('sha256', secret).update(body).digest('hex');

interface Delivery {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  at: number;
}

/** A webhook receiver on 127.0.0.1: records every request; `status(n)` answers the n-th (from 0). */
class Receiver {
  readonly deliveries: Delivery[] = [];
  private readonly server: http.Server;
  private waiters = new Set<() => void>();
  private readonly connections = new Set<net.Socket>();

  private constructor(
    readonly port: number,
    private readonly status: (n: number) => number,
  ) {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const n = this.deliveries.length;
        this.deliveries.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks), at: Date.now() });
        res.writeHead(this.status(n)).end();
        for (const waiter of [...this.waiters]) waiter();
      });
    });
    this.server.on('connection', (socket: net.Socket) => {
      this.connections.add(socket);
      socket.on('close', () => this.connections.delete(socket));
    });
  }

  /** Resolves once no client is connected: every request sent on a closed connection was read. */
  disconnected(what: string): Promise<void> {
    return until(() => this.connections.size === 0, what);
  }

  static async start(status: (n: number) => number = () => 204, port = 0): Promise<Receiver> {
    const receiver = new Receiver(port, status);
    await new Promise<void>((resolve) => receiver.server.listen(port, '127.0.0.1', resolve));
    (receiver as { port: number }).port = (receiver.server.address() as net.AddressInfo).port;
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks/space`;
  }

  waitFor(count: number, timeoutMs = 5000): Promise<Delivery[]> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (this.deliveries.length < count) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(this.deliveries.slice());
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`timed out waiting for ${count} deliveries (got ${this.deliveries.length})`));
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** A TCP server that accepts connections and never answers (a receiver that hangs). */
async function blackHole(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

interface LoggedServer {
  base: string;
  app: FastifyInstance;
  fresh: FreshDatabase;
  door: string;
  logs: Record<string, unknown>[];
  rawLogs(): string;
  close(): Promise<void>;
}

/** The app in-process on a fresh database with the sample data, its JSON log lines captured. */
async function startLogged(env: Record<string, string>): Promise<LoggedServer> {
  const fresh = await freshDatabase();
  const records = sampleRecords();
  await fresh.handle.db.transaction().execute((trx) => importRecords(trx, records));
  const door = (await createToken(fresh.handle.db, 'door', 'door', nowUs())).secret;
  const config = configFrom({ DATABASE_URL: fresh.url, ...env });
  let raw = '';
  const logs: Record<string, unknown>[] = [];
  const stream = {
    write(line: string) {
      raw += line;
      logs.push(JSON.parse(line));
    },
  };
  const app = await buildApp(config, { database: fresh.handle, logger: { level: 'debug', stream } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as net.AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    app,
    fresh,
    door,
    logs,
    rawLogs: () => raw,
    async close() {
      await app.close();
      await fresh.cleanup();
    },
  };
}

async function isOpenNow(server: LoggedServer): Promise<boolean> {
  return (await currentSpaceState(server.fresh.handle.db)).isOpen ?? false;
}

describe(`webhooks on ${TEST_ENGINE}`, () => {
  const cleanups: (() => void | Promise<void>)[] = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });
  const track = <T extends { close(): Promise<void> }>(thing: T): T => {
    cleanups.push(() => thing.close());
    return thing;
  };

  it('POSTs each change to every URL, signed with X-Signature-256 over the raw body, with a delivery id', async () => {
    const [a, b, c] = [track(await Receiver.start()), track(await Receiver.start()), track(await Receiver.start())];
    // Credentials in a URL are sent as Basic authorization (fetch takes no URL with credentials).
    const withCredentials = c.url.replace('http://', 'http://hook:p%40ss@');
    const server = track(await startLogged({ WEBHOOK_URLS: `${a.url}, ${b.url},${withCredentials}`, WEBHOOK_SECRET: SECRET }));
    const isOpen = !(await isOpenNow(server));
    const res = await doorPost(server.base, server.door, isOpen);
    assert.equal(res.status, 201, res.body);
    const [[delivery], [other]] = await Promise.all([a.waitFor(1), b.waitFor(1)]);
    assert.equal(delivery.method, 'POST');
    assert.equal(delivery.url, '/hooks/space');
    assert.equal(delivery.headers['content-type'], 'application/json');
    assert.equal(delivery.headers['x-webhook-event'], 'state');
    assert.match(String(delivery.headers['x-webhook-delivery']), /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.equal(delivery.headers['x-signature-256'], sign(delivery.body));
    assert.notEqual(delivery.headers['x-signature-256'], sign(delivery.body, SECRET + 'x'));
    const record = res.json();
    assert.equal(delivery.body.toString('utf8'), JSON.stringify({ id: idOf(res), event: 'state', state: { is_open: record.is_open, since: record.time } }));
    // Every URL gets the same body and signature, under a delivery id of its own.
    assert.deepEqual(other.body, delivery.body);
    assert.equal(other.headers['x-signature-256'], delivery.headers['x-signature-256']);
    assert.notEqual(other.headers['x-webhook-delivery'], delivery.headers['x-webhook-delivery']);
    const [authorized] = await c.waitFor(1);
    assert.equal(authorized.headers.authorization, 'Basic ' + Buffer.from('hook:p@ss').toString('base64'));
    assert.equal(delivery.headers.authorization, undefined);
    assert.deepEqual(authorized.body, delivery.body);

    // The same state again: nothing. The legacy door route: a delivery too.
    assert.equal((await doorPost(server.base, server.door, isOpen)).status, 200);
    const legacy = await request(server.base, '/space/change_status', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `secret=${encodeURIComponent(server.door)}&open=${isOpen ? 0 : 1}`,
    });
    assert.equal(legacy.status, 200);
    const [, second] = await a.waitFor(2);
    assert.equal(JSON.parse(second.body.toString()).state.is_open, !isOpen);
    assert.equal(second.headers['x-signature-256'], sign(second.body));
    // A third change is the marker: a delivery for the repeated state would arrive before its own.
    const third = await doorPost(server.base, server.door, isOpen);
    assert.equal(third.status, 201, third.body);
    const deliveries = await a.waitFor(3);
    assert.deepEqual(
      deliveries.map((d) => JSON.parse(d.body.toString()).id),
      [idOf(res), JSON.parse(second.body.toString()).id, idOf(third)],
      'one delivery per change',
    );
    assert.ok(!server.rawLogs().includes(SECRET), 'the secret is never logged');
  });

  it('retries a receiver that fails (500, then down) with backoff, resending the byte-identical body, signature and delivery id', async () => {
    const failing = track(await Receiver.start((n) => (n < 2 ? 500 : 200)));
    const downPort = await freePort();
    const server = track(
      await startLogged({ WEBHOOK_URLS: `${failing.url},http://127.0.0.1:${downPort}/later/hook-path-secret`, WEBHOOK_SECRET: SECRET, WEBHOOK_FIRST_RETRY_MS: '200' }),
    );
    assert.equal((await doorPost(server.base, server.door, !(await isOpenNow(server)))).status, 201);
    // The first attempt and both retries arrive (waited for; the durations below are lower bounds only).
    const attempts = await failing.waitFor(3, 30_000);
    for (const attempt of attempts.slice(1)) {
      assert.deepEqual(attempt.body, attempts[0].body);
      assert.equal(attempt.headers['x-signature-256'], attempts[0].headers['x-signature-256']);
      assert.equal(attempt.headers['x-webhook-delivery'], attempts[0].headers['x-webhook-delivery']);
    }
    assert.equal(attempts[0].headers['x-signature-256'], sign(attempts[0].body));
    const gaps = [attempts[1].at - attempts[0].at, attempts[2].at - attempts[1].at];
    assert.ok(gaps[0] >= 150, `first retry ${gaps[0]} ms after the first attempt`);
    assert.ok(gaps[1] >= 350, `second retry ${gaps[1]} ms after the first (the delay doubles)`);

    // The receiver that was down comes up: it gets the delivery on a later retry.
    const late = track(await Receiver.start(() => 204, downPort));
    const [delivered] = await late.waitFor(1, 8000);
    assert.deepEqual(delivered.body, attempts[0].body);
    assert.equal(delivered.headers['x-signature-256'], attempts[0].headers['x-signature-256']);
    const failures = server.logs.filter((l) => l.msg === 'webhook delivery failed; retrying');
    // Receivers are named by their origin only: paths often hold their own secret.
    assert.ok(
      failures.some((l) => l.status === 500 && l.webhook === `${new URL(failing.url).origin}/…`),
      JSON.stringify(failures),
    );
    assert.ok(!server.rawLogs().includes('hook-path-secret'), 'no receiver path in the logs');
    assert.ok(
      failures.some((l) => l.error === 'ECONNREFUSED'),
      JSON.stringify(failures),
    );
    assert.ok(
      server.logs.some((l) => l.msg === 'webhook delivered' && l.attempts === 3),
      'success after retries is logged',
    );
    assert.ok(!server.rawLogs().includes(SECRET), 'the secret is never logged');

    // The 2xx ended the delivery: the outbox holds it as delivered, and only pending rows are claimed.
    const rows = await server.fresh.handle.db.selectFrom('webhook_deliveries').select(['id', 'status', 'attempts', 'claimed_by']).orderBy('target').execute();
    const ofFailing = rows.find((row) => row.id === attempts[0].headers['x-webhook-delivery']);
    assert.deepEqual(ofFailing, { id: attempts[0].headers['x-webhook-delivery'], status: 'delivered', attempts: 3, claimed_by: null });
    // A later change is the marker: a retry of the delivered one would arrive before it.
    const next = await doorPost(server.base, server.door, !(await isOpenNow(server)));
    assert.equal(next.status, 201, next.body);
    const afterNext = await failing.waitFor(4);
    assert.equal(JSON.parse(afterNext[3].body.toString()).id, idOf(next), 'no attempt after a 2xx');
  });

  it('never slows or fails the door post when a receiver hangs or is unreachable', async () => {
    const hole = track(await blackHole());
    const refused = await freePort();
    const server = track(
      await startLogged({
        WEBHOOK_URLS: `${hole.url},http://127.0.0.1:${refused}/,http://user:hunter2@127.0.0.1:${refused}/?token=abc`,
        WEBHOOK_SECRET: SECRET,
        WEBHOOK_TIMEOUT_MS: '2000',
      }),
    );
    let isOpen = await isOpenNow(server);
    const hung = (id: number) => server.logs.some((l) => l.msg === 'webhook delivery failed; retrying' && l.id === id && l.error === 'no answer within 2000 ms');
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await doorPost(server.base, server.door, (isOpen = !isOpen));
      assert.equal(res.status, 201, res.body);
      ids.push(idOf(res));
      // Answered before the delivery of this very change to the hanging receiver gave up: the post did not wait for it
      // (the receiver's 2 s timeout only keeps a loaded machine's slower answers on the right side of that event).
      assert.ok(!hung(ids[i]), `door post ${i + 1} was answered only after its delivery timed out`);
    }
    // Each of those deliveries does give up on the hanging receiver (waited for, not slept on).
    await until(() => ids.every(hung), 'a "no answer within 2000 ms" failure logged for every change');
    const failures = server.logs.filter((l) => l.msg === 'webhook delivery failed; retrying');
    assert.ok(
      failures.some((l) => l.error === 'no answer within 2000 ms'),
      JSON.stringify(failures),
    );
    assert.ok(!server.rawLogs().includes('hunter2') && !server.rawLogs().includes('token=abc'), 'URL credentials are not logged');
    assert.ok(!server.rawLogs().includes(SECRET));
  });

  it('retries on the documented schedule (WEBHOOK_FIRST_RETRY_MS, doubling) until the next retry would start after WEBHOOK_GIVE_UP_S, then gives up', async () => {
    const firstRetryMs = 200;
    const giveUpMs = 1000;
    const broken = track(await Receiver.start(() => 503));
    const server = track(
      await startLogged({ WEBHOOK_URLS: broken.url, WEBHOOK_SECRET: SECRET, WEBHOOK_FIRST_RETRY_MS: String(firstRetryMs), WEBHOOK_GIVE_UP_S: String(giveUpMs / 1000) }),
    );
    const res = await doorPost(server.base, server.door, !(await isOpenNow(server)));
    assert.equal(res.status, 201, res.body);
    const abandoned = () => server.logs.find((l) => typeof l.msg === 'string' && l.msg.startsWith('webhook delivery abandoned after'));
    await until(() => abandoned() !== undefined, 'the delivery to be given up');

    // The schedule as docs/configuration.md states it: a retry after each delay, doubling, none starting later than the give-up time.
    const delays: number[] = [];
    for (let startsAt = firstRetryMs, delay = firstRetryMs; startsAt <= giveUpMs; delay *= 2, startsAt += delay) delays.push(delay);
    const expectedAttempts = delays.length + 1;
    const attempts = broken.deliveries;
    assert.equal(attempts.length, expectedAttempts, `the first attempt and ${delays.length} retries`);
    assert.equal(abandoned()?.attempts, expectedAttempts);
    const retries = server.logs.filter((l) => l.msg === 'webhook delivery failed; retrying').map((l) => ({ attempts: l.attempts, retryInMs: l.retryInMs }));
    assert.deepEqual(
      retries,
      delays.map((retryInMs, i) => ({ attempts: i + 1, retryInMs })),
    );
    // Attempt n+1 is the same delivery, made no sooner than its delay after attempt n.
    for (let n = 1; n < attempts.length; n++) {
      assert.equal(attempts[n].headers['x-webhook-delivery'], attempts[0].headers['x-webhook-delivery']);
      assert.ok(attempts[n].at - attempts[n - 1].at >= delays[n - 1], `attempt ${n + 1} came ${attempts[n].at - attempts[n - 1].at} ms after attempt ${n}`);
    }
    const [row] = await server.fresh.handle.db.selectFrom('webhook_deliveries').select(['status', 'attempts', 'last_error', 'claimed_by']).execute();
    assert.deepEqual(row, { status: 'abandoned', attempts: expectedAttempts, last_error: 'HTTP 503', claimed_by: null });
    assert.equal(server.app.live.webhooks.size, 0);
    // A later change is the marker: an attempt after giving up would arrive before its first one.
    const next = await doorPost(server.base, server.door, !(await isOpenNow(server)));
    assert.equal(next.status, 201, next.body);
    const withNext = await broken.waitFor(expectedAttempts + 1);
    assert.equal(JSON.parse(withNext[expectedAttempts].body.toString()).id, idOf(next), 'no attempt after giving up');
  });

  it('a shutdown leaves pending retries in the outbox without waiting for them', async () => {
    const broken = track(await Receiver.start(() => 503));
    const slow = track(await startLogged({ WEBHOOK_URLS: broken.url, WEBHOOK_SECRET: SECRET, WEBHOOK_FIRST_RETRY_MS: '5000' }));
    assert.equal((await doorPost(slow.base, slow.door, !(await isOpenNow(slow)))).status, 201);
    await broken.waitFor(1);
    // The first attempt failed and its retry is due in 5 s: close() returns without making it,
    // and the delivery stays pending in the outbox for the next start (webhook-outbox.test.ts).
    await within(slow.app.close(), 'app.close() with a retry pending');
    assert.equal(broken.deliveries.length, 1, 'close() did not wait for the pending retry');
    assert.ok(
      slow.logs.some((l) => l.msg === 'webhooks: 1 delivery left pending in the outbox at shutdown'),
      slow.rawLogs(),
    );
    assert.equal(await countPendingDeliveries(slow.fresh.handle.db), 1);
  });

  it('with several processes, each change is delivered once (claimed by one process at a time)', async () => {
    const receiver = track(await Receiver.start());
    const fresh = await freshDatabase();
    cleanups.push(() => fresh.cleanup());
    const records = sampleRecords();
    await fresh.handle.db.transaction().execute((trx) => importRecords(trx, records));
    const door = (await createToken(fresh.handle.db, 'door', 'door', nowUs())).secret;
    const env = { DATABASE_URL: fresh.url, LOG_LEVEL: 'warn', WEBHOOK_URLS: receiver.url, WEBHOOK_SECRET: SECRET };
    const services: Service[] = await Promise.all([
      startService(['serve'], { ...env, PORT: String(await freePort()) }),
      startService(['serve'], { ...env, PORT: String(await freePort()) }),
    ]);
    cleanups.push(async () => void (await Promise.all(services.map((s) => s.stop()))));
    await Promise.all(services.map((s) => waitUntilServing(s)));
    let isOpen = (await currentSpaceState(fresh.handle.db)).isOpen ?? false;
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await doorPost(services[i % 2].base, door, (isOpen = !isOpen));
      assert.equal(res.status, 201, res.body);
      ids.push(idOf(res));
    }
    await receiver.waitFor(4);
    // Once both processes have stopped and their connections are closed, every attempt they made has been received.
    await Promise.all(services.map((s) => s.stop()));
    await receiver.disconnected("the stopped processes' connections to close");
    const delivered = receiver.deliveries.map((d) => JSON.parse(d.body.toString()).id).sort((x, y) => x - y);
    assert.deepEqual(delivered, ids, 'each change exactly once');
  });

  it('the example receiver verifies signatures: a real delivery is accepted, a tampered or unsigned one refused', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [path.resolve(import.meta.dirname, '../examples/webhook-receiver.mjs')], {
      env: { ...process.env, PORT: String(port), WEBHOOK_SECRET: SECRET },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanups.push(() => {
      child.kill();
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    await new Promise<void>((resolve) => child.stderr.once('data', () => resolve()));
    const server = track(await startLogged({ WEBHOOK_URLS: `http://127.0.0.1:${port}/`, WEBHOOK_SECRET: SECRET }));
    const res = await doorPost(server.base, server.door, !(await isOpenNow(server)));
    await until(() => out.includes('\n'), 'the example receiver to print the delivery');
    const printed = JSON.parse(out.split('\n')[0]);
    assert.equal(printed.id, idOf(res));
    assert.equal(printed.is_open, res.json().is_open);
    assert.equal(printed.since, res.json().time);
    const body = JSON.stringify({ id: 1, event: 'state', state: { is_open: true, since: '2030-01-01T00:00:00+00:00' } });
    const post = (headers: Record<string, string>) =>
      request(`http://127.0.0.1:${port}`, '/', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    assert.equal((await post({ 'x-signature-256': sign(body), 'x-webhook-delivery': 'd1' })).status, 204);
    assert.equal((await post({ 'x-signature-256': sign(body + ' '), 'x-webhook-delivery': 'd2' })).status, 401);
    assert.equal((await post({ 'x-signature-256': sign(body, 'wrong secret'), 'x-webhook-delivery': 'd3' })).status, 401);
    assert.equal((await post({})).status, 401);
  });
});

describe('webhook configuration', () => {
  it('defaults to no webhooks; reads URLs, secret and timings', () => {
    const none = configFrom({});
    assert.deepEqual(none.webhooks, { urls: [], secret: null, timeoutMs: 5000, firstRetryMs: 1000, giveUpMs: 600_000, retentionMs: 7 * 86_400_000 });
    assert.deepEqual(none.stream, { heartbeatMs: 15_000, pollMs: 100 });
    const some = configFrom({
      WEBHOOK_URLS: ' https://a.example/hook , http://b.example:8080/x?y=1,,https://a.example/hook',
      WEBHOOK_SECRET: 's3cret',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_FIRST_RETRY_MS: '500',
      WEBHOOK_GIVE_UP_S: '60',
      WEBHOOK_RETENTION_DAYS: '30',
      STREAM_HEARTBEAT_MS: '1000',
      STREAM_POLL_MS: '100',
    });
    assert.deepEqual(some.webhooks, {
      urls: ['https://a.example/hook', 'http://b.example:8080/x?y=1'],
      secret: 's3cret',
      timeoutMs: 2000,
      firstRetryMs: 500,
      giveUpMs: 60_000,
      retentionMs: 30 * 86_400_000,
    });
    assert.deepEqual(some.stream, { heartbeatMs: 1000, pollMs: 100 });
    assert.ok(Object.isFrozen(some.webhooks) && Object.isFrozen(some.webhooks.urls) && Object.isFrozen(some.stream));
  });

  it('refuses bad values, naming the variable and never echoing a secret', () => {
    const refuses = (env: Record<string, string>, variable: string) => {
      assert.throws(
        () => configFrom(env),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError, String(error));
          assert.equal(error.variable, variable);
          assert.ok(!error.message.includes('hunter2'), error.message);
          return true;
        },
      );
    };
    refuses({ WEBHOOK_URLS: 'https://a.example/hook' }, 'WEBHOOK_SECRET');
    refuses({ WEBHOOK_URLS: 'https://a.example/hook', WEBHOOK_SECRET: '   ' }, 'WEBHOOK_SECRET');
    refuses({ WEBHOOK_URLS: 'ftp://user:hunter2@a.example/', WEBHOOK_SECRET: 'x' }, 'WEBHOOK_URLS');
    refuses({ WEBHOOK_URLS: 'https://a.example/, not a url hunter2', WEBHOOK_SECRET: 'x' }, 'WEBHOOK_URLS');
    refuses({ WEBHOOK_FIRST_RETRY_MS: '6000' }, 'WEBHOOK_FIRST_RETRY_MS');
    refuses({ WEBHOOK_TIMEOUT_MS: 'soon' }, 'WEBHOOK_TIMEOUT_MS');
    refuses({ WEBHOOK_GIVE_UP_S: '0' }, 'WEBHOOK_GIVE_UP_S');
    refuses({ WEBHOOK_RETENTION_DAYS: '0' }, 'WEBHOOK_RETENTION_DAYS');
    refuses({ STREAM_HEARTBEAT_MS: '0' }, 'STREAM_HEARTBEAT_MS');
    refuses({ STREAM_POLL_MS: '-1' }, 'STREAM_POLL_MS');
  });
});
