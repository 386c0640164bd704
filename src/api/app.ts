import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { isDatabaseUnavailable, openDatabase, type DatabaseHandle } from '../db/connection.js';
import { TimeFormatter } from '../time.js';
import { collections } from './collections.js';
import { ResponseCache } from './response-cache.js';
import { ApiError, invalidToken, notAuthenticated, notFound } from './errors.js';
import { healthCheck, isHealthCheck, pingTimeoutOf, RETRY_AFTER_SECONDS } from './health.js';
import { apiUrl, avatarUrls, baseUrlOf, linkStyle, pageUrl, recordContext, type LinkStyle } from './links.js';
import { checkAccept, requestedFormat, type Format } from './negotiation.js';
import { pageCount, pageNumberOf, pageSizeOf } from './pagination.js';
import { parseQuery, type QueryPair } from './query.js';
import { ALLOW, COLLECTIONS, decodePath, matchRoute, parseId, type RouteMatch } from './routes.js';

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
  'cross-origin-opener-policy': 'same-origin',
  'x-frame-options': 'DENY',
};

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const PARSES = ['application/json', 'application/x-www-form-urlencoded'];

/** What the checks before the handler learnt about a request. */
interface Resolved {
  route: RouteMatch;
  rawPath: string;
  query: QueryPair[];
  format: Format | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    resolved?: Resolved;
  }
}

export interface AppDependencies {
  /** An open database; when omitted, the app opens config.database and closes it with itself. */
  database?: DatabaseHandle;
  /** Pino options or false; defaults to JSON logs at config.logLevel. */
  logger?: boolean | object;
}

