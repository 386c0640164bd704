// The response cache, validators (ETag, Last-Modified, conditional GETs) and compression: unit
// tests of the pieces, then real HTTP against a server on the engine under test.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import zlib from 'node:zlib';
import { sql } from 'kysely';
import { negotiateCoding } from '../src/cache/content-coding.js';
import { noneMatchHits, unmodifiedSince } from '../src/cache/conditional.js';
import { Representation } from '../src/cache/representation.js';
import { ResponseCache } from '../src/cache/response-cache.js';
import { SharedBuilds } from '../src/cache/shared-builds.js';
import { configFrom } from '../src/config.js';
import { openDatabase } from '../src/db/connection.js';
import { FreshRead, snapshotOf, versionsOf, type VersionedTable } from '../src/db/table-versions.js';
import { importRecords, VERSIONED_TABLES } from '../src/installed-apps.js';
import { createToken } from '../src/resources/tokens.js';
import { varyTokens } from './support/contract.js';
import { request, untilDataSettled, type HttpResponse } from './support/http.js';
import { sampleRecords, startServer, type TestServer } from './support/server.js';

/** Snapshots where every table has version 1, except those given. */
function snapshot(changes: Partial<Record<VersionedTable, number>> = {}) {
  return snapshotOf(VERSIONED_TABLES.map((name) => ({ name, version: changes[name] ?? 1, changed_us: 0 })));
}

function representation(text: string, reads: VersionedTable[], under = snapshot()): Representation {
  return new Representation(Buffer.from(text), {
    reads,
    versions: versionsOf(under, reads),
    changedUs: 0,
    headers: { allow: 'GET', vary: 'Accept' },
    type: 'application/json',
    expiresMs: 0,
  });
}

describe('ResponseCache', () => {
  it('serves a response while the tables it was built from keep their versions', () => {
    const cache = new ResponseCache(10_000);
    const now = snapshot();
    cache.observe(now);
    const users = representation('users', ['users']);
    cache.set('u', users);
    assert.equal(cache.get('u', now), users);
  });

  it('drops exactly the responses built from a table that changed', () => {
    const cache = new ResponseCache(10_000);
    cache.observe(snapshot());
    cache.set('u', representation('users', ['users']));
    cache.set('o', representation('openings', ['openings']));
    cache.set('p', representation('projects', ['projects', 'project_participants', 'users']));
    const doorPost = snapshot({ openings: 2 });
    cache.observe(doorPost);
    assert.equal(cache.get('o', doorPost), undefined, 'the openings page is gone');
    assert.ok(cache.get('u', doorPost), 'the users page stays');
    assert.ok(cache.get('p', doorPost), 'the projects page stays');
    const renamed = snapshot({ openings: 2, users: 2 });
    cache.observe(renamed);
    assert.equal(cache.get('u', renamed), undefined);
    assert.equal(cache.get('p', renamed), undefined, 'projects list participants by username');
    assert.equal(cache.size.entries, 0);
  });

  it('never serves a response under versions other than its own, even if it was never purged', () => {
    const cache = new ResponseCache(10_000);
    cache.observe(snapshot());
    cache.set('u', representation('users', ['users']));
    // A request that has not seen the new snapshot yet asks with the newer one.
    assert.equal(cache.get('u', snapshot({ users: 5 })), undefined);
  });

  it('refuses a response built from versions older than the latest seen', () => {
    const cache = new ResponseCache(10_000);
    const old = snapshot();
    cache.observe(old);
    const built = representation('users', ['users'], old);
    cache.observe(snapshot({ users: 2 })); // a write was seen while it was being built
    cache.set('u', built);
    assert.equal(cache.size.entries, 0);
  });

  it('counts compressed variants and keys against its bound, evicting the least recently used', async () => {
    const now = snapshot();
    const text = 'x'.repeat(1000);
    const cache = new ResponseCache(2 * (1000 + 2) + 10);
    cache.observe(now);
    const a = representation(text, ['users']);
    const b = representation(text, ['users']);
    cache.set('a', a);
    cache.set('b', b);
    assert.deepEqual(cache.size, { entries: 2, bytes: 2 * (1000 + 2) });
    assert.ok(cache.get('a', now), 'a is now the most recently used');
    await a.prepare('gzip');
    const gzipped = a.bodyIn('gzip')!.length;
    cache.resize('a', a);
    // a grew: b, the least recently used, goes.
    assert.equal(cache.get('b', now), undefined);
    assert.deepEqual(cache.size, { entries: 1, bytes: 1000 + gzipped + 2 });
  });

  it('keeps nothing with a bound of zero, nor keys longer than 2048 characters', () => {
    const now = snapshot();
    const none = new ResponseCache(0);
    none.observe(now);
    none.set('a', representation('a', ['users']));
    assert.equal(none.get('a', now), undefined);
    const cache = new ResponseCache(1 << 20);
    cache.observe(now);
    cache.set(`http://h /api/?pad=${'p'.repeat(3000)}`, representation('{}', ['users']));
    assert.deepEqual(cache.size, { entries: 0, bytes: 0 });
  });
});

