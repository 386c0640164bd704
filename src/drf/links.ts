import { createHash } from 'node:crypto';
import type { Config } from '../config.js';
import type { RecordContext } from '../resources/record-context.js';
import type { TimeFormatter } from '../time.js';
import { ApiError } from './errors.js';
import type { Format } from './negotiation.js';
import { rebuildQuery, type QueryPair } from './query.js';

/** Host names as Django accepts them (plus letter case, which we keep), or an IPv6 literal. */
export const HOST = /^(?:[A-Za-z0-9.\-_]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;

/** Where a request came from, as the base URL needs it: scheme and Host (behind trusted proxies, the forwarded ones). */
export interface Origin {
  protocol: 'http' | 'https';
  host: string | undefined;
  /** The address and port the server answered on (for an HTTP/1.0 request without Host). */
  localAddress?: string;
  localPort?: number;
}

/** `{base}` of the contract: PUBLIC_URL, else scheme and Host of the request; null for a Host Django refuses. */
export function baseUrlOf(origin: Origin, config: Pick<Config, 'publicUrl'>): string | null {
  if (config.publicUrl !== null) return config.publicUrl;
  let host = origin.host;
  if (!host) {
    const { localAddress = '127.0.0.1', localPort } = origin;
    host = (localAddress.includes(':') ? `[${localAddress}]` : localAddress) + (localPort ? `:${localPort}` : '');
  }
  return HOST.test(host) ? `${origin.protocol}://${host}` : null;
}

/** The base URL where links are made: a request with an invalid Host gets Django's 400. */
export function requireBase(base: string | null): string {
  if (base === null) throw new ApiError(400, 'Invalid Host header.');
  return base;
}

/** How hyperlinks inside a body carry the request's format (as DRF's reverse() does). */
export interface LinkStyle {
  base: string;
  suffix: Format | null;
  queryFormat: Format | null;
}

export function linkStyle(base: string, suffix: string | null, format: Format | null): LinkStyle {
  return suffix ? { base, suffix: format, queryFormat: null } : { base, suffix: null, queryFormat: format };
}

/** `{base}/api/<path>` for a collection or a record, in the request's format. */
export function apiUrl(style: LinkStyle, path: string, id?: number): string {
  const location = id === undefined ? path : `${path}/${id}`;
  if (style.suffix) return `${style.base}/api/${location}.${style.suffix}`;
  return `${style.base}/api/${location}/` + (style.queryFormat ? `?format=${style.queryFormat}` : '');
}

/** `next`/`previous`: the request path, its query with `page` replaced (or removed for page 1). */
export function pageUrl(base: string, rawPath: string, pairs: readonly QueryPair[], page: number): string {
  const query = rebuildQuery(pairs, 'page', page === 1 ? null : String(page));
  return base + rawPath + (query ? '?' + query : '');
}

/** Django's filepath_to_uri: each character outside `A-Z a-z 0-9 - _ . ! ~ * ' ( ) /` escaped. */
export function mediaPath(storedPath: string): string {
  return storedPath
    .replace(/\\/g, '/')
    .split('/')
    .map((s) => encodeURIComponent(s.toWellFormed()))
    .join('/');
}

export function avatarUrl(email: string, config: Pick<Config, 'avatarHash' | 'avatarDefault'>): string {
  const hash = createHash(config.avatarHash).update(email.toLowerCase(), 'utf8').digest('hex');
  return `//www.gravatar.com/avatar/${hash}?d=${encodeURIComponent(config.avatarDefault)}`;
}

const AVATAR_MEMO_SIZE = 10_000;

/** avatarUrl, remembered per address: a page of users would otherwise hash 100 addresses each time. */
export function avatarUrls(config: Pick<Config, 'avatarHash' | 'avatarDefault'>): (email: string) => string {
  const known = new Map<string, string>();
  return (email) => {
    let url = known.get(email);
    if (url === undefined) {
      url = avatarUrl(email, config);
      if (known.size >= AVATAR_MEMO_SIZE) known.clear();
      known.set(email, url);
    }
    return url;
  };
}

export function recordContext(style: LinkStyle, config: Pick<Config, 'avatarField'>, times: TimeFormatter, avatar: (email: string) => string): RecordContext {
  return {
    userUrl: (id) => apiUrl(style, 'users', id),
    eventUrl: (id) => apiUrl(style, 'events', id),
    meetingUrl: (id) => apiUrl(style, 'meetings', id),
    mediaUrl: (path) => `${style.base}/media/${mediaPath(path)}`,
    time: (micros) => times.format(micros),
    avatar,
    avatarField: config.avatarField,
  };
}
