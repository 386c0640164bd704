import { sortedQuery } from '../drf/query.js';
import type { RequestFacts } from './facts.js';
/**
 * Where to go after logging in (`next`), followed only when it is a path on this site (members.md
 * §2, §6): one leading `/`, not `//` nor `/\` (a browser reads both as another host), no control
 * characters (a browser drops a tab or newline and may then read `//`), checked on the value as
 * given and once more percent-decoded (`%2F%2Fevil.example`). Anything else goes to `/`.
 */
export function safeNext(value: string | undefined): string {
  if (value === undefined || !isLocalPath(value)) return '/';
  let decoded: string;
  try {
    decoded = decodeURIComponent(value);
  } catch {
    return '/';
  }
  if (!isLocalPath(decoded)) return '/';
  // A Location header is ASCII: anything else is sent percent-encoded.
  return value.replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c));
}

function isLocalPath(path: string): boolean {
  if (!path.startsWith('/') || path[1] === '/' || path[1] === '\\') return false;
  // C0 and C1 controls, DEL, and the backslash anywhere (browsers read it as a slash).
  for (let i = 0; i < path.length; i++) {
    const c = path.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c === 0x5c) return false;
  }
  return true;
}

/** The login page's address with `next` = `path` (a GET page's path and query). */
export function loginUrl(path: string): string {
  return path === '/' ? '/accounts/login/' : `/accounts/login/?next=${encodeURIComponent(path)}`;
}

/** The request's page and query, as its login link's and language switch's `next` name it (the query as the cache key has it: one entry, one link). */
export function hereOf(facts: RequestFacts): string {
  const { rawPath, query } = facts.target;
  return query.length === 0 ? rawPath : `${rawPath}?${sortedQuery(query)}`;
}
