// The MQTT bridge (MQTT_URL): the space's state published retained on <prefix>/state (the body of
// /api/space/status/, byte for byte) and <prefix>/state/open on connect and on every change (only
// changes), online/offline on <prefix>/status (the last will on a kill -9, `offline` on shutdown),
// the door over MQTT_DOOR_TOPIC (recorded, audited, streamed and sent to webhooks like the HTTP
// door's reports; anything else ignored), Home Assistant's discovery config, a broker that goes
// away and comes back empty, credentials in MQTT_URL, and two processes on one PostgreSQL database
// (each change published once). Real brokers: the one at 127.0.0.1:1883 (MQTT_TEST_URL), and
// private mosquitto processes for the tests that stop one. Both engines (TEST_ENGINE).
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { connectAsync, type MqttClient } from 'mqtt';
import { buildApp } from '../src/app.js';
import { configFrom } from '../src/config.js';
import { importRecords } from '../src/installed-apps.js';
import { listAudit } from '../src/resources/audit.js';
import { countOpenings, currentSpaceState } from '../src/apps/space/openings.js';
import { createToken } from '../src/resources/tokens.js';
import { request } from './support/http.js';
import { freePort, killAll, startService, waitUntilServing, type Service } from './support/processes.js';
import { freshDatabase, postgresOnly, sampleRecords, TEST_ENGINE, type FreshDatabase } from './support/server.js';
import { dataOf, openStream } from './support/sse.js';
import { until, within } from './support/wait.js';
import { nowUs } from './support/clock.js';
import { doorPost } from './support/door.js';

after(() => killAll());

/** The shared broker (a mosquitto on 127.0.0.1:1883 in development and CI). */
const SHARED_BROKER = process.env.MQTT_TEST_URL ?? 'mqtt://127.0.0.1:1883';
const MOSQUITTO = '/usr/sbin/mosquitto';

/** A topic prefix of this test's own, so that tests never see each other's retained messages. */
const uniquePrefix = () => `test/mqtt-${process.pid}-${randomBytes(4).toString('hex')}`;

interface Message {
  topic: string;
  text: string;
  payload: Buffer;
  retain: boolean;
}

/**
 * A subscriber, as a dashboard or Home Assistant would be: every message on its topics, in order.
 * `sync()` publishes a marker on a topic it subscribed to and waits for it: the broker handles a
 * client's packets in order, so every retained message of its subscriptions came before.
 */
class Watcher {
  readonly messages: Message[] = [];
  private readonly waiters = new Set<() => void>();
  private markers = 0;

  private constructor(
    private readonly client: MqttClient,
    private readonly markerTopic: string,
  ) {
    client.on('message', (topic, payload, packet) => {
      this.messages.push({ topic, payload, text: payload.toString('utf8'), retain: packet.retain });
      for (const waiter of [...this.waiters]) waiter();
    });
  }

  static async connect(url: string, prefix: string, extraTopics: string[] = []): Promise<Watcher> {
    const client = await within(connectAsync(url, { reconnectPeriod: 0, clientId: `test-${randomBytes(6).toString('hex')}` }), `a test client connected to ${url}`);
    const watcher = new Watcher(client, `${prefix}/test-marker`);
    await client.subscribeAsync([`${prefix}/#`, ...extraTopics], { qos: 1 });
    return watcher;
  }

  /** Messages on `topic` so far (from index `from` of all messages). */
  on(topic: string, from = 0): Message[] {
    return this.messages.slice(from).filter((m) => m.topic === topic);
  }

  /** The first message from index `from` on that satisfies `check`. */
  waitFor(check: (m: Message) => boolean, what: string, from = 0): Promise<Message> {
    return within(
      new Promise<Message>((resolve) => {
        const test = () => {
          const found = this.messages.slice(from).find(check);
          if (found === undefined) return;
          this.waiters.delete(test);
          resolve(found);
        };
        this.waiters.add(test);
        test();
      }),
      `${what}; got ${JSON.stringify(this.messages.slice(from).map((m) => [m.topic, m.text.slice(0, 80), m.retain]))}`,
    );
  }