describe('FreshRead', () => {
  /** A read that ends when the test says so, numbered in the order reads start. */
  function controlledReads() {
    const releases: Array<(ok: boolean) => void> = [];
    const fresh = new FreshRead(
      () =>
        new Promise<number>((resolve, reject) => {
          const n = releases.length + 1;
          releases.push((ok) => (ok ? resolve(n) : reject(new Error(`read ${n} failed`))));
        }),
      2,
    );
    return { fresh, releases };
  }
  const turn = () => new Promise((resolve) => setImmediate(resolve));

  it('shares one read among the callers that ask before it starts', async () => {
    const { fresh, releases } = controlledReads();
    const together = [fresh.get(), fresh.get(), fresh.get()];
    assert.equal(releases.length, 0, 'nothing starts while requests are still arriving');
    await turn();
    assert.equal(releases.length, 1, 'one read for all of them');
    releases[0](true);
    assert.deepEqual(await Promise.all(together), [1, 1, 1]);
  });

  it('makes callers arriving after a read started wait for a read of their own', async () => {
    const { fresh, releases } = controlledReads();
    const first = fresh.get();
    await turn();
    const later = fresh.get();
    await turn();
    assert.equal(releases.length, 2, 'a second read started, overlapping the first');
    const third = fresh.get();
    await turn();
    assert.equal(releases.length, 2, 'no more than two at a time');
    releases[1](true);
    assert.equal(await later, 2, 'the later caller gets the read that started after it');
    await turn();
    assert.equal(releases.length, 3, 'the third starts when one ends');
    releases[0](true);
    releases[2](true);
    assert.equal(await first, 1);
    assert.equal(await third, 3);
  });

  it('fails the callers waiting for the next read when a read fails, and recovers', async () => {
    const { fresh, releases } = controlledReads();
    const a = fresh.get();
    await turn();
    const b = fresh.get();
    await turn();
    const c = fresh.get(); // waits: two reads are running
    releases[0](false);
    await assert.rejects(a, /read 1 failed/);
    await assert.rejects(c, /read 1 failed/, 'no second attempt for the waiters');
    releases[1](true);
    assert.equal(await b, 2);
    const d = fresh.get();
    await turn();
    releases[2](true);
    assert.equal(await d, 3);
  });
});

describe('SharedBuilds', () => {
  it('builds once for concurrent requests with the same key and versions, and again afterwards', async () => {
    const builds = new SharedBuilds<number>();
    let count = 0;
    const build = async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return ++count;
    };
    const together = await Promise.all([builds.run('a\n1.', build), builds.run('a\n1.', build), builds.run('a\n2.', build)]);
    assert.deepEqual(together, [1, 1, 2], 'other versions build on their own');
    assert.equal(await builds.run('a\n1.', build), 3, 'a finished build is not reused');
    const failing = builds.run('b', () => Promise.reject(new Error('down')));
    await assert.rejects(failing, /down/);
    assert.equal(await builds.run('b', build), 4, 'a failure is not kept');
  });
});

