import assert from 'node:assert/strict';
import { pbkdf2Sync } from 'node:crypto';
import fs from 'node:fs';
import { after, before, beforeEach, describe, it } from 'node:test';
import { configFrom } from '../../../src/config.js';
import { openDatabase, type DatabaseHandle, type Db } from '../../../src/db/connection.js';
import { writeTransaction } from '../../../src/db/write-transaction.js';
import { logIn } from '../../../src/apps/users/login.js';
import { loginWait } from '../../../src/apps/users/login-throttle.js';
import { HashingBusy, PasswordHasher } from '../../../src/apps/users/passwords.js';
import { freshDatabase, type FreshDatabase } from '../../support/server.js';

/** Hashes Django made (members.md §1's data file). */
const fixture = JSON.parse(fs.readFileSync(new URL('../../fixtures/django-password-hashes.json', import.meta.url), 'utf8')) as {
  unusable: string;
  hashes: { format: string; password: string; hash: string }[];
};
const fixtureHash = (prefix: string) => fixture.hashes.find((entry) => entry.hash.startsWith(prefix))!;
/** Cheap iterations for the tests' new and upgraded hashes (PASSWORD_ITERATIONS in production). */
const ITERATIONS = 1000;
const NOW = 1_800_000_000_000_000;
const MINUTE_US = 60_000_000;
const HOME = '192.0.2.1';
const ELSEWHERE = '198.51.100.7';

interface NewUser {
  username: string;
  email: string;
  password: string;
  isActive?: boolean;
}

