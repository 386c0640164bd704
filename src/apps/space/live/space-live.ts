import type { Config } from '../../../config.js';
import type { DatabaseHandle } from '../../../db/connection.js';
import type { SpaceState } from '../openings.js';
import type { TimeFormatter } from '../../../time.js';
import { SpaceFeed, type FeedLog } from './space-feed.js';
import { WebhookSender, type WebhookLog } from '../../../live/webhooks.js';

/** Replayed changes for a client that resumes, at most (the latest ones). */
export const REPLAY_LIMIT = 1000;

/**
 * A process's live parts: the push stream's feed and the webhooks. The write routes call
 * `committed` right after a commit that changed the space's state (see space-changes.ts for how
 * they tell): this process's stream clients get it at once, other processes through PostgreSQL
 * NOTIFY or the SQLite poll. The webhooks' deliveries were recorded in the change's transaction
 * (`webhooks.record`, see writes.ts); `committed` only wakes this process's delivery worker.
 */
export class SpaceLive {
  readonly feed: SpaceFeed;
  readonly webhooks: WebhookSender;

  constructor(
    config: Config,
    database: DatabaseHandle,
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
    this.webhooks = new WebhookSender(database.db, config.webhooks, times, log);
  }

  /** Other services told of this process's changes, as the webhooks are (the MQTT bridge). */
  private readonly listeners: ((state: SpaceState) => void)[] = [];

  /** After the commit of a change of the space's state (never throws, never waits). */
  readonly committed = (state: SpaceState): void => {
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

  /** Once the app is ready: the webhooks' worker starts on what the outbox holds. */
  start(): void {
    this.webhooks.start();
  }

  async close(): Promise<void> {
    await Promise.all([this.feed.close(), this.webhooks.close()]);
  }
}
