// Graceful shutdown and rolling restart (issue 17 §2), with real processes and real signals: a
// request in flight at SIGTERM finishes, streams end with a retry hint, and SIGHUP on
// `serve --workers 2` replaces the workers while a client loops over keep-alive connections,
// without a single failed request. Runs on both engines (TEST_ENGINE).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createToken } from '../src/resources/tokens.js';
import { request } from './support/http.js';
import { freePort, isAlive, killAll, startService, waitUntilServing, type LogLine, type Service } from './support/processes.js';
import { parseResponse, type RawResponse } from './support/raw-http.js';
import { TEST_ENGINE, type FreshDatabase, withSampleData } from './support/server.js';
import { openStream } from './support/sse.js';
import { until, within } from './support/wait.js';

after(() => killAll());

const SPACEAPI = {
  space: 'Restart Space',
  logo: 'https://space.example.org/logo.png',
  url: 'https://space.example.org/',
  location: { address: 'Somewhere 1, 1000 Brussels', lat: 50.8, lon: 4.3 },
  contact: { email: 'hello@space.example.org' },
};

const message = (line: LogLine) => String(line.msg ?? '');

/** A raw connection: what it received, and when the server closed it. */
function rawConnection(port: number): Promise<{ socket: net.Socket; received: () => Buffer; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    const closed = new Promise<void>((done) => socket.on('close', () => done()));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => {});
    socket.once('connect', () => resolve({ socket, received: () => Buffer.concat(chunks), closed }));
    socket.once('error', reject);
  });
}

/** Whether a new connection to the port is refused (nothing listens any more). */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

