import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyRequest } from 'fastify';
import type { HttpRequest } from '../drf/request.js';

/**
 * Fastify's request as the DRF layer sees it (client address, Host and scheme as trustProxy reads
 * them). Each of those is read when asked for, not before: most requests need the Host alone (for
 * the base URL), and the client's address only matters to a failed token.
 */
class FastifyHttpRequest implements HttpRequest {
  constructor(private readonly request: FastifyRequest) {}

  get method(): string {
    return this.request.method;
  }

  get url(): string {
    return this.request.raw.url ?? '/';
  }

  get headers(): IncomingHttpHeaders {
    return this.request.headers;
  }

  get ip(): string {
    return this.request.ip;
  }

  get host(): string | undefined {
    return this.request.host;
  }

  get protocol(): 'http' | 'https' {
    return this.request.protocol === 'https' ? 'https' : 'http';
  }

  get localAddress(): string | undefined {
    return this.request.socket.localAddress;
  }

  get localPort(): number | undefined {
    return this.request.socket.localPort;
  }
}

export function describeRequest(request: FastifyRequest): HttpRequest {
  return new FastifyHttpRequest(request);
}
