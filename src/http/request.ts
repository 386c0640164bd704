import type { FastifyRequest } from 'fastify';
import type { HttpRequest } from '../drf/request.js';

/** Fastify's request as the DRF layer sees it (client address, Host and scheme as trustProxy reads them). */
export function describeRequest(request: FastifyRequest): HttpRequest {
  const { socket } = request;
  return {
    method: request.method,
    url: request.raw.url ?? '/',
    headers: request.headers,
    ip: request.ip,
    host: request.host,
    protocol: request.protocol === 'https' ? 'https' : 'http',
    localAddress: socket.localAddress,
    localPort: socket.localPort,
  };
}
