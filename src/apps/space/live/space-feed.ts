import type { DatabaseHandle } from '../../../db/connection.js';
import { currentSpaceState, spaceStatusRecord, type SpaceState } from '../openings.js';
import type { TimeFormatter } from '../../../time.js';
import { json } from '../../../json.js';
import { PgListener, type ListenerLog } from '../../../live/pg-listener.js';
import { PROCESS_ORIGIN } from '../../../live/process-origin.js';
import { changesAfter, eventIdOf, SPACE_CHANNEL } from './space-changes.js';

/** One stream client, as the feed sees it (api/stream.ts adapts an HTTP response to it). */
export interface Subscriber {
  /** Starts the stream with these frames (possibly none). Called once, synchronously, before any send. */
  open(frames: readonly Buffer[]): void;
  /** One more frame (an event or a heartbeat). */
  send(frame: Buffer): void;
  /** Ends the stream (shutdown). */
  end(): void;
}

export interface FeedLog extends ListenerLog {
  error(object: object, message: string): void;
}

export interface SpaceFeedOptions {
  database: DatabaseHandle;
  times: TimeFormatter;
  /** A comment line this often keeps proxies from closing idle streams. */
  heartbeatMs: number;
  /** SQLite: how often to look for commits by other processes while clients are connected. */
  pollMs: number;
  /** At most this many changes replayed to a client that resumes. */
  replayLimit: number;
  /** PostgreSQL: a URL for the LISTEN connection; null on SQLite. */
  listenUrl: string | null;
  log: FeedLog;
}

export const HEARTBEAT = Buffer.from(': heartbeat\n\n');

/** Waiting after a failed read of the database (it is down) before trying again. */
const RETRY_AFTER_FAILURE_MS = 1000;

interface Joiner {
  subscriber: Subscriber;
  /** Last-Event-ID, or null for "send the current state". */
  lastEventId: number | null;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * The per-process hub of the push stream. Every notification of a possible change ("hint": this
 * process committed one, PostgreSQL NOTIFY, the SQLite poll saw another process commit) makes it
 * read, in one snapshot, what changed since the state it last published, and send those events to
 * every client: one read per change whatever the number of clients, and each event encoded once.
 *
 * New clients join in the same step, from the same snapshot: their first events (the current
 * state, or what they missed since Last-Event-ID) end exactly where the feed's published state
 * is, and later events start after it, so there is neither a gap nor a duplicate between a
 * client's replay and its live events. Steps run one at a time; hints arriving meanwhile are
 * merged into the next step.
 *
 * Idle cost: one heartbeat timer for all clients (and on SQLite one poll timer), both stopped
 * when the last client leaves; on PostgreSQL one LISTEN connection, opened with the first client.
 */
export class SpaceFeed {
  private readonly subscribers = new Set<Subscriber>();
  /** Clients that left (a client may leave while its first events are being read). */
  private readonly departed = new WeakSet<Subscriber>();
  private joiners: Joiner[] = [];
  /** What the subscribers have been sent last (null: nothing yet). */
  private published: SpaceState | null = null;
  private dirty = false;
  private running = false;
  private closed = false;
  private heartbeat: NodeJS.Timeout | null = null;
  private poll: NodeJS.Timeout | null = null;
  private retry: NodeJS.Timeout | null = null;
  private listener: PgListener | null = null;
  /** SQLite: the openings' version the last step read from (table_versions). */
  private lastOpeningsVersion: number | null = null;
  private readonly frames = new Map<string, Buffer>();

  constructor(private readonly options: SpaceFeedOptions) {}

  /** Whether close() was called (the service is shutting down). */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Clients currently connected (for tests and logs). */
  get size(): number {
    return this.subscribers.size;
  }

  /** Timers and connections currently held (for tests: all false once the last client left). */
  get activity(): { heartbeat: boolean; poll: boolean; retry: boolean; listening: boolean } {
    return { heartbeat: this.heartbeat !== null, poll: this.poll !== null, retry: this.retry !== null, listening: this.listener !== null };
  }

  /**
   * Adds a client: resolves once its first frames were handed to `subscriber.open` (it then gets
   * every later change), rejects when the database could not be read (nothing was opened).
   */
  join(subscriber: Subscriber, lastEventId: number | null): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the space feed is closed'));
    return new Promise<void>((resolve, reject) => {
      this.joiners.push({ subscriber, lastEventId, resolve, reject });
      this.startListening();
      this.kick();
    });
  }

  /** Removes a client (it disconnected). Safe to call more than once. */
  leave(subscriber: Subscriber): void {
    this.departed.add(subscriber);
    this.subscribers.delete(subscriber);
    const waiting = this.joiners.filter((joiner) => joiner.subscriber === subscriber);
    if (waiting.length > 0) {
      this.joiners = this.joiners.filter((joiner) => joiner.subscriber !== subscriber);
      for (const joiner of waiting) joiner.resolve();
    }
    this.updateTimers();
  }

  /** Something may have changed: read the database and publish (merged with other hints). */
  hint(): void {
    // With no client at all there is nobody to tell; but a step under way may be adding clients
    // from a snapshot taken before this commit: they must get it.
    if (this.closed || (this.subscribers.size === 0 && this.joiners.length === 0 && !this.running)) return;
    this.dirty = true;
    this.kick();
  }

  /** Ends every stream and stops timers and the LISTEN connection. */
  async close(): Promise<void> {
    this.closed = true;
    for (const subscriber of this.subscribers) subscriber.end();
    this.subscribers.clear();
    for (const joiner of this.joiners.splice(0)) joiner.reject(new Error('the space feed is closed'));
    this.updateTimers();
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    const listener = this.listener;
    this.listener = null;
    await listener?.close();
  }

