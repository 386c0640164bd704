import type { Config } from '../../../config.js';
import type { DatabaseHandle } from '../../../db/connection.js';
import { currentSpaceState, type SpaceState } from '../openings.js';
import type { TimeFormatter } from '../../../time.js';
import { SpaceFeed, type FeedLog } from './space-feed.js';
import { WebhookSender, type WebhookLog } from '../../../live/webhooks.js';
import type { ChangeWatcher, WriteScope } from '../../../live/writes.js';
import { spaceWatcher, webhookEvent } from './space-changes.js';

/** Replayed changes for a client that resumes, at most (the latest ones). */
export const REPLAY_LIMIT = 1000;

/**
 * A process's live parts: the push stream's feed and the webhooks. The write transactions watch
 * the space's state through `committed` (live/writes.ts) and announce a change right after its
 * commit (see space-changes.ts for how they tell): this process's stream clients get it at once,
 * other processes through PostgreSQL NOTIFY or the SQLite poll. The webhooks' deliveries were recorded in the change's transaction
 * (`webhooks.record`, see writes.ts); `committed` only wakes this process's delivery worker.
 */
export class SpaceLive {
  readonly feed: SpaceFeed;
  readonly webhooks: WebhookSender<SpaceState>;
  /** The space's state as the write transactions watch it; its `announce`, after the commit of a change, never throws nor waits. */
  readonly committed: ChangeWatcher<WriteScope, SpaceState>;

  constructor(
    config: Config,
    private readonly database: DatabaseHandle,
    times: TimeFormatter,
    private readonly log: FeedLog & WebhookLog,
  ) {
    this.feed = new SpaceFeed({
      database,
      times,
      heartbeatMs: config.stream.heartbeatMs,
      pollMs: config.stream.pollMs,
      replayLimit: REPLAY_LIMIT,
      listenUrl: config.database.engine === 'postgres' ? config.database.url : null,
      log,
    });
    this.webhooks = new WebhookSender(database.db, config.webhooks, (state: SpaceState) => webhookEvent(state, times), log);
    this.committed = spaceWatcher(this.announce);
  }

  /** Other services told of this process's changes, as the webhooks are (the MQTT bridge). */
  private readonly listeners: ((state: SpaceState) => void)[] = [];

  /** After the commit of a change of the space's state (never throws, never waits). */
  private readonly announce = (state: SpaceState): void => {
    // The write is committed: whatever goes wrong here must not turn its answer into a 500.
    try {
      this.feed.hint();
      this.webhooks.kick();
      for (const listener of this.listeners) listener(state);
    } catch (error) {
      this.log.error({ err: error }, "could not announce a change of the space's state");
    }
  };

  /** Tells `listener` of every change this process commits, like the webhooks (it must neither throw nor wait). */
  onCommitted(listener: (state: SpaceState) => void): void {
    this.listeners.push(listener);
  }

  /** Whether the space is open now (null before the first opening), read afresh: the metrics' gauge. */
  async spaceOpen(): Promise<boolean | null> {
    return (await currentSpaceState(this.database.db)).isOpen;
  }

  /** Once the app is ready: the webhooks' worker starts on what the outbox holds. */
  start(): void {
    this.webhooks.start();
  }

  async close(): Promise<void> {
    await Promise.all([this.feed.close(), this.webhooks.close()]);
  }
}
