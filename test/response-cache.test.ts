import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ResponseCache } from '../src/api/response-cache.js';
import { configFrom } from '../src/config.js';
import { openDatabase } from '../src/db/connection.js';
import { importRecords } from '../src/interchange/import.js';
import { request } from './support/http.js';
import { sampleRecords, startServer, type TestServer } from './support/server.js';

const body = (text: string) => Buffer.from(text);

describe('ResponseCache', () => {
  it('returns what was stored for the same data version', () => {
    const cache = new ResponseCache(1000);
    assert.equal(cache.get('a', 'v1'), undefined);
    cache.set('a', 'v1', body('hello'));
    assert.equal(cache.get('a', 'v1')?.toString(), 'hello');
  });

  it('drops everything when the data version changes', () => {
    const cache = new ResponseCache(1000);
    cache.get('a', 'v1');
    cache.set('a', 'v1', body('old'));
    assert.equal(cache.get('a', 'v2'), undefined);
    assert.deepEqual(cache.size, { entries: 0, bytes: 0 });
    // A body built under the old version is refused once the version has moved on.
    cache.set('a', 'v1', body('old'));
    assert.equal(cache.get('a', 'v2'), undefined);
  });

  it('stays within its byte bound (bodies and keys), evicting the least recently used first', () => {
    // Each entry costs its body plus two bytes per key character: 4 + 2 = 6 here.
    const cache = new ResponseCache(14);
    cache.get('x', 'v');
    cache.set('a', 'v', body('aaaa'));
    cache.set('b', 'v', body('bbbb'));
    assert.ok(cache.get('a', 'v'), 'a is now the most recently used');
    cache.set('c', 'v', body('cccc'));
    assert.equal(cache.get('b', 'v'), undefined, 'b was the least recently used');
    assert.ok(cache.get('a', 'v'));
    assert.ok(cache.get('c', 'v'));
    assert.deepEqual(cache.size, { entries: 2, bytes: 12 });
    cache.set('big', 'v', body('x'.repeat(9)));
    assert.equal(cache.get('big', 'v'), undefined, 'an entry larger than the bound is not kept');
  });

  it('does not keep very long keys, whose cost is mostly the key', () => {
    const cache = new ResponseCache(1 << 20);
    cache.get('x', 'v');
    const key = `http://h /api/?pad=${'p'.repeat(3000)}`;
    cache.set(key, 'v', body('{}'));
    assert.equal(cache.get(key, 'v'), undefined);
    assert.deepEqual(cache.size, { entries: 0, bytes: 0 });
  });

  it('keeps nothing with a bound of zero', () => {
    const cache = new ResponseCache(0);
    cache.get('a', 'v');
    cache.set('a', 'v', body('a'));
    assert.equal(cache.get('a', 'v'), undefined);
  });
});

describe('cached responses never outlive the data', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ records: sampleRecords() });
  });
  after(() => server.close());

  it('sees a commit made by another connection (a CLI import) on the next request', async () => {
    const first = await request(server.base, '/api/users/');
    const again = await request(server.base, '/api/users/');
    assert.equal(again.body, first.body);
    assert.equal(first.json().count, 30);

    // Another connection to the same file, as `hackerspace-api import` in another process would open.
    const other = openDatabase(configFrom({ DATABASE_URL: server.url }).database);
    try {
      await other.db.transaction().execute((trx) =>
        importRecords(trx, [{ model: 'users.user', pk: 31, fields: { username: 'newcomer', email: 'new@example.org', has_key: true } }]));
    } finally {
      await other.close();
    }
    const after = await request(server.base, '/api/users/');
    assert.equal(after.json().count, 31);
    assert.ok(after.json().results.some((u: { username: string }) => u.username === 'newcomer'));
    const detail = await request(server.base, '/api/users/31/');
    assert.equal(detail.status, 200);
    assert.equal(detail.json().username, 'newcomer');
  });

  it('sees this process\'s own writes once they are noted', async () => {
    const before = (await request(server.base, '/api/space/openings/')).json();
    await server.database.db.transaction().execute((trx) =>
      importRecords(trx, [{ model: 'space.spacestatus', pk: 9001, fields: { time: '2030-01-01T00:00:00Z', is_open: true } }]));
    server.database.noteWrite();
    const after = (await request(server.base, '/api/space/openings/')).json();
    assert.equal(after.count, before.count + 1);
    assert.deepEqual(after.results[0], { time: '2030-01-01T00:00:00+00:00', is_open: true });
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
