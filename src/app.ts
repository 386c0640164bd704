import os from 'node:os';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { CachedBodies } from './cache/cached-bodies.js';
import { FastReads } from './cache/fast-path.js';
import { ResponseCache } from './cache/response-cache.js';
import type { Config } from './config.js';
import { openDatabase, type DatabaseHandle } from './db/connection.js';
import { avatarUrls } from './drf/links.js';
import { corsHeaders, SECURITY_HEADERS } from './drf/headers.js';
import { notFound, unavailable } from './drf/errors.js';
import { drfText, readDrfCatalogue } from './drf/messages.js';
import { FailureThrottle } from './drf/throttle.js';
import { pingTimeoutOf, sharedPing } from './handlers/health.js';
import { openApiDocument } from './openapi/document.js';
import { errorHandler } from './http/error-handler.js';
import type { ConnectionDrain } from './http/drain.js';
import { nodeServer, type NodeServer } from './http/node-server.js';
import type { HtmlError } from './http/reply.js';
import type { Ready, Route } from './http/route.js';
import { Router } from './http/router.js';
import type { Services } from './http/services.js';
import { clientError, frameworkError } from './http/transport-errors.js';
import { MqttBridge } from './live/mqtt.js';
import { SpaceLive } from './apps/space/live/space-live.js';
import { spaceMqttSource } from './apps/space/live/space-mqtt.js';
import { AnnouncedWrites } from './live/writes.js';
import { Mailer, type MailerOptions } from './apps/users/mail.js';
import type { DiscoveryTiming } from './apps/users/oidc-client.js';
import { PasswordHasher } from './apps/users/passwords.js';
import { serializeRequest } from './log.js';
import { RequestReader } from './request/facts.js';
import { OpeningPositions } from './apps/space/openings.js';
import { routeTable } from './routes/index.js';
import { SITE_LINKS } from './routes/pages.js';
import { INSTALLED_APPS } from './installed-apps.js';
import { appsTurnedOn, assetsOf, noticesOf, siteLinksOf } from './http/app-declaration.js';
import { SITE_NOTICES } from './web/notices.js';
import { loadSpaceApi, spaceNameOf } from './apps/space/spaceapi/config-file.js';
import { TimeFormatter } from './time.js';
import { Assets, SITE_ASSETS } from './web/assets.js';
import { memberViewing } from './apps/users/handlers/viewer.js';
import { MEMBER_TOKENS } from './apps/users/member-tokens.js';
import { PRIVATE, wordsFor } from './http/viewing.js';
import { htmlError } from './web/error-pages.js';
import { Catalogue } from './i18n/catalogue.js';
import { SITE_LOCALE } from './web/site-words.js';
import { HTML_HEADERS, siteFor, type Site } from './web/layout.js';
import { instrument } from './http/metrics.js';
import type { DeliveryResult } from './live/webhooks.js';
import type { AppMetrics } from './metrics/app-metrics.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The route of the table (src/routes/) that answers the request, once routed: its template labels the metrics. */
    routed?: Route;
    /** The route, once its checks passed (before the body is read): it answers in the handler. */
    ready?: Ready;
  }
  interface FastifyInstance {
    /** The process's push stream and webhooks (apps/space/live/space-live.ts). */
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
  /** A CA the mailer trusts besides the system's (tests' SMTP server). */
  mailer?: MailerOptions;
  /** How soon discovery of the OpenID provider is tried again (tests: sooner than an operator's default). */
  oidcTiming?: DiscoveryTiming;
}

/**
 * The service as a Fastify app. Fastify is a thin shell here: one wildcard route, with the route
 * table (src/routes/) and its router behind it, and Node's server in front of it answering
 * repeated reads from the response cache (cache/fast-path.ts), every request's facts read once
 * as it arrives (request/facts.ts). This function only wires the parts together.
 */
