import http from 'node:http';
import type { Socket } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { isConstraintViolation, isDatabaseUnavailable, openDatabase, type DatabaseHandle } from '../db/connection.js';
import { SpaceLive } from '../live/space-live.js';
import { serializeRequest } from '../log.js';
import { loadSpaceApi } from '../spaceapi/config-file.js';
import { TimeFormatter } from '../time.js';
import { ConflictError, FieldErrors } from '../resources/write-errors.js';
import { addCorsHeaders } from './cors.js';
import { ApiError, notFound } from './errors.js';
import { healthCheck, isHealthCheck, pingTimeoutOf, RETRY_AFTER_SECONDS } from './health.js';
import { json, SECURITY_HEADERS, sendJson } from './json.js';
import { LEGACY_DOOR_PATHS, legacyDoorHandler } from './legacy-door.js';
import { avatarUrls, baseUrlOf, linkStyle, recordContext } from './links.js';
import { actionsFor } from './metadata.js';
import { resolveRequest, SAFE_METHODS } from './request-checks.js';
import { isSpaceApi, spaceApiHandler } from './spaceapi.js';
import { streamHandler } from './stream.js';
import { ResponseCache } from './response-cache.js';
import { cacheKey, fastReads, versionsFor } from './cached-reads.js';
import { collections } from './collections.js';
import { Representation, sourceOf } from './representation.js';
import { SharedBuilds } from './shared-builds.js';
import { readAnswerWhenReady, sendAnswer } from './read-answer.js';
import { ALLOW, type RouteMatch } from './routes.js';
import type { VersionedTable } from '../db/table-versions.js';
import { clientError, frameworkError, publicClientMessage } from './transport-errors.js';
import { FailureThrottle } from './throttle.js';
import { bodyBuilder, optionsBody } from './views.js';
import { writeHandler } from './writes.js';

export interface AppDependencies {
  /** An open database; when omitted, the app opens config.database and closes it with itself. */
  database?: DatabaseHandle;
  /** Pino options or false; defaults to JSON logs at config.logLevel. */
  logger?: boolean | object;
}

