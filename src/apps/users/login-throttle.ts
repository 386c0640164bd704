import { createHash } from 'node:crypto';
import { isIPv6 } from 'node:net';
import { engineOf, type Db } from '../../db/connection.js';
import { foldCase } from './users.js';

/*
 * Throttling of password logins (members.md §2), counted in login_failures so that every process
 * shares the counts. A rule makes its subject wait once `limit` failures fall within `windowUs`,
 * until enough of them have left the window. While a subject waits, its attempts are refused
 * before any password is checked and are not recorded, so counts stay near their limits.
 */

const MINUTE_US = 60_000_000;
const HOUR_US = 60 * MINUTE_US;
/** Failures older than the longest window are useless: deleted at most this many at a time. */
const PRUNE_BATCH = 100;

interface Rule {
  /** Which failures count: those of the pair (account, client), of the client, or of the account. */
  subject: 'pair' | 'client' | 'account';
  limit: number;
  windowUs: number;
}

export const LOGIN_RULES: readonly Rule[] = [
  { subject: 'pair', limit: 5, windowUs: 15 * MINUTE_US },
  { subject: 'client', limit: 30, windowUs: 15 * MINUTE_US },
  { subject: 'account', limit: 100, windowUs: HOUR_US },
];

/**
 * The account a typed name stands for, as stored: the SHA-256 of the name as the login looks it
 * up (NFKC, trimmed, case folded), so that "Alice" and "alice " count together and the table never
 * holds a name, which may be an e-mail address.
 */
export function accountKey(typedName: string): string {
  return createHash('sha256')
    .update(foldCase(typedName.normalize('NFKC').trim()), 'utf8')
    .digest('hex');
}

/**
 * The client as counted: its address; for IPv6, its /64 network, since one subscriber commonly
 * holds a whole /64 and could otherwise take a fresh address for every attempt.
 */
export function clientKey(client: string): string {
  const address = client.trim().toLowerCase().replace(/%.*$/, '');
  if (!isIPv6(address)) return address;
  const groups = ipv6Groups(address);
  const mappedV4 = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  if (mappedV4) return [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff].join('.');
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (isIPv6), `::` and a trailing IPv4 part expanded. */
function ipv6Groups(address: string): number[] {
  const parse = (part: string): number[] =>
    part === ''
      ? []
      : part.split(':').flatMap((group) => {
          if (!group.includes('.')) return [parseInt(group, 16)];
          const [a, b, c, d] = group.split('.').map(Number);
          return [(a << 8) | b, (c << 8) | d];
        });
  const [head, tail] = address.split('::');
  const first = parse(head);
  const last = tail === undefined ? [] : parse(tail);
  return [...first, ...new Array<number>(8 - first.length - last.length).fill(0), ...last];
}

/**
 * How long this name must wait before a password login from this client, in whole seconds (at
 * least 1), the longest over the rules; 0 when it may try now. Each rule's wait lasts until its
 * limit-th most recent failure leaves the window (with exactly `limit` failures counted: the oldest).
 */
export async function loginWait(db: Db, typedName: string, client: string, nowUs: number): Promise<number> {
  const account = accountKey(typedName);
  const address = clientKey(client);
  let waitUs = 0;
  for (const rule of LOGIN_RULES) {
    let query = db
      .selectFrom('login_failures')
      .select('time_us')
      .where('time_us', '>', nowUs - rule.windowUs)
      .orderBy('time_us', 'desc')
      .limit(1)
      .offset(rule.limit - 1);
    if (rule.subject !== 'client') query = query.where('account', '=', account);
    if (rule.subject !== 'account') query = query.where('client', '=', address);
    const row = await query.executeTakeFirst();
    if (row) waitUs = Math.max(waitUs, row.time_us + rule.windowUs - nowUs);
  }
  return waitUs > 0 ? Math.max(1, Math.ceil(waitUs / 1_000_000)) : 0;
}

/** Counts a failed password login; also deletes a bounded batch of failures older than every window. */
export async function recordLoginFailure(db: Db, typedName: string, client: string, nowUs: number): Promise<void> {
  await db
    .insertInto('login_failures')
    .values({ time_us: nowUs, account: accountKey(typedName), client: clientKey(client) })
    .execute();
  await pruneLoginFailures(db, nowUs);
}

/** A successful login clears its pair's failures (not the client's with other names, nor the account's from elsewhere). */
export async function clearLoginFailures(db: Db, typedName: string, client: string): Promise<void> {
  await db.deleteFrom('login_failures').where('account', '=', accountKey(typedName)).where('client', '=', clientKey(client)).execute();
}

/**
 * Deletes up to PRUNE_BATCH failures older than the longest window (through login_failures_time).
 * recordLoginFailure calls it: the table grows only by failures, so pruning as often keeps it to
 * about an hour of them. On PostgreSQL, rows another process is pruning are skipped.
 */
export async function pruneLoginFailures(db: Db, nowUs: number): Promise<number> {
  const longest = Math.max(...LOGIN_RULES.map((rule) => rule.windowUs));
  let batch = db
    .selectFrom('login_failures')
    .select('id')
    .where('time_us', '<=', nowUs - longest)
    .orderBy('time_us')
    .limit(PRUNE_BATCH);
  if (engineOf(db) === 'postgres') batch = batch.forUpdate().skipLocked();
  const result = await db.deleteFrom('login_failures').where('id', 'in', batch).executeTakeFirst();
  return Number(result.numDeletedRows);
}