describe('validators and codings', () => {
  it('matches If-None-Match weakly, in lists, with *, and across content codings', () => {
    assert.ok(noneMatchHits('"abc"', 'abc'));
    assert.ok(noneMatchHits('W/"abc"', 'abc'));
    assert.ok(noneMatchHits('"x", "abc-gzip"', 'abc'));
    assert.ok(noneMatchHits('"abc-br"', 'abc'));
    assert.ok(noneMatchHits(' * ', 'abc'));
    assert.ok(!noneMatchHits('"abcd"', 'abc'));
    assert.ok(!noneMatchHits('abc', 'abc'), 'an unquoted tag is not an entity tag');
    assert.ok(!noneMatchHits('"abc-deflate"', 'abc'));
  });

  it('compares If-Modified-Since with whole seconds and ignores dates that do not parse', () => {
    const lastModified = Date.UTC(2020, 0, 1, 12, 0, 0);
    assert.ok(unmodifiedSince('Wed, 01 Jan 2020 12:00:00 GMT', lastModified));
    assert.ok(unmodifiedSince('Wed, 01 Jan 2020 12:00:01 GMT', lastModified));
    assert.ok(!unmodifiedSince('Wed, 01 Jan 2020 11:59:59 GMT', lastModified));
    assert.ok(!unmodifiedSince('yesterday', lastModified));
  });

  it('negotiates br or gzip by q-value, br on a tie, identity when neither is acceptable', () => {
    assert.equal(negotiateCoding(undefined), 'identity');
    assert.equal(negotiateCoding('gzip, deflate, br'), 'br');
    assert.equal(negotiateCoding('gzip'), 'gzip');
    assert.equal(negotiateCoding('x-gzip'), 'gzip');
    assert.equal(negotiateCoding('br;q=0.1, gzip;q=0.5'), 'gzip');
    assert.equal(negotiateCoding('br;q=0, *'), 'gzip');
    assert.equal(negotiateCoding('*;q=0.3'), 'br');
    assert.equal(negotiateCoding('gzip;q=0, br;q=0'), 'identity');
    assert.equal(negotiateCoding('identity'), 'identity');
    assert.equal(negotiateCoding('deflate'), 'identity');
    assert.equal(negotiateCoding('GZIP;Q=1'), 'gzip');
  });
});

/** Headers of two answers, without the ones that differ by nature (the date, the connection). */
function comparable(res: HttpResponse): Record<string, unknown> {
  const { date: _date, connection: _connection, 'keep-alive': _keepAlive, ...rest } = res.headers;
  return rest;
}

const ROUTES = [
  '/api/',
  '/api/users/',
  '/api/space/openings/',
  '/api/projects/',
  '/api/meetings/',
  '/api/events/',
  '/api/space/status/',
  '/api/users/1/',
  '/api/projects/1/?format=api',
  '/api/events.json',
  '/api/space/openings/?page=2&page_size=3',
];

