import type pg from 'pg';
import { endClient } from '../db/pg-client.js';
import { loadPg, type Pg } from '../db/pg-driver.js';

export interface ListenerLog {
  warn(object: object, message: string): void;
  info(object: object, message: string): void;
}

export interface PgListenerOptions {
  url: string;
  channel: string;
  /** A notification's payload. */
  onNotification(payload: string | undefined): void;
  /**
   * The connection is (again) listening: whatever was committed while it was not has to be read
   * from the database.
   */
  onListening(): void;
  log: ListenerLog;
  /** Where it is (no password), for logs. */
  location: string;
}

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 10_000;

/**
 * One dedicated connection per process holding `LISTEN <channel>`, separate from the pool (a
 * pooled connection would be handed to requests). When the connection drops (the server restarts,
 * the network breaks) it reconnects, waiting 0.25 s and doubling up to 10 s between attempts; once
 * listening again it says so (onListening), so that the caller catches up from the database.
 * TCP keep-alive notices a server that vanished without closing the connection.
 */
export class PgListener {
  private client: pg.Client | null = null;
  private timer: NodeJS.Timeout | null = null;
  private delayMs = FIRST_RETRY_MS;
  private closed = false;
  private failures = 0;

  constructor(private readonly options: PgListenerOptions) {
    this.connect();
  }

  private connect(): void {
    // The driver is loaded already (the database handle loaded it): this waits a microtask.
    void loadPg().then((pg) => this.connectWith(pg));
  }

  private connectWith(pg: Pg): void {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.options.url, keepAlive: true, keepAliveInitialDelayMillis: 10_000, connectionTimeoutMillis: 10_000 });
    this.client = client;
    let failed = false;
    const fail = (error: Error) => {
      if (failed) return;
      failed = true;
      client.removeAllListeners('notification');
      client.end().catch(() => {});
      if (this.client === client) this.client = null;
      if (this.closed) return;
      this.failures++;
      this.options.log.warn(
        { database: this.options.location, err: { message: error.message, code: (error as { code?: string }).code }, retryInMs: this.delayMs },
        'space state listener: connection lost or refused; retrying',
      );
      this.timer = setTimeout(() => {
        this.timer = null;
        this.connect();
      }, this.delayMs);
      this.delayMs = Math.min(this.delayMs * 2, MAX_RETRY_MS);
    };
    client.on('error', fail);
    client.on('end', () => fail(new Error('Connection terminated')));
    client.on('notification', (message) => {
      if (message.channel === this.options.channel) this.options.onNotification(message.payload);
    });
    client
      .connect()
      .then(() => client.query(`LISTEN ${pg.escapeIdentifier(this.options.channel)}`))
      .then(() => {
        if (failed || this.closed) return;
        if (this.failures > 0) this.options.log.info({ database: this.options.location }, 'space state listener: listening again');
        this.failures = 0;
        this.delayMs = FIRST_RETRY_MS;
        this.options.onListening();
      }, fail);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const client = this.client;
    this.client = null;
    if (client) {
      client.removeAllListeners('notification');
      await endClient(client);
    }
  }
}
