import { setTimeout as sleep } from 'node:timers/promises';
import type { DatabaseTarget } from '../config.js';
import type { Logger } from '../log.js';
import { isDatabaseUnavailable, openDatabase, type DatabaseHandle } from './connection.js';
import { describeUrl } from './postgres-url.js';

/** Delay before the second attempt; it doubles after each failure, up to MAX_RETRY_DELAY_MS. */
export const FIRST_RETRY_DELAY_MS = 500;
export const MAX_RETRY_DELAY_MS = 10_000;

/** A stop signal (SIGINT/SIGTERM) arrived before the database answered. */
export class StartupStopped extends Error {
  override name = 'StartupStopped';
}

/** An error that waiting will not cure: the message says what is wrong, for an operator. */
export class StartupFailure extends Error {
  override name = 'StartupFailure';
}

/** The database's location as logs may show it (a PostgreSQL URL without its password). */
export function describeTarget(target: DatabaseTarget): string {
  return target.engine === 'sqlite' ? target.path : describeUrl(target.url);
}

export interface OpenOptions<T> {
  log: Logger;
  /** Aborted by SIGINT/SIGTERM: the wait ends with StartupStopped. */
  stop: AbortSignal;
  /** Run once the database answers (migrations, counts); retried with the rest if the database goes away meanwhile. */
  prepare?: (database: DatabaseHandle) => Promise<T>;
}

/**
 * Opens the database and waits until it answers (and `prepare` succeeds): while it is
 * unreachable (connection refused, name not resolved, PostgreSQL starting or out of
 * connections, SQLite locked), retries after 0.5 s, 1 s, 2 s … up to 10 s between attempts,
 * for as long as it takes, logging each failure. Any other error (authentication, missing
 * database, unopenable file, failed migration) is a StartupFailure at once.
 */
export async function openWhenAvailable<T = void>(target: DatabaseTarget, options: OpenOptions<T>): Promise<{ database: DatabaseHandle; prepared: T }> {
  const { log, stop } = options;
  const location = describeTarget(target);
  let database: DatabaseHandle | undefined;
  let delay = FIRST_RETRY_DELAY_MS;
  const stopped = new Promise<never>((_, reject) => {
    const fail = () => reject(new StartupStopped(`stopped by ${String(stop.reason)} while waiting for the database at ${location}`));
    if (stop.aborted) fail();
    else stop.addEventListener('abort', fail, { once: true });
  });
  stopped.catch(() => {});
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        const prepared = await Promise.race([
          (async () => {
            database ??= await openDatabase(target, {
              leaseLost: (error, retryInMs) =>
                log.warn(
                  { database: location, code: errorCode(error), error: error.message, retryInMs },
                  `read lease: no connection to ${location}; reads ask the database on every request until it is back`,
                ),
            });
            await database.ping();
            return options.prepare ? await options.prepare(database) : (undefined as T);
          })(),
          stopped,
        ]);
        if (attempt > 1) log.info({ database: location, attempts: attempt }, `the database at ${location} answered after ${attempt} attempts`);
        return { database: database!, prepared };
      } catch (error) {
        if (error instanceof StartupStopped) throw error;
        if (!isWorthWaitingFor(error)) throw new StartupFailure(explainFailure(error, location, target.engine), { cause: error });
        const code = errorCode(error);
        log.warn(
          { database: location, code, error: (error as Error).message, attempt, retryInMs: delay },
          `waiting for the database at ${location}: ${code} (${(error as Error).message}); next attempt in ${delay / 1000} s`,
        );
        await sleep(delay, undefined, { signal: stop }).catch(() => {});
        if (stop.aborted) await stopped;
        delay = Math.min(delay * 2, MAX_RETRY_DELAY_MS);
      }
    }
  } catch (error) {
    // Closing a pool with a connection attempt still pending could take as long as that attempt.
    if (database) void database.close().catch(() => {});
    throw error;
  }
}

/**
 * Connection failures, and SQLite being busy. An SQLite file that cannot be opened at all is a
 * wrong path or missing permissions rather than a passing condition; PostgreSQL authentication
 * failures (SQLSTATE class 28) and a missing database (3D000) are not connection failures either.
 */
function isWorthWaitingFor(error: unknown): boolean {
  return isDatabaseUnavailable(error) && errorCode(error) !== 'SQLITE_CANTOPEN';
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code !== '' ? code : ((error as Error | null)?.name ?? 'Error');
}

function explainFailure(error: unknown, location: string, engine: DatabaseTarget['engine']): string {
  const code = errorCode(error);
  const detail = `${code}: ${(error as Error | null)?.message ?? String(error)}`;
  if (engine === 'postgres' && /^28/.test(code)) {
    return `PostgreSQL at ${location} refused the credentials (${detail}): check the user and password in DATABASE_URL`;
  }
  if (code === '3D000') return `the database named in ${location} does not exist (${detail}): create it, or fix DATABASE_URL`;
  if (code === 'SQLITE_CANTOPEN') return `cannot open the SQLite file ${location} (${detail}): check the path and its permissions`;
  return `cannot use the database at ${location} (${detail})`;
}