describe('conditional GETs and compression over HTTP', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ records: sampleRecords() });
    // A built answer and its cached copy a moment later must not straddle the moment Last-Modified starts.
    await untilDataSettled(server.base);
  });
  after(() => server?.close());

  it('sends a strong ETag and Cache-Control: no-cache with every GET and HEAD, the same from the cache as when built', async () => {
    for (const path of ROUTES) {
      const built = await request(server.base, path);
      const cached = await request(server.base, path);
      assert.equal(built.status, 200, path);
      assert.match(String(built.headers.etag), /^"[A-Za-z0-9_-]{27}"$/, `${path}: a strong tag`);
      assert.equal(built.headers['cache-control'], 'no-cache', path);
      assert.deepEqual(varyTokens(built.headers), ['accept', 'accept-encoding'], path);
      assert.deepEqual(comparable(cached), comparable(built), `${path}: the cached answer has the same headers`);
      assert.equal(cached.body, built.body, path);
      const head = await request(server.base, path, { method: 'HEAD' });
      assert.equal(head.headers.etag, built.headers.etag, `${path}: HEAD`);
      assert.equal(head.headers['content-length'], String(built.bytes.length), `${path}: HEAD length`);
      assert.equal(head.body, '');
    }
  });

  it('answers a matching If-None-Match with 304 and no body, from the cache or not', async () => {
    const uncached = await startServer({ records: sampleRecords(), env: { RESPONSE_CACHE_MB: '0' } });
    try {
      for (const target of [server, uncached]) {
        for (const path of ROUTES) {
          const first = await request(target.base, path);
          const etag = String(first.headers.etag);
          for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
            for (const method of ['GET', 'HEAD']) {
              const res = await request(target.base, path, { method, headers: { 'if-none-match': header } });
              assert.equal(res.status, 304, `${path} ${method} If-None-Match: ${header}`);
              assert.equal(res.body, '');
              assert.equal(res.headers.etag, etag);
              assert.equal(res.headers['cache-control'], 'no-cache');
              assert.deepEqual(varyTokens(res.headers), ['accept', 'accept-encoding']);
              assert.equal(res.headers['content-encoding'], undefined);
            }
          }
          const other = await request(target.base, path, { headers: { 'if-none-match': '"not-this-one"' } });
          assert.equal(other.status, 200, path);
          assert.equal(other.body, first.body);
        }
      }
    } finally {
      await uncached.close();
    }
  });

  it('gives equivalent queries one entity tag, and different ones another', async () => {
    const a = await request(server.base, '/api/users/?page=2&page_size=3');
    const b = await request(server.base, '/api/users/?page_size=3&page=2');
    const c = await request(server.base, '/api/users/?page_size=3&page=3');
    assert.equal(a.body, b.body);
    assert.equal(a.headers.etag, b.headers.etag);
    assert.notEqual(c.headers.etag, a.headers.etag);
  });

  it('compresses bodies from 1 KiB with gzip or br as negotiated, and keeps small ones as they are', async () => {
    const plain = await request(server.base, '/api/users/');
    assert.ok(plain.bytes.length >= 1024);
    for (const [accept, coding, decode] of [
      ['gzip', 'gzip', zlib.gunzipSync],
      ['gzip, deflate, br', 'br', zlib.brotliDecompressSync],
      ['br;q=0.2, gzip;q=0.8', 'gzip', zlib.gunzipSync],
    ] as const) {
      for (let i = 0; i < 2; i++) {
        const res = await request(server.base, '/api/users/', { headers: { 'accept-encoding': accept } });
        assert.equal(res.headers['content-encoding'], coding, accept);
        assert.equal(res.headers['content-length'], String(res.bytes.length));
        assert.equal(res.headers.etag, `${String(plain.headers.etag).slice(0, -1)}-${coding}"`, 'a tag of its own per coding');
        assert.deepEqual(decode(res.bytes), plain.bytes, `${accept}: the same JSON once decoded`);
        const head = await request(server.base, '/api/users/', { method: 'HEAD', headers: { 'accept-encoding': accept } });
        assert.equal(head.headers['content-length'], String(res.bytes.length), 'HEAD: the compressed length');
      }
      // The tag of one coding revalidates the others: the client holds the same data.
      const revalidated = await request(server.base, '/api/users/', { headers: { 'accept-encoding': accept, 'if-none-match': String(plain.headers.etag) } });
      assert.equal(revalidated.status, 304);
    }
    const small = await request(server.base, '/api/', { headers: { 'accept-encoding': 'gzip, br' } });
    assert.ok(small.bytes.length < 1024);
    assert.equal(small.headers['content-encoding'], undefined);
    const identity = await request(server.base, '/api/users/', { headers: { 'accept-encoding': 'identity' } });
    assert.equal(identity.headers['content-encoding'], undefined);
    assert.deepEqual(identity.bytes, plain.bytes);
  });

  it('sends Vary: Accept, Accept-Encoding on errors of API routes too', async () => {
    for (const [path, headers, status] of [
      ['/api/users/?page=99', {}, 404],
      ['/api/users/', { accept: 'application/xml' }, 406],
      ['/api/users/999999/', {}, 404],
    ] as const) {
      const res = await request(server.base, path, { headers });
      assert.equal(res.status, status, path);
      assert.deepEqual(varyTokens(res.headers), ['accept', 'accept-encoding'], path);
      assert.equal(res.headers.etag, undefined, `${path}: errors have no validators`);
    }
  });

  it('still checks credentials and Accept on reads whose answer is cached', async () => {
    await request(server.base, '/api/projects/');
    const badToken = await request(server.base, '/api/projects/', { headers: { authorization: 'Token nope' } });
    assert.equal(badToken.status, 401);
    const xml = await request(server.base, '/api/projects/', { headers: { accept: 'application/xml' } });
    assert.equal(xml.status, 406);
    // web.md §1: a browser's Accept gets the browsable page, not the cached JSON.
    const html = await request(server.base, '/api/projects/', { headers: { accept: 'text/html' } });
    assert.equal(html.status, 200);
    assert.equal(html.headers['content-type'], 'text/html; charset=utf-8');
    const admin = (await createToken(server.database.db, 'cache reader', 'admin', Date.now() * 1000)).secret;
    const good = await request(server.base, '/api/projects/', { headers: { authorization: `Token ${admin}` } });
    assert.equal(good.status, 200);
  });

  it('keys bodies by base URL and request target', async () => {
    const a = await request(server.base, '/api/users/1/', { headers: { host: 'one.example' } });
    const b = await request(server.base, '/api/users/1/', { headers: { host: 'two.example' } });
    const c = await request(server.base, '/api/projects/1/?format=api', { headers: { host: 'one.example' } });
    const d = await request(server.base, '/api/projects/1/', { headers: { host: 'one.example' } });
    assert.equal(a.status, 200);
    assert.equal(a.body, b.body, 'user records carry no links');
    assert.match(c.json().maintainer, /^http:\/\/one\.example\/api\/users\/\d+\/\?format=api$/);
    assert.match(d.json().maintainer, /^http:\/\/one\.example\/api\/users\/\d+\/$/);
    const e = await request(server.base, '/api/projects/1/', { headers: { host: 'two.example' } });
    assert.match(e.json().maintainer, /^http:\/\/two\.example\//);
  });
});

