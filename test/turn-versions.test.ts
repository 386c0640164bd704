import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql } from 'kysely';
import { MAX_SHARING_CONNECTIONS, TurnVersions } from '../src/cache/turn-versions.js';
import { configFrom } from '../src/config.js';
import { openDatabase, type DatabaseHandle } from '../src/db/connection.js';
import { freshDatabase, type FreshDatabase } from './support/server.js';

// The engine-independent logic, on the suite's engine: the reads are real reads of a database,
// counted; another handle commits as another process would.
describe('TurnVersions: table versions shared by the requests of one event-loop turn', () => {
  let fresh: FreshDatabase;
  let other: DatabaseHandle;
  let reads = 0;
  let connections = 1;
  let turn: TurnVersions;
  const sockets = Array.from({ length: 3 }, () => new net.Socket());

  before(async () => {
    fresh = await freshDatabase();
    other = await openDatabase(configFrom({ DATABASE_URL: fresh.url }).database);
  });
  after(async () => {
    await other?.close();
    await fresh?.cleanup();
  });

  /** A TurnVersions over versions read beforehand (get() must not wait): the read is counted. */
  async function sharing() {
    let latest = await fresh.handle.versions();
    reads = 0;
    turn = new TurnVersions(
      () => {
        reads++;
        return latest;
      },
      () => connections,
    );
    return {
      refresh: async () => {
        latest = await fresh.handle.versions();
      },
    };
  }

  async function bump(): Promise<void> {
    await sql`update table_versions set version = version + 1 where name = 'users'`.execute(other.db);
  }

  it('one read for the first request of each socket in a turn; a new one in the next turn', async () => {
    const { refresh } = await sharing();
    const first = turn.get(sockets[0]);
    assert.equal(turn.get(sockets[1]), first);
    assert.equal(turn.get(sockets[2]), first);
    assert.equal(reads, 1);
    await bump();
    await refresh();
    await nextTurn();
    const next = turn.get(sockets[0]);
    assert.equal(reads, 2, 'the turn is over: read again');
    assert.equal(next.users.version, first.users.version + 1);
  });

  it('a second request on the same socket in the same turn reads again (it may have been sent after a write)', async () => {
    const { refresh } = await sharing();
    const first = turn.get(sockets[0]);
    await bump();
    await refresh();
    const second = turn.get(sockets[0]);
    assert.equal(reads, 2);
    assert.equal(second.users.version, first.users.version + 1);
    // The other sockets of the turn get the newer versions too, without another read.
    assert.equal(turn.get(sockets[1]), second);
    assert.equal(reads, 2);
    await nextTurn();
  });

  it(`with ${MAX_SHARING_CONNECTIONS} open connections or more, every request reads`, async () => {
    await sharing();
    connections = MAX_SHARING_CONNECTIONS;
    try {
      for (const socket of sockets) turn.get(socket);
      assert.equal(reads, sockets.length);
    } finally {
      connections = 1;
      await nextTurn();
    }
  });

  it('a failed read fails the request and leaves nothing shared', async () => {
    const latest = await fresh.handle.versions();
    let fail = true;
    reads = 0;
    turn = new TurnVersions(
      () => {
        reads++;
        if (fail) throw new Error('the database cannot be read');
        return latest;
      },
      () => connections,
    );
    assert.throws(() => turn.get(sockets[0]), /cannot be read/);
    fail = false;
    assert.equal(turn.get(sockets[1]), latest);
    assert.equal(reads, 2, 'the failed read was not shared');
    await nextTurn();
  });
});
