import assert from 'node:assert/strict';
import { once } from 'node:events';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import pg from 'pg';
import { configFrom } from '../src/config.js';
import { openDatabase, type DatabaseHandle } from '../src/db/connection.js';
import { LEASE_MS, LEASE_WAIT_MS, ReadLease } from '../src/db/read-lease.js';
import { writeTransaction } from '../src/db/write-transaction.js';
import { importRecords } from '../src/installed-apps.js';
import { freshDatabase, postgresOnly, type FreshDatabase } from './support/server.js';
import { until, within } from './support/wait.js';

/** A handle of its own (as another process would have), counting the losses of its lease. */
async function openHandle(url: string) {
  const lost: Error[] = [];
  const handle = await openDatabase(configFrom({ DATABASE_URL: url }).database, { leaseLost: (error) => lost.push(error) });
  return { handle, lost };
}

/** The lease is a PostgreSQL lock: on SQLite every test here is reported as skipped, with this reason. */
const ONLY = postgresOnly('read leases are advisory locks held by a PostgreSQL session');

/** Asks for versions until the handle holds a lease; its snapshot. */
async function leaseOf(handle: DatabaseHandle) {
  let held = handle.versionsNow();
  await until(async () => {
    await handle.versions();
    held = handle.versionsNow();
    return held !== null;
  }, 'the handle to hold a lease');
  return held!;
}

async function versionOf(handle: DatabaseHandle, table: string): Promise<number> {
  const { rows } = await sql<{ version: number }>`select version from table_versions where name = ${table}`.execute(handle.db);
  return Number(rows[0].version);
}

function newUser(id: number) {
  return { model: 'users.user', pk: id, fields: { username: `leaseholder ${id}`, email: `u${id}@example.org`, has_key: false } };
}

