import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { CachedBodies } from './cache/cached-bodies.js';
import { FastReads } from './cache/fast-path.js';
import { ResponseCache } from './cache/response-cache.js';
import type { Config } from './config.js';
import { openDatabase, type DatabaseHandle } from './db/connection.js';
import { avatarUrls } from './drf/links.js';
import { corsHeaders, SECURITY_HEADERS } from './drf/headers.js';
import { notFound, unavailable } from './drf/errors.js';
import { checkRequest, routeHeaders, routeOf, type Resolved } from './drf/resolve.js';
import { FailureThrottle } from './drf/throttle.js';
import { apiHandler } from './handlers/api.js';
import { isLegacyDoor, legacyDoorHandler } from './handlers/legacy-door.js';
import { pagesHandler } from './handlers/pages.js';
import { openApiDocument } from './openapi/document.js';
import { isSpaceApi, spaceApiHandler } from './handlers/spaceapi.js';
import { errorHandler } from './http/error-handler.js';
import { healthCheck, isHealthCheck, pingTimeoutOf } from './http/health.js';
import type { ConnectionDrain } from './http/drain.js';
import { nodeServer, type NodeServer } from './http/node-server.js';
import type { HtmlError } from './http/reply.js';
import { describeRequest } from './http/request.js';
import { clientError, frameworkError } from './http/transport-errors.js';
import { MqttBridge } from './live/mqtt.js';
import { SpaceLive } from './live/space-live.js';
import { AnnouncedWrites } from './live/writes.js';
import { serializeRequest } from './log.js';
import { loadSpaceApi } from './spaceapi/config-file.js';
import { TimeFormatter } from './time.js';
import { assetHandler } from './handlers/assets.js';
import { ASSET_PREFIX, Assets } from './web/assets.js';
import { htmlError } from './web/error-pages.js';
import { PageTimes } from './web/format.js';
import { HTML_HEADERS, type Site } from './web/layout.js';
import { pageRouteOf, pageWithSlash, type PageRoute } from './web/routes.js';
import { pathOf } from './drf/request.js';
import { instrument } from './http/metrics.js';
import type { DeliveryResult } from './live/webhooks.js';
import type { AppMetrics } from './metrics/app-metrics.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** What the checks before the handler learnt (drf/resolve.ts); unset outside the API's routes. */
    resolved?: Resolved;
    /** The web page a request is for (web/routes.ts), once routed. */
    page?: { route: PageRoute; match: RegExpExecArray };
  }
  interface FastifyInstance {
    /** The process's push stream and webhooks (live/space-live.ts). */
    live: SpaceLive;
    /** This app's Prometheus registry (METRICS_PORT; null without it), served by cli/serve.ts. */
    metrics: AppMetrics | null;
    /** The HTTP server's connections, drained by a graceful close (server.ts). */
    connections: ConnectionDrain;
  }
}

/** The largest request body read (any longer one gets 413 before it is read). */
export const BODY_LIMIT_BYTES = 1024 * 1024;

export interface AppDependencies {
  /** An open database; when omitted, the app opens config.database and closes it with itself. */
  database?: DatabaseHandle;
  /** Pino options or false; defaults to JSON logs at config.logLevel. */
  logger?: boolean | object;
}

/**
 * The service as a Fastify app. Fastify is a thin shell here: one wildcard route, with our own
 * router (drf/routes.ts) behind it, and Node's server in front of it answering repeated reads
 * from the response cache (cache/fast-path.ts). This function only wires the parts together.
 */