  async sync(): Promise<void> {
    const marker = `marker ${++this.markers} ${randomBytes(4).toString('hex')}`;
    const from = this.messages.length;
    await this.client.publishAsync(this.markerTopic, marker, { qos: 1 });
    await this.waitFor((m) => m.topic === this.markerTopic && m.text === marker, `the marker ${marker}`, from);
  }

  publish(topic: string, payload: string | Buffer, retain = false): Promise<unknown> {
    return this.client.publishAsync(topic, payload, { qos: 1, retain });
  }

  close(): Promise<void> {
    return this.client.endAsync(true);
  }
}

/** What a watcher got under `prefix` besides its markers, as [topic, text, retain], by topic. */
function retained(watcher: Watcher, prefix: string): [string, string, boolean][] {
  return watcher.messages
    .filter((m) => m.topic !== `${prefix}/test-marker`)
    .map((m): [string, string, boolean] => [m.topic, m.text, m.retain])
    .sort((a, b) => a[0].localeCompare(b[0]));
}

/** Deletes the retained messages a test left on the shared broker. */
async function clearRetained(url: string, topics: string[]): Promise<void> {
  const client = await connectAsync(url, { reconnectPeriod: 0 });
  for (const topic of topics) await client.publishAsync(topic, '', { qos: 1, retain: true });
  await client.endAsync();
}

/** A mosquitto of the test's own on a free port, without persistence: killed, it forgets everything. */
class PrivateBroker {
  private child: ChildProcess | null = null;
  private output = '';

  private constructor(
    readonly port: number,
    private readonly configFile: string,
  ) {}

  static async start(dir: string, options: { users?: Record<string, string> } = {}): Promise<PrivateBroker> {
    const port = await freePort();
    // As root, mosquitto would become the `mosquitto` user, who cannot read the test's directory.
    const lines = [`listener ${port} 127.0.0.1`, 'persistence false', `user ${os.userInfo().username}`];
    if (options.users) {
      const passwords = path.join(dir, `passwords-${port}`);
      fs.writeFileSync(passwords, '');
      for (const [user, password] of Object.entries(options.users)) {
        const made = spawnSync('mosquitto_passwd', ['-b', passwords, user, password], { encoding: 'utf8' });
        assert.equal(made.status, 0, made.stderr);
      }
      lines.push('allow_anonymous false', `password_file ${passwords}`);
    } else {
      lines.push('allow_anonymous true');
    }
    const configFile = path.join(dir, `mosquitto-${port}.conf`);
    fs.writeFileSync(configFile, lines.join('\n') + '\n');
    const broker = new PrivateBroker(port, configFile);
    await broker.restart();
    return broker;
  }

  get url(): string {
    return `mqtt://127.0.0.1:${this.port}`;
  }

