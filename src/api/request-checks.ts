import type { FastifyReply, FastifyRequest } from 'fastify';
import { invalidToken, notAuthenticated, notFound } from './errors.js';
import { checkAccept, requestedFormat, type Format } from './negotiation.js';
import { parseQuery, type QueryPair } from './query.js';
import { ALLOW, decodePath, matchRoute, type RouteMatch } from './routes.js';

/** What the checks before the handler learnt about a request. */
export interface Resolved {
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

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Everything decided before a body is read, in DRF's order: route (301/404), format (404),
 * Accept (406), authentication (401). Sets `request.resolved` for the handler.
 */
export async function resolveRequest(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | void> {
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