describe('a database that can no longer be read', () => {
  it('gets a JSON error for a read whose answer is cached, never a crash', async () => {
    const server = await startServer({ records: sampleRecords() });
    try {
      assert.equal((await request(server.base, '/api/users/')).status, 200);
      await server.database.close();
      for (const headers of [{}, { 'if-none-match': '"x"' }] as Record<string, string>[]) {
        const res = await request(server.base, '/api/users/', { headers });
        assert.ok(res.status >= 500, `status ${res.status}`);
        assert.equal(typeof res.json().detail, 'string');
      }
    } finally {
      await server.close();
    }
  });
});

describe('Last-Modified and If-Modified-Since', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ records: sampleRecords(), env: { CACHE_CONTROL: 'max-age=5, must-revalidate' } });
  });
  after(() => server?.close());

  /** Dates a table's last change in the past, through another connection (as another process would). */
  async function backdate(table: VersionedTable, ms: number): Promise<void> {
    const other = await openDatabase(configFrom({ DATABASE_URL: server.url }).database);
    try {
      await sql`update table_versions set version = version + 1, changed_us = ${ms * 1000} where name = ${table}`.execute(other.db);
    } finally {
      await other.close();
    }
  }

  it('dates a response by the last change of the tables it was built from', async () => {
    const when = Date.UTC(2020, 0, 1, 12, 0, 0, 750);
    await backdate('users', when);
    const res = await request(server.base, '/api/users/');
    assert.equal(res.headers['last-modified'], 'Wed, 01 Jan 2020 12:00:00 GMT');
    assert.equal(res.headers['cache-control'], 'max-age=5, must-revalidate', "CACHE_CONTROL is the operator's");
    const ims = (date: string, extra: Record<string, string> = {}) => request(server.base, '/api/users/', { headers: { 'if-modified-since': date, ...extra } });
    assert.equal((await ims('Wed, 01 Jan 2020 12:00:00 GMT')).status, 304);
    assert.equal((await ims('Thu, 02 Jan 2020 00:00:00 GMT')).status, 304);
    assert.equal((await ims('Wed, 01 Jan 2020 11:59:59 GMT')).status, 200);
    assert.equal((await ims('not a date')).status, 200);
    assert.equal((await ims('Thu, 02 Jan 2020 00:00:00 GMT', { 'if-none-match': '"stale"' })).status, 200, 'If-None-Match wins');
    // The projects list participants by username: the users' change dates it too.
    await backdate('projects', when - 86_400_000);
    await backdate('project_participants', when - 86_400_000);
    assert.equal((await request(server.base, '/api/projects/')).headers['last-modified'], 'Wed, 01 Jan 2020 12:00:00 GMT');
    assert.equal((await request(server.base, '/api/')).headers['last-modified'], undefined, 'the root reads no table');
  });

  it('leaves Last-Modified out right after a change, so that a change in the same second is never hidden', async () => {
    await backdate('openings', Date.UTC(2020, 0, 1));
    const old = await request(server.base, '/api/space/openings/');
    assert.ok(old.headers['last-modified']);
    const records = [{ model: 'space.spacestatus', pk: 9001, fields: { time: '2030-01-01T00:00:00Z', is_open: true } }];
    await server.database.db.transaction().execute((trx) => importRecords(trx, records));
    server.database.noteWrite();
    const fresh = await request(server.base, '/api/space/openings/', { headers: { 'if-modified-since': String(old.headers['last-modified']) } });
    assert.equal(fresh.status, 200);
    assert.equal(fresh.headers['last-modified'], undefined);
    assert.equal(fresh.json().results[0].time, '2030-01-01T00:00:00+00:00');
  });
});

