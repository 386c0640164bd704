import type { Db } from '../db/connection.js';
import { findToken, touchToken, type TokenInfo } from '../resources/tokens.js';
import { ApiError, invalidToken, throttled } from './errors.js';
import type { IncomingHttpHeaders } from 'node:http';
import type { RouteMatch } from './routes.js';
import type { FailureThrottle } from './throttle.js';

/**
 * DRF's TokenAuthentication, with `Bearer` as a second scheme: no credentials (or another scheme)
 * is anonymous; credentials are checked on every method, and every failure counts towards the
 * client's throttle. The secret never appears in a message or a log.
 */
export async function authenticate(request: { headers: IncomingHttpHeaders; ip: string }, db: Db, throttle: FailureThrottle): Promise<TokenInfo | null> {
  const secret = presentedSecret(request.headers.authorization);
  if (secret === null) return null;
  return checkSecret(db, throttle, request.ip, secret);
}

/**
 * A presented secret (or a malformed header, as a 401): the token, or a 401 — a 429 instead once
 * the client has failed too often. A valid token is never throttled: guessing a 256-bit secret is
 * hopeless anyway, and a door must not be locked out by a neighbour's broken script behind the
 * same address.
 */
export async function checkSecret(db: Db, throttle: FailureThrottle, client: string, secret: string | ApiError): Promise<TokenInfo> {
  const now = Date.now();
  const token = typeof secret === 'string' && secret !== '' ? await findToken(db, secret) : undefined;
  if (!token) {
    const wait = throttle.waitSeconds(client, now);
    if (wait > 0) throw throttled(wait);
    throttle.recordFailure(client, now);
    throw typeof secret === 'string' ? invalidToken() : secret;
  }
  return { ...token, lastUsedUs: await touchToken(db, token, now * 1000) };
}

/** The secret of a `Token`/`Bearer` header; null when the request presents none. */
export function presentedSecret(header: string | undefined): string | ApiError | null {
  if (!header) return null;
  const parts = header.trim().split(/\s+/);
  const scheme = parts[0].toLowerCase();
  if (scheme !== 'token' && scheme !== 'bearer') return null;
  if (parts.length === 1) return new ApiError(401, 'Invalid token header. No credentials provided.', { 'www-authenticate': 'Token' });
  if (parts.length > 2) return new ApiError(401, 'Invalid token header. Token string should not contain spaces.', { 'www-authenticate': 'Token' });
  return parts[1];
}

/** Scopes: `admin` writes everything; `door` may only record openings. */
export function mayWrite(token: TokenInfo, route: RouteMatch, method: string): boolean {
  if (token.scope === 'admin') return true;
  return token.scope === 'door' && route.kind === 'list' && route.collection === 'space/openings' && method === 'POST';
}
