import type { IncomingHttpHeaders } from 'node:http';
import type { Db } from '../db/connection.js';
import { authenticate, type Caller, type MemberTokens } from './auth.js';
import type { MemberWrites } from './member-writes.js';
import { forbidden, methodNotAllowed, notAcceptable, notAuthenticated } from './errors.js';
import { mayWrite } from './auth.js';
import { checkEventStreamAccept, requestedFormat, type Format, type Media } from './negotiation.js';
import type { QueryPair } from './query.js';
import type { Target } from './request.js';
import { SAFE_METHODS, type RouteMatch } from './routes.js';
import type { FailureThrottle } from './throttle.js';

/** What the checks before the handler learnt about a request. */
export interface Resolved {
  route: RouteMatch;
  rawPath: string;
  query: QueryPair[];
  format: Format | null;
  /** What the answer is made of: JSON, or for a person's browser the browsable HTML page (web.md §1). */
  media: Media;
  /** The caller's token (a door, admin or member's token), when it presented a valid one. */
  token: Caller | null;
}

/** A request as the checks see it. */
export interface CheckedRequest {
  method: string;
  headers: IncomingHttpHeaders;
  /** The client's address (behind trusted proxies, the one they forwarded): failed tokens count against it. */
  ip: string;
  target: Target;
  /** The media its Accept picks among JSON and HTML (request/facts.ts), null when neither. */
  preferred: Media | null;
}

/**
 * Everything decided before a body is read, in DRF's order, once the route is known (301/404):
 * format (404), Accept (406), authentication (401/429), permission (403), method (405).
 */
export async function checkRequest(
  request: CheckedRequest,
  route: RouteMatch,
  writeMethods: ReadonlySet<string>,
  eventStream: boolean,
  db: Db,
  throttle: FailureThrottle,
  memberTokens: MemberTokens,
  memberWrites: MemberWrites | undefined,
): Promise<Resolved> {
  const { target } = request;
  const format = requestedFormat(route.suffix, target.query);
  // An event stream negotiates its own media type.
  let media: Media = 'json';
  if (eventStream) checkEventStreamAccept(request.headers.accept);
  else if (request.preferred === null) throw notAcceptable();
  else media = format === 'json' ? 'json' : request.preferred;
  // Most reads present no credentials: no lookup, and no promise either.
  const token = request.headers.authorization === undefined ? null : await authenticate(request, db, throttle, memberTokens);
  if (!SAFE_METHODS.has(request.method)) {
    if (token === null) throw notAuthenticated();
    if (!mayWrite(token, route, request.method, memberWrites)) throw forbidden();
    if (!writeMethods.has(request.method)) throw methodNotAllowed(request.method);
  }
  return { route, rawPath: target.rawPath, query: target.query, format, media, token };
}
