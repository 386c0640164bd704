import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { configFrom } from '../../../src/config.js';
import { openDatabase, type DatabaseHandle, type Db } from '../../../src/db/connection.js';
import { writeTransaction } from '../../../src/db/write-transaction.js';
import { endSession, endSessionsOf, findSession, hashSecretId, newSecret, pruneExpiredSessions, startSession } from '../../../src/apps/users/sessions.js';
import { freshDatabase, type FreshDatabase } from '../../support/server.js';

const HOUR_US = 3_600_000_000;
const DAY_US = 24 * HOUR_US;
/** SESSION_DAYS' default (members.md §2). */
const DAYS = 14;
const NOW = 1_800_000_000_000_000;

async function addUser(db: Db, username: string, fields: { isActive?: boolean; isSuperuser?: boolean } = {}): Promise<number> {
  return writeTransaction(db, async (trx) => {
    const row = await trx
      .insertInto('users')
      .values({
        username,
        email: `${username}@example.org`,
        has_key: 0,
        password: '!unusable',
        created_us: NOW,
        edited_us: NOW,
        first_name: `First ${username}`,
        last_name: `Last ${username}`,
        is_active: fields.isActive === false ? 0 : 1,
        is_superuser: fields.isSuperuser ? 1 : 0,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  });
}

async function sessionRows(db: Db) {
  return db.selectFrom('sessions').selectAll().orderBy('created_us').execute();
}

describe('member sessions', () => {
  let fresh: FreshDatabase;
  let db: Db;
  let alice: number;
  let bob: number;
  before(async () => {
    fresh = await freshDatabase();
    db = fresh.handle.db;
    alice = await addUser(db, 'alice', { isSuperuser: true });
    bob = await addUser(db, 'bob');
  });
  after(() => fresh.cleanup());

  it('makes secrets of 256 random bits in base64url, hashed as SHA-256 hex', () => {
    const a = newSecret();
    assert.match(a, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(Buffer.from(a, 'base64url').length, 32);
    assert.notEqual(newSecret(), a);
    // `printf %s session-test-vector | sha256sum`
    assert.equal(hashSecretId('session-test-vector'), '8648c3cf0a3031bc1b926e2a63c523b8418e2b045a66103c68bbb4bcadf2b7df');
  });

  it('starts a new session each time, stored only as the SHA-256 of its id', async () => {
    const first = await startSession(db, alice, NOW, DAYS);
    const second = await startSession(db, alice, NOW, DAYS);
    assert.notEqual(first, second);
    const rows = (await sessionRows(db)).filter((row) => row.user_id === alice);
    assert.deepEqual(rows.map((row) => row.id_hash).sort(), [hashSecretId(first), hashSecretId(second)].sort());
    for (const row of rows) {
      assert.ok(!Object.values(row).some((value) => String(value).includes(first) || String(value).includes(second)), 'no id in clear');
      assert.equal(row.created_us, NOW);
      assert.equal(row.last_seen_us, NOW);
      assert.equal(row.expires_us, NOW + DAYS * DAY_US);
    }
  });

  it('finds a session by its id, with its member; not by a guessed id or its hash', async () => {
    const id = await startSession(db, alice, NOW, DAYS);
    assert.deepEqual(await findSession(db, id, NOW + 1, DAYS), {
      member: { id: alice, username: 'alice', firstName: 'First alice', lastName: 'Last alice', isSuperuser: true, language: null },
      idHash: hashSecretId(id),
      expiresUs: NOW + DAYS * DAY_US,
      startedUs: NOW,
    });
    assert.equal(await findSession(db, newSecret(), NOW + 1, DAYS), null);
    assert.equal(await findSession(db, hashSecretId(id), NOW + 1, DAYS), null, 'the stored hash is not a key');
    assert.equal(await findSession(db, id.slice(0, -1), NOW + 1, DAYS), null);
    assert.equal(await findSession(db, '', NOW + 1, DAYS), null);
    assert.equal(await findSession(db, 'x'.repeat(100_000), NOW + 1, DAYS), null);
  });

  it('ends a session SESSION_DAYS after its last use', async () => {
    const id = await startSession(db, bob, NOW, DAYS);
    assert.notEqual(await findSession(db, id, NOW + DAYS * DAY_US - 1, DAYS), null, 'a microsecond before the end (this use slides it)');
    const idle = await startSession(db, bob, NOW, DAYS);
    assert.equal(await findSession(db, idle, NOW + DAYS * DAY_US, DAYS), null, 'at its end');
    assert.equal(await findSession(db, idle, NOW + DAYS * DAY_US + HOUR_US, DAYS), null);
  });

  it('moves the expiry at most once an hour', async () => {
    const id = await startSession(db, bob, NOW, DAYS);
    const hash = hashSecretId(id);
    const stored = async () => db.selectFrom('sessions').select(['last_seen_us', 'expires_us']).where('id_hash', '=', hash).executeTakeFirstOrThrow();

    // Within the hour: nothing is written.
    const early = await findSession(db, id, NOW + HOUR_US, DAYS);
    assert.equal(early?.expiresUs, NOW + DAYS * DAY_US);
    assert.deepEqual(await stored(), { last_seen_us: NOW, expires_us: NOW + DAYS * DAY_US });

    // More than an hour later: the expiry moves to this use + SESSION_DAYS.
    const later = NOW + HOUR_US + 1;
    assert.equal((await findSession(db, id, later, DAYS))?.expiresUs, later + DAYS * DAY_US);
    assert.deepEqual(await stored(), { last_seen_us: later, expires_us: later + DAYS * DAY_US });

    // And again not until another hour has passed.
    await findSession(db, id, later + HOUR_US - 1, DAYS);
    assert.deepEqual(await stored(), { last_seen_us: later, expires_us: later + DAYS * DAY_US });

    // A session used every day lives on past its first fortnight.
    let t = later;
    for (let day = 1; day <= DAYS + 2; day++) {
      t = later + day * DAY_US;
      assert.notEqual(await findSession(db, id, t, DAYS), null, `day ${day}`);
    }
    assert.deepEqual(await stored(), { last_seen_us: t, expires_us: t + DAYS * DAY_US });
  });

  it('ends one session on logout, for good', async () => {
    const id = await startSession(db, alice, NOW, DAYS);
    const other = await startSession(db, alice, NOW, DAYS);
    await endSession(db, id);
    assert.equal(await findSession(db, id, NOW + 1, DAYS), null);
    assert.equal((await findSession(db, other, NOW + 1, DAYS))?.member.id, alice);
    assert.equal(await db.selectFrom('sessions').select('id_hash').where('id_hash', '=', hashSecretId(id)).executeTakeFirst(), undefined);
    await endSession(db, id);
    await endSession(db, 'never issued');
  });

  it('ends every session of a member, or all but one', async () => {
    const carol = await addUser(db, 'carol');
    const [a, b, c] = [await startSession(db, carol, NOW, DAYS), await startSession(db, carol, NOW, DAYS), await startSession(db, carol, NOW, DAYS)];
    const bobs = await startSession(db, bob, NOW, DAYS);
    await endSessionsOf(db, carol, b);
    assert.equal(await findSession(db, a, NOW + 1, DAYS), null);
    assert.equal((await findSession(db, b, NOW + 1, DAYS))?.member.username, 'carol');
    assert.equal(await findSession(db, c, NOW + 1, DAYS), null);
    await endSessionsOf(db, carol);
    assert.equal(await findSession(db, b, NOW + 1, DAYS), null);
    assert.equal((await findSession(db, bobs, NOW + 1, DAYS))?.member.username, 'bob', "another member's sessions stay");
  });

  it('finds no session of an inactive member', async () => {
    const dave = await addUser(db, 'dave');
    const id = await startSession(db, dave, NOW, DAYS);
    assert.equal((await findSession(db, id, NOW + 1, DAYS))?.member.id, dave);
    await writeTransaction(db, (trx) => trx.updateTable('users').set({ is_active: 0 }).where('id', '=', dave).execute());
    assert.equal(await findSession(db, id, NOW + 2, DAYS), null);
    const inactive = await addUser(db, 'erin', { isActive: false });
    assert.equal(await findSession(db, await startSession(db, inactive, NOW, DAYS), NOW + 1, DAYS), null);
  });

  it('prunes expired sessions in bounded batches, and startSession does it', async () => {
    const frank = await addUser(db, 'frank');
    const later = NOW + 100 * DAY_US;
    for (let i = 0; i < 150; i++) await startSession(db, frank, NOW - DAYS * DAY_US, DAYS);
    const count = async () => (await sessionRows(db)).length;
    const before = await count();
    const pruned = await pruneExpiredSessions(db, NOW);
    assert.equal(pruned, 100, 'one batch');
    assert.equal(await count(), before - 100);
    const live = await startSession(db, frank, later, DAYS);
    // Everything but that session has expired by `later`; startSession pruned another batch.
    assert.equal(await count(), before - 100 + 1 - Math.min(100, before - 100));
    await pruneExpiredSessions(db, later);
    await pruneExpiredSessions(db, later);
    await pruneExpiredSessions(db, later);
    assert.deepEqual(
      (await sessionRows(db)).map((row) => row.id_hash),
      [hashSecretId(live)],
    );
  });
});

describe('member sessions seen by another process', () => {
  let fresh: FreshDatabase;
  let other: DatabaseHandle;
  before(async () => {
    fresh = await freshDatabase();
    other = await openDatabase(configFrom({ DATABASE_URL: fresh.url }).database);
  });
  after(async () => {
    await other.close();
    await fresh.cleanup();
  });

  it('a session started by one handle is found, and ended, by another', async () => {
    const user = await addUser(fresh.handle.db, 'grace');
    const id = await startSession(fresh.handle.db, user, NOW, DAYS);
    assert.equal((await findSession(other.db, id, NOW + 1, DAYS))?.member.username, 'grace');
    await endSessionsOf(other.db, user);
    assert.equal(await findSession(fresh.handle.db, id, NOW + 2, DAYS), null);
  });
});
