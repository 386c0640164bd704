import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Db } from '../../../src/db/connection.js';
import { writeTransaction } from '../../../src/db/write-transaction.js';
import {
  createFirstSuperuser,
  createMember,
  LinkNotValid,
  PasswordRejected,
  renewFirstSuperuserLink,
  setPassword,
  setPasswordWithLink,
  SuperuserExists,
} from '../../../src/apps/users/accounts.js';
import { createPasswordLink, findPasswordLink } from '../../../src/apps/users/links.js';
import { PasswordHasher } from '../../../src/apps/users/passwords.js';
import { FieldErrors } from '../../../src/resources/write-errors.js';
import { freshDatabase, type FreshDatabase } from '../../support/server.js';

const NOW = 1_700_000_000_000_000;
const HOUR = 3600 * 1_000_000;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
// Few iterations: these tests are about what is stored and voided, not the hashing's cost.
const hasher = new PasswordHasher({ iterations: 1000, queueLimit: 100 });

async function passwordOf(db: Db, id: number): Promise<string> {
  return (await db.selectFrom('users').select('password').where('id', '=', id).executeTakeFirstOrThrow()).password;
}

/** Session rows as sessions.ts keeps them: the SHA-256 of each id. */
async function addSessions(db: Db, userId: number, ids: string[]): Promise<void> {
  for (const id of ids) {
    await db
      .insertInto('sessions')
      .values({ id_hash: sha256(id), user_id: userId, created_us: NOW, last_seen_us: NOW, expires_us: NOW + 24 * HOUR })
      .execute();
  }
}

async function sessionHashesOf(db: Db, userId: number): Promise<string[]> {
  return (await db.selectFrom('sessions').select('id_hash').where('user_id', '=', userId).orderBy('id_hash').execute()).map((row) => row.id_hash);
}

describe('setting passwords (members.md §1 and §4)', () => {
  let fresh: FreshDatabase;
  let db: Db;
  let ada: number;
  let bob: number;
  before(async () => {
    fresh = await freshDatabase();
    db = fresh.handle.db;
    ada = await writeTransaction(db, (trx) => createMember(trx, { username: 'ada', email: 'ada@members.example', superuser: false }, NOW));
    bob = await writeTransaction(db, (trx) => createMember(trx, { username: 'bob', email: 'bob@members.example', superuser: false }, NOW));
  });
  after(() => fresh.cleanup());

  it('setPassword stores a pbkdf2_sha256 hash that verifies, voids the links and ends the other sessions', async () => {
    const invitation = await createPasswordLink(db, ada, 'invitation', NOW);
    const reset = await createPasswordLink(db, ada, 'reset', NOW);
    const bobsLink = await createPasswordLink(db, bob, 'reset', NOW);
    await addSessions(db, ada, ['ada-phone', 'ada-laptop', 'ada-here']);
    await addSessions(db, bob, ['bob-phone']);
    assert.equal(await setPassword(db, hasher, ada, 'correct horse battery staple', NOW + 1, 'ada-here'), true);
    const stored = await passwordOf(db, ada);
    assert.match(stored, /^pbkdf2_sha256\$1000\$[A-Za-z0-9]{22,}\$[A-Za-z0-9+/]+=*$/);
    assert.deepEqual(await hasher.verify(stored, 'correct horse battery staple'), { matches: true, upgraded: null });
    assert.equal(await findPasswordLink(db, invitation, NOW + 2), null, 'void after a password change');
    assert.equal(await findPasswordLink(db, reset, NOW + 2), null);
    assert.deepEqual(await sessionHashesOf(db, ada), [sha256('ada-here')], 'only the session that changed it stays');
    assert.deepEqual(await sessionHashesOf(db, bob), [sha256('bob-phone')], "another member's sessions stay");
    assert.ok(await findPasswordLink(db, bobsLink, NOW + 2), "another member's links stay");
  });

  it('setPassword without a session to keep ends them all; an unknown member is false', async () => {
    await addSessions(db, ada, ['ada-tablet']);
    await setPassword(db, hasher, ada, 'another long passphrase', NOW + 3);
    assert.deepEqual(await sessionHashesOf(db, ada), []);
    assert.equal(await setPassword(db, hasher, 999_999, 'another long passphrase', NOW + 3), false);
  });

  it('refuses a password against the rules, saying which, and changes nothing', async () => {
    const before = await passwordOf(db, ada);
    for (const [password, rule] of [
      ['short', /too short/],
      ['1234567890123', /entirely numeric/],
      ['password123', /too common/],
      ['ada@members.example', /too similar to the e-mail address/],
    ] as const) {
      await assert.rejects(setPassword(db, hasher, ada, password, NOW + 4), (error: unknown) => error instanceof PasswordRejected && rule.test(error.message));
    }
    assert.equal(await passwordOf(db, ada), before);
  });

  it('setPasswordWithLink sets the password once; the link is then used, and refused again', async () => {
    const token = await createPasswordLink(db, bob, 'invitation', NOW);
    await addSessions(db, bob, ['bob-old']);
    assert.equal(await setPasswordWithLink(db, hasher, token, 'bobs new passphrase', NOW + HOUR), bob);
    assert.equal((await hasher.verify(await passwordOf(db, bob), 'bobs new passphrase')).matches, true);
    assert.deepEqual(await sessionHashesOf(db, bob), [], 'a reset ends every session');
    await assert.rejects(setPasswordWithLink(db, hasher, token, 'yet another passphrase', NOW + HOUR + 1), LinkNotValid);
    assert.equal((await hasher.verify(await passwordOf(db, bob), 'bobs new passphrase')).matches, true);
  });

  it('setPasswordWithLink refuses an expired link and, keeping the link, a password against the rules', async () => {
    const expired = await createPasswordLink(db, bob, 'reset', NOW);
    await assert.rejects(setPasswordWithLink(db, hasher, expired, 'fresh passphrase here', NOW + HOUR), LinkNotValid);
    const token = await createPasswordLink(db, bob, 'reset', NOW + 2 * HOUR);
    await assert.rejects(setPasswordWithLink(db, hasher, token, 'bob', NOW + 2 * HOUR), PasswordRejected);
    assert.ok(await findPasswordLink(db, token, NOW + 2 * HOUR), 'a refused password does not use the link up');
    await assert.rejects(setPasswordWithLink(db, hasher, 'not-a-token', 'fresh passphrase here', NOW), LinkNotValid);
  });

  it('two uses of one link at once: one sets the password, the other is refused', async () => {
    const token = await createPasswordLink(db, ada, 'reset', NOW + 5 * HOUR);
    const results = await Promise.allSettled([
      setPasswordWithLink(db, hasher, token, 'first racer passphrase', NOW + 5 * HOUR),
      setPasswordWithLink(db, hasher, token, 'second racer passphrase', NOW + 5 * HOUR),
    ]);
    assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
    assert.ok(results.some((r) => r.status === 'rejected' && r.reason instanceof LinkNotValid));
    const winner = results[0].status === 'fulfilled' ? 'first racer passphrase' : 'second racer passphrase';
    assert.equal((await hasher.verify(await passwordOf(db, ada), winner)).matches, true);
  });

  it('the first-superuser link does not set a member password', async () => {
    const other = await freshDatabase();
    try {
      const token = (await writeTransaction(other.handle.db, (trx) => renewFirstSuperuserLink(trx, NOW)))!;
      await assert.rejects(setPasswordWithLink(other.handle.db, hasher, token, 'fresh passphrase here', NOW), LinkNotValid);
    } finally {
      await other.cleanup();
    }
  });
});

