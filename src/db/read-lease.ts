import { sql } from 'kysely';
import type pg from 'pg';
import type { Db } from './handle.js';
import { endClient } from './pg-client.js';
import { loadPg } from './pg-driver.js';
import type { VersionSnapshot } from './table-versions.js';

/*
 * Read leases (PostgreSQL). A process that holds a lease answers cached reads from the table
 * versions it read last, without a round trip, and stays exactly as fresh as one that asks the
 * database on every request: no write can commit while any process holds a lease.
 *
 * - A lease is a shared advisory lock (key L) held by a dedicated connection that LISTENs on the
 *   schema's write channel. It is valid once the versions were read after the lock was granted,
 *   and by the process's own clock for LEASE_MS after the last query that proved the connection
 *   alive (renewed every RENEW_MS).
 * - A writer (writeTransaction) takes the writers' lock W (session level), NOTIFYs the channel,
 *   takes L exclusively, commits, and lets go of both. Every write to a versioned table also takes
 *   L exclusively in a trigger on table_versions (migration 0006), so that writes made by hand or
 *   by other tools cannot commit under a lease either: they wait for the next renewal, which sees
 *   them queued (pg_locks) and gives the lease back.
 * - A holder told of a write stops using its versions at once (synchronously, before it lets go
 *   of L), then in one round trip lets go of L, waits for W to be free (the writer is done),
 *   takes L again and reads the versions: its new lease includes the write. It never waits for
 *   L while holding W, so a writer from outside waiting for L holds up no writer of ours.
 * - A holder that does not let go within LEASE_WAIT_MS (a frozen process, a lost network) has
 *   seen its lease expire by its own clock; the writer then ends its session and goes on.
 * L and the channel are derived from the oid of table_versions' schema (several services can
 * share a database); migration 0006's trigger repeats the key: oid * 4 + 2.
 */

/** How long a lease is trusted after the query that last proved its connection alive. */
export const LEASE_MS = 1000;
/** How often a held lease is renewed (and writers from other tools looked for). */
export const RENEW_MS = 100;
/** How long a writer waits for holders to let go before ending their sessions: past any lease's life. */
export const LEASE_WAIT_MS = LEASE_MS + 500;
/** A process that has not been asked for versions this long gives its lease (and connection) up. */
const IDLE_MS = 30_000;
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 10_000;

/**
 * The writers' lock (session level; transaction level before read leases existed, which is the
 * same lock, so that writers of both versions exclude each other during a rolling upgrade).
 */
const WRITERS_KEY = 0x4853_4150;
/** Keys and channel belong to the schema in which unqualified queries find table_versions. */
const schemaOid = sql`(select relnamespace::bigint from pg_class where oid = 'table_versions'::regclass)`;
const leaseKey = sql`(${schemaOid} * 4 + 2)`;
const channel = sql`'hackerspace_api_writes_' || ${schemaOid}`;
/** How long one wait for the lease lock lasts: far below any statement timeout (100 ms at least). */
const LEASE_STEP_MS = 50;

/**
 * Waits for the writers' lock, then tells every lease holder to let go (delivered when this
 * statement commits, while the lock is held). Session level: finishWrite() lets go.
 */
export async function announceWrite(conn: Db): Promise<void> {
  await sql`select pg_advisory_lock(${WRITERS_KEY}), pg_notify(${channel}, '')`.execute(conn);
}

/**
 * Takes the lease lock exclusively: every holder has stopped using its versions. The wait is cut
 * into short steps, each within the statement timeout; between them no holder can take its lease
 * again (it waits for the writers' lock first, or it is told of this write). A holder that has
 * not let go after LEASE_WAIT_MS has an expired lease by its own clock: its session is ended
 * (allowed to the same role, or with pg_signal_backend), and the wait goes on.
 */