async function addUser(db: Db, user: NewUser): Promise<number> {
  return writeTransaction(db, async (trx) => {
    const row = await trx
      .insertInto('users')
      .values({
        username: user.username,
        email: user.email,
        has_key: 0,
        password: user.password,
        created_us: NOW,
        edited_us: NOW,
        first_name: 'First',
        last_name: 'Last',
        is_active: user.isActive === false ? 0 : 1,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  });
}

async function storedUser(db: Db, id: number) {
  return db.selectFrom('users').select(['password', 'last_login_us']).where('id', '=', id).executeTakeFirstOrThrow();
}

/** Django's pbkdf2_sha256 check, written out from the spec: PBKDF2-HMAC-SHA256, 32 bytes, the salt as UTF-8. */
function djangoPbkdf2Matches(stored: string, password: string): boolean {
  const [algorithm, iterations, salt, digest] = stored.split('$');
  return algorithm === 'pbkdf2_sha256' && pbkdf2Sync(password, salt, Number(iterations), 32, 'sha256').toString('base64') === digest;
}

describe('password login', () => {
  let fresh: FreshDatabase;
  let db: Db;
  const hasher = new PasswordHasher({ iterations: ITERATIONS, concurrency: 2, queueLimit: 100 });
  const users: Record<string, number> = {};
  const ALICE_PASSWORD = 'alice in hackerland';

  before(async () => {
    fresh = await freshDatabase();
    db = fresh.handle.db;
    users.alice = await addUser(db, { username: 'Alice', email: 'Alice@Example.org', password: await hasher.hash(ALICE_PASSWORD) });
    users.carol = await addUser(db, { username: 'carol', email: 'carol@example.org', password: await hasher.hash(ALICE_PASSWORD), isActive: false });
    users.dave = await addUser(db, { username: 'dave', email: 'dave@example.org', password: fixture.unusable });
    users.empty = await addUser(db, { username: 'empty', email: 'empty@example.org', password: '' });
    users.eve1 = await addUser(db, { username: 'eve1', email: 'shared@example.org', password: await hasher.hash(ALICE_PASSWORD) });
    users.eve2 = await addUser(db, { username: 'eve2', email: 'Shared@example.org', password: await hasher.hash('another password') });
  });
  beforeEach(() => db.deleteFrom('login_failures').execute());
  after(() => fresh.cleanup());

  it('logs in with the username in any case, and sets last_login_us', async () => {
    for (const [i, typed] of ['Alice', 'alice', 'ALICE', '  aLiCe '].entries()) {
      const result = await logIn(db, hasher, { username: typed, password: ALICE_PASSWORD, client: HOME }, NOW + i);
      assert.deepEqual(result, { kind: 'ok', member: { id: users.alice, username: 'Alice', firstName: 'First', lastName: 'Last', isSuperuser: false, language: null } }, typed);
      assert.equal((await storedUser(db, users.alice)).last_login_us, NOW + i);
    }
  });

  it('ignores case in the full Unicode sense, as usernames are kept unique, and throttles the variants together', async () => {
    const id = await addUser(db, { username: 'Straße', email: 'strasse@example.org', password: await hasher.hash(ALICE_PASSWORD) });
    for (const typed of ['STRASSE', 'straße', 'Ｓｔｒａｓｓｅ']) {
      const result = await logIn(db, hasher, { username: typed, password: ALICE_PASSWORD, client: HOME }, NOW);
      assert.equal(result.kind === 'ok' && result.member.id, id, typed);
    }
    for (let i = 0; i < 5; i++) await logIn(db, hasher, { username: i % 2 ? 'STRASSE' : 'straße', password: 'wrong', client: HOME }, NOW + i);
    assert.deepEqual(await logIn(db, hasher, { username: 'Strasse', password: ALICE_PASSWORD, client: HOME }, NOW + 5), { kind: 'throttled', retryAfterSeconds: 15 * 60 });
  });

  it('logs in with the e-mail address in any case, unless several accounts share it', async () => {
    const result = await logIn(db, hasher, { username: 'alice@EXAMPLE.org', password: ALICE_PASSWORD, client: HOME }, NOW);
    assert.equal(result.kind === 'ok' && result.member.id, users.alice);
    assert.deepEqual(await logIn(db, hasher, { username: 'shared@example.org', password: ALICE_PASSWORD, client: HOME }, NOW), { kind: 'wrong' });
    const byName = await logIn(db, hasher, { username: 'eve1', password: ALICE_PASSWORD, client: HOME }, NOW);
    assert.equal(byName.kind === 'ok' && byName.member.id, users.eve1);
  });

  it('answers wrong for a wrong password, an unknown name, an inactive account or an unusable password', async () => {
    const attempts = [
      { username: 'alice', password: 'not the password' },
      { username: 'alice', password: '' },
      { username: 'nobody', password: ALICE_PASSWORD },
      { username: '', password: ALICE_PASSWORD },
      { username: 'carol', password: ALICE_PASSWORD },
      { username: 'dave', password: '' },
      { username: 'dave', password: fixture.unusable },
      { username: 'empty', password: '' },
    ];
    for (const attempt of attempts) {
      assert.deepEqual(await logIn(db, hasher, { ...attempt, client: `10.0.0.${attempts.indexOf(attempt)}` }, NOW), { kind: 'wrong' }, JSON.stringify(attempt));
    }
    assert.equal((await storedUser(db, users.carol)).last_login_us, null);
    assert.equal((await storedUser(db, users.dave)).password, fixture.unusable, 'nothing written over');
    assert.equal(
      Number(
        (
          await db
            .selectFrom('login_failures')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      ),
      attempts.length,
      'each failure counted',
    );
  });

  it('does the hashing for an unknown name, an inactive account and an unusable password too', async () => {
    // A hasher whose one slot is taken and whose queue is empty refuses any hashing: each of these reaches it.
    const busy = new PasswordHasher({ iterations: 3_000_000, concurrency: 1, queueLimit: 0 });
    const holding = busy.hash('occupies the only slot');
    try {
      for (const username of ['nobody', 'carol', 'dave', 'empty', 'alice']) {
        await assert.rejects(logIn(db, busy, { username, password: 'whatever it is', client: HOME }, NOW), HashingBusy, username);
      }
    } finally {
      await holding;
    }
    assert.equal(await loginWait(db, 'nobody', HOME, NOW), 0);
    assert.equal(
      Number(
        (
          await db
            .selectFrom('login_failures')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      ),
      0,
      'a busy hasher records no failure',
    );
  });

  it('upgrades a hash of another format or other iterations to pbkdf2_sha256 with the configured iterations, in the same call', async () => {
    for (const prefix of ['pbkdf2_sha256$20000$', 'md5$', 'argon2$argon2i$v=19$m=512']) {
      const { password, hash } = fixtureHash(prefix);
      const name = `upgrade-${prefix.split('$')[0]}`;
      const id = await addUser(db, { username: name, email: `${name}@example.org`, password: hash });
      assert.deepEqual(await logIn(db, hasher, { username: name, password: 'wrong', client: HOME }, NOW), { kind: 'wrong' });
      assert.equal((await storedUser(db, id)).password, hash, 'a failure changes nothing');
      const result = await logIn(db, hasher, { username: name, password, client: HOME }, NOW + 1);
      assert.equal(result.kind, 'ok', prefix);
      const stored = await storedUser(db, id);
      assert.match(stored.password, new RegExp(`^pbkdf2_sha256\\$${ITERATIONS}\\$[A-Za-z0-9]{22,}\\$`));
      assert.ok(djangoPbkdf2Matches(stored.password, password), 'the new hash is Django’s of the same password');
      assert.equal(stored.last_login_us, NOW + 1);
      // The next login checks the new hash, and keeps it.
      assert.equal((await logIn(db, hasher, { username: name, password, client: HOME }, NOW + 2)).kind, 'ok');
      assert.equal((await storedUser(db, id)).password, stored.password);
    }
    const current = (await storedUser(db, users.alice)).password;
    await logIn(db, hasher, { username: 'alice', password: ALICE_PASSWORD, client: HOME }, NOW);
    assert.equal((await storedUser(db, users.alice)).password, current, 'a current hash is kept');
  });

  it('throttles a name and client after 5 failures, before any hashing and whatever the password; the owner elsewhere still logs in', async () => {
    for (let i = 0; i < 5; i++) {
      assert.deepEqual(await logIn(db, hasher, { username: 'alice', password: `guess ${i}`, client: HOME }, NOW + i * MINUTE_US), { kind: 'wrong' });
    }
    // The oldest failure (NOW) leaves the 15 minutes' window 10 minutes after NOW + 5 min.
    const busy = new PasswordHasher({ iterations: 3_000_000, concurrency: 1, queueLimit: 0 });
    const holding = busy.hash('occupies the only slot');
    try {
      const throttled = await logIn(db, busy, { username: 'alice', password: ALICE_PASSWORD, client: HOME }, NOW + 5 * MINUTE_US);
      assert.deepEqual(throttled, { kind: 'throttled', retryAfterSeconds: 600 }, 'refused without hashing (a busy hasher would have thrown)');
    } finally {
      await holding;
    }
    assert.deepEqual(await logIn(db, hasher, { username: 'ALICE', password: 'guess 5', client: HOME }, NOW + 5 * MINUTE_US), { kind: 'throttled', retryAfterSeconds: 600 });
    const owner = await logIn(db, hasher, { username: 'alice', password: ALICE_PASSWORD, client: ELSEWHERE }, NOW + 5 * MINUTE_US);
    assert.equal(owner.kind, 'ok');
    assert.equal((await logIn(db, hasher, { username: 'alice', password: ALICE_PASSWORD, client: HOME }, NOW + 15 * MINUTE_US)).kind, 'ok', 'after the wait');
  });

  it('survives 1,000 wrong passwords for one account from one address: 5 counted, the rest throttled, the owner elsewhere unaffected', async () => {
    const kinds = new Map<string, number>();
    for (let i = 0; i < 1000; i++) {
      const result = await logIn(db, hasher, { username: 'alice', password: `guess ${i}`, client: HOME }, NOW + i * 100_000);
      kinds.set(result.kind, (kinds.get(result.kind) ?? 0) + 1);
    }
    assert.deepEqual(Object.fromEntries(kinds), { wrong: 5, throttled: 995 });
    assert.equal(
      Number(
        (
          await db
            .selectFrom('login_failures')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      ),
      5,
    );
    assert.equal((await logIn(db, hasher, { username: 'alice', password: ALICE_PASSWORD, client: ELSEWHERE }, NOW + 1000 * 100_000)).kind, 'ok');
  });

  it('clears its pair’s failures on success', async () => {
    for (let i = 0; i < 4; i++) await logIn(db, hasher, { username: 'alice', password: `guess ${i}`, client: HOME }, NOW + i);
    assert.equal((await logIn(db, hasher, { username: 'Alice', password: ALICE_PASSWORD, client: HOME }, NOW + 4)).kind, 'ok');
    for (let i = 0; i < 4; i++) await logIn(db, hasher, { username: 'alice', password: `guess ${i}`, client: HOME }, NOW + 5 + i);
    assert.equal(await loginWait(db, 'alice', HOME, NOW + 10), 0, 'four since the success: no wait');
  });
});

describe('password login throttled across two processes', () => {
  let fresh: FreshDatabase;
  let other: DatabaseHandle;
  const hasher = new PasswordHasher({ iterations: ITERATIONS, concurrency: 2, queueLimit: 100 });
  before(async () => {
    fresh = await freshDatabase();
    other = await openDatabase(configFrom({ DATABASE_URL: fresh.url }).database);
    await addUser(fresh.handle.db, { username: 'alice', email: 'alice@example.org', password: await hasher.hash('the right one') });
  });
  after(async () => {
    await other.close();
    await fresh.cleanup();
  });

  it('failures through one handle throttle logins through the other', async () => {
    for (let i = 0; i < 5; i++) {
      const db = i % 2 === 0 ? fresh.handle.db : other.db;
      assert.deepEqual(await logIn(db, hasher, { username: 'alice', password: 'wrong', client: HOME }, NOW + i * MINUTE_US), { kind: 'wrong' });
    }
    assert.deepEqual(await logIn(other.db, hasher, { username: 'alice', password: 'the right one', client: HOME }, NOW + 5 * MINUTE_US), {
      kind: 'throttled',
      retryAfterSeconds: 600,
    });
    assert.equal((await logIn(other.db, hasher, { username: 'alice', password: 'the right one', client: ELSEWHERE }, NOW + 5 * MINUTE_US)).kind, 'ok');
  });
});
