import { pino, type Logger as PinoLogger } from 'pino';
import type { LogLevel } from './config.js';

/**
 * The logger for the moments when there is no Fastify logger: before the app exists (waiting for
 * the database) and in the cluster primary. It is pino, as Fastify's is, so log collectors parse
 * every line the same way.
 */
export type Logger = Pick<PinoLogger, 'fatal' | 'error' | 'warn' | 'info'>;

export function createLogger(level: LogLevel): Logger {
  return pino({ level });
}
