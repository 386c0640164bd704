import type { Db } from '../db/connection.js';
import { findToken, touchToken, type TokenInfo } from '../resources/tokens.js';
import { ApiError, invalidToken, throttled } from './errors.js';
import type { IncomingHttpHeaders } from 'node:http';
import type { RouteMatch } from './routes.js';
import type { FailureThrottle } from './throttle.js';
import type { MemberWrites } from './member-writes.js';

/**
 * DRF's TokenAuthentication, with `Bearer` as a second scheme: no credentials (or another scheme)
 * is anonymous; credentials are checked on every method, and every failure counts towards the
 * client's throttle. The secret never appears in a message or a log.
 */
export async function authenticate(request: { headers: IncomingHttpHeaders; ip: string }, db: Db, throttle: FailureThrottle, memberTokens: MemberTokens): Promise<Caller | null> {
  const secret = presentedSecret(request.headers.authorization);
  if (secret === null) return null;
  if (typeof secret === 'string' && memberTokens.isSecret(secret)) return checkMemberSecret(db, throttle, request.ip, secret, memberTokens);
  return checkSecret(db, throttle, request.ip, secret);
}

/**
 * A member's personal token (members.md §3): it acts as its owner, with the rights the owner
 * holds now, read afresh for every request (never remembered), so that a right taken away or a
 * deactivated owner counts at the next request.
 */
export interface MemberCaller {
  readonly scope: 'member';
  readonly tokenId: number;
  readonly tokenName: string;
  readonly userId: number;
  readonly username: string;
  /** The model rights the owner holds, as Django names them (`projects.add_project`). */
  readonly rights: ReadonlySet<string>;
}

/** Members' personal tokens, as the app that keeps them checks one (apps/users/member-tokens.ts). */
export interface MemberTokens {
  /** Whether a secret is a member token's, by its prefix: the door and admin tokens' table is then not tried. */
  isSecret(secret: string): boolean;
  /** Who a secret acts as, with the rights they hold now, its use noted; undefined for an unknown or revoked token, or an inactive owner. */
  callerOf(db: Db, secret: string, nowUs: number): Promise<MemberCaller | undefined>;
}

/** Who presented valid credentials: a door or admin token, or a member's token. */
export type Caller = TokenInfo | MemberCaller;

/** A member token's secret: its owner and their rights, or a 401 (unknown, revoked, or an inactive owner) that counts towards the throttle. */
async function checkMemberSecret(db: Db, throttle: FailureThrottle, client: string, secret: string, memberTokens: MemberTokens): Promise<MemberCaller> {
  const now = Date.now();
  const caller = await memberTokens.callerOf(db, secret, now * 1000);
  if (caller === undefined) {
    const wait = throttle.waitSeconds(client, now);
    if (wait > 0) throw throttled(wait);
    throttle.recordFailure(client, now);
    throw invalidToken();
  }
  return caller;
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

/**
 * Scopes: `admin` writes everything; `door` may only record openings; `kiosk` writes nothing here. A member's token writes
 * projects, events and meetings as the owner may: adding and deleting need the model's right;
 * editing (and adding a meeting) may also be allowed by being the record's maintainer or
 * organizer, which the write itself checks once the record is known (handlers/write.ts).
 */
export function mayWrite(caller: Caller, route: RouteMatch, method: string, writes: MemberWrites | undefined): boolean {
  // A kiosk token writes nothing through the API: it records purchases at the kiosk only (apps/stock/handlers/kiosk.ts).
  if (caller.scope !== 'member')
    return caller.scope === 'admin' || (caller.scope === 'door' && route.kind === 'list' && route.collection === 'space/openings' && method === 'POST');
  const right = memberRightFor(route, method, writes);
  if (right === null) return false;
  return caller.rights.has(right) || mayBeAllowedByRecord(route, method, writes!);
}

/** Whether a member's write may be allowed by who they are for the record (maintainer, organizer), though they lack the right. */
export function mayBeAllowedByRecord(route: RouteMatch, method: string, writes: MemberWrites): boolean {
  if (method === 'PUT' || method === 'PATCH') return route.kind === 'detail';
  return method === 'POST' && route.kind === 'list' && writes.addedByRecord === true;
}

/** Which of a collection's rights a member's write needs, by method (members.md §3). */
const RIGHT_OF_METHOD: Readonly<Record<string, keyof MemberWrites['rights']>> = { POST: 'add', PUT: 'change', PATCH: 'change', DELETE: 'delete' };

/** The right a write through a member's token needs (`projects.add_project` for a POST on projects…); null where members never write (users, openings). */
export function memberRightFor(route: RouteMatch, method: string, writes: MemberWrites | undefined): string | null {
  if (writes === undefined || route.collection === null || (route.kind === 'list') !== (method === 'POST')) return null;
  const right = RIGHT_OF_METHOD[method];
  return right === undefined ? null : writes.rights[right];
}
