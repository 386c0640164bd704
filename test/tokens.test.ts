import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createToken, findToken, hashSecret, listTokens, revokeToken, TokenError } from '../src/resources/tokens.js';
import { freshDatabase, type FreshDatabase } from './support/server.js';

const CLI = path.resolve(import.meta.dirname, '../bin/hackerspace-api.js');
const NOW = 1_700_000_000_000_000;

describe('API tokens (resource)', () => {
  let fresh: FreshDatabase;
  before(async () => {
    fresh = await freshDatabase();
  });
  after(() => fresh.cleanup());

  it('creates a token whose secret is returned once and stored only as a hash', async () => {
    const { token, secret } = await createToken(fresh.handle.db, ' front door ', 'door', NOW);
    assert.equal(token.name, 'front door');
    assert.equal(token.scope, 'door');
    assert.match(secret, /^hs_[A-Za-z0-9_-]{43}$/);
    const stored = await fresh.handle.db.selectFrom('api_tokens').selectAll().where('id', '=', token.id).executeTakeFirstOrThrow();
    // Stored as its digest: 64 hex digits, the SHA-256 of the secret (a fixed vector:
    // `printf %s hs_fixed-test-vector | sha256sum`), and found again by it below.
    assert.match(stored.secret_hash, /^[0-9a-f]{64}$/);
    assert.notEqual(stored.secret_hash, secret);
    assert.equal(hashSecret('hs_fixed-test-vector'), '065e4602c0d24f4f74da95649db63bccf96def399d45bbaaeb66b43504421a65');
    assert.ok(!Object.values(stored).some((v) => String(v).includes(secret.slice(3))), 'the secret itself is stored nowhere');
    assert.deepEqual(await findToken(fresh.handle.db, secret), token);
    assert.equal(await findToken(fresh.handle.db, secret + 'x'), undefined);
    assert.equal(await findToken(fresh.handle.db, ''), undefined);
  });

  it('refuses bad names, bad scopes and a second active token of the same name', async () => {
    await assert.rejects(createToken(fresh.handle.db, '  ', 'door', NOW), TokenError);
    await assert.rejects(createToken(fresh.handle.db, 'x'.repeat(101), 'door', NOW), TokenError);
    await assert.rejects(createToken(fresh.handle.db, 'bot', 'root', NOW), /scope must be one of door, admin/);
    await createToken(fresh.handle.db, 'bot', 'admin', NOW);
    await assert.rejects(createToken(fresh.handle.db, 'bot', 'admin', NOW), /already exists/);
  });

  it('revokes by name or id; a revoked token no longer authenticates and its name is free again', async () => {
    const { token, secret } = await createToken(fresh.handle.db, 'sensor', 'door', NOW);
    const revoked = await revokeToken(fresh.handle.db, 'sensor', NOW + 1);
    assert.equal(revoked.revokedUs, NOW + 1);
    assert.equal(await findToken(fresh.handle.db, secret), undefined);
    await assert.rejects(revokeToken(fresh.handle.db, 'sensor', NOW), /no active token/);
    const again = await createToken(fresh.handle.db, 'sensor', 'door', NOW);
    await revokeToken(fresh.handle.db, String(again.token.id), NOW + 2);
    const listed = await listTokens(fresh.handle.db);
    assert.deepEqual(
      listed.filter((t) => t.name === 'sensor').map((t) => [t.id, t.revokedUs]),
      [
        [token.id, NOW + 1],
        [again.token.id, NOW + 2],
      ],
    );
  });
});

describe('hackerspace-api token (CLI)', () => {
  let fresh: FreshDatabase;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    fresh = await freshDatabase();
    env = { ...process.env, DATABASE_URL: fresh.url, LOG_LEVEL: 'silent' };
  });
  after(() => fresh.cleanup());
  const cli = (...args: string[]) => spawnSync(process.execPath, [CLI, 'token', ...args], { env, encoding: 'utf8', timeout: 60_000 });

  it('create prints the secret alone on stdout; list never shows it; revoke stops it', async () => {
    const created = cli('create', '--name', 'front door', '--scope', 'door');
    assert.equal(created.status, 0, created.stderr);
    const secret = created.stdout.trim();
    assert.match(created.stdout, /^hs_[A-Za-z0-9_-]{43}\n$/);
    assert.match(created.stderr, /created token \d+ "front door" \(scope door\)/);
    assert.ok(await findToken(fresh.handle.db, secret));

    const listed = cli('list');
    assert.equal(listed.status, 0, listed.stderr);
    assert.match(listed.stdout, /^ID\s+NAME\s+SCOPE\s+CREATED\s+LAST USED\s+REVOKED\n\d+\s+front door\s+door\s+\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z\s+-\s+-\n$/);
    assert.ok(!listed.stdout.includes(secret) && !listed.stderr.includes(secret));

    const revoked = cli('revoke', 'front door');
    assert.equal(revoked.status, 0, revoked.stderr);
    assert.equal(await findToken(fresh.handle.db, secret), undefined);
  });

  it('explains mistakes with exit codes 1 (refused) and 2 (usage)', () => {
    assert.equal(cli('create', '--name', 'x').status, 2);
    assert.equal(cli('frobnicate').status, 2);
    const badScope = cli('create', '--name', 'x', '--scope', 'root');
    assert.equal(badScope.status, 1);
    assert.match(badScope.stderr, /scope must be one of door, admin/);
    assert.equal(badScope.stdout, '');
    const unknown = cli('revoke', 'nobody');
    assert.equal(unknown.status, 1);
    assert.match(unknown.stderr, /no active token named or numbered "nobody"/);
  });
});