describe('read leases (PostgreSQL)', () => {
  let fresh: FreshDatabase;
  let reader: Awaited<ReturnType<typeof openHandle>>;
  let writer: Awaited<ReturnType<typeof openHandle>>;
  /** The lease lock's key: the schema's oid * 4 + 2. */
  let leaseKey: number;

  /** Sessions holding a lease on this schema, by pid. */
  async function holders(): Promise<number[]> {
    const { rows } = await sql<{ pid: number }>`select pid from pg_locks
      where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())
        and classid = ${Math.floor(leaseKey / 2 ** 32)}::oid and objid = ${leaseKey % 2 ** 32}::oid and objsubid = 1
        and mode = 'ShareLock' and granted`.execute(writer.handle.db);
    return rows.map((row) => row.pid);
  }

  /**
   * A session that takes a lease and never lets go, as a frozen process would; `ended()` waits
   * for the server to end it and gives the error's SQLSTATE.
   */
  async function frozenHolder() {
    const client = new pg.Client({ connectionString: fresh.url });
    const firstError = new Promise<Error>((resolve) => client.once('error', resolve));
    client.on('error', () => {});
    await client.connect();
    await client.query(`select pg_advisory_lock_shared(${leaseKey})`);
    return {
      async ended(): Promise<string | undefined> {
        const error = await within(firstError, "the frozen session to be ended (its client's error event)");
        return (error as { code?: string }).code;
      },
      close: () => client.end().catch(() => {}),
    };
  }

  before(async () => {
    if (ONLY.skip) return; // nothing to set up for skipped tests
    fresh = await freshDatabase();
    reader = await openHandle(fresh.url);
    writer = await openHandle(fresh.url);
    const { rows } = await sql<{ oid: number }>`select relnamespace::bigint as oid from pg_class where oid = 'table_versions'::regclass`.execute(writer.handle.db);
    leaseKey = Number(rows[0].oid) * 4 + 2;
  });

  after(async () => {
    await reader?.handle.close();
    await writer?.handle.close();
    await fresh?.cleanup();
  });

  it('a reading handle holds a lease: the versions it answers at once are those the database has', ONLY, async () => {
    const held = await leaseOf(reader.handle);
    assert.equal(held.users.version, await versionOf(writer.handle, 'users'));
    assert.equal(await reader.handle.versions(), held, 'versions() answers the lease snapshot itself');
    assert.equal((await holders()).length, 1, 'one session holds the lease');
    assert.deepEqual(reader.lost, []);
  });

  it('a write through writeTransaction elsewhere: the reader never answers versions older than a write that returned', ONLY, async () => {
    await leaseOf(reader.handle);
    for (let i = 0; i < 25; i++) {
      const before = await versionOf(writer.handle, 'users');
      await writeTransaction(writer.handle.db, (trx) => importRecords(trx, [newUser(100 + i)]));
      // In the same tick as the write returned: the old versions are no longer trusted.
      const atOnce = reader.handle.versionsNow();
      assert.ok(atOnce === null || atOnce.users.version > before, `write ${i}: the lease snapshot right after the write`);
      const committed = await versionOf(writer.handle, 'users');
      const now = reader.handle.versionsNow();
      if (now !== null) assert.equal(now.users.version, committed, `write ${i}: the lease snapshot`);
      assert.equal((await reader.handle.versions()).users.version, committed, `write ${i}: versions()`);
    }
    // Given back for every write and taken again: nobody had to be ended.
    assert.equal((await leaseOf(reader.handle)).users.version, await versionOf(writer.handle, 'users'));
    assert.deepEqual(reader.lost, []);
    assert.deepEqual(writer.lost, []);
  });

  it('a write by hand (no announcement) waits for the lease to be given back, and is seen on the next read', ONLY, async () => {
    await leaseOf(reader.handle);
    const before = await versionOf(writer.handle, 'events');
    await sql`update table_versions set version = version + 1 where name = 'events'`.execute(writer.handle.db);
    const now = reader.handle.versionsNow();
    if (now !== null) assert.equal(now.events.version, before + 1);
    assert.equal((await reader.handle.versions()).events.version, before + 1);
    assert.equal((await leaseOf(reader.handle)).events.version, before + 1);
    assert.deepEqual(reader.lost, []);
  });

  it('writers of two handles at once, while both hold leases: every write completes, nobody is ended', ONLY, async () => {
    const second = await openHandle(fresh.url);
    try {
      await Promise.all([leaseOf(reader.handle), leaseOf(second.handle)]);
      const start = await versionOf(writer.handle, 'users');
      await Promise.all([
        (async () => {
          for (let i = 0; i < 10; i++) await writeTransaction(writer.handle.db, (trx) => importRecords(trx, [newUser(200 + i)]));
        })(),
        (async () => {
          for (let i = 0; i < 10; i++) await writeTransaction(second.handle.db, (trx) => importRecords(trx, [newUser(300 + i)]));
        })(),
      ]);
      const end = await versionOf(writer.handle, 'users');
      assert.ok(end > start);
      for (const handle of [reader.handle, second.handle]) assert.equal((await handle.versions()).users.version, end);
      assert.deepEqual([...reader.lost, ...second.lost, ...writer.lost], []);
    } finally {
      await second.handle.close();
    }
  });

  it('a holder that never lets go (a frozen process) holds writes up until its lease has expired, then is ended', ONLY, async () => {
    await leaseOf(reader.handle);
    const frozen = await frozenHolder();
    try {
      const before = await versionOf(writer.handle, 'users');
      const started = Date.now();
      const write = writeTransaction(writer.handle.db, (trx) => importRecords(trx, [newUser(400)]));
      // The behaviour under test is a wall-clock one: nothing commits while the frozen holder may still trust its lease.
      await sleep(LEASE_MS);
      assert.equal(await versionOf(writer.handle, 'users'), before, 'not committed while a lease may still be trusted');
      await write;
      const waited = Date.now() - started;
      assert.ok(waited >= LEASE_WAIT_MS - 50, `the write waited for the lease to expire (${waited} ms)`);
      const after = await versionOf(writer.handle, 'users');
      assert.ok(after > before, 'committed');
      assert.equal(await frozen.ended(), '57P01', 'the frozen session was ended');
      assert.equal((await reader.handle.versions()).users.version, after);
    } finally {
      await frozen.close();
    }
  });

  it('a writer whose statement timeout is shorter than a lease still waits it out, then ends the frozen holder', ONLY, async () => {
    const impatient = await openDatabase(configFrom({ DATABASE_URL: fresh.url, DATABASE_STATEMENT_TIMEOUT_MS: '300' }).database);
    const frozen = await frozenHolder();
    try {
      const before = await versionOf(writer.handle, 'users');
      const started = Date.now();
      await writeTransaction(impatient.db, (trx) => importRecords(trx, [newUser(450)]));
      const waited = Date.now() - started;
      assert.ok(waited >= LEASE_WAIT_MS - 50, `waited ${waited} ms`);
      assert.ok((await versionOf(writer.handle, 'users')) > before);
      assert.equal(await frozen.ended(), '57P01');
      // The writer let go of its session locks: the next write needs no wait.
      await writeTransaction(writer.handle.db, (trx) => importRecords(trx, [newUser(451)]));
      assert.deepEqual(
        await sql`select pid from pg_locks where locktype = 'advisory' and granted and mode = 'ExclusiveLock' and database = (select oid from pg_database where datname = current_database())`
          .execute(writer.handle.db)
          .then((r) => r.rows),
        [],
      );
    } finally {
      await frozen.close();
      await impatient.close();
    }
  });

  it('a lease whose connection is lost is not used; reads ask the database, and the lease comes back', ONLY, async () => {
    await leaseOf(reader.handle);
    const [pid] = await holders();
    await sql`select pg_terminate_backend(${pid}::int)`.execute(writer.handle.db);
    await until(() => reader.lost.length > 0, 'the loss of the lease to be reported');
    assert.equal(reader.lost.length, 1, 'the loss is reported');
    assert.equal(reader.handle.versionsNow(), null, 'no lease without its connection');
    await writeTransaction(writer.handle.db, (trx) => importRecords(trx, [newUser(500)]));
    assert.equal((await reader.handle.versions()).users.version, await versionOf(writer.handle, 'users'));
    await leaseOf(reader.handle);
    reader.lost.length = 0;
  });

  it('closing a handle gives its lease back', ONLY, async () => {
    const other = await openHandle(fresh.url);
    await Promise.all([leaseOf(reader.handle), leaseOf(other.handle)]);
    assert.equal((await holders()).length, 2);
    await other.handle.close();
    assert.equal(other.handle.versionsNow(), null);
    await until(async () => (await holders()).length === 1, "the closed handle's session to let go of its lease");
    assert.equal((await holders()).length, 1);
  });
});

describe('closing a read lease', () => {
  it('while its connection is being made ends at once (pg never settles a connect whose client was ended)', async () => {
    // A server that accepts the connection and never answers: the lease stays in connect() until closed.
    const accepted: net.Socket[] = [];
    const silent = net.createServer((socket) => accepted.push(socket));
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const { port } = silent.address() as net.AddressInfo;
    const lost: Error[] = [];
    const lease = new ReadLease({ url: `postgres://nobody@127.0.0.1:${port}/nothing`, adopt: () => ({}) as never, onConnectionLost: (error) => lost.push(error) });
    try {
      const connecting = once(silent, 'connection');
      assert.equal(lease.current(), null, 'no lease before its connection is made');
      await within(connecting, "the lease's connection to reach the server");
      await within(lease.close(), 'the close of a lease whose connection is being made');
      assert.equal(lease.current(), null);
      assert.deepEqual(lost, [], 'a close is no lost connection');
    } finally {
      for (const socket of accepted) socket.destroy();
      silent.close();
    }
  });
});