describe(`SIGTERM on serve (one process), ${TEST_ENGINE}`, () => {
  let fresh: FreshDatabase;
  let service: Service;
  let port: number;
  let door: string;

  before(async () => {
    fresh = await withSampleData();
    door = (await createToken(fresh.handle.db, 'restart door', 'door', Date.now() * 1000)).secret;
    port = await freePort();
    service = await startService(['serve'], { DATABASE_URL: fresh.url, LOG_LEVEL: 'info', PORT: String(port) });
    await waitUntilServing(service);
  });

  after(async () => {
    await service?.stop();
    await fresh?.cleanup();
  });

  it('SIGHUP is logged and ignored: the same process goes on serving', async () => {
    service.child.kill('SIGHUP');
    await service.waitForLog((l) => message(l).startsWith('SIGHUP ignored: a single process'), 'the SIGHUP warning');
    assert.ok(isAlive(service.pid));
    assert.equal((await request(service.base, '/api/')).status, 200);
  });

  it('stops accepting, finishes the request in flight (201, Connection: close), ends the stream with a retry hint, exits 0', async () => {
    const stream = await openStream(service.base);
    assert.equal(stream.status, 200);
    await stream.waitForEvents(1);
    // An idle keep-alive connection: the drain closes it.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    let idleSocket: net.Socket | undefined;
    await new Promise<void>((resolve, reject) => {
      const req = http.get(`${service.base}/api/users/`, { agent }, (res) => {
        idleSocket = res.socket;
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', reject);
    });
    const idleClosed = new Promise<void>((resolve) => idleSocket!.once('close', () => resolve()));

    // A door post whose body is still coming when the signal arrives.
    const body = '{"is_open": true}';
    const slow = await rawConnection(port);
    const incoming = () => service.logs.filter((l) => (l.req as { method?: string } | undefined)?.method === 'POST' && message(l) === 'incoming request');
    slow.socket.write(
      `POST /api/space/openings/ HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Token ${door}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
    );
    await service.waitForLog(() => incoming().length === 1, 'the door post to be under way');

    service.child.kill('SIGTERM');
    await service.waitForLog((l) => message(l) === 'shutting down', 'the shutdown to begin');
    await within(idleSocket ? idleClosed : Promise.resolve(), 'the idle keep-alive connection to be closed');
    agent.destroy();
    await within(stream.ended, 'the stream to end');
    assert.match(stream.raw(), /\nretry: \d+\n\n$/, 'the stream ends with a retry hint');
    await until(() => refused(port), 'the listening socket to close');
    assert.ok(isAlive(service.pid), 'still finishing the request in flight');

    slow.socket.write(body.slice(5));
    await within(slow.closed, 'the server to close the door post connection after its answer');
    const answer: RawResponse = parseResponse(slow.received());
    assert.equal(answer.status, 201, answer.text);
    assert.equal(answer.headers.connection, 'close');
    assert.deepEqual(await service.exited, { code: 0, signal: null }, service.output());
    const stopped = service.logs.find((l) => message(l) === 'stopped');
    assert.equal(typeof stopped?.shutdownMs, 'number', service.output());
  });

  it('the door post of the request in flight was committed', async () => {
    const latest = await fresh.handle.db.selectFrom('openings').select(['is_open']).orderBy('time_us', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow();
    assert.equal(Boolean(latest.is_open), true);
  });
});

/**
 * Requests over and over on `loops` keep-alive connections of one agent, each loop waiting for
 * its answer before the next. Counts failures (errors, non-2xx) and, per connection, whether the
 * server closed it without having said `Connection: close` in the answer before.
 */
class KeepAliveLoop {
  readonly agent: http.Agent;
  requests = 0;
  closeAnswers = 0;
  readonly failures: string[] = [];
  readonly unannouncedCloses: string[] = [];
  private running = true;
  private readonly said = new WeakMap<net.Socket, boolean>();
  private readonly seen = new WeakSet<net.Socket>();
  private readonly done: Promise<void[]>;

  constructor(
    private readonly base: string,
    private readonly path: string,
    loops: number,
  ) {
    this.agent = new http.Agent({ keepAlive: true, maxSockets: loops });
    this.done = Promise.all(Array.from({ length: loops }, () => this.loop()));
  }

  private async loop(): Promise<void> {
    while (this.running) await this.once();
  }

  private once(): Promise<void> {
    return new Promise((resolve) => {
      const req = http.get(`${this.base}${this.path}`, { agent: this.agent }, (res) => {
        const socket = res.socket;
        const close = res.headers.connection === 'close';
        this.said.set(socket, close);
        if (close) this.closeAnswers++;
        res.resume();
        res.on('end', () => {
          this.requests++;
          if (res.statusCode !== 200) this.failures.push(`${this.path}: status ${res.statusCode}`);
          resolve();
        });
        res.on('error', (error) => {
          this.failures.push(`${this.path}: ${error.message}`);
          resolve();
        });
      });
      req.on('socket', (socket: net.Socket) => {
        if (this.seen.has(socket)) return;
        this.seen.add(socket);
        socket.on('close', () => {
          // The agent ends its own sockets only after an answer saying `Connection: close`, or when destroyed below.
          if (this.running && this.said.get(socket) !== true) this.unannouncedCloses.push(`${this.path}: a connection closed without Connection: close`);
        });
      });
      req.on('error', (error) => {
        this.failures.push(`${this.path}: ${error.message}`);
        resolve();
      });
    });
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.done;
    this.agent.destroy();
  }
}

describe(`SIGHUP on serve --workers 2, ${TEST_ENGINE}`, () => {
  let fresh: FreshDatabase;
  let service: Service;
  let spaceApiFile: string;
  const serving = () => service.logs.filter((l) => l.pid === service.pid && message(l) === `worker ${String(l.worker)} is serving`).map((l) => l.worker as number);
  const completions = () => service.logs.filter((l) => l.pid === service.pid && message(l).startsWith('rolling restart complete'));

  before(async () => {
    fresh = await withSampleData();
    spaceApiFile = path.join(fresh.dir, 'spaceapi.json');
    fs.writeFileSync(spaceApiFile, JSON.stringify(SPACEAPI));
    service = await startService(['serve', '--workers', '2'], { DATABASE_URL: fresh.url, LOG_LEVEL: 'info', SPACEAPI_CONFIG: spaceApiFile, PORT: String(await freePort()) });
    await service.waitForLog(() => serving().length === 2, 'two workers serving', 120_000);
    await waitUntilServing(service);
  });

  after(async () => {
    await service?.stop();
    await fresh?.cleanup();
  });

  it('replaces both workers one at a time while clients loop over keep-alive connections: no failed request, no connection closed under one', async () => {
    const old = serving();
    // A cached read (answered by the fast path in Node's handler) and one the framework answers.
    await request(service.base, '/api/users/');
    const loops = [new KeepAliveLoop(service.base, '/api/users/', 4), new KeepAliveLoop(service.base, '/healthz', 4)];
    const total = () => loops.reduce((sum, loop) => sum + loop.requests, 0);
    try {
      await until(() => total() >= 100, '100 requests before the SIGHUP');
      service.child.kill('SIGHUP');
      await service.waitForLog(() => completions().length === 1, 'the rolling restart to complete', 120_000);
      const after = total();
      await until(() => total() >= after + 100, '100 requests after the restart');
    } finally {
      await Promise.all(loops.map((loop) => loop.stop()));
    }
    const lifecycle = () =>
      service.logs
        .filter((l) => l.pid === service.pid || /shutting down|stopped|exiting/.test(message(l)))
        .map((l) => JSON.stringify(l))
        .join('\n');
    for (const loop of loops) {
      assert.deepEqual(loop.failures, [], `no failed request; the log:\n${lifecycle()}`);
      assert.deepEqual(loop.unannouncedCloses, [], lifecycle());
    }
    // Every first connection was on an old worker: each was closed after an answer saying so.
    assert.ok(loops[0].closeAnswers > 0, 'the fast path said Connection: close while draining');
    assert.ok(loops[1].closeAnswers > 0, 'the framework said Connection: close while draining');
    const [complete] = completions();
    const replaced = complete.replaced as number[];
    assert.deepEqual(new Set(replaced), new Set(old));
    const fresh = complete.by as number[];
    assert.equal(new Set([...fresh, ...old]).size, 4, 'two new worker processes');
    for (const pid of old) {
      assert.ok(!isAlive(pid), `old worker ${pid} is gone`);
      assert.ok(
        service.logs.some((l) => l.worker === pid && message(l) === `worker ${pid} retired` && l.code === 0),
        `worker ${pid} drained and exited 0`,
      );
    }
    for (const pid of fresh) assert.ok(isAlive(pid), `new worker ${pid} runs`);
    // Each new worker listened before an old one began to drain.
    const at = (text: string) => service.logs.findIndex((l) => message(l) === text);
    for (let i = 0; i < 2; i++) assert.ok(at(`worker ${fresh[i]} is serving`) < at(`worker ${replaced[i]} is draining (replaced by ${fresh[i]})`));
    assert.ok(
      service.logs.some((l) => fresh.includes(l.pid as number) && message(l) === 'request completed from the response cache'),
      'the new workers answered from the fast path too',
    );
  });

  it('a new worker that cannot start abandons the restart: the old workers keep serving', async () => {
    const before = [...(completions()[0].by as number[])];
    fs.writeFileSync(spaceApiFile, '{ not json');
    try {
      service.child.kill('SIGHUP');
      await service.waitForLog((l) => message(l).startsWith('rolling restart abandoned'), 'the restart to be abandoned', 60_000);
    } finally {
      fs.writeFileSync(spaceApiFile, JSON.stringify(SPACEAPI));
    }
    for (const pid of before) assert.ok(isAlive(pid), `worker ${pid} still serves`);
    for (let i = 0; i < 4; i++) assert.equal((await request(service.base, '/api/')).status, 200);
    assert.ok(isAlive(service.pid));
    // Fixed, the next SIGHUP goes through.
    service.child.kill('SIGHUP');
    await service.waitForLog(() => completions().length === 2, 'the second rolling restart to complete', 120_000);
  });

  it('SIGTERM stops every worker gracefully, exit 0', async () => {
    const workers = completions()[1].by as number[];
    assert.deepEqual(await service.stop(15_000), { code: 0, signal: null }, service.output());
    for (const pid of workers) assert.ok(!isAlive(pid));
  });
});
