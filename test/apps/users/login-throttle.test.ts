import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import { configFrom } from '../../../src/config.js';
import { openDatabase, type DatabaseHandle, type Db } from '../../../src/db/connection.js';
import { clearLoginFailures, loginWait, pruneLoginFailures, recordLoginFailure } from '../../../src/apps/users/login-throttle.js';
import { freshDatabase, type FreshDatabase } from '../../support/server.js';

// The spec's rules (members.md §2): 5 per account and client within 15 minutes, 30 per client
// within 15 minutes, 100 per account from all clients within an hour.
const SECOND_US = 1_000_000;
const MINUTE_US = 60 * SECOND_US;
const NOW = 1_800_000_000_000_000;

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

describe('login throttling', () => {
  let fresh: FreshDatabase;
  let db: Db;
  before(async () => {
    fresh = await freshDatabase();
    db = fresh.handle.db;
  });
  beforeEach(() => db.deleteFrom('login_failures').execute());
  after(() => fresh.cleanup());

  it('makes a name and client pair wait after 5 failures within 15 minutes, until the oldest leaves', async () => {
    for (let i = 0; i < 4; i++) await recordLoginFailure(db, 'alice', '192.0.2.1', NOW + i * MINUTE_US);
    assert.equal(await loginWait(db, 'alice', '192.0.2.1', NOW + 4 * MINUTE_US), 0, 'four failures: no wait');
    await recordLoginFailure(db, 'alice', '192.0.2.1', NOW + 4 * MINUTE_US);
    // The oldest (NOW) leaves the window at NOW + 15 min: 10 min 59.5 s after this, so 660 s.
    assert.equal(await loginWait(db, 'alice', '192.0.2.1', NOW + 4 * MINUTE_US + SECOND_US / 2), 660);
    assert.equal(await loginWait(db, 'ALICE ', '192.0.2.1', NOW + 5 * MINUTE_US), 600, 'the name in another case, with spaces, is the same account');
    assert.equal(await loginWait(db, 'alice', '192.0.2.1', NOW + 15 * MINUTE_US - 1), 1, 'at least one second');
    assert.equal(await loginWait(db, 'alice', '192.0.2.1', NOW + 15 * MINUTE_US), 0, 'four left in the window');
    // The owner, from another address, is not held up; nor is another name from this address.
    assert.equal(await loginWait(db, 'alice', '198.51.100.7', NOW + 5 * MINUTE_US), 0);
    assert.equal(await loginWait(db, 'bob', '192.0.2.1', NOW + 5 * MINUTE_US), 0);
  });

  it('clears only its own pair on success', async () => {
    for (let i = 0; i < 5; i++) {
      await recordLoginFailure(db, 'alice', '192.0.2.1', NOW + i);
      await recordLoginFailure(db, 'alice', '198.51.100.7', NOW + i);
    }
    assert.ok((await loginWait(db, 'alice', '192.0.2.1', NOW + 10)) > 0);
    await clearLoginFailures(db, 'Alice', '192.0.2.1');
    assert.equal(await loginWait(db, 'alice', '192.0.2.1', NOW + 10), 0);
    assert.equal(await loginWait(db, 'alice', '198.51.100.7', NOW + 10), 15 * 60, "the other pair's count stays");
  });

  it('makes a client wait after 30 failures within 15 minutes, whatever the names', async () => {
    for (let i = 0; i < 29; i++) await recordLoginFailure(db, `user${i}`, '203.0.113.9', NOW + i * SECOND_US);
    assert.equal(await loginWait(db, 'someone', '203.0.113.9', NOW + MINUTE_US), 0, '29 failures: no wait');
    await recordLoginFailure(db, 'user29', '203.0.113.9', NOW + 29 * SECOND_US);
    // The oldest (NOW) leaves at NOW + 15 min: 14 min after NOW + 1 min.
    assert.equal(await loginWait(db, 'someone', '203.0.113.9', NOW + MINUTE_US), 14 * 60);
    assert.equal(await loginWait(db, 'user0', '203.0.113.10', NOW + MINUTE_US), 0, 'another client is not held up');
    // After the oldest leaves, the next oldest does not yet make 30.
    assert.equal(await loginWait(db, 'someone', '203.0.113.9', NOW + 15 * MINUTE_US), 0);
  });

  it("makes an account's password logins wait after 100 failures within an hour from all clients", async () => {
    // 100 clients, one failure each, 30 s apart: no pair and no client reaches its limit.
    for (let i = 0; i < 99; i++) await recordLoginFailure(db, 'alice', `10.0.${i >> 8}.${i & 255}`, NOW + i * 30 * SECOND_US);
    const last = NOW + 99 * 30 * SECOND_US;
    assert.equal(await loginWait(db, 'alice', '198.51.100.7', last), 0, '99 failures: no wait');
    await recordLoginFailure(db, 'alice', '10.0.0.99', last);
    // The oldest (NOW) leaves at NOW + 60 min: 60 - 49.5 minutes after the last one.
    assert.equal(await loginWait(db, 'alice', '198.51.100.7', last), 630, 'the owner waits too');
    assert.equal(await loginWait(db, 'alice@example.org', '198.51.100.7', last), 0, 'the rule counts what was typed');
    assert.equal(await loginWait(db, 'bob', '10.0.0.1', last), 0);
    assert.equal(await loginWait(db, 'alice', '198.51.100.7', NOW + 60 * MINUTE_US), 0);
  });

  it('answers the longest wait when several rules apply', async () => {
    for (let i = 0; i < 25; i++) await recordLoginFailure(db, `user${i}`, '203.0.113.9', NOW);
    for (let i = 0; i < 5; i++) await recordLoginFailure(db, 'alice', '203.0.113.9', NOW + 10 * MINUTE_US);
    // The client's oldest leaves at NOW + 15 min (5 min from now); the pair's at NOW + 25 min (15 min).
    assert.equal(await loginWait(db, 'alice', '203.0.113.9', NOW + 10 * MINUTE_US), 15 * 60);
    assert.equal(await loginWait(db, 'bob', '203.0.113.9', NOW + 10 * MINUTE_US), 5 * 60);
  });

  it('counts an IPv6 client by its /64, and an IPv4-mapped address as IPv4', async () => {
    for (let i = 0; i < 5; i++) await recordLoginFailure(db, 'alice', `2001:db8:1:2::${i + 1}`, NOW + i);
    assert.ok((await loginWait(db, 'alice', '2001:0db8:0001:0002:ffff:ffff:ffff:ffff', NOW + 10)) > 0);
    assert.equal(await loginWait(db, 'alice', '2001:db8:1:3::1', NOW + 10), 0);
    for (let i = 0; i < 5; i++) await recordLoginFailure(db, 'bob', '::ffff:192.0.2.1', NOW + i);
    assert.ok((await loginWait(db, 'bob', '192.0.2.1', NOW + 10)) > 0);
  });

  it('stores no name, only its hash, and prunes failures older than an hour in batches', async () => {
    await recordLoginFailure(db, ' Alice@Example.org ', '192.0.2.1', NOW);
    const [row] = await db.selectFrom('login_failures').selectAll().execute();
    assert.equal(row.account, sha256('alice@example.org'));
    assert.ok(!Object.values(row).some((value) => /alice|example/i.test(String(value))));

    for (let i = 0; i < 150; i++)
      await db
        .insertInto('login_failures')
        .values({ time_us: NOW + i, account: 'x', client: 'y' })
        .execute();
    const count = async () =>
      Number(
        (
          await db
            .selectFrom('login_failures')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    assert.equal(await pruneLoginFailures(db, NOW + 60 * MINUTE_US - 1), 0, 'nothing is an hour old yet');
    // A failure an hour and a bit later prunes one batch of 100 on its way in.
    await recordLoginFailure(db, 'bob', '192.0.2.1', NOW + 61 * MINUTE_US);
    assert.equal(await count(), 151 + 1 - 100);
    assert.equal(await pruneLoginFailures(db, NOW + 61 * MINUTE_US), 51);
    assert.equal(await count(), 1);
  });
});

describe('login throttling shared by two processes', () => {
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

  it('counts failures recorded through either handle together', async () => {
    for (let i = 0; i < 5; i++) await recordLoginFailure(i % 2 === 0 ? fresh.handle.db : other.db, 'alice', '192.0.2.1', NOW + i * MINUTE_US);
    assert.equal(await loginWait(other.db, 'alice', '192.0.2.1', NOW + 5 * MINUTE_US), 10 * 60);
    assert.equal(await loginWait(fresh.handle.db, 'alice', '192.0.2.1', NOW + 5 * MINUTE_US), 10 * 60);
    await clearLoginFailures(fresh.handle.db, 'alice', '192.0.2.1');
    assert.equal(await loginWait(other.db, 'alice', '192.0.2.1', NOW + 5 * MINUTE_US), 0);
  });
});
