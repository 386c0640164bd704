import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FastReads } from '../cache/fast-path.js';
import type { ResponseCache } from '../cache/response-cache.js';
import type { DatabaseHandle } from '../db/connection.js';
import { pathOf } from '../drf/request.js';
import { routeOf } from '../drf/resolve.js';
import { routeTemplate } from '../drf/routes.js';
import { isLegacyDoor } from '../handlers/legacy-door.js';
import { isSpaceApi, SPACEAPI_PATH } from '../handlers/spaceapi.js';
import type { SpaceLive } from '../live/space-live.js';
import { countPendingDeliveries } from '../live/webhook-outbox.js';
import type { AppMetrics } from '../metrics/app-metrics.js';
import { UNKNOWN_ROUTE } from '../metrics/request-durations.js';
import { currentSpaceState } from '../resources/openings.js';
import { ASSET_PREFIX } from '../web/assets.js';
import { pageRouteOf } from '../web/routes.js';
import { HEALTH_PATH, isHealthCheck } from './health.js';

export interface InstrumentedParts {
  database: DatabaseHandle;
  cache: ResponseCache;
  fast: FastReads;
  live: SpaceLive;
  /** Whether /spaceapi.json is served (SPACEAPI_CONFIG): without it, that path is as unknown as any other. */
  spaceApi: boolean;
}

const ASSET_ROUTE = `${ASSET_PREFIX}:file`;

/**
 * Wires an app's metrics (metrics/) to its parts: the requests that reach the framework (those
 * the fast path answers are counted by it, cache/fast-path.ts), what the webhooks report, and
 * what is read at each scrape.
 */
export function instrument(app: FastifyInstance, metrics: AppMetrics, parts: InstrumentedParts): void {
  const { database, cache, fast, live } = parts;
  const routeLabel = (request: FastifyRequest): string => routeLabelOf(request, fast, parts.spaceApi);
  // When the response is over: Fastify's onResponse skips the replies a handler took over (the stream).
  app.addHook('onRequest', (request, reply, done) => {
    reply.raw.once('close', () => {
      // A client gone before any answer has no status to count.
      if (reply.raw.headersSent) metrics.requests.observe(request.raw.method, routeLabel(request), reply.raw.statusCode, reply.elapsedTime);
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
      spaceOpen: async () => (await currentSpaceState(database.db)).isOpen,
      pool: () => database.poolUse(),
    },
    app.log,
  );
}

/**
 * The route template of a request the framework answered, in the order app.ts's onRequest
 * dispatches: the API's route (`/api/users/:id/`, whatever the id, suffix or query), a page's, a
 * fixed path outside the API, or `unknown` (404s and the slash redirects): never the URL sent.
 */
function routeLabelOf(request: FastifyRequest, fast: FastReads, spaceApi: boolean): string {
  if (request.resolved) return routeTemplate(request.resolved.route);
  if (request.page) return request.page.route.template;
  const url = request.raw.url;
  if (isHealthCheck(url)) return HEALTH_PATH;
  if (spaceApi && isSpaceApi(url)) return SPACEAPI_PATH;
  // One of two fixed paths (with and without its slash).
  if (isLegacyDoor(url)) return pathOf(url);
  if (url?.startsWith(ASSET_PREFIX)) return ASSET_ROUTE;
  const page = pageRouteOf(pathOf(url));
  if (page) return page.route.template;
  // Refused before its checks passed (401, 403, 405, 406…): routed again.
  try {
    const { route } = routeOf(fast.targetOf(request.raw));
    return route ? routeTemplate(route) : UNKNOWN_ROUTE;
  } catch {
    return UNKNOWN_ROUTE;
  }
}
