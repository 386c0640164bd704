import type http from 'node:http';
import net from 'node:net';

/**
 * While draining, a connection that has neither a request in flight nor received a byte for this
 * long, counted from the drain's start at the earliest, is closed. A keep-alive client sends its
 * next request right after reading an answer (wrk, an agent's pool): its gap is far shorter, so it
 * gets an answer with `Connection: close` instead; only a connection idle this long is closed
 * under it, the race every keep-alive client lives with. Counting from the drain's start gives a
 * client that was itself short of CPU at that moment the whole window to send its request.
 */
export const DRAIN_IDLE_MS = 2000;
/** How often idle connections are looked for while draining. */
const SWEEP_MS = 50;

interface ConnectionState {
  /**
   * The latest request's response on the connection, if it had not finished when its handler
   * returned (null otherwise). Responses to pipelined requests finish in order, so while it has
   * not finished a request is in flight, and once it has, none is.
   */
  latest: http.ServerResponse | null;
  /** socket.bytesRead when last looked at, and since when it has not moved (nor a request been in flight). */
  bytesRead: number;
  quietSince: number;
}

/**
 * The connections of an HTTP server, and how to close them without cutting a request off: the
 * drain of a graceful shutdown and of a rolling restart's retiring worker. Node's server.close()
 * (and Fastify's close) end every idle keep-alive connection at once, including those whose
 * client is sending its next request at that instant: under load that is a reset request on
 * nearly every connection. Here instead:
 *
 * - the listening socket closes first (in a cluster worker, the primary then gives new
 *   connections to the other workers; one already on its way to this one is handed back);
 * - every response not started yet, and every later one, says `Connection: close` (Node then
 *   closes the connection after it): the fast path's as well as the framework's, since the
 *   server's request handler calls admit() before anything else;
 * - a connection with no request in flight that stays quiet DRAIN_IDLE_MS is closed;
 * - it is done when no connection is left.
 *
 * Until a drain starts, a request costs a flag's test (admit()), one lookup and one store
 * (track()): no listener per response. Whether a request is in flight is read off the latest
 * response when the drain looks. A response already finished when its handler returns (the fast
 * path's) is not kept: kept, it outlived young collections (10× the bytes copied per scavenge).
 *
 * Streams are requests in flight: they must be ended by their owner (the space feed) for the
 * drain to finish. Attach before the server accepts its first connection.
 */
export class ConnectionDrain {
  private readonly connections = new Map<net.Socket, ConnectionState>();
  private draining = false;
  private drained: (() => void) | null = null;

  constructor(private readonly server: http.Server) {
    server.on('connection', (socket: net.Socket) => {
      this.connections.set(socket, { latest: null, bytesRead: 0, quietSince: Date.now() });
      socket.once('close', () => {
        this.connections.delete(socket);
        if (this.connections.size === 0) this.drained?.();
      });
    });
  }

  /** To be called by the server's request handler first, for every request: while draining, its answer closes the connection. */
  admit(response: http.ServerResponse): void {
    if (this.draining) response.shouldKeepAlive = false;
  }

  /**
   * To be called by the server's request handler last, once the request is handed on: the
   * response is kept while unfinished. A synchronous answer (written to the socket whole) is
   * finished already; one queued behind a pipelined request in flight is not.
   */
  track(request: http.IncomingMessage, response: http.ServerResponse): void {
    const state = this.connections.get(request.socket);
    if (state !== undefined) state.latest = response.writableFinished ? null : response;
  }

  /** Connections open now. */
  get size(): number {
    return this.connections.size;
  }

  get isDraining(): boolean {
    return this.draining;
  }

  /**
   * Stops accepting, then closes every connection as described above. Resolves once none is
   * left (a request that never ends keeps it waiting: the caller bounds the wait).
   */
  drain(idleMs = DRAIN_IDLE_MS): Promise<void> {
    if (!this.draining) {
      this.draining = true;
      const now = Date.now();
      for (const state of this.connections.values()) {
        state.quietSince = Math.max(state.quietSince, now);
        // Not answered yet: its answer closes the connection (earlier pipelined ones may not).
        if (state.latest !== null && !state.latest.headersSent) state.latest.shouldKeepAlive = false;
      }
      // net.Server's close, not http.Server's: that one would also end every idle connection now.
      if (this.server.listening) net.Server.prototype.close.call(this.server);
    }
    if (this.connections.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      // In the check phase, right after the poll phase has read what arrived: from a timer, a
      // request waiting in the kernel's buffer (the process had no CPU for a while) would not
      // have moved bytesRead yet, and its connection would look idle.
      const sweep = setInterval(() => setImmediate(() => this.closeIdle(idleMs)), SWEEP_MS);
      this.drained = () => {
        clearInterval(sweep);
        this.drained = null;
        resolve();
      };
      setImmediate(() => this.closeIdle(idleMs));
    });
  }

  private closeIdle(idleMs: number): void {
    const now = Date.now();
    for (const [socket, state] of this.connections) {
      // In flight: quiet counts from the sweep that last saw it so (within SWEEP_MS of its end).
      if (state.latest !== null && !state.latest.writableFinished) {
        state.quietSince = now;
        continue;
      }
      // Bytes of a next request (its headers may not be complete yet): not idle.
      if (socket.bytesRead !== state.bytesRead) {
        state.bytesRead = socket.bytesRead;
        state.quietSince = now;
      } else if (now - state.quietSince >= idleMs) socket.destroy();
    }
  }
}
