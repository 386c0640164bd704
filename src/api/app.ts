import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { isDatabaseUnavailable, openDatabase, type DatabaseHandle } from '../db/connection.js';
import { TimeFormatter } from '../time.js';
import { ApiError, notFound } from './errors.js';
import { healthCheck, isHealthCheck, pingTimeoutOf, RETRY_AFTER_SECONDS } from './health.js';
import { json, SECURITY_HEADERS, sendBody, sendJson } from './json.js';
import { avatarUrls, baseUrlOf } from './links.js';
import { resolveRequest } from './request-checks.js';
import { ResponseCache } from './response-cache.js';
import { clientError, frameworkError, publicClientMessage } from './transport-errors.js';
import { bodyBuilder, optionsBody } from './views.js';

export interface AppDependencies {
  /** An open database; when omitted, the app opens config.database and closes it with itself. */
  database?: DatabaseHandle;
  /** Pino options or false; defaults to JSON logs at config.logLevel. */
  logger?: boolean | object;
}

export async function buildApp(config: Config, deps: AppDependencies = {}): Promise<FastifyInstance> {
  const database = deps.database ?? openDatabase(config.database);
  const app = Fastify({
    logger: deps.logger ?? { level: config.logLevel },
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
  // No route reads a body yet: accept any (an OPTIONS or GET with a body is still answered).
  // Writes are refused before parsing, in the request checks.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));

  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });

  const health = healthCheck(database, pingTimeoutOf(config));
  app.addHook('onRequest', async (request, reply) => {
    reply.headers(SECURITY_HEADERS);
    // Requests still arriving on kept-alive connections while shutting down: come back shortly.
    if (closing) throw new ApiError(503, 'Service temporarily unavailable.', { 'retry-after': RETRY_AFTER_SECONDS, connection: 'close' });
    // The load balancers' check is not part of the API: answered here, before the API's routing.
    if (isHealthCheck(request.raw.url)) return health(request, reply);
    return resolveRequest(request, reply);
  });

  app.setErrorHandler((error, request, reply) => {
    if (error instanceof ApiError) {
      return sendJson(reply.code(error.status).headers(error.headers), { detail: error.detail });
    }
    const status = (error as { statusCode?: number }).statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      return sendJson(reply.code(status), { detail: publicClientMessage(status) });
    }
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ err: error }, 'database unavailable');
      return sendJson(reply.code(503).header('retry-after', RETRY_AFTER_SECONDS), { detail: 'Service temporarily unavailable.' });
    }
    request.log.error({ err: error }, 'unexpected failure');
    return sendJson(reply.code(500), { detail: 'Internal server error.' });
  });

  const cache = new ResponseCache(config.responseCacheBytes);
  const buildBody = bodyBuilder({ db: database.db, config, times: new TimeFormatter(config.timeZone), avatar: avatarUrls(config) });

  /** GET and HEAD from the cache when the data has not changed since the body was built. */
  const handle = async (request: FastifyRequest, reply: FastifyReply) => {
    const resolved = request.resolved;
    if (!resolved) throw notFound();
    const base = baseUrlOf(request, config);
    if (request.method === 'OPTIONS') return sendJson(reply, optionsBody(resolved.route));
    // Everything a body depends on: the base URL and the request target (path, format, query).
    const key = `${base} ${request.raw.url}`;
    const version = await database.dataVersion();
    let body = cache.get(key, version);
    if (body === undefined) {
      body = json(await buildBody(resolved, base));
      cache.set(key, version, body);
    }
    return sendBody(reply, body);
  };

  app.all('*', handle);
  app.setNotFoundHandler(handle);
  return app;
}
