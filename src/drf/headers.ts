/**
 * The headers the API sends, in one place: the fast path (cache/fast-path.ts) and the full path
 * (http/app.ts, cache/read-answer.ts) send the same ones from here.
 */

/** Headers on every response, whatever its route or status. */
export const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
  'cross-origin-opener-policy': 'same-origin',
  'x-frame-options': 'DENY',
} as const;

/**
 * Browsers may read the API from any origin: reads carry no cookies and need no token. Writes are
 * not opened to browsers: a preflight for another method is answered without allowing it.
 */
export const READ_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'Allow, ETag, Link, Location, Retry-After, WWW-Authenticate',
} as const;

const PREFLIGHT_HEADERS = {
  'access-control-allow-methods': 'GET, HEAD, OPTIONS',
  // Last-Event-ID: a cross-origin EventSource resuming the stream (apps/space/handlers/stream.ts).
  // If-None-Match / If-Modified-Since: a page's script revalidating what it read.
  'access-control-allow-headers': 'Accept, Authorization, If-Modified-Since, If-None-Match, Last-Event-ID',
  'access-control-max-age': '86400',
} as const;

const NONE = {} as const;
const PREFLIGHT = { ...READ_HEADERS, ...PREFLIGHT_HEADERS } as const;

/** The CORS headers of a request: none for a write, the read headers, and a preflight's answer. */
export function corsHeaders(method: string, requestHeaders: { 'access-control-request-method'?: string }): Readonly<Record<string, string>> {
  if (method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS') return NONE;
  return method === 'OPTIONS' && requestHeaders['access-control-request-method'] !== undefined ? PREFLIGHT : READ_HEADERS;
}

/** Every response of an API route varies with these request headers. */
export const VARY = 'Accept, Accept-Encoding';

/** The stream is never compressed: it varies with Accept alone. */
export const STREAM_VARY = 'Accept';
