import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';

/** Longest a graceful close may take (requests in flight finishing) before the process exits anyway. */
export const SHUTDOWN_GRACE_MS = 10_000;

let stopping: AbortSignal | undefined;

/**
 * Aborted by the first SIGINT or SIGTERM, with the signal's name as its reason. Installed once
 * per process; later signals are ignored, so that a worker that gets both the terminal's SIGINT
 * and its primary's SIGTERM still finishes its requests in flight (a stuck close is bounded by
 * SHUTDOWN_GRACE_MS instead).
 */
export function stopSignal(): AbortSignal {
  if (stopping) return stopping;
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (!controller.signal.aborted) controller.abort(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  stopping = controller.signal;
  return stopping;
}

/**
 * Listens, and closes gracefully when `stop` aborts (by default on SIGINT/SIGTERM), then exits 0:
 * it stops accepting, ends the streams (with a `retry:` hint), lets the requests in flight
 * finish, each keep-alive connection closing after an answer that says `Connection: close`
 * (http/drain.ts), then closes the app (MQTT, the database) and flushes the log.
 */
export async function listen(app: FastifyInstance, config: Pick<Config, 'host' | 'port'>, stop: AbortSignal = stopSignal()): Promise<string> {
  const connections = app.connections;
  const address = await app.listen({ host: config.host, port: config.port });
  let closing = false;
  const shutdown = async () => {
    if (closing) return;
    closing = true;
    const started = performance.now();
    app.log.info({ signal: stop.reason, connections: connections.size }, 'shutting down');
    setTimeout(() => {
      app.log.error(`requests still in flight after ${SHUTDOWN_GRACE_MS / 1000} s: exiting anyway`);
      void flushLog(app).finally(() => process.exit(1));
    }, SHUTDOWN_GRACE_MS).unref();
    try {
      const drained = connections.drain();
      await app.live.feed.close();
      await drained;
      await app.close();
      app.log.info({ shutdownMs: Math.round(performance.now() - started) }, 'stopped');
      await flushLog(app);
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'error while shutting down');
      await flushLog(app);
      process.exit(1);
    }
  };
  if (stop.aborted) void shutdown();
  else stop.addEventListener('abort', () => void shutdown(), { once: true });
  return address;
}

/** Writes out what the logger still buffers (pino writes asynchronously). */
function flushLog(app: FastifyInstance): Promise<void> {
  const log = app.log as { flush?: (done: (error?: Error) => void) => void };
  return new Promise((resolve) => (log.flush ? log.flush(() => resolve()) : resolve()));
}
