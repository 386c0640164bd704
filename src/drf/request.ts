import type { IncomingHttpHeaders } from 'node:http';
import { parseQuery, type QueryPair } from './query.js';

/**
 * A request as the DRF layer sees it: what the client sent and where from, with no framework
 * object. The full path (http/request.ts) describes Fastify's request, the fast path
 * (cache/fast-path.ts) Node's, so that both run the same checks, keys and links.
 */
export interface HttpRequest {
  readonly method: string;
  /** The request target as sent: path and query, still percent-encoded. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** The client's address (behind trusted proxies, the one they forwarded). */
  readonly ip: string;
  /** The Host the client named (behind trusted proxies, the forwarded one), if any. */
  readonly host: string | undefined;
  readonly protocol: 'http' | 'https';
  /** The address and port the server answered on (for an HTTP/1.0 request without Host). */
  readonly localAddress: string | undefined;
  readonly localPort: number | undefined;
}

/** A request target split once, for routing, the cache key and the page links alike. */
export interface Target {
  /** The path as sent (percent-encoded): links repeat it. */
  readonly rawPath: string;
  readonly rawQuery: string;
  readonly query: QueryPair[];
}

export function parseTarget(url: string): Target {
  const q = url.indexOf('?');
  if (q === -1) return { rawPath: url, rawQuery: '', query: [] };
  const rawQuery = url.slice(q + 1);
  return { rawPath: url.slice(0, q), rawQuery, query: parseQuery(rawQuery) };
}

/** The path of a request target, without its query. */
export function pathOf(url: string | undefined): string {
  if (url === undefined) return '';
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}
