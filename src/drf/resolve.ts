import type { Db } from '../db/connection.js';
import type { TokenInfo } from '../resources/tokens.js';
import { authenticate, mayWrite } from './auth.js';
import { forbidden, methodNotAllowed, notAuthenticated, notFound } from './errors.js';
import { STREAM_VARY, VARY } from './headers.js';
import { checkEventStreamAccept, mediaOf, requestedFormat, type Format, type Media } from './negotiation.js';
import type { QueryPair } from './query.js';
import type { HttpRequest, Target } from './request.js';
import { ALLOW, decodePath, matchRoute, SAFE_METHODS, WRITE_METHODS, type RouteKind, type RouteMatch } from './routes.js';
import type { FailureThrottle } from './throttle.js';

/** What the checks before the handler learnt about a request. */
export interface Resolved {
  route: RouteMatch;
  rawPath: string;
  query: QueryPair[];
  format: Format | null;
  /** What the answer is made of: JSON, or for a person's browser the browsable HTML page (web.md §1). */
  media: Media;
  /** The caller's token, when it presented a valid one. */
  token: TokenInfo | null;
}

/** Where a request target leads: an API route, or Django's redirect to the path with its slash. */
export type Routing = { route: RouteMatch; location?: never } | { route?: never; location: string };

/** The route of a request target (404 when there is none, as Django answers). */
export function routeOf({ rawPath, rawQuery }: Target): Routing {
  const path = decodePath(rawPath);
  const route = path === null ? null : matchRoute(path);
  if (route !== null) return { route };
  if (path !== null && !path.endsWith('/') && matchRoute(path + '/') !== null) {
    return { location: rawPath + '/' + (rawQuery ? '?' + rawQuery : '') };
  }
  throw notFound();
}

/** The headers every answer of a route carries, errors included: one object per kind of route, made once. */
const ROUTE_HEADERS = Object.fromEntries(Object.entries(ALLOW).map(([kind, allow]) => [kind, Object.freeze({ allow, vary: kind === 'stream' ? STREAM_VARY : VARY })])) as Readonly<
  Record<RouteKind, Readonly<{ allow: string; vary: string }>>
>;

export function routeHeaders(route: RouteMatch): Readonly<{ allow: string; vary: string }> {
  return ROUTE_HEADERS[route.kind];
}

/**
 * Everything decided before a body is read, in DRF's order, once the route is known (301/404):
 * format (404), Accept (406), authentication (401/429), permission (403), method (405).
 */
export async function checkRequest(request: HttpRequest, route: RouteMatch, target: Target, db: Db, throttle: FailureThrottle): Promise<Resolved> {
  const format = requestedFormat(route.suffix, target.query);
  // The event stream negotiates its own media type.
  let media: Media = 'json';
  if (route.kind === 'stream') checkEventStreamAccept(request.headers.accept);
  else media = mediaOf(request.headers.accept, format);
  // Most reads present no credentials: no lookup, and no promise either.
  const token = request.headers.authorization === undefined ? null : await authenticate(request, db, throttle);
  if (!SAFE_METHODS.has(request.method)) {
    if (token === null) throw notAuthenticated();
    if (!mayWrite(token, route, request.method)) throw forbidden();
    if (!WRITE_METHODS[route.kind].has(request.method)) throw methodNotAllowed(request.method);
  }
  return { route, rawPath: target.rawPath, query: target.query, format, media, token };
}
