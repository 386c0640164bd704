// The response cache's fast path in real deployments (issue 17 §5): behind a trusted proxy, with
// or without PUBLIC_URL, and for reads that present a token. Real HTTP against a server on the
// engine under test; which path answered is told by the service's own info log (the fast path
// logs "request completed from the response cache", the framework "request completed").
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { configFrom } from '../src/config.js';
import { openDatabase } from '../src/db/connection.js';
import { createToken, listTokens, revokeToken } from '../src/resources/tokens.js';
import { apiLinks as links, assertFastRepeat, comparable, observedServer as observed, type ObservedServer } from './support/fast-path.js';

const execFileAsync = promisify(execFile);
const CLI = path.resolve(import.meta.dirname, '../bin/hackerspace-api.js');
/** Reads whose bodies carry links (or, for users, none), and one the cache keeps compressed. */
const PATHS = ['/api/', '/api/projects/1/', '/api/projects/?page=2&page_size=1', '/api/events.json', '/api/users/', '/api/meetings/1/?format=api'];

const FORWARDED = { 'x-forwarded-host': 'space.example.org', 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.7' };

describe('the fast path behind a trusted proxy', () => {
  for (const [name, env, linkBase] of [
    ['TRUST_PROXY=true without PUBLIC_URL', { TRUST_PROXY: 'true' }, 'https://space.example.org/'],
    ['TRUST_PROXY as a list of addresses and ranges', { TRUST_PROXY: '10.9.8.7, 127.0.0.0/8' }, 'https://space.example.org/'],
    ['TRUST_PROXY=true with PUBLIC_URL', { TRUST_PROXY: 'true', PUBLIC_URL: 'https://public.example.net/hs' }, 'https://public.example.net/hs/'],
  ] as const) {
    it(`${name}: repeated reads take the fast path, with the full path's bytes and headers, links on the public host`, async () => {
      const o = await observed(env);
      try {
        for (const path of PATHS) {
          const built = await assertFastRepeat(o, path, FORWARDED);
          for (const link of links(built.body)) assert.ok(link.startsWith(linkBase), `${path}: ${link} starts with ${linkBase}`);
        }
        assert.ok(links((await o.send('/api/projects/1/', FORWARDED)).body).length > 0, 'some links were checked');
        // Compressed, and revalidated: the same answers as the full path's.
        await assertFastRepeat(o, '/api/users/?page_size=50', { ...FORWARDED, 'accept-encoding': 'gzip' });
        const tag = String((await o.send('/api/users/', FORWARDED)).headers.etag);
        const notModified = await o.send('/api/users/', { ...FORWARDED, 'if-none-match': tag });
        assert.deepEqual([notModified.status, notModified.path], [304, 'fast']);
        // A list of forwarded hosts counts by its last entry (as Fastify reads it): the same entry.
        const listed = await o.send('/api/projects/1/', { ...FORWARDED, 'x-forwarded-host': 'client.example, space.example.org', 'x-forwarded-proto': 'http, https' });
        assert.deepEqual([listed.status, listed.path], [200, 'fast']);
        assert.equal(listed.body, (await o.send('/api/projects/1/', FORWARDED)).body);
        // Another forwarded host (or none: Host) is another entry, built once, then fast too; with
        // PUBLIC_URL, links never depend on the request: the same entry.
        const other = { ...FORWARDED, 'x-forwarded-host': 'other.example:8443', 'x-forwarded-proto': 'http' };
        if ('PUBLIC_URL' in env) {
          for (const headers of [other, {}]) {
            const res = await o.send('/api/projects/1/', headers);
            assert.deepEqual([res.path, res.body], ['fast', listed.body]);
          }
        } else {
          const otherBody = (await assertFastRepeat(o, '/api/projects/1/', other)).body;
          assert.match(otherBody, /"http:\/\/other\.example:8443\/api\/users\/\d+\/"/);
          const direct = (await assertFastRepeat(o, '/api/projects/1/', {})).body;
          assert.match(direct, new RegExp(`"http://127\\.0\\.0\\.1:${o.server.port}/api/users/\\d+/"`));
        }
      } finally {
        await o.server.close();
      }
    });
  }

  it('ignores the X-Forwarded-* headers of a peer it does not trust, on both paths', async () => {
    const o = await observed({ TRUST_PROXY: '10.9.8.7, 192.168.0.0/16' });
    try {
      const spoofed = await assertFastRepeat(o, '/api/projects/1/', FORWARDED);
      const own = new RegExp(`^http://127\\.0\\.0\\.1:${o.server.port}/`);
      for (const link of links(spoofed.body)) assert.match(link, own);
      // The forwarded headers play no part in the key: without them, the same entry.
      const plain = await o.send('/api/projects/1/');
      assert.deepEqual([plain.path, plain.body], ['fast', spoofed.body]);
    } finally {
      await o.server.close();
    }
  });
});

describe('the fast path for reads that present a token', () => {
  let o: ObservedServer;
  before(async () => {
    // Behind a proxy, so that each client (X-Forwarded-For) has a failure throttle of its own.
    o = await observed({ TRUST_PROXY: '127.0.0.1' });
  });
  after(() => o?.server.close());

  const client = (n: number) => ({ 'x-forwarded-for': `198.51.100.${n}` });

  it("answers a valid token's read with the anonymous body, from the fast path once the token is known", async () => {
    const anonymous = await assertFastRepeat(o, '/api/projects/', {});
    const { secret } = await createToken(o.server.database.db, 'dashboard', 'door', Date.now() * 1000);
    for (const authorization of [`Token ${secret}`, `Bearer ${secret}`, `  token   ${secret} `]) {
      const first = await o.send('/api/projects/', { authorization });
      const again = await o.send('/api/projects/', { authorization });
      assert.equal(again.path, 'fast', `${authorization.trim().split(' ')[0]}: known valid, answered by the fast path`);
      for (const res of [first, again]) {
        assert.equal(res.status, 200);
        assert.deepEqual(res.bytes, anonymous.bytes, 'a token never changes a read');
        assert.deepEqual(comparable(res), comparable(anonymous));
      }
    }
    // The full path stamped its use (the fast path answers only while that stamp is recent).
    const [token] = (await listTokens(o.server.database.db)).filter((t) => t.name === 'dashboard');
    assert.notEqual(token.lastUsedUs, null);
  });

  it('answers an unknown or malformed token with its 401 from the full path, every time, even on a cached read', async () => {
    await o.send('/api/events/');
    assert.equal((await o.send('/api/events/')).path, 'fast');
    for (const [authorization, detail] of [
      ['Token hs_not-a-token', 'Invalid token.'],
      ['Bearer hs_not-a-token', 'Invalid token.'],
      ['Token', 'Invalid token header. No credentials provided.'],
      ['Token a b', 'Invalid token header. Token string should not contain spaces.'],
    ]) {
      for (let i = 0; i < 2; i++) {
        const res = await o.send('/api/events/', { authorization, ...client(1) });
        assert.deepEqual([res.status, res.path, res.json().detail], [401, 'full', detail], `${authorization} #${i + 1}`);
        assert.equal(res.headers['www-authenticate'], 'Token');
      }
    }
  });

  it('answers a revoked token with 401 on its next read, whoever revoked it', async () => {
    const db = o.server.database.db;
    // Tokens are revoked by `hackerspace-api token revoke` (another process), or by hand (another connection).
    const cli = (name: string) => execFileAsync(process.execPath, [CLI, 'token', 'revoke', name], { env: { ...process.env, DATABASE_URL: o.server.url } });
    const other = await openDatabase(configFrom({ DATABASE_URL: o.server.url }).database);
    try {
      await o.send('/api/meetings/');
      for (const [name, revoke] of [
        ['door one', () => cli('door one')],
        ['door two', () => revokeToken(other.db, 'door two', Date.now() * 1000)],
      ] as const) {
        const { secret } = await createToken(db, name, 'door', Date.now() * 1000);
        const headers = { authorization: `Token ${secret}`, ...client(2) };
        await o.send('/api/meetings/', headers);
        const known = await o.send('/api/meetings/', headers);
        assert.deepEqual([known.status, known.path], [200, 'fast'], `${name}: known valid`);
        await revoke();
        const revoked = await o.send('/api/meetings/', headers);
        assert.deepEqual([revoked.status, revoked.path, revoked.json().detail], [401, 'full', 'Invalid token.'], `${name}: revoked`);
        // Anonymous reads keep their fast path: a revocation empties no response.
        assert.equal((await o.send('/api/meetings/', client(2))).path, 'fast');
      }
    } finally {
      await other.close();
    }
  });
});
