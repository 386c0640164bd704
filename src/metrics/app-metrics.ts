import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { PoolUse } from '../db/handle.js';
import { RequestHistogram } from './histogram.js';
import { RequestDurations } from './request-durations.js';

export interface MetricsLog {
  warn(object: object, message: string): void;
}

/** What the metrics read when scraped: the app's parts, as plain functions (this folder imports none of them). */
export interface MetricSources {
  /** The response cache's counts of cached reads (ResponseCache.reads), read as they are. */
  cacheReads: Readonly<{ hits: number; misses: number }>;
  streamClients(): number;
  /** Webhook delivery attempts under way in this process. */
  webhooksPending(): number;
  /** Webhook deliveries waiting in the outbox (the database's, shared by every process); rejects when it cannot be read. */
  outboxPending(): Promise<number>;
  /** The space's state as recorded: null while it never was; rejects when the database cannot be read. */
  spaceOpen(): Promise<boolean | null>;
  /** The database's connection pool (PostgreSQL); null where there is none (SQLite). */
  pool(): PoolUse | null;
}

const SPACE_OPEN = 'hackerspace_space_open';
const SPACE_OPEN_HELP = "The space's state: 1 open, 0 closed; no sample while it is unknown (never reported, or the database cannot be read)";

/**
 * One app's metrics (METRICS_PORT): a prom-client Registry of its own, never the global one, so
 * that the state lives in the app. The request histogram and the webhook counter are fed as
 * things happen; every other figure is read when scraped (watch()), so that nothing else on the
 * request path pays for them. cli/serve.ts serves the registry on its own listener, or from a
 * cluster's primary, which sums its workers' registries (cluster.ts).
 */
export class AppMetrics {
  readonly registry = new Registry();
  readonly requests = new RequestDurations();
  private readonly deliveries: Counter<'result'>;

  /** `webhookResults`: every result the webhooks report (live/webhooks.ts), counted from 0. */
  constructor(webhookResults: readonly string[]) {
    collectDefaultMetrics({ register: this.registry });
    new RequestHistogram(this.registry, this.requests);
    this.deliveries = new Counter({
      name: 'hackerspace_webhook_deliveries_total',
      help: 'Webhook delivery attempts by result: delivered (a 2xx answer), failed (an attempt failed; retried later), abandoned (retries exhausted)',
      labelNames: ['result'],
      registers: [this.registry],
    });
    for (const result of webhookResults) this.deliveries.inc({ result }, 0);
  }

  /** What the webhook module reports into (live/webhooks.ts WebhookReport). */
  readonly webhooks = {
    delivery: (result: string): void => this.deliveries.inc({ result }),
  };

  /** The figures read at each scrape. */
  watch(sources: MetricSources, log: MetricsLog): void {
    const registers = [this.registry];
    const { cacheReads } = sources;
    new Counter({
      name: 'hackerspace_response_cache_hits_total',
      help: 'Cached reads (API and pages) answered from a kept response, by the fast path or the full path',
      registers,
      collect() {
        this.reset();
        this.inc(cacheReads.hits);
      },
    });
    new Counter({
      name: 'hackerspace_response_cache_misses_total',
      help: 'Cached reads (API and pages) that built their response, or waited for its build',
      registers,
      collect() {
        this.reset();
        this.inc(cacheReads.misses);
      },
    });
    new Gauge({
      name: 'hackerspace_stream_clients',
      help: 'Clients connected to /api/space/stream/',
      registers,
      collect() {
        this.set(sources.streamClients());
      },
    });
    new Gauge({
      name: 'hackerspace_webhook_deliveries_pending',
      help: "Webhook delivery attempts under way in this process (the outbox's waiting rows are in the database)",
      registers,
      collect() {
        this.set(sources.webhooksPending());
      },
    });
    // The pool is read before the outbox and the space's state, whose queries would otherwise count among its users.
    if (sources.pool() !== null) this.watchPool(() => sources.pool()!);
    new SpaceOpenGauge(this.registry, () => sources.spaceOpen(), log);
    new Gauge({
      name: 'hackerspace_webhook_outbox_pending',
      help: 'Webhook deliveries waiting in the outbox, to be delivered or retried (one figure for the database: with workers, the largest)',
      registers,
      aggregator: 'max',
      async collect() {
        try {
          this.set(await sources.outboxPending());
        } catch (error) {
          // No sample rather than a stale or made-up figure; the scrape itself still answers.
          this.reset();
          log.warn({ err: { message: (error as Error).message, code: (error as { code?: string }).code } }, 'metrics: cannot count the outbox');
        }
      },
    });
  }

  /** MQTT_URL: whether this process's connection to the broker is up. */
  watchMqtt(connected: () => boolean): void {
    new Gauge({
      name: 'hackerspace_mqtt_connected',
      help: "1 while this process's connection to the MQTT broker is up, else 0 (summed over a cluster's workers: the connected ones)",
      registers: [this.registry],
      collect() {
        this.set(connected() ? 1 : 0);
      },
    });
  }

  /** The registry as Prometheus text. */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  private watchPool(pool: () => PoolUse): void {
    const gauge = (name: string, help: string, read: (use: PoolUse) => number) =>
      new Gauge({
        name,
        help,
        registers: [this.registry],
        collect() {
          this.set(read(pool()));
        },
      });
    gauge('hackerspace_database_pool_connections', "PostgreSQL: connections open in the process's pool", (use) => use.total);
    gauge('hackerspace_database_pool_idle_connections', 'PostgreSQL: open connections of the pool not in use', (use) => use.idle);
    gauge('hackerspace_database_pool_waiting_requests', 'PostgreSQL: queries waiting for a connection of the pool', (use) => use.waiting);
    gauge('hackerspace_database_pool_max_connections', 'PostgreSQL: the size of the pool (DATABASE_POOL_SIZE)', (use) => use.max);
  }
}

/**
 * `hackerspace_space_open`, read from the database at each scrape (whichever process recorded
 * the last report). Unknown is no sample rather than a number: 0 would read as "closed", and NaN
 * does not survive the cluster's JSON messages. With workers, the primary keeps the largest.
 */
class SpaceOpenGauge extends Gauge {
  constructor(
    registry: Registry,
    private readonly read: () => Promise<boolean | null>,
    private readonly log: MetricsLog,
  ) {
    super({ name: SPACE_OPEN, help: SPACE_OPEN_HELP, registers: [registry], aggregator: 'max' });
  }

  override async get(): ReturnType<Gauge['get']> {
    let open: boolean | null = null;
    try {
      open = await this.read();
    } catch (error) {
      this.log.warn({ err: { message: (error as Error).message, code: (error as { code?: string }).code } }, "metrics: cannot read the space's state");
    }
    const metric = { name: SPACE_OPEN, help: SPACE_OPEN_HELP, type: 'gauge', aggregator: 'max', values: open === null ? [] : [{ value: open ? 1 : 0, labels: {} }] };
    return metric as unknown as Awaited<ReturnType<Gauge['get']>>;
  }
}
