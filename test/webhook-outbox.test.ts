// The webhook outbox: deliveries recorded in the transaction of the change (a rolled-back write
// records none), delivered at least once across `kill -9` and restarts under the same
// X-Webhook-Delivery, claimed by one process at a time when several share the database, pruned
// after WEBHOOK_RETENTION_DAYS, abandoned when their URL is no longer configured, and the
// `hackerspace-api webhooks` command (list by origin only, redeliver under the same id).
// Real processes, real HTTP receivers; both engines (TEST_ENGINE).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { after, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { configFrom } from '../src/config.js';
import { importRecords, MODEL_ORDER } from '../src/installed-apps.js';
import { enqueueDeliveries, urlKey } from '../src/live/webhook-outbox.js';
import { describeWebhook } from '../src/live/webhooks.js';
import { AnnouncedWrites } from '../src/live/writes.js';
import { currentSpaceState, recordDoorReport } from '../src/apps/space/openings.js';
import { createToken } from '../src/resources/tokens.js';
import { idOf } from './support/http.js';
import { BIN, freePort, killAll, startService, waitUntilServing, type Service } from './support/processes.js';
import { freshDatabase, sampleRecords, TEST_ENGINE, type FreshDatabase } from './support/server.js';
import { until, within } from './support/wait.js';
import { nowUs } from './support/clock.js';
import { doorPost } from './support/door.js';

after(() => killAll());

const SECRET = 'outbox secret \u00e9 hunter2';
const DAY_US = 86_400_000_000;
const sign = (body: Buffer) => 'sha256=' + createHmac('sha256', SECRET).update(body).digest('hex');

interface Received {
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/**
 * A webhook receiver that records every request and answers it as `answer(n)` says (n counts
 * requests from 0): a status, or 'hold' (never answered while the receiver runs).
 */
class Receiver {
  readonly received: Received[] = [];
  private readonly server: http.Server;
  private readonly waiters = new Set<() => void>();

  private constructor(private readonly answer: (n: number) => number | 'hold') {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const n = this.received.length;
        this.received.push({ headers: req.headers, body: Buffer.concat(chunks) });
        const answer = this.answer(n);
        if (answer !== 'hold') res.writeHead(answer).end();
        for (const waiter of [...this.waiters]) waiter();
      });
    });
  }

  static async start(answer: (n: number) => number | 'hold' = () => 204, port = 0): Promise<Receiver> {
    const receiver = new Receiver(answer);
    await new Promise<void>((resolve) => receiver.server.listen(port, '127.0.0.1', resolve));
    return receiver;
  }

  get port(): number {
    return (this.server.address() as net.AddressInfo).port;
  }

  url(path = '/hooks/space'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  waitFor(count: number, what = `${count} requests`): Promise<Received[]> {
    return within(
      new Promise<Received[]>((resolve) => {
        const check = () => {
          if (this.received.length < count) return;
          this.waiters.delete(check);
          resolve(this.received.slice());
        };
        this.waiters.add(check);
        check();
      }),
      `${what} (got ${this.received.length})`,
    );
  }

  deliveryIds(): string[] {
    return this.received.map((r) => String(r.headers['x-webhook-delivery']));
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** A fresh database with the sample data and a door token. */
async function seeded(): Promise<{ fresh: FreshDatabase; door: string }> {
  const fresh = await freshDatabase();
  await fresh.handle.db.transaction().execute((trx) => importRecords(trx, sampleRecords()));
  const door = (await createToken(fresh.handle.db, 'door', 'door', nowUs())).secret;
  return { fresh, door };
}

const outboxRows = (fresh: FreshDatabase) => fresh.handle.db.selectFrom('webhook_deliveries').selectAll().orderBy('created_us').orderBy('id').execute();

/** `hackerspace-api <args>` as a child process (not spawnSync: the receivers live in this process). */
function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const inherited: Record<string, string | undefined> = { ...process.env };
  for (const name of Object.keys(inherited)) if (/^(DATABASE_|WEBHOOK_|NODE_TEST_CONTEXT$|NODE_OPTIONS$)/.test(name)) delete inherited[name];
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...inherited, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  return within(new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr }))), `hackerspace-api ${args.join(' ')}`);
}

