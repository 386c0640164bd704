import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { request } from './support/http.js';
import { ImportError, readFixture } from '../src/interchange/import.js';
import { freshDatabase, SAMPLE_FIXTURE, sampleRecords, startServer, type TestServer } from './support/server.js';
import { exportText } from './support/interchange.js';
import { importRecords } from '../src/installed-apps.js';

/** A small deterministic PRNG, so that a failure can be replayed. */
function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PATHS = [
  '/api/',
  '/api',
  '/api/users/',
  '/api/users',
  '/api/space/openings/',
  '/api/projects/',
  '/api/meetings/',
  '/api/events/',
  '/api/users/1/',
  '/api/events/7/',
  '/api/users.json',
  '/api/users/1.api',
  '/api/.json',
  '/api/nope/',
  '/',
  '/api/users/%zz/',
  '/api/%E9/',
  '/api/users/99999999999999999999999/',
  '/api/users/-1/',
  '/api/users/%2F/',
  '/api/users/1%00/',
  '/api//users/',
  '/api/space/',
  '/api/users/1/extra/',
];
const KEYS = ['page', 'page_size', 'format', 'ordering', 'x', '', 'p%61ge', 'page%00', '🐜'];
const VALUES = [
  '1',
  '2',
  'last',
  '0',
  '-1',
  '1e400',
  '99999999999999999999999999',
  ' +03 ',
  '%',
  '%zz',
  '%E9',
  '%C3',
  '%F0%9F%90%9C',
  '\u00e9',
  '\u00ff\u00fe',
  'json',
  'api',
  'xml',
  '-start,stop',
  '..',
  '%00',
  'a+b',
  ';',
  '\u0080',
];
const METHODS = ['GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH', 'DELETE', 'PROPFIND', 'TRACE'];
const ACCEPTS = [undefined, '*/*', 'application/json', 'text/html', 'garbage', ';;;,,,', 'application/*;q=x', '\u00ff'];

function randomQuery(random: () => number): string {
  const pairs: string[] = [];
  const n = Math.floor(random() * 5);
  for (let i = 0; i < n; i++) {
    const key = KEYS[Math.floor(random() * KEYS.length)];
    const value = VALUES[Math.floor(random() * VALUES.length)];
    pairs.push(random() < 0.1 ? key : `${key}=${value}`);
  }
  const query = pairs.length ? '?' + pairs.join(random() < 0.2 ? '&&' : '&') : '';
  // Node's HTTP parser refuses raw bytes above 0x7f in a request line (tested on the socket below).
  return query.replace(/[^\u0021-\u007e]/gu, (s) => encodeURIComponent(s));
}

function assertSane(status: number, body: string, what: string) {
  assert.ok(status < 500, `${what} answered ${status}: ${body.slice(0, 200)}`);
  assert.doesNotMatch(body, /\bat .*\.ts:\d+/, `${what} leaked a stack trace`);
  // A browser's Accept gets the page (web.md §1): a whole HTML document.
  if (body.startsWith('<!doctype html>')) assert.match(body, /<\/html>\n$/, what);
  else if (body !== '') {
    const parsed = JSON.parse(body);
    assert.equal(typeof parsed, 'object', what);
    assert.doesNotMatch(body, /\bat .*\.ts:\d+/, `${what} leaked a stack trace`);
  }
}

/** Sends bytes exactly as given and returns the status line's code and the body. */
function rawRequest(port: number, head: Buffer | string): Promise<{ status: number; raw: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.setTimeout(5000, () => socket.destroy(new Error('timeout')));
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      resolve({ status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(raw)?.[1] ?? 0), raw });
    });
    // Not end(): a half-closed socket may be dropped before an asynchronous answer is written.
    socket.write(head);
  });
}

