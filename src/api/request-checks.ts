import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../db/connection.js';
import type { TokenInfo } from '../resources/tokens.js';
import { authenticate, mayWrite } from './auth.js';
import { VARY } from './cached-reads.js';
import { ApiError, methodNotAllowed, notAuthenticated, notFound } from './errors.js';
import { checkAccept, checkEventStreamAccept, requestedFormat, type Format } from './negotiation.js';
import { parseQuery, type QueryPair } from './query.js';
import { ALLOW, decodePath, matchRoute, type RouteMatch } from './routes.js';
import type { FailureThrottle } from './throttle.js';

/** What the checks before the handler learnt about a request. */
export interface Resolved {
  route: RouteMatch;
  rawPath: string;
  query: QueryPair[];
  format: Format | null;
  /** The caller's token, when it presented a valid one. */
  token: TokenInfo | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    resolved?: Resolved;
  }
}

export const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

const WRITE_METHODS: Record<RouteMatch['kind'], ReadonlySet<string>> = {
  root: new Set(),
  list: new Set(['POST']),
  detail: new Set(['PUT', 'PATCH', 'DELETE']),
  status: new Set(),
  stream: new Set(),
};

export const forbidden = () => new ApiError(403, 'You do not have permission to perform this action.');

/**
 * Everything decided before a body is read, in DRF's order: route (301/404), format (404),
 * Accept (406), authentication (401/429), permission (403), method (405). Sets
 * `request.resolved` for the handler.
 */
export async function resolveRequest(request: FastifyRequest, reply: FastifyReply, db: Db, throttle: FailureThrottle): Promise<FastifyReply | void> {
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
  // The stream is never compressed: it varies with Accept alone.
  reply.header('allow', ALLOW[route.kind]).header('vary', route.kind === 'stream' ? 'Accept' : VARY);
  const query = parseQuery(rawQuery);
  const format = requestedFormat(route.suffix, query);
  // The event stream negotiates its own media type.
  if (route.kind === 'stream') checkEventStreamAccept(request.headers.accept);
  else checkAccept(request.headers.accept);
  const token = await authenticate(request, db, throttle);
  if (!SAFE_METHODS.has(request.method)) {
    if (token === null) throw notAuthenticated();
    if (!mayWrite(token, route, request.method)) throw forbidden();
    if (!WRITE_METHODS[route.kind].has(request.method)) throw methodNotAllowed(request.method);
  }
  request.resolved = { route, rawPath, query, format, token };
}
