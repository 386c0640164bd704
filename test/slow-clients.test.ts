// Slow and hostile clients (issue 17 §4), against a real `serve` process: headers that never
// finish (HEADERS_TIMEOUT_MS), a body that trickles (REQUEST_TIMEOUT_MS), a body too large, and
// 300 connections that never finish their headers beside a normal request. Runs on both engines.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { BODY_LIMIT_BYTES } from '../src/app.js';
import { createToken } from '../src/resources/tokens.js';
import { request } from './support/http.js';
import { freePort, killAll, startService, waitUntilServing, type Service } from './support/processes.js';
import { freshDatabase, TEST_ENGINE, type FreshDatabase } from './support/server.js';
import { within } from './support/wait.js';

after(() => killAll());

interface Held {
  socket: net.Socket;
  /** Milliseconds from the connection to its close by the server, once closed. */
  closedAfterMs?: number;
  received(): string;
  closed: Promise<void>;
}

/** A connection that sends `bytes` and then nothing more: what it receives, and when it closes. */
function hold(port: number, bytes: string): Promise<Held> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    let start = 0;
    const held: Held = {
      socket,
      received: () => Buffer.concat(chunks).toString('latin1'),
      closed: new Promise<void>((done) =>
        socket.on('close', () => {
          held.closedAfterMs = performance.now() - start;
          done();
        }),
      ),
    };
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => {});
    socket.once('error', reject);
    socket.once('connect', () => {
      start = performance.now();
      socket.write(bytes, () => resolve(held));
    });
  });
}

const countOpenings = async (fresh: FreshDatabase) =>
  Number(
    (
      await fresh.handle.db
        .selectFrom('openings')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe(`slow clients with short timeouts, ${TEST_ENGINE}`, () => {
  const HEADERS_TIMEOUT_MS = 500;
  const REQUEST_TIMEOUT_MS = 1000;
  let fresh: FreshDatabase;
  let service: Service;
  let port: number;
  let door: string;

  before(async () => {
    fresh = await freshDatabase();
    door = (await createToken(fresh.handle.db, 'slow door', 'door', Date.now() * 1000)).secret;
    port = await freePort();
    service = await startService(['serve'], {
      DATABASE_URL: fresh.url,
      LOG_LEVEL: 'warn',
      PORT: String(port),
      HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    });
    await waitUntilServing(service);
  });

  after(async () => {
    await service?.stop();
    await fresh?.cleanup();
  });

  it('a connection that never finishes its headers gets 408 and is closed after HEADERS_TIMEOUT_MS', async () => {
    const slow = await hold(port, `GET /api/ HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: application/json\r\n`);
    await within(slow.closed, 'the server to close the connection');
    assert.match(slow.received(), /^HTTP\/1\.1 408 /);
    assert.match(slow.received(), /\{"detail":"Request timeout\."\}$/);
    // Never before the timeout (Node checks "started before now − timeout").
    assert.ok(slow.closedAfterMs! >= HEADERS_TIMEOUT_MS * 0.9, `closed after ${slow.closedAfterMs} ms`);
  });

  it('a body that trickles is cut off with 408 after REQUEST_TIMEOUT_MS, and nothing is written', async () => {
    const before = await countOpenings(fresh);
    const body = '{"is_open": true}';
    const slow = await hold(
      port,
      `POST /api/space/openings/ HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Token ${door}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 4)}`,
    );
    await within(slow.closed, 'the server to close the connection');
    assert.match(slow.received(), /^HTTP\/1\.1 408 /);
    assert.ok(slow.closedAfterMs! >= REQUEST_TIMEOUT_MS * 0.9, `closed after ${slow.closedAfterMs} ms`);
    assert.equal(await countOpenings(fresh), before);
    // The same post, sent at once, goes through: the limit is the time, not the request.
    const res = await request(service.base, '/api/space/openings/', { method: 'POST', headers: { authorization: `Token ${door}`, 'content-type': 'application/json' }, body });
    assert.equal(res.status, 201, res.body);
  });

  it(`a body above ${BODY_LIMIT_BYTES} bytes gets 413, in the contract's shape`, async () => {
    const before = await countOpenings(fresh);
    const body = `{"is_open": true, "x": "${'a'.repeat(BODY_LIMIT_BYTES)}"}`;
    const res = await request(service.base, '/api/space/openings/', { method: 'POST', headers: { authorization: `Token ${door}`, 'content-type': 'application/json' }, body });
    assert.equal(res.status, 413, res.body);
    assert.deepEqual(res.json(), { detail: 'Request body is too large.' });
    assert.equal(await countOpenings(fresh), before);
  });
});

describe(`300 connections that never finish their headers, ${TEST_ENGINE}`, () => {
  // Long enough that none closes before the normal request is answered, short enough to wait for.
  const HEADERS_TIMEOUT_MS = 5000;
  let fresh: FreshDatabase;
  let service: Service;
  let port: number;
  const held: Held[] = [];

  before(async () => {
    fresh = await freshDatabase();
    port = await freePort();
    service = await startService(['serve'], { DATABASE_URL: fresh.url, LOG_LEVEL: 'warn', PORT: String(port), HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS) });
    await waitUntilServing(service);
  });

  after(async () => {
    for (const h of held) h.socket.destroy();
    await service?.stop();
    await fresh?.cleanup();
  });

  it('do not keep a normal request from its answer, and are all closed after HEADERS_TIMEOUT_MS', async () => {
    held.push(...(await Promise.all(Array.from({ length: 300 }, (_, i) => hold(port, `GET /api/users/?page=${i} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Slow: `)))));
    const res = await request(service.base, '/api/users/');
    assert.equal(res.status, 200);
    const closedFirst = held.filter((h) => h.closedAfterMs !== undefined).length;
    assert.equal(closedFirst, 0, 'the normal request was answered while all 300 were open');
    await within(Promise.all(held.map((h) => h.closed)), 'the server to close all 300');
    for (const h of held) assert.match(h.received(), /^(HTTP\/1\.1 408 |$)/);
    assert.ok(held.every((h) => h.closedAfterMs! >= HEADERS_TIMEOUT_MS * 0.9));
    // And the service still answers.
    assert.equal((await request(service.base, '/api/')).status, 200);
  });
});
