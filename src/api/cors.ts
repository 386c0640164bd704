import type { FastifyReply, FastifyRequest } from 'fastify';

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
  // Last-Event-ID: a cross-origin EventSource resuming the stream (api/stream.ts).
  // If-None-Match / If-Modified-Since: a page's script revalidating what it read.
  'access-control-allow-headers': 'Accept, Authorization, If-Modified-Since, If-None-Match, Last-Event-ID',
  'access-control-max-age': '86400',
} as const;

export function addCorsHeaders(request: FastifyRequest, reply: FastifyReply): void {
  const method = request.method;
  if (method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS') return;
  reply.headers(READ_HEADERS);
  if (method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined) reply.headers(PREFLIGHT_HEADERS);
}