export async function buildApp(config: Config, deps: AppDependencies = {}): Promise<FastifyInstance> {
  // The operator's SpaceAPI file, checked before anything opens: a bad one is a ConfigError.
  const spaceApiSetup = loadSpaceApi(config);
  // The apps that are on (APPS), checked before anything opens: an unknown name is a ConfigError.
  const apps = appsTurnedOn(INSTALLED_APPS, config.apps);
  const table = routeTable(apps);
  const database = deps.database ?? (await openDatabase(config.database));
  const logger = deps.logger ?? { level: config.logLevel };
  // Every installed app's words, whether it is on or off: a catalogue costs a few kilobytes.
  const catalogue = Catalogue.read([SITE_LOCALE, ...INSTALLED_APPS.flatMap((app) => (app.locale === undefined ? [] : [app.locale]))], config);
  // The API's messages in LANGUAGE_CODE: its catalogue read once, handed to whatever answers an error.
  const apiText = drfText(readDrfCatalogue(config.languageCode));
  const site: Site = {
    name: spaceNameOf(spaceApiSetup, config),
    words: catalogue.spaceWords,
    languages: catalogue.offered.map((tag) => ({ tag, name: catalogue.nameOf(tag) })),
    assets: new Assets(config.compressMinBytes, assetsOf(SITE_ASSETS, apps)),
    links: siteLinksOf(SITE_LINKS, apps),
    appsOn: new Set(apps.map((app) => app.name)),
  };
  const htmlErrors: HtmlError = (request, reply, status, body) => {
    const facts = reader.of(request.raw);
    // A member's navigation when the handler had looked them up; a visitor's otherwise.
    const viewer = facts.viewer ?? null;
    const page = htmlError(siteFor(site, wordsFor(catalogue, services.viewing, facts, viewer), services.viewing.nav(facts, viewer)), {
      method: request.method,
      target: facts.target,
      preferred: facts.preferred,
      // Errors the framework raised before routing (a malformed URL) are routed here.
      isPage: (request.routed ?? router.route(facts.target)?.matched?.route)?.page ?? false,
      status,
      body,
      headers: reply.getHeaders(),
    });
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
    // Paths are matched by our own route table (src/routes/), so Fastify's router sees one wildcard.
    routerOptions: { maxParamLength: 65_536 },
    frameworkErrors: (error, request, reply) => {
      frameworkError(error, request, reply, htmlErrors, apiText);
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
  // Multipart forms carry files (the treasury's receipts, up to RECEIPT_MAX_MB): their own limit, a little above.
  app.addContentTypeParser(
    'multipart/form-data',
    { parseAs: 'buffer', bodyLimit: Math.max(BODY_LIMIT_BYTES, config.ledger.receiptMaxBytes + 256 * 1024) },
    (_request, body, done) => done(null, body),
  );
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
  const reader = new RequestReader(config, catalogue);
  node!.setFront(reader, (request, response, facts, next) => fast.serve(request, response, facts, next));
  // The push stream and webhooks; their streams end before the server closes.
  const live = new SpaceLive(config, database, times, app.log);
  app.decorate('live', live);
  app.addHook('onReady', async () => live.start());
  app.addHook('preClose', () => live.close());
  const writes = new AnnouncedWrites(database, live.committed, live.webhooks.record);
  // MQTT (MQTT_URL): this process's changes, and the door over MQTT through the same writes. It
  // connects once the app is ready and disconnects after the server closed, before the database.
  if (config.mqtt) {
    const source = spaceMqttSource({ settings: config.mqtt, database, times, writes, spaceName: site.name, log: app.log });
    const mqtt = new MqttBridge({ settings: config.mqtt, source, log: app.log });
    live.onCommitted(mqtt.changed);
    app.addHook('onReady', async () => mqtt.start());
    metrics?.watchMqtt(() => mqtt.connected);
    app.addHook('onClose', () => mqtt.close());
  }
  if (spaceApiSetup) {
    app.log.info({ spaceapi: spaceApiSetup.file, api_compatibility: spaceApiSetup.compatibility }, `SpaceAPI document from ${spaceApiSetup.file}`);
    for (const note of spaceApiSetup.notes) app.log.warn({ spaceapi: spaceApiSetup.file }, `SpaceAPI: ${note}`);
  }
  // Single sign-on (OIDC_ISSUER): openid-client is loaded only then; discovery starts with the app and never holds it up.
  const oidc = config.members.oidc === null ? null : new (await import('./apps/users/oidc-client.js')).OidcClient(config.members.oidc, app.log, deps.oidcTiming);
  if (oidc !== null) {
    app.addHook('onReady', async () => oidc.start());
    app.addHook('onClose', async () => oidc.close());
  }
  // The API's own description (GET /api/schema/): the same for every request, so built once, on
  // first request: most processes never serve it, and it costs 16–18 ms.
  let openapiDocument: unknown;
  const services: Services = {
    config,
    database,
    reader,
    fast,
    bodies: new CachedBodies(cache, config),
    times,
    avatar: avatarUrls(config),
    site,
    catalogue,
    notices: noticesOf(SITE_NOTICES, apps),
    routeOf: table.api.routeOf,
    feed: live.feed,
    writes,
    throttle: new FailureThrottle(),
    drfText: apiText,
    memberTokens: MEMBER_TOKENS,
    hasher: new PasswordHasher({
      iterations: config.members.passwordIterations,
      concurrency: os.availableParallelism(),
      queueLimit: config.members.hashQueue,
      log: app.log,
    }),
    mailer: config.members.mail === null ? null : new Mailer(config.members.mail, app.log, deps.mailer),
    oidc,
    viewing: memberViewing({ database, config }),
    pagePositions: { openingPositions: new OpeningPositions() },
    openapi: () => (openapiDocument ??= openApiDocument(config)),
    ping: sharedPing(database, pingTimeoutOf(config)),
    spaceApi: spaceApiSetup ? { setup: spaceApiSetup, latest: undefined } : null,
  };
  const router = new Router(table.routes.filter((route) => route.servedBy(services)));
  if (metrics) instrument(app, metrics, { database, cache, live });

  // Before the body is read: routing, and the checks that DRF makes first (drf/resolve.ts). The
  // routes that need no body (health, SpaceAPI, assets) answer here.
  app.addHook('onRequest', async (request, reply) => {
    reply.headers(SECURITY_HEADERS).headers(corsHeaders(request.method, request.headers));
    // Requests still arriving on kept-alive connections while shutting down: come back shortly.
    if (closing) throw unavailable({ connection: 'close' });
    const facts = reader.of(request.raw);
    // Whatever answers the holder of a session (a page, an error) may be built for a member.
    if (facts.session !== null) reply.header('cache-control', PRIVATE);
    const routing = router.route(facts.target);
    // The "not found" page of a member names them like any other page.
    if (routing === null) {
      if (facts.session !== null) await services.viewing.of(facts);
      return;
    }
    if (routing.location !== undefined) return reply.code(301).header('location', routing.location).send();
    const { matched } = routing;
    request.routed = matched.route;
    const ready = await matched.check({ request, reply, facts, services });
    if (matched.route.bodiless) return ready.handle({ request, reply, facts, services });
    request.ready = ready;
  });
  app.setErrorHandler(errorHandler(htmlErrors, apiText));
  const handle = async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.ready === undefined) throw notFound();
    return request.ready.handle({ request, reply, facts: reader.of(request.raw), services });
  };
  app.all('*', handle);
  app.setNotFoundHandler(handle);
  return app;
}