export async function takeLeases(conn: Db): Promise<void> {
  const endsAt = performance.now() + LEASE_WAIT_MS;
  do {
    try {
      // The subquery runs first: the timeout is set (for this statement only) before the wait.
      await sql`select pg_advisory_lock(${leaseKey}) from (select set_config('lock_timeout', ${`${LEASE_STEP_MS}ms`}, true)) t`.execute(conn);
      return;
    } catch (error) {
      if ((error as { code?: unknown }).code !== '55P03') throw error;
    }
  } while (performance.now() < endsAt);
  await sql`select pg_terminate_backend(l.pid) from pg_locks l, (select ${leaseKey} as k) key
    where l.locktype = 'advisory' and l.database = (select oid from pg_database where datname = current_database())
      and l.classid = (key.k >> 32)::oid and l.objid = (key.k & 4294967295)::oid and l.objsubid = 1
      and l.mode = 'ShareLock' and l.granted and l.pid <> pg_backend_pid()`
    .execute(conn)
    .catch(() => {});
  await sql`select pg_advisory_lock(${leaseKey})`.execute(conn);
}

/**
 * Lets go of the session locks of announceWrite() and takeLeases(), whatever was taken. Never
 * throws: a connection that cannot let go is ended, since the pool would hand it out again with
 * every writer in the cluster waiting on it (a broken one the pool drops; the server then lets go).
 */
export async function finishWrite(conn: Db): Promise<void> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await sql`select pg_advisory_unlock_all()`.execute(conn);
      return;
    } catch {
      // Tried again, then the session is ended.
    }
  }
  await sql`select pg_terminate_backend(pg_backend_pid())`.execute(conn).catch(() => {});
}

type VersionRow = { name: string; version: number | string; changed_us: number | string };

export interface ReadLeaseOptions {
  url: string;
  /** The snapshot of some version rows (the same object while nothing changed). */
  adopt(rows: VersionRow[]): VersionSnapshot;
  onConnectionLost(error: Error, retryInMs: number): void;
}

/** The reading side: one per database handle, started by the first request for versions. */
export class ReadLease {
  private snapshot: VersionSnapshot | null = null;
  private validUntil = 0;
  /** Bumped by every announced write and lost connection: a query's answer from before is void. */
  private epoch = 0;
  private mustAcquire = true;
  private lastUse = 0;
  private running: Promise<void> | null = null;
  private closed = false;
  private wake: (() => void) | null = null;
  /** Ends the connection in use, failing any query it waits for. */
  private abort: ((error?: Error) => void) | null = null;

  constructor(private readonly options: ReadLeaseOptions) {}

  /** The current versions while a lease is held, else null (the database must be asked). */
  current(): VersionSnapshot | null {
    const now = performance.now();
    this.lastUse = now;
    if (this.running === null && !this.closed) this.running = this.run();
    return this.snapshot !== null && now < this.validUntil ? this.snapshot : null;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.wake?.();
    this.abort?.();
    await this.running;
  }

  private invalidate(): void {
    this.snapshot = null;
    this.epoch++;
    this.mustAcquire = true;
    this.wake?.();
  }

  private async run(): Promise<void> {
    let delayMs = FIRST_RETRY_MS;
    while (!this.closed && !this.idle()) {
      try {
        await this.hold(() => (delayMs = FIRST_RETRY_MS));
      } catch (error) {
        this.invalidate();
        if (this.closed) break;
        this.options.onConnectionLost(error as Error, delayMs);
        await this.pause(delayMs);
        delayMs = Math.min(delayMs * 2, MAX_RETRY_MS);
      }
    }
    this.running = null;
  }

  private idle(): boolean {
    return performance.now() - this.lastUse > IDLE_MS;
  }

