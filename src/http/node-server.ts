import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { RequestTimeouts } from '../config.js';
import { ArrivedRequest, type RequestFacts, type RequestReader } from '../request/facts.js';
import { ConnectionDrain } from './drain.js';

/** Answers a request itself, or calls `next` to hand it on. */
export type FrontHandler = (request: IncomingMessage, response: ServerResponse, facts: RequestFacts, next: () => void) => void;

export interface NodeServer {
  server: http.Server;
  /** Its connections: how many are open (the fast path's TurnVersions reads it), and the graceful close's drain. */
  connections: ConnectionDrain;
  /** Puts a handler in front of the framework's (the response cache's fast path), given each request's facts as `reader` reads them. */
  setFront(reader: RequestReader, front: FrontHandler): void;
}

/**
 * The HTTP server under Fastify (its serverFactory): Node's server, with a handler in front of
 * the framework's that answers repeated reads without it (cache/fast-path.ts), each request's
 * facts read once as it arrives (request/facts.ts) and carried by the request itself, and its
 * connections tracked for a graceful close (http/drain.ts). Slow clients: headers and whole
 * requests must arrive within `timeouts` (else 408, http/transport-errors.ts), checked often
 * enough that a connection that never finishes its headers closes within about 1.1 ×
 * HEADERS_TIMEOUT_MS.
 */
export function nodeServer(framework: http.RequestListener, timeouts: RequestTimeouts): NodeServer {
  let front: FrontHandler | undefined;
  let reader: RequestReader | undefined;
  const options: http.ServerOptions<typeof ArrivedRequest> = {
    IncomingMessage: ArrivedRequest,
    headersTimeout: timeouts.headersTimeoutMs,
    requestTimeout: timeouts.requestTimeoutMs,
    // Node's default looks every 30 s; the check costs a walk over the requests under way.
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(timeouts.headersTimeoutMs / 2))),
  };
  // One listener for 'request': a second one (the drain's own) would cost every request the
  // event emitter's many-listeners path.
  const server = http.createServer(options, (request, response) => {
    connections.admit(response);
    if (front === undefined) framework(request, response);
    else front(request, response, reader!.read(request), () => framework(request, response));
    connections.track(request, response);
  });
  const connections = new ConnectionDrain(server);
  // What Fastify sets on a server it creates itself.
  server.keepAliveTimeout = 72_000;
  return {
    server,
    connections,
    setFront: (factsReader, handler) => {
      reader = factsReader;
      front = handler;
    },
  };
}
