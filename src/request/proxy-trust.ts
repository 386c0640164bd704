import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import type { Config } from '../config.js';

/**
 * Whether a peer address is a proxy whose X-Forwarded-* headers count, for TRUST_PROXY: the test
 * Fastify builds from its `trustProxy` option (getTrustProxyFn in fastify/lib/request.js), made
 * with the same @fastify/proxy-addr, so that the fast path reads forwarded headers exactly when
 * the full path (Fastify's request.host and request.protocol) does. Null when nothing is trusted.
 */
export function proxyTrust(trustProxy: Config['trustProxy']): ((address: string | undefined) => boolean) | null {
  if (trustProxy === false) return null;
  if (trustProxy === true) return () => true;
  const trust = proxyAddr.compile(trustProxy.split(',').map((value) => value.trim()));
  // proxy-addr answers false for an address that does not parse, undefined (a closed socket) included.
  return (address) => trust(address as string, 0);
}

/**
 * The scheme and host of a request as Fastify's request.protocol and request.host give them
 * (which the full path reads): the last entry of X-Forwarded-Proto / X-Forwarded-Host when the peer is
 * trusted and the header is not empty, else plain HTTP (Node's server here has no TLS) and Host.
 * `trusted` is called only when a forwarded header is present.
 */
export function forwardedOrigin(request: IncomingMessage, trusted: ((address: string | undefined) => boolean) | null): { protocol: 'http' | 'https'; host: string | undefined } {
  const { headers } = request;
  const forwardedHost = headers['x-forwarded-host'];
  const forwardedProto = headers['x-forwarded-proto'];
  let host = headers.host;
  let protocol: 'http' | 'https' = 'http';
  if (trusted !== null && (forwardedHost || forwardedProto) && trusted(request.socket.remoteAddress)) {
    if (forwardedHost) host = lastEntry(String(forwardedHost));
    if (forwardedProto) protocol = lastEntry(String(forwardedProto)) === 'https' ? 'https' : 'http';
  }
  return { protocol, host };
}

/** Fastify's getLastEntryInMultiHeaderValue: a header sent several times (or a list) counts by its last entry. */
function lastEntry(value: string): string {
  const comma = value.lastIndexOf(',');
  return comma === -1 ? value.trim() : value.slice(comma + 1).trim();
}