  /** Connects, then acquires and renews the lease until closed, idle or the connection fails. */
  private async hold(connected: () => void): Promise<void> {
    const pg = await loadPg();
    const client = new pg.Client({ connectionString: this.options.url, keepAlive: true, connectionTimeoutMillis: 10_000 });
    // Set by the listeners below, which TypeScript's narrowing does not see: hence the assertion.
    let broken = null as Error | null;
    let done = false;
    const fail = (error: Error) => {
      broken ??= error;
      // A late event of a connection already given up must not void the next one's lease.
      if (!done) this.invalidate();
    };
    client.on('error', fail);
    client.on('end', () => fail(new Error('Connection terminated')));
    client.on('notification', () => {
      if (!done) this.invalidate();
    });
    // pg never settles a connect() whose client is ended meanwhile (a close while connecting):
    // every wait on the client also ends with the abort, so that close() never waits for ever.
    let abortWaits!: (error: Error) => void;
    const aborted = new Promise<never>((_, reject) => (abortWaits = reject));
    aborted.catch(() => {});
    const settled = <T>(work: Promise<T>): Promise<T> => Promise.race([work, aborted]);
    let ending: Promise<void> | null = null;
    this.abort = (error = new Error('closed')) => {
      fail(error);
      abortWaits(error);
      ending ??= endClient(client);
    };
    try {
      await settled(client.connect());
      // Each statement of the acquiring round trip must see the commits made before it ran.
      await settled(client.query(`set default_transaction_isolation = 'read committed'`));
      const { rows } = await settled(client.query<{ oid: string }>(`select relnamespace::bigint as oid from pg_class where oid = 'table_versions'::regclass`));
      const oid = Number(rows[0].oid);
      const queries = leaseQueries(oid);
      await settled(client.query(`listen ${pg.escapeIdentifier(`hackerspace_api_writes_${oid}`)}`));
      connected();
      let holding = false;
      while (!this.closed && !this.idle()) {
        if (broken) throw broken;
        const epoch = this.epoch;
        const sentAt = performance.now();
        if (this.mustAcquire) {
          this.mustAcquire = false;
          this.snapshot = null;
          // No time limit: it waits for a writer to finish (an import may take a while).
          const results = (await settled(client.query(holding ? queries.reacquire : queries.acquire))) as unknown as pg.QueryResult<VersionRow>[];
          holding = true;
          if (this.epoch === epoch) this.grant(results[results.length - 1].rows, sentAt);
        } else {
          // A renewal is answered at once by a live server: one that is silent for the life of
          // a lease has lost its connection (TCP alone could take minutes to tell).
          const watchdog = setTimeout(() => this.abort?.(new Error(`no answer to a lease renewal in ${LEASE_MS} ms`)), LEASE_MS);
          const { rows: versions } = await settled(client.query<VersionRow & { contended: boolean }>(queries.renew)).finally(() => clearTimeout(watchdog));
          if (this.epoch !== epoch) continue;
          // A writer without a NOTIFY (SQL by hand, another tool) waits for this lease.
          if (versions.some((row) => row.contended)) this.invalidate();
          else this.grant(versions, sentAt);
        }
        if (!this.mustAcquire) await this.pause(RENEW_MS);
      }
    } finally {
      done = true;
      this.abort = null;
      this.snapshot = null;
      client.removeAllListeners('notification');
      // Ended once: a second end() of a client ended while it connected would never settle.
      ending ??= endClient(client);
      await ending;
    }
  }

  private grant(rows: VersionRow[], sentAt: number): void {
    this.snapshot = this.options.adopt(rows);
    this.validUntil = sentAt + LEASE_MS;
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this.wake === done) this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }
}

/** Simple-protocol texts (several statements, so one round trip each) for a schema's keys. */
function leaseQueries(oid: number) {
  const lease = oid * 4 + 2;
  const versions = 'select name, version, changed_us from table_versions';
  // W is only waited for (taken and let go) before L is asked for: a writer that announced itself
  // is done when W is free, and no writer of ours ever waits behind a holder waiting for L.
  const acquire = `select pg_advisory_lock_shared(${WRITERS_KEY}); select pg_advisory_unlock_shared(${WRITERS_KEY}); select pg_advisory_lock_shared(${lease}); ${versions}`;
  return {
    acquire,
    reacquire: `select pg_advisory_unlock_shared(${lease}); ${acquire}`,
    renew: `select name, version, changed_us, exists(select from pg_locks where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())
      and classid = ${Math.floor(lease / 2 ** 32)} and objid = ${lease % 2 ** 32} and objsubid = 1 and mode = 'ExclusiveLock' and not granted) as contended from table_versions`,
  };
}
