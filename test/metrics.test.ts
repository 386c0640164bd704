// Prometheus metrics (issue 17 §1), with real processes and real scrapes over HTTP: the listener
// that METRICS_PORT turns on (and nothing without it), the request histogram by route template
// (fast path included), the response cache's hits and misses, the stream clients, the space's
// state, the webhooks, MQTT, the database pool, and `serve --workers 2` summed by its primary.
// Every expected figure is a count of what the test itself sent. Runs on both engines.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { connect } from 'mqtt';
import { ConfigError, configFrom } from '../src/config.js';
import { importRecords } from '../src/installed-apps.js';
import { createToken } from '../src/resources/tokens.js';
import { request } from './support/http.js';
import { freePort, killAll, startService, waitUntilServing, type LogLine, type Service } from './support/processes.js';
import { freshDatabase, postgresOnly, sampleRecords, sqliteOnly, TEST_ENGINE, type FreshDatabase } from './support/server.js';
import { openStream } from './support/sse.js';
import { until } from './support/wait.js';
import { doorPost } from './support/door.js';

after(() => killAll());

const BROKER = process.env.MQTT_TEST_URL ?? 'mqtt://127.0.0.1:1883';
const DURATION = 'http_request_duration_seconds';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus's text format, sample lines only. */
function parseScrape(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(m, `a sample line: ${JSON.stringify(line)}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[key] = value.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return samples;
}

class Scrape {
  readonly samples: Sample[];
  constructor(readonly text: string) {
    this.samples = parseScrape(text);
  }

  /** The value of the one sample of `name` with exactly these labels (undefined: none). */
  value(name: string, labels: Record<string, string> = {}): number | undefined {
    const wanted = JSON.stringify(Object.entries(labels).sort());
    return this.samples.find((s) => s.name === name && JSON.stringify(Object.entries(s.labels).sort()) === wanted)?.value;
  }

  /** The number of requests of a histogram series (0 when it has none yet). */
  requests(method: string, route: string, status: number): number {
    return this.value(`${DURATION}_count`, { method, route, status_code: String(status) }) ?? 0;
  }

  totalRequests(): number {
    return this.samples.filter((s) => s.name === `${DURATION}_count`).reduce((sum, s) => sum + s.value, 0);
  }
}

async function scrape(metricsBase: string): Promise<Scrape> {
  const res = await request(metricsBase, '/metrics');
  assert.equal(res.status, 200, res.body);
  assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  return new Scrape(res.body);
}

/** The TCP ports a process listens on, from /proc (the sockets its descriptors hold in state LISTEN). */
function listeningSockets(pid: number): { host: string; port: number }[] {
  const inodes = new Set<string>();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch {
      // closed meanwhile
    }
  }
  const sockets: { host: string; port: number }[] = [];
  for (const table of ['tcp', 'tcp6']) {
    for (const line of fs.readFileSync(`/proc/${pid}/net/${table}`, 'utf8').trim().split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields[3] !== '0A' || !inodes.has(fields[9])) continue;
      const [host, port] = fields[1].split(':');
      // IPv4 addresses are written as one little-endian word.
      const address = table === 'tcp' ? [6, 4, 2, 0].map((i) => parseInt(host.slice(i, i + 2), 16)).join('.') : host;
      sockets.push({ host: address, port: parseInt(port, 16) });
    }
  }
  return sockets.sort((a, b) => a.port - b.port);
}

/** A webhook receiver answering every delivery with `status`. */
async function receiver(status: number): Promise<{ url: string; received: number; close(): Promise<void> }> {
  const state = { received: 0 };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      state.received++;
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    get received() {
      return state.received;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Empties the retained messages the service left on the shared broker. */
async function clearRetained(prefix: string): Promise<void> {
  const client = connect(BROKER, { reconnectPeriod: 0 });
  await new Promise<void>((resolve, reject) => {
    client.once('connect', () => resolve());
    client.once('error', reject);
  });
  for (const topic of [`${prefix}/state`, `${prefix}/state/open`, `${prefix}/status`]) await client.publishAsync(topic, '', { qos: 1, retain: true });
  await client.endAsync();
}

/** The sample data without the door's history: the space's state is unknown until a door report. */
async function withoutOpenings(): Promise<FreshDatabase> {
  const fresh = await freshDatabase();
  const records = (sampleRecords() as { model: string }[]).filter((record) => record.model !== 'space.spacestatus');
  await fresh.handle.db.transaction().execute((trx) => importRecords(trx, records));
  return fresh;
}

const fastPathAnswers = (logs: LogLine[], from: number) => logs.slice(from).filter((line) => line.msg === 'request completed from the response cache').length;

describe('metrics settings', () => {
  it('METRICS_PORT turns the listener on (METRICS_HOST defaults to loopback); bad values are configuration errors naming the variable', () => {
    assert.equal(configFrom({}).metrics, null);
    const settings = configFrom({ METRICS_PORT: '9464' }).metrics;
    assert.deepEqual(settings, { host: '127.0.0.1', port: 9464 });
    assert.ok(Object.isFrozen(settings));
    assert.deepEqual(configFrom({ METRICS_PORT: ' 9100 ', METRICS_HOST: ' 0.0.0.0 ' }).metrics, { host: '0.0.0.0', port: 9100 });
    const refused = (env: Record<string, string>, variable: string, message: RegExp) =>
      assert.throws(
        () => configFrom(env),
        (error: unknown) => error instanceof ConfigError && error.variable === variable && message.test(error.message),
        JSON.stringify(env),
      );
    refused({ METRICS_HOST: '0.0.0.0' }, 'METRICS_HOST', /is set but METRICS_PORT is not/);
    refused({ METRICS_PORT: 'nine' }, 'METRICS_PORT', /whole number/);
    refused({ METRICS_PORT: '0' }, 'METRICS_PORT', /between 1 and 65535/);
    refused({ METRICS_PORT: '70000' }, 'METRICS_PORT', /between 1 and 65535/);
    refused({ METRICS_PORT: '8000' }, 'METRICS_PORT', /must differ from PORT \(8000\)/);
    refused({ METRICS_PORT: '9000', PORT: '9000' }, 'METRICS_PORT', /never served on the API's port/);
  });
});

describe(`serve without METRICS_PORT on ${TEST_ENGINE}`, () => {
  let fresh: FreshDatabase;
  let service: Service;
  let port: number;

  before(async () => {
    fresh = await freshDatabase();
    port = await freePort();
    service = await startService(['serve'], { DATABASE_URL: fresh.url, PORT: String(port), LOG_LEVEL: 'warn' });
    await waitUntilServing(service);
  });

  after(async () => {
    await service?.stop();
    await fresh?.cleanup();
  });

  it('has no metrics listener: it listens on its API port alone, where GET /metrics is a 404', async () => {
    assert.deepEqual(listeningSockets(service.pid), [{ host: '127.0.0.1', port }]);
    assert.equal((await request(service.base, '/metrics')).status, 404);
  });
});

describe(`metrics of one serve process on ${TEST_ENGINE}`, () => {
  const prefix = `metrics-test-${process.pid}-${Date.now()}`;
  let fresh: FreshDatabase;
  let service: Service;
  let metricsBase: string;
  let metricsPort: number;
  let apiPort: number;
  let doorSecret: string;
  let good: Awaited<ReturnType<typeof receiver>>;
  let bad: Awaited<ReturnType<typeof receiver>>;

  before(async () => {
    fresh = await withoutOpenings();
    doorSecret = (await createToken(fresh.handle.db, 'metrics door', 'door', Date.now() * 1000)).secret;
    [good, bad] = await Promise.all([receiver(204), receiver(500)]);
    [apiPort, metricsPort] = [await freePort(), await freePort()];
    metricsBase = `http://127.0.0.1:${metricsPort}`;
    service = await startService(['serve'], {
      DATABASE_URL: fresh.url,
      PORT: String(apiPort),
      METRICS_PORT: String(metricsPort),
      // The fast path logs each of its answers at info: the tests count them.
      LOG_LEVEL: 'info',
      DATABASE_POOL_SIZE: '3',
      WEBHOOK_URLS: `${good.url},${bad.url}`,
      WEBHOOK_SECRET: 'metrics test secret',
      WEBHOOK_FIRST_RETRY_MS: '10',
      WEBHOOK_GIVE_UP_S: '1',
      MQTT_URL: BROKER,
      MQTT_TOPIC_PREFIX: prefix,
    });
    await waitUntilServing(service);
  });

  after(async () => {
    await service?.stop();
    await Promise.all([good?.close(), bad?.close(), fresh?.cleanup(), clearRetained(prefix).catch(() => {})]);
  });

  it('serves /metrics on METRICS_PORT alone, bound to loopback by default, with the process metrics; GET /metrics on the API port stays a 404', async () => {
    assert.deepEqual(
      listeningSockets(service.pid),
      [
        { host: '127.0.0.1', port: apiPort },
        { host: '127.0.0.1', port: metricsPort },
      ].sort((a, b) => a.port - b.port),
    );
    const api = await request(service.base, '/metrics');
    assert.equal(api.status, 404);
    assert.doesNotMatch(api.body, /http_request_duration_seconds|process_cpu/);
    const metrics = await scrape(metricsBase);
    for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes']) {
      assert.ok(metrics.value(name) !== undefined, `${name} is exported`);
    }
    assert.equal((await request(metricsBase, '/')).status, 404);
    assert.equal((await request(metricsBase, '/metrics', { method: 'POST', body: '' })).status, 405);
    const head = await request(metricsBase, '/metrics', { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
  });

  it('counts every request by method, route template and status, fast-path answers and unknown paths included, never with the URL sent', async () => {
    const before = await scrape(metricsBase);
    const logsFrom = service.logs.length;
    const sent: Array<[method: string, path: string, status: number, headers?: Record<string, string>]> = [
      ['GET', '/api/users/', 200],
      ['GET', '/api/users/', 200],
      ['GET', '/api/users/', 200],
      ['HEAD', '/api/users/', 200],
      ['GET', '/api/users/?page_size=2&page=3', 200],
      ['GET', '/api/users/2/', 200],
      ['GET', '/api/users/3.json', 200],
      ['GET', '/api/users/987654/', 404],
      ['GET', '/no/such/page-31337?secret=hunter2', 404],
      ['GET', '/api/users', 301],
      ['POST', '/api/users/', 401],
      ['GET', '/', 200],
      ['GET', '/', 200],
      ['GET', '/projects/2/', 200],
      ['OPTIONS', '/api/users/', 200],
    ];
    for (const [method, path, status, headers] of sent) {
      const res = await request(service.base, path, { method, headers, body: method === 'POST' ? '{}' : undefined });
      assert.equal(res.status, status, `${method} ${path}`);
    }
    const etag = String((await request(service.base, '/api/users/')).headers.etag);
    assert.equal((await request(service.base, '/api/users/', { headers: { 'if-none-match': etag } })).status, 304);
    const total = sent.length + 2;

    await until(async () => (await scrape(metricsBase)).totalRequests() - before.totalRequests() >= total, `${total} more requests counted`);
    const after = await scrape(metricsBase);
    const delta = (method: string, route: string, status: number) => after.requests(method, route, status) - before.requests(method, route, status);
    assert.equal(after.totalRequests() - before.totalRequests(), total, 'every request counted once');
    assert.equal(delta('GET', '/api/users/', 200), 5);
    assert.equal(delta('HEAD', '/api/users/', 200), 1);
    assert.equal(delta('GET', '/api/users/', 304), 1);
    assert.equal(delta('GET', '/api/users/:id/', 200), 2);
    assert.equal(delta('GET', '/api/users/:id/', 404), 1);
    assert.equal(delta('GET', 'unknown', 404), 1);
    assert.equal(delta('GET', 'unknown', 301), 1);
    assert.equal(delta('POST', '/api/users/', 401), 1);
    assert.equal(delta('OPTIONS', '/api/users/', 200), 1);
    assert.equal(delta('GET', '/', 200), 2);
    assert.equal(delta('GET', '/projects/:id/', 200), 1);
    // Repeated reads were answered by the fast path (its log lines), and are among the counts above.
    assert.ok(fastPathAnswers(service.logs, logsFrom) >= 4, `the fast path answered the repeated reads\n${service.output()}`);

    // The buckets of a series are cumulative and end with its count.
    const series = { method: 'GET', route: '/api/users/', status_code: '200' };
    assert.equal(after.value(`${DURATION}_bucket`, { ...series, le: '+Inf' }), after.value(`${DURATION}_count`, series));
    const durations = after.samples.filter((s) => s.name.startsWith(DURATION));
    for (const sample of durations) {
      assert.ok(sample.labels.route === 'unknown' || /^\/[a-z./:_-]*$/.test(sample.labels.route), `a route template: ${sample.labels.route}`);
      assert.doesNotMatch(sample.labels.route, /[0-9?=]/, 'no id or query in a route');
      assert.match(sample.labels.method, /^(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS|other)$/);
      assert.match(sample.labels.status_code, /^[1-5][0-9]{2}$/);
    }
    for (const sentText of ['987654', '31337', 'hunter2', 'no/such', 'page_size', '3.json']) assert.ok(!after.text.includes(sentText), `${sentText} appears nowhere in a scrape`);
  });

  it("counts the response cache's hits and misses, one per cached read", async () => {
    const hits = 'hackerspace_response_cache_hits_total';
    const misses = 'hackerspace_response_cache_misses_total';
    const before = await scrape(metricsBase);
    const logsFrom = service.logs.length;
    // Both orders of one query share an entry: one build, then kept answers.
    for (const path of ['/api/projects/?page=1&page_size=3', '/api/projects/?page_size=3&page=1', '/api/projects/?page=1&page_size=3', '/meetings/2/', '/meetings/2/']) {
      assert.equal((await request(service.base, path)).status, 200, path);
    }
    const after = await scrape(metricsBase);
    assert.equal(after.value(misses)! - before.value(misses)!, 2, 'the first read of each: built');
    assert.equal(after.value(hits)! - before.value(hits)!, 3, 'the others: from the cache');
    // Most come from the fast path; one it passes on (its versions not read yet this turn) is a hit of the full path.
    assert.ok(fastPathAnswers(service.logs, logsFrom) >= 1, 'kept answers came from the fast path');
  });

  it('follows the stream clients', async () => {
    const clients = async () => (await scrape(metricsBase)).value('hackerspace_stream_clients');
    const streams = async () => (await scrape(metricsBase)).requests('GET', '/api/space/stream/', 200);
    const streamsBefore = await streams();
    assert.equal(await clients(), 0);
    const client = await openStream(service.base);
    try {
      assert.equal(client.status, 200);
      await client.waitForEvents(1);
      await until(async () => (await clients()) === 1, 'the stream client counted');
    } finally {
      client.close();
    }
    await until(async () => (await clients()) === 0, 'the stream client gone');
    // A stream is one request, counted when it ends.
    await until(async () => (await streams()) === streamsBefore + 1, 'the stream counted as a request');
  });

  it("gives the space's state as a gauge: no sample while unknown, then 1 or 0 after each door report; webhook deliveries by result, and those waiting in the outbox", async () => {
    const open = 'hackerspace_space_open';
    const deliveries = (scrape: Scrape, result: string) => scrape.value('hackerspace_webhook_deliveries_total', { result });
    const before = await scrape(metricsBase);
    assert.equal(before.value(open), undefined, 'no door report yet: unknown, no sample');
    assert.match(before.text, /# TYPE hackerspace_space_open gauge/);
    for (const result of ['delivered', 'failed', 'abandoned']) assert.equal(deliveries(before, result), 0, result);

    const outbox = 'hackerspace_webhook_outbox_pending';
    assert.equal(before.value(outbox), 0, 'an empty outbox');
    assert.equal((await doorPost(service.base, doorSecret, true)).status, 201);
    assert.equal((await scrape(metricsBase)).value(open), 1);
    // The failing receiver's delivery waits in the outbox until its retries run out (WEBHOOK_GIVE_UP_S=1).
    await until(async () => (await scrape(metricsBase)).value(outbox)! >= 1, 'a delivery waiting in the outbox', 60_000, 20);
    assert.equal((await doorPost(service.base, doorSecret, false)).status, 201);
    assert.equal((await scrape(metricsBase)).value(open), 0);

    // Two changes, each to a receiver that takes it and to one that fails until the retries run out (WEBHOOK_GIVE_UP_S=1).
    // Every delivery ends delivered or abandoned: 2 changes × 2 URLs.
    const ended = (s: Scrape) => deliveries(s, 'delivered')! + deliveries(s, 'abandoned')!;
    await until(async () => ended(await scrape(metricsBase)) === 4, 'the four deliveries ended', 60_000, 50);
    await until(async () => (await scrape(metricsBase)).value('hackerspace_webhook_deliveries_pending') === 0, 'no attempt under way', 60_000, 50);
    const after = await scrape(metricsBase);
    assert.equal(after.value(outbox), 0, 'every delivery ended: nothing left in the outbox');
    assert.equal(good.received, 2);
    assert.equal(deliveries(after, 'delivered'), 2);
    assert.equal(deliveries(after, 'abandoned'), 2);
    assert.equal(deliveries(after, 'failed'), bad.received - 2, 'every failed attempt but the last of each delivery was retried');
    assert.ok(deliveries(after, 'failed')! >= 2);
  });

  it('gives the MQTT connection state', async () => {
    await until(async () => (await scrape(metricsBase)).value('hackerspace_mqtt_connected') === 1, 'connected to the broker');
  });

  it('gives the use of the PostgreSQL pool', postgresOnly("the pool is PostgreSQL's; SQLite has one connection per process"), async () => {
    const metrics = await scrape(metricsBase);
    assert.equal(metrics.value('hackerspace_database_pool_max_connections'), 3, 'DATABASE_POOL_SIZE');
    const total = metrics.value('hackerspace_database_pool_connections')!;
    const idle = metrics.value('hackerspace_database_pool_idle_connections')!;
    // Idle connections close after a while: none may be open.
    assert.ok(total >= 0 && total <= 3, `open connections: ${total}`);
    assert.ok(idle >= 0 && idle <= total, `idle connections: ${idle} of ${total}`);
    assert.equal(metrics.value('hackerspace_database_pool_waiting_requests'), 0, 'nothing waits while the service is idle');
  });

  it('exports no pool figures on SQLite', sqliteOnly('PostgreSQL exports its pool (the test beside this one)'), async () => {
    const metrics = await scrape(metricsBase);
    assert.equal(metrics.samples.filter((s) => s.name.startsWith('hackerspace_database_pool')).length, 0, 'one synchronous connection: nothing to report');
  });
});