export async function buildApp(config: Config, deps: AppDependencies = {}): Promise<FastifyInstance> {
  // The operator's SpaceAPI file, checked before anything opens: a bad one is a ConfigError.
  const spaceApiSetup = loadSpaceApi(config);
  const database = deps.database ?? openDatabase(config.database);
  const logger = deps.logger ?? { level: config.logLevel };
  const cache = new ResponseCache(config.responseCacheBytes);
  let closing = false;
  // Set once the app exists (its logger); until then every request goes to the framework.
  let fastRead: ReturnType<typeof fastReads> | undefined;
  let openConnections = 0;
  const app = Fastify({
    // Repeated reads are answered from the cache before the framework sees them (cached-reads.ts).
    serverFactory: (handler) => {
      const server = http.createServer((request, response) => {
        if (fastRead === undefined) handler(request, response);
        else fastRead(request, response, () => handler(request, response));
      });
      server.on('connection', (socket: Socket) => {
        openConnections++;
        socket.once('close', () => openConnections--);
      });
      // What Fastify sets on a server it creates itself.
      server.keepAliveTimeout = 72_000;
      server.requestTimeout = 0;
      return server;
    },
    logger: typeof logger === 'object' ? { ...logger, serializers: { req: serializeRequest } } : logger,
    trustProxy: config.trustProxy,
    // Paths are matched by our own route table (routes.ts), so Fastify's router sees one wildcard.
    routerOptions: { maxParamLength: 65_536 },
    frameworkErrors: (error, _request, reply) => frameworkError(error, reply as FastifyReply),
    clientErrorHandler: clientError,
    exposeHeadRoutes: false,
    // While closing we answer ourselves, in the contract's shape (see `closing` below).
    return503OnClosing: false,
  });
  if (!deps.database) app.addHook('onClose', () => database.close());
  // Bodies are kept as bytes and parsed by the write handlers (body.ts), after authentication
  // and the record lookup, as DRF orders it; reads ignore them.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.addHook('preClose', async () => {
    closing = true;
  });

  const health = healthCheck(database, pingTimeoutOf(config));
  const throttle = new FailureThrottle();
  const spaceApi = spaceApiSetup && spaceApiHandler(database, spaceApiSetup, config);
  if (spaceApiSetup) {
    app.log.info({ spaceapi: spaceApiSetup.file, api_compatibility: spaceApiSetup.compatibility }, `SpaceAPI document from ${spaceApiSetup.file}`);
    for (const note of spaceApiSetup.notes) app.log.warn({ spaceapi: spaceApiSetup.file }, `SpaceAPI: ${note}`);
  }
  app.addHook('onRequest', async (request, reply) => {
    reply.headers(SECURITY_HEADERS);
    addCorsHeaders(request, reply);
    // Requests still arriving on kept-alive connections while shutting down: come back shortly.
    if (closing) throw new ApiError(503, 'Service temporarily unavailable.', { 'retry-after': RETRY_AFTER_SECONDS, connection: 'close' });
    // The load balancers' check is not part of the API: answered here, before the API's routing.
    if (isHealthCheck(request.raw.url)) return health(request, reply);
    if (spaceApi && isSpaceApi(request.raw.url)) return spaceApi(request, reply);
    if (isLegacyDoor(request.raw.url)) return;
    return resolveRequest(request, reply, database.db, throttle);
  });

  app.setErrorHandler((error, request, reply) => {
    if (error instanceof ApiError) {
      return sendJson(reply.code(error.status).headers(error.headers), { detail: error.detail });
    }
    if (error instanceof FieldErrors) return sendJson(reply.code(400), error.errors);
    if (error instanceof ConflictError) return sendJson(reply.code(409), { detail: error.message });
    const status = (error as { statusCode?: number }).statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      return sendJson(reply.code(status), { detail: publicClientMessage(status) });
    }
    if (isConstraintViolation(error)) {
      // Our checks run under the write lock, so only a writer that bypasses it (another tool on
      // the database) can get here: a conflict to retry, not a server fault.
      request.log.warn({ err: error }, 'constraint violated');
      return sendJson(reply.code(409), { detail: 'The change conflicts with the current data; try again.' });
    }
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ err: error }, 'database unavailable');
      return sendJson(reply.code(503).header('retry-after', RETRY_AFTER_SECONDS), { detail: 'Service temporarily unavailable.' });
    }
    request.log.error({ err: error }, 'unexpected failure');
    return sendJson(reply.code(500), { detail: 'Internal server error.' });
  });

  fastRead = fastReads({ config, database, cache, log: app.log, isClosing: () => closing, openConnections: () => openConnections });
  const times = new TimeFormatter(config.timeZone);
  const avatar = avatarUrls(config);
  const buildBody = bodyBuilder({ db: database.db, config, times, avatar });
  const builds = new SharedBuilds<Representation>();
  // The push stream and webhooks; their streams end before the server closes.
  const live = new SpaceLive(config, database, times, app.log);
  app.decorate('live', live);
  app.addHook('preClose', () => live.close());
  const stream = streamHandler(live.feed, config);
  const write = writeHandler({ database, timeZone: config.timeZone, onSpaceChange: live.committed });
  const legacyDoor = legacyDoorHandler(database, throttle, live.committed);

  /** GET and HEAD from the cache when the data has not changed since the body was built. */
  const handle = async (request: FastifyRequest, reply: FastifyReply) => {
    if (isLegacyDoor(request.raw.url)) return legacyDoor(request, reply);
    const resolved = request.resolved;
    if (!resolved) throw notFound();
    const base = baseUrlOf(request, config);
    if (resolved.route.kind === 'stream') return stream(request, reply, resolved);
    if (request.method === 'OPTIONS') return sendJson(reply, optionsBody(resolved.route, actionsFor(resolved.route, resolved.token)));
    if (!SAFE_METHODS.has(request.method)) {
      const style = linkStyle(base, resolved.route.suffix, resolved.format);
      return write(request, reply, resolved, style, recordContext(style, config, times, avatar));
    }
    const key = cacheKey(base, resolved.rawPath, resolved.query);
    // Read before the body is built, so that the body is at least as new as the versions it is filed under.
    const snapshot = await versionsFor(request.raw, database);
    cache.observe(snapshot);
    let representation = cache.get(key, snapshot);
    if (representation === undefined) {
      const source = sourceOf(snapshot, readsOf(resolved.route), ALLOW[resolved.route.kind]);
      representation = await builds.run(`${key}\n${source.versions.join('.')}`, async () => {
        const built = new Representation(json(await buildBody(resolved, base)), source);
        cache.set(key, built);
        return built;
      });
    }
    const answer = await readAnswerWhenReady(representation, request.headers, config);
    cache.resize(key, representation);
    return sendAnswer(reply, answer);
  };

  app.all('*', handle);
  app.setNotFoundHandler(handle);
  return app;
}

/** The tables a GET on a route reads: what the cache checks its response against. */
function readsOf(route: RouteMatch): readonly VersionedTable[] {
  if (route.kind === 'root') return [];
  if (route.kind === 'status') return ['openings'];
  return collections[route.collection!].reads;
}

function isLegacyDoor(url: string | undefined): boolean {
  const path = url === undefined ? '' : url.split('?', 1)[0];
  return LEGACY_DOOR_PATHS.has(path);
}
