import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { RequestTimeouts } from '../config.js';

/** Answers a request itself, or calls `next` to hand it on. */
export type FrontHandler = (request: IncomingMessage, response: ServerResponse, next: () => void) => void;

export interface NodeServer {
  server: http.Server;
  /** Connections open now (the fast path's TurnVersions reads it). */
  openConnections(): number;
  /** Puts a handler in front of the framework's (the response cache's fast path). */
  setFront(front: FrontHandler): void;
}

/**
 * The HTTP server under Fastify (its serverFactory): Node's server, with a handler in front of
 * the framework's that answers repeated reads without it (cache/fast-path.ts), and a count of
 * open connections. Slow clients: headers and whole requests must arrive within `timeouts`
 * (else 408, http/transport-errors.ts), checked often enough that a connection that never
 * finishes its headers closes within about 1.1 × HEADERS_TIMEOUT_MS.
 */
export function nodeServer(framework: http.RequestListener, timeouts: RequestTimeouts): NodeServer {
  let front: FrontHandler | undefined;
  let open = 0;
  const options: http.ServerOptions = {
    headersTimeout: timeouts.headersTimeoutMs,
    requestTimeout: timeouts.requestTimeoutMs,
    // Node's default looks every 30 s; the check costs a walk over the requests under way.
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(timeouts.headersTimeoutMs / 2))),
  };
  const server = http.createServer(options, (request, response) => {
    if (front === undefined) framework(request, response);
    else front(request, response, () => framework(request, response));
  });
  server.on('connection', (socket: Socket) => {
    open++;
    socket.once('close', () => open--);
  });
  // What Fastify sets on a server it creates itself.
  server.keepAliveTimeout = 72_000;
  return { server, openConnections: () => open, setFront: (handler) => (front = handler) };
}