describe('cached responses never outlive the data', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ records: sampleRecords() });
  });
  after(() => server?.close());

  it('sees a commit made by another connection (a CLI import) on the next request', async () => {
    const first = await request(server.base, '/api/users/');
    const again = await request(server.base, '/api/users/', { headers: { 'if-none-match': String(first.headers.etag) } });
    assert.equal(again.status, 304);
    assert.equal(first.json().count, 30);
    const other = await openDatabase(configFrom({ DATABASE_URL: server.url }).database);
    try {
      await other.db
        .transaction()
        .execute((trx) => importRecords(trx, [{ model: 'users.user', pk: 31, fields: { username: 'newcomer', email: 'new@example.org', has_key: true } }]));
    } finally {
      await other.close();
    }
    const after = await request(server.base, '/api/users/', { headers: { 'if-none-match': String(first.headers.etag) } });
    assert.equal(after.status, 200);
    assert.equal(after.json().count, 31);
    assert.ok(after.json().results.some((u: { username: string }) => u.username === 'newcomer'));
    assert.equal((await request(server.base, '/api/users/31/')).json().username, 'newcomer');
  });

  it("keeps the responses a write did not touch: a door post leaves the users' tags valid", async () => {
    const users = await request(server.base, '/api/users/');
    const openings = await request(server.base, '/api/space/openings/');
    const status = (await request(server.base, '/api/space/status/')).json();
    const door = (await createToken(server.database.db, 'door', 'door', Date.now() * 1000)).secret;
    const post = await request(server.base, '/api/space/openings/', {
      method: 'POST',
      headers: { authorization: `Token ${door}`, 'content-type': 'application/json' },
      body: JSON.stringify({ is_open: !status.is_open }),
    });
    assert.equal(post.status, 201);
    const usersAgain = await request(server.base, '/api/users/', { headers: { 'if-none-match': String(users.headers.etag) } });
    assert.equal(usersAgain.status, 304);
    const openingsAgain = await request(server.base, '/api/space/openings/', { headers: { 'if-none-match': String(openings.headers.etag) } });
    assert.equal(openingsAgain.status, 200);
    assert.deepEqual(openingsAgain.json().results[0], post.json());
  });
});
