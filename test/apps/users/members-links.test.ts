import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { writeTransaction } from '../../../src/db/write-transaction.js';
import { createMember, renewFirstSuperuserLink } from '../../../src/apps/users/accounts.js';
import { createPasswordLink, findPasswordLink, usePasswordLink } from '../../../src/apps/users/links.js';
import { FieldErrors } from '../../../src/resources/write-errors.js';
import { freshDatabase, type FreshDatabase } from '../../support/server.js';

const NOW = 1_700_000_000_000_000;
const HOUR = 3600 * 1_000_000;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('set-password links (members.md §4)', () => {
  let fresh: FreshDatabase;
  let ada: number;
  before(async () => {
    fresh = await freshDatabase();
    ada = await writeTransaction(fresh.handle.db, (trx) => createMember(trx, { username: 'ada', email: 'ada@members.example', superuser: false }, NOW));
  });
  after(() => fresh.cleanup());
  const db = () => fresh.handle.db;

  it('a token is 256 random bits in base64url, stored only as its SHA-256', async () => {
    const token = await createPasswordLink(db(), ada, 'invitation', NOW);
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(Buffer.from(token, 'base64url').length, 32);
    const rows = await db().selectFrom('password_links').selectAll().where('user_id', '=', ada).execute();
    const row = rows.find((r) => r.token_hash === sha256(token));
    assert.ok(row, 'found by its SHA-256');
    assert.ok(!rows.some((r) => Object.values(r).some((v) => String(v).includes(token))), 'the token itself is stored nowhere');
    assert.notEqual(await createPasswordLink(db(), ada, 'invitation', NOW), token, 'each link is new');
  });

  it('an invitation works for 72 hours, a reset for 1 hour', async () => {
    const invitation = await createPasswordLink(db(), ada, 'invitation', NOW);
    assert.deepEqual(await findPasswordLink(db(), invitation, NOW), { userId: ada, purpose: 'invitation', username: 'ada', expiresUs: NOW + 72 * HOUR });
    assert.ok(await findPasswordLink(db(), invitation, NOW + 72 * HOUR - 1));
    assert.equal(await findPasswordLink(db(), invitation, NOW + 72 * HOUR), null);
    const reset = await createPasswordLink(db(), ada, 'reset', NOW);
    assert.equal((await findPasswordLink(db(), reset, NOW + HOUR - 1))?.purpose, 'reset');
    assert.equal(await findPasswordLink(db(), reset, NOW + HOUR), null);
  });

  it('unknown, malformed and tampered tokens open nothing', async () => {
    const token = await createPasswordLink(db(), ada, 'reset', NOW);
    for (const wrong of ['', 'x', token.slice(0, -1), `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`, `${token}A`, sha256(token), '../../etc/passwd']) {
      assert.equal(await findPasswordLink(db(), wrong, NOW), null, JSON.stringify(wrong));
    }
  });

  it('is used once: the second use, and any later look-up, finds nothing', async () => {
    const token = await createPasswordLink(db(), ada, 'reset', NOW);
    const first = await writeTransaction(db(), (trx) => usePasswordLink(trx, token, NOW + 1));
    assert.equal(first?.userId, ada);
    assert.equal(await writeTransaction(db(), (trx) => usePasswordLink(trx, token, NOW + 2)), null);
    assert.equal(await findPasswordLink(db(), token, NOW + 3), null);
  });

  it('a use rolled back with its transaction leaves the link working', async () => {
    const token = await createPasswordLink(db(), ada, 'reset', NOW);
    await assert.rejects(
      writeTransaction(db(), async (trx) => {
        assert.ok(await usePasswordLink(trx, token, NOW + 1));
        throw new Error('the page failed after using the link');
      }),
      /page failed/,
    );
    assert.ok(await findPasswordLink(db(), token, NOW + 2));
  });

  it('stops working when its member is deactivated', async () => {
    const bob = await writeTransaction(db(), (trx) => createMember(trx, { username: 'bob', email: 'bob@members.example', superuser: false }, NOW));
    const token = await createPasswordLink(db(), bob, 'invitation', NOW);
    await db().updateTable('users').set({ is_active: 0 }).where('id', '=', bob).execute();
    assert.equal(await findPasswordLink(db(), token, NOW), null);
  });

  it('the first-superuser link has no member and is void once an active superuser exists', async () => {
    const other = await freshDatabase();
    try {
      const odb = other.handle.db;
      const older = await writeTransaction(odb, (trx) => renewFirstSuperuserLink(trx, NOW));
      assert.ok(older);
      const token = await writeTransaction(odb, (trx) => renewFirstSuperuserLink(trx, NOW + 1));
      assert.ok(token);
      assert.equal(await findPasswordLink(odb, older, NOW + 2), null, 'a new start voids the older link');
      assert.deepEqual(await findPasswordLink(odb, token, NOW + 2), { userId: null, purpose: 'first-superuser', username: null, expiresUs: NOW + 1 + 72 * HOUR });
      // An inactive superuser does not count.
      const retired = await writeTransaction(odb, (trx) => createMember(trx, { username: 'retired', email: 'r@members.example', superuser: true }, NOW));
      await odb.updateTable('users').set({ is_active: 0 }).where('id', '=', retired).execute();
      assert.ok(await findPasswordLink(odb, token, NOW + 3));
      await writeTransaction(odb, (trx) => createMember(trx, { username: 'root', email: 'root@members.example', superuser: true }, NOW));
      assert.equal(await findPasswordLink(odb, token, NOW + 4), null);
      assert.equal(await writeTransaction(odb, (trx) => usePasswordLink(trx, token, NOW + 4)), null);
      assert.equal(await writeTransaction(odb, (trx) => renewFirstSuperuserLink(trx, NOW + 5)), null, 'no new link once there is a superuser');
    } finally {
      await other.cleanup();
    }
  });
});

describe('createMember', () => {
  let fresh: FreshDatabase;
  before(async () => {
    fresh = await freshDatabase();
  });
  after(() => fresh.cleanup());

  it('adds an active member with an unusable password, a superuser when asked', async () => {
    const db = fresh.handle.db;
    const id = await writeTransaction(db, (trx) => createMember(trx, { username: 'Grace', email: 'grace@members.example', superuser: true }, NOW));
    const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    assert.equal(row.username, 'Grace');
    assert.equal(row.email, 'grace@members.example');
    assert.equal(row.is_active, 1);
    assert.equal(row.is_superuser, 1);
    assert.equal(row.has_key, 0);
    // Django's make_password(None): "!" and 40 letters and digits.
    assert.match(row.password, /^![A-Za-z0-9]{40}$/);
    assert.equal(row.created_us, NOW);
  });

  it('refuses a username another member has, ignoring case', async () => {
    const db = fresh.handle.db;
    const error = await writeTransaction(db, (trx) => createMember(trx, { username: 'GRACE', email: 'g2@members.example', superuser: false }, NOW)).catch((e: unknown) => e);
    assert.ok(error instanceof FieldErrors);
    assert.deepEqual(error.errors, { username: ['A user with that username already exists.'] });
  });
});