describe(`webhook outbox on ${TEST_ENGINE}`, () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });
  const track = <T extends { close(): Promise<void> }>(thing: T): T => {
    cleanups.push(() => thing.close());
    return thing;
  };
  const serve = async (env: Record<string, string>): Promise<Service> => {
    const service = await startService(['serve'], { LOG_LEVEL: 'info', WEBHOOK_SECRET: SECRET, PORT: String(await freePort()), ...env });
    cleanups.push(() => service.stop());
    await waitUntilServing(service);
    return service;
  };

  it("records each delivery in the change's own transaction: a write that rolls back records and sends nothing", async () => {
    const receiver = track(await Receiver.start());
    const { fresh, door } = await seeded();
    cleanups.push(() => fresh.cleanup());
    const app: FastifyInstance = await buildApp(configFrom({ DATABASE_URL: fresh.url, WEBHOOK_URLS: receiver.url(), WEBHOOK_SECRET: SECRET }), {
      database: fresh.handle,
      logger: false,
    });
    cleanups.push(() => app.close());
    await app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(app.server.address() as net.AddressInfo).port}`;

    // A write through the app's own outbox that changes the space's state, then fails at COMMIT
    // (a foreign key is checked there): its deliveries were inserted, and went with the rollback.
    let recorded = 0;
    const writes = new AnnouncedWrites(fresh.handle, app.live.committed, async (trx, state) => {
      await app.live.webhooks.record(trx, state);
      recorded++;
    });
    const before = await currentSpaceState(fresh.handle.db);
    await assert.rejects(
      writes.run(async (trx, { spaceBefore }) => {
        await recordDoorReport(trx, !before.isOpen, nowUs(), spaceBefore);
        await trx.insertInto('projects').values({ title: 'dangling', maintainer_id: 999_999, status: 'a', progress: 0, short_description: '', content: '' }).execute();
      }),
    );
    assert.equal(recorded, 1, 'the deliveries were inserted in the transaction');
    assert.deepEqual(await outboxRows(fresh), [], 'and rolled back with it');
    assert.deepEqual(await currentSpaceState(fresh.handle.db), before);

    // A door post that commits: its row is there when the answer comes, delivered once.
    const res = await doorPost(base, door, !before.isOpen);
    assert.equal(res.status, 201, res.body);
    const rows = await outboxRows(fresh);
    assert.equal(rows.length, 1);
    assert.equal(Number(rows[0].event_id), idOf(res));
    const [delivery] = await receiver.waitFor(1);
    assert.equal(delivery.headers['x-webhook-delivery'], rows[0].id);
    assert.equal(JSON.parse(delivery.body.toString()).id, idOf(res));
    await until(async () => (await outboxRows(fresh))[0].status === 'delivered', 'the delivery recorded as delivered');
    assert.equal(receiver.received.length, 1, 'only the committed change was sent');
  });

  it('kill -9 after the commit, before the receiver accepted: the next process delivers it under the same id', async () => {
    // The receiver is down at first: the first attempt is refused, its retry is 5 s away.
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/hooks/space`;
    const { fresh, door } = await seeded();
    cleanups.push(() => fresh.cleanup());
    const env = { DATABASE_URL: fresh.url, WEBHOOK_URLS: url, WEBHOOK_FIRST_RETRY_MS: '5000' };
    const first = await serve(env);
    const res = await doorPost(first.base, door, !(await currentSpaceState(fresh.handle.db)).isOpen);
    assert.equal(res.status, 201, res.body);
    await first.waitForLog((l) => l.msg === 'webhook delivery failed; retrying' && l.id === idOf(res), 'the refused first attempt');
    first.child.kill('SIGKILL');
    assert.equal((await first.exited).signal, 'SIGKILL');
    const [row] = await outboxRows(fresh);
    assert.equal(row.status, 'pending');
    assert.equal(row.attempts, 1);
    assert.equal(row.last_error, 'ECONNREFUSED');

    const receiver = track(await Receiver.start(() => 204, port));
    await serve(env);
    const [delivery] = await receiver.waitFor(1, 'the delivery by the restarted process');
    assert.equal(delivery.headers['x-webhook-delivery'], row.id, 'the same delivery id');
    assert.equal(delivery.body.toString('utf8'), row.body);
    assert.equal(delivery.headers['x-signature-256'], sign(delivery.body));
    assert.equal(JSON.parse(row.body).id, idOf(res));
    await until(async () => (await outboxRows(fresh))[0].status === 'delivered', 'the delivery recorded as delivered');
    assert.equal((await outboxRows(fresh))[0].attempts, 2);
  });

  it('kill -9 while an attempt hangs: its claim runs out and the next process delivers it under the same id', async () => {
    // The receiver takes the first request and never answers it; later ones get 204.
    const receiver = track(await Receiver.start((n) => (n === 0 ? 'hold' : 204)));
    const { fresh, door } = await seeded();
    cleanups.push(() => fresh.cleanup());
    const env = { DATABASE_URL: fresh.url, WEBHOOK_URLS: receiver.url(), WEBHOOK_TIMEOUT_MS: '1000' };
    const first = await serve(env);
    assert.equal((await doorPost(first.base, door, !(await currentSpaceState(fresh.handle.db)).isOpen)).status, 201);
    const [held] = await receiver.waitFor(1, 'the first attempt');
    first.child.kill('SIGKILL');
    await first.exited;
    const [claimed] = await outboxRows(fresh);
    assert.equal(claimed.status, 'pending');
    assert.notEqual(claimed.claimed_until_us, null, 'claimed by the killed process');

    const second = await serve(env);
    const [, delivered] = await receiver.waitFor(2, 'the delivery by the restarted process');
    assert.equal(delivered.headers['x-webhook-delivery'], held.headers['x-webhook-delivery']);
    assert.deepEqual(delivered.body, held.body);
    assert.equal(delivered.headers['x-signature-256'], held.headers['x-signature-256']);
    await until(async () => (await outboxRows(fresh))[0].status === 'delivered', 'the delivery recorded as delivered');
    await second.stop();
    assert.equal(receiver.received.length, 2);
  });

  it('two processes on one database deliver each event to each URL exactly once', async () => {
    const [a, b] = [track(await Receiver.start()), track(await Receiver.start())];
    const { fresh, door } = await seeded();
    cleanups.push(() => fresh.cleanup());
    // A backlog both processes find at start (left by a process that died), and live door posts.
    const targets = [a.url(), b.url()].map((url) => ({ url, origin: describeWebhook(url) }));
    for (let i = 0; i < 30; i++) {
      await enqueueDeliveries(fresh.handle.db, { event: 'state', eventId: 100_000 + i, body: JSON.stringify({ backlog: i }), targets, nowUs: nowUs(), firstRetryMs: 1000 });
    }
    const env = { DATABASE_URL: fresh.url, WEBHOOK_URLS: `${a.url()},${b.url()}`, LOG_LEVEL: 'warn' };
    const services = await Promise.all([serve(env), serve(env)]);
    let isOpen = (await currentSpaceState(fresh.handle.db)).isOpen ?? false;
    for (let i = 0; i < 6; i++) assert.equal((await doorPost(services[i % 2].base, door, (isOpen = !isOpen))).status, 201);
    const total = 30 + 6;
    await until(async () => (await outboxRows(fresh)).every((r) => r.status === 'delivered'), 'every delivery recorded as delivered');
    await Promise.all(services.map((s) => s.stop()));
    for (const receiver of [a, b]) {
      const ids = receiver.deliveryIds();
      assert.equal(ids.length, total, 'one request per event');
      assert.equal(new Set(ids).size, total, 'no delivery id twice');
      assert.equal(new Set(receiver.received.map((r) => r.body.toString())).size, total, 'every event');
    }
    assert.equal((await outboxRows(fresh)).length, 2 * total);
  });

  it('prunes delivered and abandoned rows older than WEBHOOK_RETENTION_DAYS, never a pending one; abandons rows whose URL is no longer configured', async () => {
    const receiver = track(await Receiver.start());
    const { fresh } = await seeded();
    cleanups.push(() => fresh.cleanup());
    const gone = 'http://127.0.0.1:9/removed/path-secret';
    const now = nowUs();
    const row = (id: string, status: 'pending' | 'delivered' | 'abandoned', ageDays: number, url = receiver.url()) => ({
      id,
      event: 'state',
      event_id: 1,
      body: JSON.stringify({ row: id }),
      url_key: urlKey(url),
      target: describeWebhook(url),
      status,
      attempts: status === 'pending' ? 0 : 1,
      created_us: now - ageDays * DAY_US,
      next_attempt_us: now - ageDays * DAY_US,
      next_delay_ms: 1000,
      finished_us: status === 'pending' ? null : now - ageDays * DAY_US,
    });
    await fresh.handle.db
      .insertInto('webhook_deliveries')
      .values([
        row('old-delivered', 'delivered', 8),
        row('old-abandoned', 'abandoned', 8),
        row('recent-delivered', 'delivered', 6),
        row('old-pending', 'pending', 30),
        row('unconfigured', 'pending', 0, gone),
      ])
      .execute();
    const service = await serve({ DATABASE_URL: fresh.url, WEBHOOK_URLS: receiver.url(), WEBHOOK_RETENTION_DAYS: '7' });
    await service.waitForLog((l) => l.pruned === 2, 'the prune at start');
    const [delivered] = await receiver.waitFor(1, 'the old pending delivery');
    assert.equal(delivered.headers['x-webhook-delivery'], 'old-pending');
    await until(async () => (await outboxRows(fresh)).every((r) => r.status !== 'pending'), 'no row pending');
    const rows = Object.fromEntries((await outboxRows(fresh)).map((r) => [r.id, r]));
    assert.deepEqual(Object.keys(rows).sort(), ['old-pending', 'recent-delivered', 'unconfigured']);
    assert.equal(rows['old-pending'].status, 'delivered');
    assert.equal(rows.unconfigured.status, 'abandoned');
    assert.equal(rows.unconfigured.attempts, 0, 'never attempted');
    assert.equal(rows.unconfigured.last_error, 'its URL is no longer in WEBHOOK_URLS');
    await service.stop();
    assert.equal(receiver.received.length, 1);
  });

  it('`webhooks` lists deliveries by origin only, never a path, credential or secret; `webhooks redeliver` sends one again under the same id', async () => {
    const receiver = track(await Receiver.start());
    const refused = await freePort();
    const secretUrl = receiver.url('/hooks/path-secret-1?token=query-secret').replace('http://', 'http://hook:pw-secret@');
    const downUrl = `http://127.0.0.1:${refused}/down/path-secret-2`;
    const { fresh, door } = await seeded();
    cleanups.push(() => fresh.cleanup());
    const env = { DATABASE_URL: fresh.url, WEBHOOK_URLS: `${secretUrl},${downUrl}`, WEBHOOK_FIRST_RETRY_MS: '5000' };
    const service = await serve(env);
    const res = await doorPost(service.base, door, !(await currentSpaceState(fresh.handle.db)).isOpen);
    assert.equal(res.status, 201, res.body);
    const [first] = await receiver.waitFor(1);
    const id = String(first.headers['x-webhook-delivery']);
    await until(async () => (await outboxRows(fresh)).every((r) => r.attempts >= 1 && r.claimed_by === null), 'both first attempts recorded');

    const list = await runCli(['webhooks'], { DATABASE_URL: fresh.url });
    assert.equal(list.code, 0, list.stderr);
    const lines = list.stdout.trimEnd().split('\n');
    assert.match(lines[0], /^ID +EVENT +TARGET +STATUS +ATTEMPTS +CREATED +LAST ATTEMPT +FINISHED +LAST ERROR$/);
    assert.equal(lines.length, 3, list.stdout);
    const deliveredLine = lines.find((l) => l.startsWith(id))!;
    assert.ok(deliveredLine, list.stdout);
    assert.match(deliveredLine, new RegExp(`^${id} +state ${idOf(res)} +http://127\\.0\\.0\\.1:${receiver.port}/… +delivered +1 `));
    const pendingLine = lines.find((l) => l.includes(`:${refused}/…`))!;
    // Attempted once or more by now (its retries are 5 s apart).
    assert.match(pendingLine, / pending +[1-9]\d* .* ECONNREFUSED$/);
    for (const secret of ['path-secret', 'query-secret', 'pw-secret', 'hook:', SECRET, 'hunter2']) {
      assert.ok(!list.stdout.includes(secret) && !list.stderr.includes(secret), `${secret} in the listing:\n${list.stdout}`);
    }
    const pendingOnly = await runCli(['webhooks', 'list', '--status', 'pending', '--limit', '5'], { DATABASE_URL: fresh.url });
    assert.equal(pendingOnly.stdout.trimEnd().split('\n').length, 2, pendingOnly.stdout);

    const again = await runCli(['webhooks', 'redeliver', id], { DATABASE_URL: fresh.url });
    assert.equal(again.code, 0, again.stderr);
    const [, second] = await receiver.waitFor(2, 'the redelivery');
    assert.equal(second.headers['x-webhook-delivery'], id);
    assert.deepEqual(second.body, first.body);
    assert.equal(second.headers['x-signature-256'], first.headers['x-signature-256']);
    assert.equal(second.headers.authorization, first.headers.authorization);
    await until(async () => (await outboxRows(fresh)).some((r) => r.id === id && r.status === 'delivered' && r.attempts === 2), 'the redelivery recorded');

    const unknown = await runCli(['webhooks', 'redeliver', 'no-such-delivery'], { DATABASE_URL: fresh.url });
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no delivery "no-such-delivery"/);
    const bad = await runCli(['webhooks', 'list', '--status', 'lost'], { DATABASE_URL: fresh.url });
    assert.equal(bad.code, 2);

    // The outbox is the service's own bookkeeping: `export` writes the original's models only.
    const exported = await runCli(['export'], { DATABASE_URL: fresh.url });
    assert.equal(exported.code, 0, exported.stderr);
    const models = new Set((JSON.parse(exported.stdout) as { model: string }[]).map((r) => r.model));
    // (A model appears when the database holds records of it: the sample's five, and the slate's opening entries of its members' balances.)
    for (const model of models) assert.ok(MODEL_ORDER.includes(model), `${model} is one of the original's models`);
    for (const model of ['users.user', 'space.spacestatus', 'projects.project', 'events.event', 'events.meeting']) assert.ok(models.has(model), model);
    assert.ok(!exported.stdout.includes(id) && !exported.stdout.includes('127.0.0.1'), 'no delivery in the export');
    await service.stop();
    assert.ok(!service.output().includes('path-secret') && !service.output().includes(SECRET), 'nothing secret in the logs');
  });
});
