import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';

/** Listens, and closes gracefully on SIGINT/SIGTERM (in-flight requests finish first). */
export async function listen(app: FastifyInstance, config: Pick<Config, 'host' | 'port'>): Promise<string> {
  const address = await app.listen({ host: config.host, port: config.port });
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    app.close().then(
      () => process.exit(0),
      (err) => {
        app.log.error({ err }, 'error while shutting down');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  return address;
}