describe(`metrics of serve --workers 2 on ${TEST_ENGINE}`, () => {
  let fresh: FreshDatabase;
  let service: Service;
  let metricsBase: string;
  let metricsPort: number;
  let workers: number[];

  before(async () => {
    fresh = await freshDatabase();
    const records = sampleRecords();
    await fresh.handle.db.transaction().execute((trx) => importRecords(trx, records));
    metricsPort = await freePort();
    metricsBase = `http://127.0.0.1:${metricsPort}`;
    service = await startService(['serve', '--workers', '2'], {
      DATABASE_URL: fresh.url,
      PORT: String(await freePort()),
      METRICS_PORT: String(metricsPort),
      LOG_LEVEL: 'info',
    });
    const serving = (line: LogLine) => typeof line.worker === 'number' && /is serving/.test(String(line.msg));
    await until(() => new Set(service.logs.filter(serving).map((l) => l.worker)).size === 2, 'two workers serving', 120_000, 50);
    workers = [...new Set(service.logs.filter(serving).map((l) => l.worker as number))];
    await waitUntilServing(service);
  });

  after(async () => {
    await service?.stop();
    await fresh?.cleanup();
  });

  it('the primary serves METRICS_PORT; the workers do not listen on it', () => {
    assert.ok(
      listeningSockets(service.pid).some((s) => s.port === metricsPort),
      'the primary listens on METRICS_PORT',
    );
    for (const worker of workers) {
      assert.ok(!listeningSockets(worker).some((s) => s.port === metricsPort), `worker ${worker} does not listen on METRICS_PORT`);
    }
  });

  it('one scrape sums both workers: the counts equal the requests sent to both', async () => {
    const before = await scrape(metricsBase);
    const logsFrom = service.logs.length;
    const reads = 30;
    const unknown = 10;
    // A new connection each (no agent): the primary deals connections to the workers in turn.
    for (let i = 0; i < reads; i++) assert.equal((await request(service.base, '/api/')).status, 200);
    for (let i = 0; i < unknown; i++) assert.equal((await request(service.base, `/nothing-here/${i}/`)).status, 404);
    const answeredBy = new Set(
      service.logs
        .slice(logsFrom)
        .filter((line) => typeof line.msg === 'string' && line.msg.startsWith('request completed'))
        .map((line) => line.pid),
    );
    assert.equal(answeredBy.size, 2, `both workers answered some of the requests (pids ${[...answeredBy].join(', ')})`);

    await until(async () => (await scrape(metricsBase)).totalRequests() - before.totalRequests() >= reads + unknown, 'every request counted');
    const after = await scrape(metricsBase);
    assert.equal(after.requests('GET', '/api/', 200) - before.requests('GET', '/api/', 200), reads);
    assert.equal(after.requests('GET', 'unknown', 404) - before.requests('GET', 'unknown', 404), unknown);
    assert.equal(after.totalRequests() - before.totalRequests(), reads + unknown);
    const cacheReads = (s: Scrape) => s.value('hackerspace_response_cache_hits_total')! + s.value('hackerspace_response_cache_misses_total')!;
    assert.equal(cacheReads(after) - cacheReads(before), reads, 'each read counted once, as a hit or a miss, whichever worker answered');
  });
});
