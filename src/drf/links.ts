import { createHash } from 'node:crypto';
import type { Config } from '../config.js';
import type { RecordContext } from '../resources/record-context.js';
import type { TimeFormatter } from '../time.js';
import { ApiError } from './errors.js';
import type { Format } from './negotiation.js';
import { rebuildQuery, type QueryPair } from './query.js';
import type { HttpRequest } from './request.js';

/** Host names as Django accepts them (plus letter case, which we keep), or an IPv6 literal. */
export const HOST = /^(?:[A-Za-z0-9.\-_]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;

/** `{base}` of the contract: PUBLIC_URL, else scheme and Host of the request. */
export function baseUrlOf(request: Pick<HttpRequest, 'host' | 'protocol' | 'localAddress' | 'localPort'>, config: Pick<Config, 'publicUrl'>): string {
  if (config.publicUrl !== null) return config.publicUrl;
  let host = request.host;
  if (!host) {
    // HTTP/1.0 without Host: the address the server answered on.
    const { localAddress = '127.0.0.1', localPort } = request;
    host = (localAddress.includes(':') ? `[${localAddress}]` : localAddress) + (localPort ? `:${localPort}` : '');
  }
  if (!HOST.test(host)) throw new ApiError(400, 'Invalid Host header.');
  return `${request.protocol}://${host}`;
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
