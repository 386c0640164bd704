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
 * Listens, and closes gracefully when `stop` aborts (by default on SIGINT/SIGTERM): requests in
 * flight finish first, then the process exits 0.
 */
export async function listen(app: FastifyInstance, config: Pick<Config, 'host' | 'port'>, stop: AbortSignal = stopSignal()): Promise<string> {
  const address = await app.listen({ host: config.host, port: config.port });
  let closing = false;
  const shutdown = () => {
    if (closing) return;
    closing = true;
    app.log.info({ signal: stop.reason }, 'shutting down');
    setTimeout(() => {
      app.log.error(`requests still in flight after ${SHUTDOWN_GRACE_MS / 1000} s: exiting anyway`);
      process.exit(1);
    }, SHUTDOWN_GRACE_MS).unref();
    app.close().then(
      () => process.exit(0),
      (err) => {
        app.log.error({ err }, 'error while shutting down');
        process.exit(1);
      },
    );
  };
  if (stop.aborted) shutdown();
  else stop.addEventListener('abort', shutdown, { once: true });
  return address;
}