export async function buildApp(config: Config, deps: AppDependencies = {}): Promise<FastifyInstance> {
  // The operator's SpaceAPI file, checked before anything opens: a bad one is a ConfigError.
  const spaceApiSetup = loadSpaceApi(config);
  const database = deps.database ?? (await openDatabase(config.database));
  const logger = deps.logger ?? { level: config.logLevel };
  const site: Site = { name: siteName(spaceApiSetup?.document, config), assets: new Assets(config.compressMinBytes) };
  const htmlErrors: HtmlError = (request, reply, status, body) => {
    const page = htmlError(site, { method: request.method, url: request.raw.url ?? '/', accept: request.headers.accept, status, body, headers: reply.getHeaders() });
    if (page !== null) reply.headers(HTML_HEADERS);
    return page;
  };
  let node: NodeServer | undefined;
  let closing = false;
  const app = Fastify({
    serverFactory: (handler) => (node = nodeServer(handler, config.requests)).server,
    // Fastify's default, stated: writes are small JSON records, far below it (413 above).
    bodyLimit: BODY_LIMIT_BYTES,
    logger: typeof logger === 'object' ? { ...logger, serializers: { req: serializeRequest } } : logger,
    trustProxy: config.trustProxy,
    // Paths are matched by our own route table (drf/routes.ts), so Fastify's router sees one wildcard.
    routerOptions: { maxParamLength: 65_536 },
    frameworkErrors: (error, request, reply) => {
      frameworkError(error, request, reply, htmlErrors);
    },
    clientErrorHandler: clientError,
    exposeHeadRoutes: false,
    // While closing we answer ourselves, in the contract's shape (see `closing` below).
    return503OnClosing: false,
  });
  if (!deps.database) app.addHook('onClose', () => database.close());
  // Bodies are kept as bytes and parsed by the write handlers (drf/body.ts), after authentication
  // and the record lookup, as DRF orders it; reads ignore them.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  app.addHook('preClose', async () => {
    closing = true;
  });

  const times = new TimeFormatter(config.timeZone);
  const cache = new ResponseCache(config.responseCacheBytes);
  // prom-client is loaded only when metrics are on (start-up time, issue 14).
  const metrics = config.metrics ? new (await import('./metrics/app-metrics.js')).AppMetrics(['delivered', 'failed', 'abandoned'] satisfies DeliveryResult[]) : null;
  app.decorate('metrics', metrics);
  const fast = new FastReads({
    config,
    database,
    cache,
    log: app.log,
    isClosing: () => closing,
    openConnections: () => node!.connections.size,
    durations: metrics?.requests ?? null,
  });
  app.decorate('connections', node!.connections);
  node!.setFront((request, response, next) => fast.serve(request, response, next));
  // The push stream and webhooks; their streams end before the server closes.
  const live = new SpaceLive(config, database, times, app.log);
  app.decorate('live', live);
  app.addHook('onReady', async () => live.start());
  app.addHook('preClose', () => live.close());
  const writes = new AnnouncedWrites(database, live.committed, live.webhooks.record);
  // MQTT (MQTT_URL): this process's changes, and the door over MQTT through the same writes. It
  // connects once the app is ready and disconnects after the server closed, before the database.
  if (config.mqtt) {
    const mqtt = new MqttBridge({ settings: config.mqtt, database, times, writes, spaceName: site.name, log: app.log });
    live.onCommitted(mqtt.changed);
    app.addHook('onReady', async () => mqtt.start());
    metrics?.watchMqtt(() => mqtt.connected);
    app.addHook('onClose', () => mqtt.close());
  }
  const throttle = new FailureThrottle();
  const health = healthCheck(database, pingTimeoutOf(config));
  const spaceApi = spaceApiSetup && spaceApiHandler(database, spaceApiSetup, config);
  if (metrics) instrument(app, metrics, { database, cache, fast, live, spaceApi: Boolean(spaceApi) });
  if (spaceApiSetup) {
    app.log.info({ spaceapi: spaceApiSetup.file, api_compatibility: spaceApiSetup.compatibility }, `SpaceAPI document from ${spaceApiSetup.file}`);
    for (const note of spaceApiSetup.notes) app.log.warn({ spaceapi: spaceApiSetup.file }, `SpaceAPI: ${note}`);
  }
  const legacyDoor = legacyDoorHandler(database.db, writes, throttle);
  const pageTimes = new PageTimes(config.timeZone, times);
  const bodies = new CachedBodies(cache, config);
  // The API's own description (GET /api/schema/): the same for every request, so built once.
  // Built on first request: most processes never serve it, and it costs 16–18 ms at start.
  let openapiDocument: unknown;
  const openapi = () => (openapiDocument ??= openApiDocument(config));
  const api = apiHandler({ config, database, times, avatar: avatarUrls(config), bodies, fast, site, feed: live.feed, writes, openapi });
  const pages = pagesHandler({ db: database.db, config, bodies, fast, site, times: pageTimes, zone: times });
  const asset = assetHandler(site.assets);

  // Before the body is read: the checks that DRF makes first (drf/resolve.ts), and the routes
  // that live outside the API.
  app.addHook('onRequest', async (request, reply) => {
    reply.headers(SECURITY_HEADERS).headers(corsHeaders(request.method, request.headers));
    // Requests still arriving on kept-alive connections while shutting down: come back shortly.
    if (closing) throw unavailable({ connection: 'close' });
    // The load balancers' check is not part of the API: answered here, before the API's routing.
    const url = request.raw.url;
    if (isHealthCheck(url)) return health(request, reply);
    if (spaceApi && isSpaceApi(url)) return spaceApi(request, reply);
    if (isLegacyDoor(url)) return;
    if (url?.startsWith(ASSET_PREFIX)) return asset(request, reply);
    const path = pathOf(url);
    // Pages live outside /api/, but for the API's reference (/api/docs/).
    request.page = pageRouteOf(path) ?? undefined;
    if (request.page) return;
    if (!path.startsWith('/api/') || path === '/api/docs') {
      if (pageWithSlash(path))
        return reply
          .code(301)
          .header('location', path + '/' + url!.slice(path.length))
          .send();
    }
    const target = fast.targetOf(request.raw);
    const routing = routeOf(target);
    if (routing.location !== undefined) return reply.code(301).header('location', routing.location).send();
    reply.headers(routeHeaders(routing.route));
    request.resolved = await checkRequest(describeRequest(request), routing.route, target, database.db, throttle);
    // A valid token on a read: the fast path may answer its next reads (cache/known-tokens.ts).
    if (request.resolved.token !== null) fast.authenticated(request.raw, request.resolved.token);
  });
  app.setErrorHandler(errorHandler(htmlErrors));

  const handle = async (request: Parameters<typeof api>[0], reply: FastifyReply) => {
    if (isLegacyDoor(request.raw.url)) return legacyDoor(request, reply);
    if (request.page) return pages(request, reply, request.page.route, request.page.match);
    if (!request.resolved) throw notFound();
    return api(request, reply, request.resolved);
  };
  app.all('*', handle);
  app.setNotFoundHandler(handle);
  return app;
}

/** The space's name on the pages: the SpaceAPI file's `space`, else SPACE_NAME, else "Hackerspace" (web.md §3). */
function siteName(spaceApi: Readonly<Record<string, unknown>> | undefined, config: Config): string {
  const space = spaceApi?.space;
  if (typeof space === 'string' && space.trim() !== '') return space.trim();
  return config.spaceName ?? 'Hackerspace';
}