  /** Starts it (again), and resolves once it accepts connections. */
  async restart(): Promise<void> {
    assert.equal(this.child, null, 'the broker is running already');
    const child = spawn(MOSQUITTO, ['-c', this.configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    child.stdout.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    await until(async () => {
      assert.equal(child.exitCode, null, `mosquitto exited:\n${this.output}`);
      return new Promise<boolean>((resolve) => {
        const socket = net.connect(this.port, '127.0.0.1');
        socket.once('connect', () => {
          socket.destroy();
          resolve(true);
        });
        socket.once('error', () => resolve(false));
      });
    }, `mosquitto listening on ${this.port}`);
  }

  /** kill -9: no goodbye to anyone, nothing kept. */
  async kill(): Promise<void> {
    const child = this.child;
    if (child === null) return;
    this.child = null;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}

/** A webhook receiver: the bodies it was sent. */
async function webhookReceiver(): Promise<{ url: string; bodies: unknown[]; close(): Promise<void> }> {
  const bodies: unknown[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    bodies,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

interface BridgedServer {
  base: string;
  app: FastifyInstance;
  fresh: FreshDatabase;
  door: string;
  logs: Record<string, unknown>[];
  rawLogs(): string;
  close(): Promise<void>;
}

/** The app in-process, listening, with its JSON log lines captured; the sample data unless `empty`. */
async function startBridged(env: Record<string, string>, options: { empty?: boolean } = {}): Promise<BridgedServer> {
  const fresh = await freshDatabase();
  if (!options.empty) {
    const records = sampleRecords();
    await fresh.handle.db.transaction().execute((trx) => importRecords(trx, records));
  }
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
  let closed = false;
  return {
    base: `http://127.0.0.1:${port}`,
    app,
    fresh,
    door,
    logs,
    rawLogs: () => raw,
    async close() {
      if (closed) return;
      closed = true;
      await app.close();
      await fresh.cleanup();
    },
  };
}

/** The body of /api/space/status/, as bytes turned to text (what <prefix>/state must carry exactly). */
async function statusBody(base: string): Promise<string> {
  const res = await request(base, '/api/space/status/');
  assert.equal(res.status, 200, res.body);
  return res.bytes.toString('utf8');
}

describe(`the MQTT bridge on ${TEST_ENGINE}`, () => {
  const cleanups: (() => void | Promise<void>)[] = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });
  const track = <T extends { close(): Promise<void> }>(thing: T): T => {
    cleanups.push(() => thing.close());
    return thing;
  };
  /** Topics of `prefix` (and Home Assistant's) whose retained messages are deleted after the tests. */
  const retainedUnder = (prefix: string, ...more: string[]) =>
    cleanups.push(() => clearRetained(SHARED_BROKER, [`${prefix}/state`, `${prefix}/state/open`, `${prefix}/status`, ...more]));

  it('publishes the state retained on connect (the status body byte for byte), and each change once: not a report that repeats the state', async () => {
    const prefix = uniquePrefix();
    retainedUnder(prefix);
    const live = track(await Watcher.connect(SHARED_BROKER, prefix));
    const server = track(await startBridged({ MQTT_URL: SHARED_BROKER, MQTT_TOPIC_PREFIX: prefix }));
    const topics = { state: `${prefix}/state`, open: `${prefix}/state/open`, status: `${prefix}/status` };

    // On connecting: online, and the current state read from the database.
    let body = await statusBody(server.base);
    let isOpen = (JSON.parse(body) as { is_open: boolean }).is_open;
    await live.waitFor((m) => m.topic === topics.status && m.text === 'online', 'online on connect');
    await live.waitFor((m) => m.topic === topics.state && m.text === body, 'the state on connect');
    await live.waitFor((m) => m.topic === topics.open && m.text === String(isOpen), 'state/open on connect');

    // A subscriber that comes later gets them from the broker: retained.
    const later = track(await Watcher.connect(SHARED_BROKER, prefix));
    await later.sync();
    assert.deepEqual(retained(later, prefix), [
      [topics.state, body, true],
      [topics.open, String(isOpen), true],
      [topics.status, 'online', true],
    ]);

    // A change from the HTTP door: published.
    let from = live.messages.length;
    const first = await doorPost(server.base, server.door, (isOpen = !isOpen));
    assert.equal(first.status, 201, first.body);
    body = await statusBody(server.base);
    assert.equal((JSON.parse(body) as { is_open: boolean }).is_open, isOpen);
    await live.waitFor((m) => m.topic === topics.open && m.text === String(isOpen), 'state/open after the change', from);
    assert.deepEqual(
      live.on(topics.state, from).map((m) => m.text),
      [body],
    );

    // The same state again: 200, nothing recorded, nothing published. The next change is published by
    // the same connection after whatever the repeat could have caused: only that change comes between.
    const repeat = await doorPost(server.base, server.door, isOpen);
    assert.equal(repeat.status, 200, repeat.body);
    const second = await doorPost(server.base, server.door, (isOpen = !isOpen));
    assert.equal(second.status, 201, second.body);
    const secondBody = await statusBody(server.base);
    await live.waitFor((m) => m.topic === topics.open && m.text === String(isOpen), 'state/open after the second change', from);
    assert.deepEqual(
      live.on(topics.state, from).map((m) => m.text),
      [body, secondBody],
      'one message per change, none for the repeated state',
    );
    assert.deepEqual(
      live.on(topics.open, from).map((m) => m.text),
      [String(!isOpen), String(isOpen)],
    );
    from = live.messages.length;

    // Shutdown: `offline`, retained.
    await server.close();
    await live.waitFor((m) => m.topic === topics.status && m.text === 'offline', 'offline at shutdown', from);
    const afterwards = track(await Watcher.connect(SHARED_BROKER, prefix));
    await afterwards.sync();
    assert.deepEqual(
      afterwards.on(topics.status).map((m) => [m.text, m.retain]),
      [['offline', true]],
    );
    assert.ok(!server.logs.some((l) => (l.level as number) >= 40 && String(l.msg).startsWith('MQTT')), server.rawLogs());
  });

  it('with no state recorded yet: {"is_open":null,"since":null} on state, and no retained state/open', async () => {
    const prefix = uniquePrefix();
    retainedUnder(prefix);
    // A stale value from an earlier life of the database, which must not survive.
    const stale = track(await Watcher.connect(SHARED_BROKER, prefix));
    await stale.publish(`${prefix}/state/open`, 'true', true);
    const live = track(await Watcher.connect(SHARED_BROKER, prefix));
    const server = track(await startBridged({ MQTT_URL: SHARED_BROKER, MQTT_TOPIC_PREFIX: prefix }, { empty: true }));
    const body = await statusBody(server.base);
    assert.equal(body, '{"is_open":null,"since":null}');
    await live.waitFor((m) => m.topic === `${prefix}/state` && m.text === body, 'the unknown state');
    await live.waitFor((m) => m.topic === `${prefix}/state/open` && m.payload.length === 0, 'state/open deleted');
    const later = track(await Watcher.connect(SHARED_BROKER, prefix));
    await later.sync();
    assert.deepEqual(later.on(`${prefix}/state/open`), [], 'no retained state/open');
    assert.deepEqual(
      later.on(`${prefix}/state`).map((m) => [m.text, m.retain]),
      [[body, true]],
    );
    // The first report: true.
    const from = live.messages.length;
    assert.equal((await doorPost(server.base, server.door, true)).status, 201);
    await live.waitFor((m) => m.topic === `${prefix}/state/open` && m.text === 'true', 'state/open after the first report', from);
  });

  it('records the door over MQTT_DOOR_TOPIC like the HTTP door (change-only, audited, streamed, published, sent to webhooks), and ignores anything else', async () => {
    const prefix = uniquePrefix();
    const doorTopic = `${prefix}/door`;
    retainedUnder(prefix);
    const receiver = track(await webhookReceiver());
    const server = track(
      await startBridged({ MQTT_URL: SHARED_BROKER, MQTT_TOPIC_PREFIX: prefix, MQTT_DOOR_TOPIC: doorTopic, WEBHOOK_URLS: receiver.url, WEBHOOK_SECRET: 'webhook secret' }),
    );
    const sensor = track(await Watcher.connect(SHARED_BROKER, prefix));
    await sensor.waitFor((m) => m.topic === `${prefix}/status` && m.text === 'online', 'the bridge online (subscribed to the door topic before)');
    const db = server.fresh.handle.db;
    const openingsBefore = await countOpenings(db);
    let isOpen = (await currentSpaceState(db)).isOpen!;
    const stream = await openStream(server.base);
    cleanups.push(() => stream.close());
    await stream.waitForEvents(1);

    // A change, in a sensor's spelling: recorded under the door's rule.
    const spelling = isOpen ? ' Closed\n' : 'OPEN ';
    let from = sensor.messages.length;
    await sensor.publish(doorTopic, spelling);
    isOpen = !isOpen;
    await until(async () => (await currentSpaceState(db)).isOpen === isOpen, 'the door report over MQTT recorded');
    const state = await currentSpaceState(db);
    const body = await statusBody(server.base);
    assert.equal((JSON.parse(body) as { is_open: boolean }).is_open, isOpen);
    // Audited: no token, the topic as token name and path, MQTT as the method.
    const [entry] = await listAudit(db, 1);
    assert.deepEqual(
      { ...entry, id: 0, timeUs: 0 },
      { id: 0, timeUs: 0, tokenId: null, tokenName: `mqtt:${doorTopic}`, method: 'MQTT', path: doorTopic, collection: 'space/openings', recordId: state.id, status: 201 },
    );
    // Streamed, published on <prefix>/state, sent to the webhooks.
    const [, event] = await stream.waitForEvents(2);
    assert.deepEqual(dataOf(event), JSON.parse(body));
    assert.equal(event.id, String(state.id));
    await sensor.waitFor((m) => m.topic === `${prefix}/state` && m.text === body, 'the change published', from);
    await until(() => receiver.bodies.length === 1, 'the webhook delivery');
    assert.deepEqual(receiver.bodies[0], { id: state.id, event: 'state', state: JSON.parse(body) });

    // Garbage is ignored, and logged without its whole content; a report of the same state records
    // nothing. Reports are handled in their order: once the last one is recorded, all were handled.
    const auditBefore = (await listAudit(db, 1000)).length;
    from = sensor.messages.length;
    const long = 'x'.repeat(100_000);
    const garbage: (string | Buffer)[] = ['maybe', '', 'opened', '{"is_open":true}', '2', Buffer.from([0xff, 0xfe, 0x00, 0x01]), long];
    for (const payload of garbage) await sensor.publish(doorTopic, payload);
    await sensor.publish(doorTopic, isOpen ? 'true' : 'false'); // the same state
    const variants = isOpen ? ['0', 'TRUE', 'false', '1'] : ['1', 'FALSE', 'true', '0'];
    for (const payload of variants) await sensor.publish(doorTopic, payload);
    const finalOpen = isOpen; // four flips end where they began
    await until(async () => (await countOpenings(db)) === openingsBefore + 5, 'the four changes recorded');
    assert.equal((await currentSpaceState(db)).isOpen, finalOpen);
    assert.equal((await listAudit(db, 1000)).length, auditBefore + 4, 'one audit entry per change');
    await stream.waitForEvents(6);
    const ignored = server.logs.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('MQTT: ignored a message on the door topic'));
    assert.equal(ignored.length, garbage.length, JSON.stringify(ignored));
    const longLine = ignored.find((l) => l.bytes === long.length);
    assert.ok(longLine && String(longLine.payload).length <= 41, JSON.stringify(longLine));
    assert.ok(!server.rawLogs().includes('x'.repeat(100)), 'a long payload is not logged whole');
    // Published: one state message per change, in order.
    await sensor.waitFor(
      // Both topics' fourth messages: an earlier state/open already says finalOpen (the second flip).
      () => sensor.on(`${prefix}/state`, from).length === 4 && sensor.on(`${prefix}/state/open`, from).length === 4,
      'the four changes published',
      from,
    );
    assert.deepEqual(
      sensor.on(`${prefix}/state/open`, from).map((m) => m.text),
      variants.map((v) => String(['1', 'true'].includes(v.toLowerCase()))),
    );
    // The service is fine.
    assert.equal((await request(server.base, '/healthz')).status, 200);
    assert.equal((await doorPost(server.base, server.door, !finalOpen)).status, 201);
  });

  it('publishes Home Assistant discovery config with MQTT_HOMEASSISTANT=true', async () => {
    const prefix = uniquePrefix();
    const nodeId = prefix.replace(/[^a-zA-Z0-9_-]/g, '_');
    const discoveryTopic = `homeassistant/binary_sensor/${nodeId}/config`;
    retainedUnder(prefix, discoveryTopic);
    const server = track(await startBridged({ MQTT_URL: SHARED_BROKER, MQTT_TOPIC_PREFIX: prefix, MQTT_HOMEASSISTANT: 'true', SPACE_NAME: 'UrLab' }));
    // The bridge connects in the background: a subscriber that came before its publishes gets them
    // live (not flagged retained). `online` follows the discovery config (the broker takes a
    // client's packets in order); once a live subscriber has it, a later one sees what is retained.
    const live = track(await Watcher.connect(SHARED_BROKER, prefix));
    await live.waitFor((m) => m.topic === `${prefix}/status` && m.text === 'online', 'online');
    await live.waitFor((m) => m.topic === `${prefix}/state/open`, 'the state published');
    const watcher = track(await Watcher.connect(SHARED_BROKER, prefix, [discoveryTopic]));
    await watcher.sync();
    const [discovery] = watcher.on(discoveryTopic);
    assert.ok(discovery, 'a retained discovery config');
    assert.equal(discovery.retain, true);
    assert.deepEqual(JSON.parse(discovery.text), {
      name: 'Door',
      unique_id: `hackerspace_api_${nodeId}_open`,
      state_topic: `${prefix}/state/open`,
      payload_on: 'true',
      payload_off: 'false',
      device_class: 'door',
      json_attributes_topic: `${prefix}/state`,
      availability_topic: `${prefix}/status`,
      payload_available: 'online',
      payload_not_available: 'offline',
      qos: 1,
      device: { identifiers: [`hackerspace_api_${nodeId}`], name: 'UrLab', manufacturer: 'hackerspace-api', model: 'hackerspace-api' },
    });
    // What its state topic carries is one of its payloads.
    assert.deepEqual(
      watcher.on(`${prefix}/state/open`).map((m) => m.text),
      [String((await currentSpaceState(server.fresh.handle.db)).isOpen)],
    );
  });

  it('the last will: a killed process leaves "offline" on the status topic; a stopped one says it itself', async () => {
    const fresh = await freshDatabase();
    cleanups.push(() => fresh.cleanup());
    const prefix = uniquePrefix();
    retainedUnder(prefix);
    const watcher = track(await Watcher.connect(SHARED_BROKER, prefix));
    const env = { DATABASE_URL: fresh.url, LOG_LEVEL: 'info', MQTT_URL: SHARED_BROKER, MQTT_TOPIC_PREFIX: prefix };
    const status = `${prefix}/status`;

    const killed = await startService(['serve'], { ...env, PORT: String(await freePort()) });
    cleanups.push(async () => void (await killed.stop()));
    let from = watcher.messages.length;
    await watcher.waitFor((m) => m.topic === status && m.text === 'online', 'online from the child', from);
    from = watcher.messages.length;
    killed.child.kill('SIGKILL');
    await killed.exited;
    await watcher.waitFor((m) => m.topic === status && m.text === 'offline', 'the last will', from);

    const stopped = await startService(['serve'], { ...env, PORT: String(await freePort()) });
    cleanups.push(async () => void (await stopped.stop()));
    from = watcher.messages.length;
    await watcher.waitFor((m) => m.topic === status && m.text === 'online', 'online from the second child', from);
    from = watcher.messages.length;
    assert.deepEqual(await stopped.stop(), { code: 0, signal: null });
    await watcher.waitFor((m) => m.topic === status && m.text === 'offline', 'offline at shutdown', from);
    assert.ok(!stopped.logs.some((l) => l.msg === 'MQTT: the broker did not acknowledge "offline" at shutdown'), stopped.output());
  });

  it('a broker that goes away and comes back empty: door posts do not wait, the bridge backs off, reconnects and republishes the state and online', async () => {
    const fresh = await freshDatabase();
    cleanups.push(() => fresh.cleanup());
    const broker = await PrivateBroker.start(fresh.dir);
    cleanups.push(() => broker.kill());
    const prefix = uniquePrefix();
    const server = track(await startBridged({ MQTT_URL: broker.url, MQTT_TOPIC_PREFIX: prefix }));
    const first = track(await Watcher.connect(broker.url, prefix));
    await first.waitFor((m) => m.topic === `${prefix}/status` && m.text === 'online', 'online');
    let isOpen = (await currentSpaceState(server.fresh.handle.db)).isOpen!;

    await broker.kill();
    await until(() => server.logs.some((l) => l.msg === 'MQTT: connection to the broker lost; reconnecting'), 'the bridge saw the broker go');
    // Door posts while the broker is away complete (nothing waits for it).
    for (let i = 0; i < 3; i++) assert.equal((await doorPost(server.base, server.door, (isOpen = !isOpen))).status, 201);
    const body = await statusBody(server.base);
    // The bridge backs off: the delay between attempts doubles.
    assert.ok(
      server.logs.some((l) => l.msg === 'MQTT: connection to the broker lost; reconnecting' && l.retryInMs === 1000),
      server.rawLogs(),
    );
    await until(
      () => server.logs.some((l) => l.msg === 'MQTT: cannot reach the broker; retrying' && l.retryInMs === 2000 && l.error === 'ECONNREFUSED'),
      'a failed attempt, followed by a longer delay',
    );

    await broker.restart();
    // A new broker knows nothing: what a subscriber gets is what the bridge republished.
    const second = track(await Watcher.connect(broker.url, prefix));
    await second.waitFor((m) => m.topic === `${prefix}/status` && m.text === 'online', 'online again');
    await second.waitFor((m) => m.topic === `${prefix}/state` && m.text === body, 'the current state republished');
    const third = track(await Watcher.connect(broker.url, prefix));
    await third.sync();
    assert.deepEqual(retained(third, prefix), [
      [`${prefix}/state`, body, true],
      [`${prefix}/state/open`, String(isOpen), true],
      [`${prefix}/status`, 'online', true],
    ]);
    // And changes are published again.
    const from = second.messages.length;
    assert.equal((await doorPost(server.base, server.door, (isOpen = !isOpen))).status, 201);
    await second.waitFor((m) => m.topic === `${prefix}/state/open` && m.text === String(isOpen), 'a change after the reconnection', from);
  });

  it('connects with the user and password of MQTT_URL, and never logs the password', async () => {
    const fresh = await freshDatabase();
    cleanups.push(() => fresh.cleanup());
    const password = 'pa:ss@word hunter2';
    const broker = await PrivateBroker.start(fresh.dir, { users: { door: password, watcher: 'watcher' } });
    cleanups.push(() => broker.kill());
    const prefix = uniquePrefix();
    const withCredentials = `mqtt://door:${encodeURIComponent(password)}@127.0.0.1:${broker.port}`;
    const server = track(await startBridged({ MQTT_URL: withCredentials, MQTT_TOPIC_PREFIX: prefix }));
    const watcher = track(await Watcher.connect(`mqtt://watcher:watcher@127.0.0.1:${broker.port}`, prefix));
    await watcher.waitFor((m) => m.topic === `${prefix}/status` && m.text === 'online', 'online with credentials');
    // A wrong password: refused, retried, logged without the password.
    const refused = track(await startBridged({ MQTT_URL: `mqtt://door:hunter2-wrong@127.0.0.1:${broker.port}`, MQTT_TOPIC_PREFIX: prefix }));
    await until(() => refused.logs.some((l) => l.msg === 'MQTT: cannot reach the broker; retrying' && /Not authorized/i.test(String(l.error))), 'the refusal logged');
    for (const logged of [server.rawLogs(), refused.rawLogs()]) {
      assert.ok(!logged.includes('hunter2') && !logged.includes(encodeURIComponent(password)), logged);
      assert.ok(logged.includes(`mqtt://127.0.0.1:${broker.port}`), 'the broker is named, without credentials');
    }
  });

  it(
    'with two processes on one PostgreSQL database, each change is published once, by the process that recorded it',
    postgresOnly('several serving processes share a database through PostgreSQL'),
    async () => {
      const fresh = await freshDatabase();
      cleanups.push(() => fresh.cleanup());
      const records = sampleRecords();
      await fresh.handle.db.transaction().execute((trx) => importRecords(trx, records));
      const door = (await createToken(fresh.handle.db, 'door', 'door', nowUs())).secret;
      const prefix = uniquePrefix();
      const doorTopic = `${prefix}/door`;
      retainedUnder(prefix);
      const watcher = track(await Watcher.connect(SHARED_BROKER, prefix));
      const env = { DATABASE_URL: fresh.url, LOG_LEVEL: 'info', MQTT_URL: SHARED_BROKER, MQTT_TOPIC_PREFIX: prefix, MQTT_DOOR_TOPIC: doorTopic };
      const services: Service[] = await Promise.all([
        startService(['serve'], { ...env, PORT: String(await freePort()) }),
        startService(['serve'], { ...env, PORT: String(await freePort()) }),
      ]);
      cleanups.push(async () => void (await Promise.all(services.map((s) => s.stop()))));
      await Promise.all(services.map((s) => waitUntilServing(s)));
      await Promise.all(services.map((s) => s.waitForLog((l) => l.msg === 'MQTT: connected', 'connected to the broker')));
      // Both feeds listen (a stream client each): a bridge driven by the feed would publish the
      // other's changes.
      const streams = await Promise.all(services.map((s) => openStream(s.base)));
      cleanups.push(() => streams.forEach((s) => s.close()));
      await Promise.all(streams.map((s) => s.waitForEvents(1)));

      // Each process says `online` again when it sees `offline` on the status topic (another
      // process's last will). Once both answered, everything either published before is here.
      const flush = async () => {
        const from = watcher.messages.length;
        await watcher.publish(`${prefix}/status`, 'offline', true);
        await watcher.waitFor(
          (m) => m.topic === `${prefix}/status` && m.text === 'online' && watcher.on(`${prefix}/status`, from).filter((s) => s.text === 'online').length === 2,
          'both processes online again',
          from,
        );
        return watcher.messages.length;
      };
      let from = await flush();

      // A door post to the first process.
      let isOpen = (await currentSpaceState(fresh.handle.db)).isOpen!;
      const res = await doorPost(services[0].base, door, (isOpen = !isOpen));
      assert.equal(res.status, 201, res.body);
      const body = await statusBody(services[0].base);
      await Promise.all(streams.map((s) => s.waitForEvents(2)));
      await flush();
      assert.deepEqual(
        watcher.on(`${prefix}/state`, from).map((m) => m.text),
        [body],
        'published once',
      );

      // A report on the door topic reaches both processes: recorded once, published once.
      from = watcher.messages.length;
      const openings = await countOpenings(fresh.handle.db);
      await watcher.publish(doorTopic, String(!isOpen));
      isOpen = !isOpen;
      await Promise.all(streams.map((s) => s.waitForEvents(3)));
      const mqttBody = await statusBody(services[1].base);
      assert.equal((JSON.parse(mqttBody) as { is_open: boolean }).is_open, isOpen);
      await flush();
      assert.equal(await countOpenings(fresh.handle.db), openings + 1, 'recorded once');
      assert.deepEqual(
        watcher.on(`${prefix}/state`, from).map((m) => m.text),
        [mqttBody],
        'published once',
      );
    },
  );
});