describe('hostile input never gets a 5xx', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ records: sampleRecords() });
  });
  after(() => server.close());

  it('survives 600 random requests (paths, queries, methods, Accept headers)', async () => {
    const random = prng(20261122);
    for (let i = 0; i < 600; i++) {
      const path = PATHS[Math.floor(random() * PATHS.length)] + randomQuery(random);
      const method = METHODS[Math.floor(random() * METHODS.length)];
      const accept = ACCEPTS[Math.floor(random() * ACCEPTS.length)];
      const headers: Record<string, string> = accept === undefined ? {} : { accept };
      if (random() < 0.2) headers['content-type'] = random() < 0.5 ? 'application/json' : 'text/plain';
      const body = headers['content-type'] ? '{"broken": ' : undefined;
      const res = await request(server.base, path, { method, headers, body });
      assertSane(res.status, method === 'HEAD' ? '' : res.body, `${method} ${path}`);
    }
  });

  it('handles 10 KB parameters and huge numbers', async () => {
    const big = 'x'.repeat(10_240);
    for (const path of [
      `/api/users/?page=${big}`,
      `/api/users/?page_size=${'9'.repeat(10_000)}`,
      `/api/users/?${big}=${big}`,
      `/api/events/?ordering=${'-start,'.repeat(1500)}`,
      `/api/users/?page=${'9'.repeat(400)}`,
      `/api/users/${'1'.repeat(5000)}/`,
      `/api/space/openings/?page=1e309`,
    ]) {
      const res = await request(server.base, path);
      assertSane(res.status, res.body, path.slice(0, 80));
    }
    const huge = await request(server.base, `/api/users/?page_size=${'9'.repeat(10_000)}`);
    assert.equal(huge.status, 200);
    assert.equal(huge.json().results.length, 30, 'clamped, not an error');
  });

  it('handles raw bytes, bad Host headers and malformed requests on the socket', async () => {
    const cases: (string | Buffer)[] = [
      Buffer.concat([Buffer.from('GET /api/users/?x='), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from(' HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n')]),
      'GET /api/users/ HTTP/1.1\r\nHost: evil.example/path?x\r\nConnection: close\r\n\r\n',
      'GET /api/users/ HTTP/1.1\r\nHost: \r\nConnection: close\r\n\r\n',
      'GET /api/users/ HTTP/1.0\r\n\r\n',
      'BREW /api/ HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n',
      'GET /api/users/ HTTP/9.9\r\nHost: a\r\nConnection: close\r\n\r\n',
      'POST /api/users/ HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999\r\nConnection: close\r\n\r\n{',
      'GET /api/users/ HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n',
    ];
    for (const head of cases) {
      const { status, raw } = await rawRequest(server.port, head);
      const what = JSON.stringify(head.toString().slice(0, 60));
      assert.ok(status >= 200 && status < 500, `${what} answered ${status}`);
      assert.doesNotMatch(raw, /\bat .*\.ts:\d+/, `${what} leaked a stack trace`);
    }
    // Node's parser (llhttp 9, even in its insecure mode) refuses raw non-ASCII bytes in the
    // request line; the client still gets the contract's JSON error shape.
    const rawBytes = await rawRequest(server.port, cases[0]);
    assert.equal(rawBytes.status, 400);
    assert.match(rawBytes.raw, /\r\n\r\n\{"detail":"Malformed HTTP request[^"]*"\}$/);
    const badHost = await rawRequest(server.port, 'GET /api/ HTTP/1.1\r\nHost: evil.example/path?x\r\nConnection: close\r\n\r\n');
    assert.equal(badHost.status, 400);
    assert.match(badHost.raw, /\{"detail":"Invalid Host header\."\}/);
  });
});

/** One random corruption of a fixture's text: a cut, a deleted, doubled or replaced character. */
function corrupt(text: string, random: () => number): string {
  const at = Math.floor(random() * text.length);
  const junk = ['"', ',', '}', ']', '{', 'x', '9', '-', 'null', '\\', '\u0000', 'é', '[', ':'];
  switch (Math.floor(random() * 4)) {
    case 0:
      return text.slice(0, at);
    case 1:
      return text.slice(0, at) + text.slice(at + 1);
    case 2:
      return text.slice(0, at) + text[at] + text.slice(at);
    default:
      return text.slice(0, at) + junk[Math.floor(random() * junk.length)] + text.slice(at + 1);
  }
}

describe('malformed fixtures never change data', () => {
  it('leaves the database exactly as it was after every failed import of 60 corrupted fixtures', async () => {
    const fresh = await freshDatabase();
    try {
      await fresh.handle.db.transaction().execute((trx) => importRecords(trx, sampleRecords()));
      const original = fs.readFileSync(SAMPLE_FIXTURE, 'utf8');
      const random = prng(4242);
      let failures = 0;
      for (let i = 0; i < 60; i++) {
        const before = await exportText(fresh.handle.db);
        const file = path.join(fresh.dir, `corrupt-${i}.json`);
        fs.writeFileSync(file, corrupt(original, random));
        try {
          await fresh.handle.db.transaction().execute((trx) => importRecords(trx, readFixture(file)));
        } catch (error) {
          assert.ok(error instanceof ImportError, `corruption ${i} failed with ${String(error)} instead of an ImportError`);
          assert.ok(error.message.length > 0);
          failures++;
          assert.equal(await exportText(fresh.handle.db), before, `corruption ${i} changed the data`);
        }
      }
      assert.ok(failures >= 20, `only ${failures} of 60 corruptions were rejected: the corruption is too gentle`);
    } finally {
      await fresh.cleanup();
    }
  });
});
