import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

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
 * open connections.
 */
export function nodeServer(framework: http.RequestListener): NodeServer {
  let front: FrontHandler | undefined;
  let open = 0;
  const server = http.createServer((request, response) => {
    if (front === undefined) framework(request, response);
    else front(request, response, () => framework(request, response));
  });
  server.on('connection', (socket: Socket) => {
    open++;
    socket.once('close', () => open--);
  });
  // What Fastify sets on a server it creates itself.
  server.keepAliveTimeout = 72_000;
  server.requestTimeout = 0;
  return { server, openConnections: () => open, setFront: (handler) => (front = handler) };
}