  private kick(): void {
    if (this.running || this.closed) return;
    this.running = true;
    void this.loop();
  }

  private async loop(): Promise<void> {
    try {
      while (!this.closed && (this.joiners.length > 0 || (this.dirty && this.subscribers.size > 0))) {
        this.dirty = false;
        const joiners = this.joiners.splice(0);
        try {
          await this.step(joiners);
        } catch (error) {
          // Clients that asked to join meanwhile get the same answer (a 503) rather than waiting
          // for a retry that only runs while someone is subscribed.
          for (const joiner of [...joiners, ...this.joiners.splice(0)]) joiner.reject(error);
          if (this.closed) return;
          this.options.log.warn({ err: { message: (error as Error).message, code: (error as { code?: string }).code } }, 'space feed: cannot read the space state; retrying');
          // Clients stay connected; try again shortly (a hint may come first).
          this.dirty = true;
          if (this.retry === null && this.subscribers.size > 0) {
            this.retry = setTimeout(() => {
              this.retry = null;
              this.kick();
            }, RETRY_AFTER_FAILURE_MS);
          }
          return;
        }
      }
    } finally {
      // In the same turn as the last check of the loop's condition: a hint or a joiner arriving
      // after it finds `running` false and starts a new loop.
      this.running = false;
    }
  }

  /** One snapshot: the changes to publish, and each joiner's first events; then sends them. */
  private async step(joiners: Joiner[]): Promise<void> {
    const { replayLimit } = this.options;
    const published = this.published;
    const catchUp = published !== null && this.subscribers.size > 0;
    // SQLite: the openings' version before the snapshot; the poll looks for commits after it.
    const version = this.options.database.engine === 'sqlite' ? (await this.options.database.versions()).openings.version : null;
    const { current, changes, replays } = await this.options.database.db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => {
        const current = await currentSpaceState(trx);
        const changes = catchUp ? await changesAfter(trx, eventIdOf(published), published, current, replayLimit) : [];
        // Joiners that resume from the same id share one read.
        const replays = new Map<number | null, SpaceState[]>();
        for (const { lastEventId } of joiners) {
          if (replays.has(lastEventId)) continue;
          replays.set(lastEventId, lastEventId === null ? [current] : await changesAfter(trx, lastEventId, null, current, replayLimit));
        }
        return { current, changes, replays };
      });
    if (this.closed) throw new Error('the space feed is closed');
    this.published = current;
    this.lastOpeningsVersion = version;
    this.frames.clear();
    for (const change of changes) {
      const frame = this.frameOf(change);
      for (const subscriber of this.subscribers) subscriber.send(frame);
    }
    for (const joiner of joiners) {
      // Left while its first events were being read: nothing to open.
      if (this.departed.has(joiner.subscriber)) {
        joiner.resolve();
        continue;
      }
      joiner.subscriber.open(replays.get(joiner.lastEventId)!.map((state) => this.frameOf(state)));
      this.subscribers.add(joiner.subscriber);
      joiner.resolve();
    }
    this.updateTimers();
  }

  /** `event: state`, the opening's id, and the status JSON (as /api/space/status/ gives it). */
  private frameOf(state: SpaceState): Buffer {
    const key = `${state.id} ${state.isOpen} ${state.sinceUs}`;
    let frame = this.frames.get(key);
    if (frame === undefined) {
      const data = json(spaceStatusRecord(state, { time: (micros) => this.options.times.format(micros) })).toString('utf8');
      frame = Buffer.from(`event: state\nid: ${eventIdOf(state)}\ndata: ${data}\n\n`);
      this.frames.set(key, frame);
    }
    return frame;
  }

  private startListening(): void {
    if (this.listener !== null || this.options.listenUrl === null || this.closed) return;
    this.listener = new PgListener({
      url: this.options.listenUrl,
      channel: SPACE_CHANNEL,
      location: this.options.database.location,
      log: this.options.log,
      onNotification: (payload) => {
        // Our own commits were announced in-process already.
        if (payload !== undefined && payload.includes(`"origin":"${PROCESS_ORIGIN}"`)) return;
        this.hint();
      },
      // Commits made while not listening (at start, after a reconnection) are read now.
      onListening: () => this.hint(),
    });
  }

  private updateTimers(): void {
    const active = this.subscribers.size > 0 && !this.closed;
    if (active && this.heartbeat === null) {
      this.heartbeat = setInterval(() => {
        for (const subscriber of this.subscribers) subscriber.send(HEARTBEAT);
      }, this.options.heartbeatMs);
      this.heartbeat.unref();
    } else if (!active && this.heartbeat !== null) {
      clearInterval(this.heartbeat);
      this.heartbeat = null;
    }
    const polls = active && this.options.database.engine === 'sqlite';
    if (polls && this.poll === null) {
      this.poll = setInterval(() => void this.checkOpeningsVersion(), this.options.pollMs);
      this.poll.unref();
    } else if (!polls && this.poll !== null) {
      clearInterval(this.poll);
      this.poll = null;
    }
    if (!active && this.retry !== null) {
      clearTimeout(this.retry);
      this.retry = null;
    }
  }

  /**
   * SQLite: another process's commit to the openings (a cheap local read: PRAGMA data_version,
   * and table_versions only when that moved; other tables' commits wake nothing).
   */
  private async checkOpeningsVersion(): Promise<void> {
    try {
      if ((await this.options.database.versions()).openings.version !== this.lastOpeningsVersion) this.hint();
    } catch {
      // The next step reports a database that cannot be read.
    }
  }
}