export async function buildApp(config: Config, deps: AppDependencies = {}): Promise<FastifyInstance> {
  const database = deps.database ?? openDatabase(config.database);
  const db = database.db;
  const times = new TimeFormatter(config.timeZone);
  const avatar = avatarUrls(config);
  const app = Fastify({
    logger: deps.logger ?? { level: config.logLevel },
    trustProxy: config.trustProxy,
    // Paths are matched by our own route table (routes.ts), so Fastify's router sees one wildcard.
    routerOptions: { maxParamLength: 65_536 },
    // A path the router cannot even decode (`/api/%zz`) is a path we have no route for.
    frameworkErrors: (error, _request, reply) => {
      reply.headers(SECURITY_HEADERS);
      if (error.code === 'FST_ERR_BAD_URL') return sendJson((reply as FastifyReply).code(404), { detail: 'Not found.' });
      return sendJson((reply as FastifyReply).code(400), { detail: 'Bad request.' });
    },
    exposeHeadRoutes: false,
    return503OnClosing: true,
    // Requests Node's HTTP parser rejects (bad framing, and raw non-ASCII bytes in the request
    // line, which llhttp refuses even in its insecure mode) still get a JSON body.
    clientErrorHandler: (error, socket) => {
      if (!socket.writable) return;
      const code = (error as { code?: string }).code;
      const [status, detail] = code === 'HPE_HEADER_OVERFLOW'
        ? ['431 Request Header Fields Too Large', 'Request header fields too large.']
        : code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? ['408 Request Timeout', 'Request timeout.']
          : ['400 Bad Request', 'Malformed HTTP request (characters outside ASCII must be percent-encoded).'];
      const body = JSON.stringify({ detail });
      const headers = Object.entries(SECURITY_HEADERS).map(([k, v]) => `${k}: ${v}\r\n`).join('');
      socket.end(`HTTP/1.1 ${status}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${headers}connection: close\r\n\r\n${body}`);
    },
  });
  if (!deps.database) app.addHook('onClose', () => database.close());

  const health = healthCheck(database, pingTimeoutOf(config));
  app.addHook('onRequest', async (request, reply) => {
    reply.headers(SECURITY_HEADERS);
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
      // Fastify's own client errors (body too large, bad content type…): keep the status, not the text.
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

  /** The body of a GET: from the cache when the data has not changed since it was built. */
  const handle = async (request: FastifyRequest, reply: FastifyReply) => {
    const resolved = request.resolved;
    if (!resolved) throw notFound();
    const base = baseUrlOf(request, config);
    if (request.method === 'OPTIONS') return sendBody(reply, json(optionsBody(resolved.route)));
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

  async function buildBody(resolved: Resolved, base: string): Promise<unknown> {
    const { route } = resolved;
    const style = linkStyle(base, route.suffix, resolved.format);
    if (route.kind === 'root') return rootBody(style);
    const resource = collections[route.collection!];
    const ctx = recordContext(style, config, times, avatar);
    if (route.kind === 'detail') {
      const id = parseId(route.id!);
      const record = id === null ? undefined : await resource.find(db, id, ctx);
      if (record === undefined) throw notFound();
      return record;
    }
    const size = pageSizeOf(resolved.query, config);
    // One snapshot for the count and the page, so that a concurrent import can't split them.
    const { count, pages, page, results } = await db.transaction().execute(async (trx) => {
      const count = await resource.count(trx);
      const pages = pageCount(count, size);
      const page = pageNumberOf(resolved.query, pages);
      const results = await resource.page(trx, { offset: (page - 1) * size, limit: size }, resolved.query, ctx);
      return { count, pages, page, results };
    });
    return {
      count,
      next: page < pages ? pageUrl(base, resolved.rawPath, resolved.query, page + 1) : null,
      previous: page > 1 ? pageUrl(base, resolved.rawPath, resolved.query, page - 1) : null,
      results,
    };
  }

  app.all('*', handle);
  app.setNotFoundHandler(handle);
  return app;
}

/**
 * Everything decided before a body is read, in DRF's order: route (301/404), format (404),
 * Accept (406), authentication (401). Sets `request.resolved` for the handler.
 */
async function resolveRequest(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | void> {
  const url = request.raw.url ?? '/';
  const q = url.indexOf('?');
  const rawPath = q === -1 ? url : url.slice(0, q);
  const rawQuery = q === -1 ? '' : url.slice(q + 1);
  const path = decodePath(rawPath);
  const route = path === null ? null : matchRoute(path);
  if (route === null) {
    if (path !== null && !path.endsWith('/') && matchRoute(path + '/') !== null) {
      return reply.code(301).header('location', rawPath + '/' + (rawQuery ? '?' + rawQuery : '')).send();
    }
    throw notFound();
  }
  reply.header('allow', ALLOW[route.kind]).header('vary', 'Accept');
  const query = parseQuery(rawQuery);
  const format = requestedFormat(route.suffix, query);
  checkAccept(request.headers.accept);
  authenticate(request.headers.authorization);
  // No tokens exist yet, so nobody may write.
  if (!SAFE_METHODS.has(request.method)) throw notAuthenticated();
  request.resolved = { route, rawPath, query, format };
}

/** DRF's token schemes. Any credentials presented are checked, on every method. */
function authenticate(header: string | undefined): void {
  if (!header) return;
  const [scheme] = header.trim().split(/\s+/, 1);
  if (scheme.toLowerCase() === 'token' || scheme.toLowerCase() === 'bearer') throw invalidToken();
}

function rootBody(style: LinkStyle): Record<string, string> {
  return {
    events: apiUrl(style, 'events'),
    meetings: apiUrl(style, 'meetings'),
    users: apiUrl(style, 'users'),
    projects: apiUrl(style, 'projects'),
    'space/openings': apiUrl(style, 'space/openings'),
  };
}

function optionsBody(route: RouteMatch) {
  if (route.kind === 'root') {
    return { name: 'Api Root', description: 'The default basic root view for DefaultRouter', renders: ['application/json'], parses: PARSES };
  }
  const view = collections[route.collection!].viewName;
  return { name: `${view} ${route.kind === 'list' ? 'List' : 'Instance'}`, description: '', renders: ['application/json'], parses: PARSES };
}

/** Compact JSON, U+2028/U+2029 escaped as DRF's renderer does. */
function json(body: unknown): Buffer {
  let text = JSON.stringify(body);
  if (/[\u2028\u2029]/.test(text)) text = text.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
  return Buffer.from(text);
}

/** `application/json` exactly: a Buffer payload keeps Fastify from adding a charset. */
function sendBody(reply: FastifyReply, body: Buffer): FastifyReply {
  return reply.header('content-type', 'application/json').send(body);
}

function sendJson(reply: FastifyReply, body: unknown): FastifyReply {
  return sendBody(reply, json(body));
}

function publicClientMessage(status: number): string {
  switch (status) {
    case 404: return 'Not found.';
    case 405: return 'Method not allowed.';
    case 413: return 'Request body is too large.';
    case 415: return 'Unsupported media type in request.';
    case 429: return 'Request was throttled.';
    default: return 'Bad request.';
  }
}

export { COLLECTIONS };
