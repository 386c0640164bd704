import type { FastifyInstance } from 'fastify';
import type { ResponseCache } from '../cache/response-cache.js';
import type { DatabaseHandle } from '../db/connection.js';
import { countPendingDeliveries } from '../live/webhook-outbox.js';
import type { DeliveryResult } from '../live/webhooks.js';
import type { AppMetrics } from '../metrics/app-metrics.js';
import { UNKNOWN_ROUTE } from '../metrics/request-durations.js';

/** The live parts as the metrics read them (the space's, apps/space/live/space-live.ts). */
export interface InstrumentedLive {
  /** The stream's clients. */
  readonly feed: { readonly size: number };
  /** The webhooks' attempts under way, and each one's outcome. */
  readonly webhooks: { readonly size: number; onResult(listener: (result: DeliveryResult) => void): void };
  /** Whether the space is open now (null before the first opening), read afresh. */
  spaceOpen(): Promise<boolean | null>;
}

export interface InstrumentedParts {
  database: DatabaseHandle;
  cache: ResponseCache;
  live: InstrumentedLive;
}

/**
 * Wires an app's metrics (metrics/) to its parts: the requests that reach the framework (those
 * the fast path answers are counted by it, cache/fast-path.ts), what the webhooks report, and
 * what is read at each scrape.
 */
export function instrument(app: FastifyInstance, metrics: AppMetrics, parts: InstrumentedParts): void {
  const { database, cache, live } = parts;
  // When the response is over: Fastify's onResponse skips the replies a handler took over (the stream).
  app.addHook('onRequest', (request, reply, done) => {
    reply.raw.once('close', () => {
      // A client gone before any answer has no status to count.
      if (reply.raw.headersSent) {
        // The route's template (`/api/users/:id/`, whatever the id, suffix or query), never the URL sent; `unknown` for 404s and redirects.
        metrics.requests.observe(request.raw.method, request.routed?.template ?? UNKNOWN_ROUTE, reply.raw.statusCode, reply.elapsedTime);
      }
    });
    done();
  });
  live.webhooks.onResult(metrics.webhooks.delivery);
  metrics.watch(
    {
      cacheReads: cache.reads,
      streamClients: () => live.feed.size,
      webhooksPending: () => live.webhooks.size,
      outboxPending: () => countPendingDeliveries(database.db),
      spaceOpen: () => live.spaceOpen(),
      pool: () => database.poolUse(),
    },
    app.log,
  );
}