describe('createFirstSuperuser (members.md §4, A new installation)', () => {
  let fresh: FreshDatabase;
  let db: Db;
  before(async () => {
    fresh = await freshDatabase();
    db = fresh.handle.db;
  });
  after(() => fresh.cleanup());

  it('creates an active superuser with the password, once; then the link is void and no other start offers one', async () => {
    const token = (await writeTransaction(db, (trx) => renewFirstSuperuserLink(trx, NOW)))!;
    await assert.rejects(
      createFirstSuperuser(db, hasher, token, { username: 'root', email: 'root@space.example', password: 'root' }, NOW),
      (error: unknown) => error instanceof PasswordRejected && /too short/.test(error.message),
    );
    await assert.rejects(
      createFirstSuperuser(db, hasher, 'x'.repeat(43), { username: 'root', email: 'root@space.example', password: 'a long passphrase here' }, NOW),
      LinkNotValid,
    );
    const id = await createFirstSuperuser(db, hasher, token, { username: 'root', email: 'root@space.example', password: 'a long passphrase here' }, NOW + 1);
    const row = await db.selectFrom('users').select(['username', 'email', 'is_superuser', 'is_active', 'password']).where('id', '=', id).executeTakeFirstOrThrow();
    assert.deepEqual({ ...row, password: undefined }, { username: 'root', email: 'root@space.example', is_superuser: 1, is_active: 1, password: undefined });
    assert.equal((await hasher.verify(row.password, 'a long passphrase here')).matches, true);
    assert.equal(await findPasswordLink(db, token, NOW + 2), null);
    await assert.rejects(createFirstSuperuser(db, hasher, token, { username: 'root2', email: 'r2@space.example', password: 'a long passphrase here' }, NOW + 2), SuperuserExists);
    assert.equal(await writeTransaction(db, (trx) => renewFirstSuperuserLink(trx, NOW + 3)), null);
  });

  it('a link made before another superuser appeared is refused, as is a taken username', async () => {
    const other = await freshDatabase();
    try {
      const odb = other.handle.db;
      await writeTransaction(odb, (trx) => createMember(trx, { username: 'Taken', email: 't@space.example', superuser: false }, NOW));
      const token = (await writeTransaction(odb, (trx) => renewFirstSuperuserLink(trx, NOW)))!;
      await assert.rejects(createFirstSuperuser(odb, hasher, token, { username: 'TAKEN', email: 'x@space.example', password: 'a long passphrase here' }, NOW), FieldErrors);
      assert.ok(await findPasswordLink(odb, token, NOW), 'a refused form does not use the link up');
      await writeTransaction(odb, (trx) => createMember(trx, { username: 'cli-root', email: 'c@space.example', superuser: true }, NOW));
      await assert.rejects(createFirstSuperuser(odb, hasher, token, { username: 'root', email: 'root@space.example', password: 'a long passphrase here' }, NOW), SuperuserExists);
    } finally {
      await other.cleanup();
    }
  });
});
