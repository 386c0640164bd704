import cluster from 'node:cluster';
import { appsTurnedOn } from '../http/app-declaration.js';
import { buildApp } from '../app.js';
import { ConfigError, type Config } from '../config.js';
import type { DatabaseHandle } from '../db/connection.js';
import { INSTALLED_APPS, migrate } from '../installed-apps.js';
import { openWhenAvailable, StartupFailure, StartupStopped } from '../db/startup.js';
import { createLogger, type Logger } from '../log.js';
import { loadSpaceApi } from '../apps/space/spaceapi/config-file.js';
import { countRecords } from '../resources/counts.js';
import { renewFirstSuperuserLink } from '../apps/users/accounts.js';
import { LINK_VALIDITY_US } from '../apps/users/links.js';
import { writeTransaction } from '../db/write-transaction.js';
import { listen, stopSignal } from '../server.js';
import { FIRST_RESTART_DELAY_MS, MAX_DEATHS_IN_WINDOW, MAX_RESTART_DELAY_MS, RESTART_WINDOW_MS, superviseWorkers } from '../supervisor.js';
import { integerOption, UsageError, type Command } from '../command.js';
import { linkUrl } from '../apps/users/cli/user.js';
import type { MetricsListener } from '../metrics/listener.js';

export const MAX_WORKERS = 256;

export const serveCommand: Command = {
  name: 'serve',
  summary: 'Start the HTTP API (creates and migrates the database on first start)',
  usage: `hackerspace-api serve [--workers N]

Starts the API on HOST:PORT (default 127.0.0.1:8000) using DATABASE_URL
(default sqlite:data/hackerspace.sqlite). The database is created and migrated
automatically. Stop with Ctrl-C or SIGTERM; it stops accepting, requests in
flight finish first, streams end with a retry hint (exit code 0, within 10 s).

  --workers N   serve from N worker processes sharing the port (1 to ${MAX_WORKERS}).
                This process migrates the database once, then starts the workers
                and watches them: a worker that dies is replaced after
                ${FIRST_RESTART_DELAY_MS / 1000} s (doubling up to ${MAX_RESTART_DELAY_MS / 1000} s); after more than ${MAX_DEATHS_IN_WINDOW} deaths within
                ${RESTART_WINDOW_MS / 1000} s, or a worker that cannot start at all, it stops every
                worker and exits with code 1. Ctrl-C or SIGTERM stops all workers
                gracefully. SIGHUP replaces the workers one at a time with the code on
                disk now (a rolling restart: each new worker listens before an old one
                drains; clients see nothing). Without --workers, this process serves
                by itself, and SIGHUP is logged and ignored.

Scaling out: PostgreSQL is the way to serve from several processes, with
--workers on one machine and with any number of \`serve\` processes on several
machines sharing one database; every process sees every commit on its next
request. Each worker has its own response cache and, on PostgreSQL, its own pool
of DATABASE_POOL_SIZE connections: keep workers × processes × DATABASE_POOL_SIZE
below the server's max_connections. SQLite allows --workers too (in WAL mode,
processes on one machine read concurrently, and imports wait for each other),
but not with sqlite::memory:, where each worker would have its own empty database.

Waiting for the database: while it cannot be reached (PostgreSQL down, still
starting or out of connections, a host name not resolving yet, SQLite locked),
serve waits and tries again after 0.5 s, doubling up to 10 s between attempts,
for as long as it takes, logging each failure (where the database is, without
its password; the error code; the next delay). Ctrl-C or SIGTERM ends the wait
(exit code 0). Any other failure at start (wrong user or password, a database
that does not exist, a file that cannot be opened, a failed migration, a port
in use) stops at once with a message and exit code 1.`,
  options: {
    workers: { type: 'string' },
  },
  async run(values, _positionals, config) {
    const workers = values.workers === undefined ? undefined : workerCount(values);
    if (workers !== undefined) {
      const target = config.database;
      if (target.engine === 'sqlite' && target.path === ':memory:') {
        throw new UsageError('--workers needs a database file or PostgreSQL: with sqlite::memory: each worker would have its own empty database');
      }
    }
    await serve(config, { workers });
  },
};

function workerCount(values: Record<string, unknown>): number {
  const workers = integerOption(values, 'workers', 1);
  if (workers < 1 || workers > MAX_WORKERS) throw new UsageError(`--workers must be between 1 and ${MAX_WORKERS}, got ${workers}`);
  return workers;
}

const SINGLE_PROCESS_HANGUP = 'SIGHUP ignored: a single process cannot be replaced without a gap; run `serve --workers N` (N ≥ 1) for rolling restarts';

export interface ServeOptions {
  /** Serve from this many cluster workers; undefined serves from this process. */
  workers?: number;
}

/** Shared by `serve` and `demo --serve`. Exits the process when the service stops. */
export async function serve(config: Config, options: ServeOptions = {}): Promise<void> {
  // Before anything slow, so that a signal during the wait for the database ends it cleanly.
  const stop = stopSignal();
  // A bad SpaceAPI file or an unknown app in APPS (a ConfigError, exit code 78) stops the service
  // before it waits for the database or starts workers; buildApp reads both again in each serving process.
  if (cluster.isPrimary) {
    loadSpaceApi(config);
    appsTurnedOn(INSTALLED_APPS, config.apps);
  }
  const log = createLogger(config.logLevel);
  // SIGHUP: the primary's rolling restart of its workers. A worker ignores it (a closing terminal
  // sends it to the primary and its workers alike); so does a single process, which cannot be
  // replaced without a gap: it says so, and goes on serving.
  let onHangup = cluster.isWorker
    ? () => {}
    : () => log.warn({ signal: 'SIGHUP' }, options.workers === undefined ? SINGLE_PROCESS_HANGUP : 'SIGHUP ignored: the workers have not started yet');
  process.on('SIGHUP', () => onHangup());
  try {
    if (options.workers !== undefined && cluster.isPrimary) {
      await prepareDatabase(config, log, stop, { close: true });
      // The workers' metrics, summed: the primary serves METRICS_PORT, the workers answer it.
      if (config.metrics) {
        const { WorkerScrapes } = await import('../metrics/cluster.js');
        const workers = new WorkerScrapes(log);
        await metricsListener(config, () => workers.metrics(), log);
      }
      log.info({ workers: options.workers }, `starting ${options.workers} worker${options.workers === 1 ? '' : 's'} on ${config.host}:${config.port}`);
      const onReload = (handler: () => void) => (onHangup = handler);
      process.exit(await superviseWorkers({ workers: options.workers, log, stop, onReload }));
    }
    // A cluster worker: its primary has migrated the database.
    const database =
      options.workers !== undefined ? (await openWhenAvailable(config.database, { log, stop })).database : await prepareDatabase(config, log, stop, { close: false });
    const app = await buildApp(config, { database });
    app.addHook('onClose', () => database.close());
    const { metrics } = app;
    if (metrics && options.workers !== undefined) {
      const { answerScrapes } = await import('../metrics/cluster.js');
      const stopAnswering = answerScrapes(metrics.registry);
      app.addHook('onClose', async () => stopAnswering());
    } else if (metrics) {
      const listener = await metricsListener(config, () => metrics.scrape(), log);
      app.addHook('onClose', () => listener.close());
    }
    try {
      await listen(app, config, stop);
    } catch (error) {
      throw new StartupFailure(`cannot listen on ${config.host}:${config.port} (${(error as Error).message})`, { cause: error });
    }
  } catch (error) {
    if (error instanceof StartupStopped) {
      log.info({}, error.message);
      process.exit(0);
    }
    if (error instanceof ConfigError) {
      // The SpaceAPI file went bad while this process waited for the database: exit with the
      // database still open (process.exit), as main.ts would for any configuration error.
      log.fatal({}, `configuration error: ${error.message}`);
      process.stderr.write(`configuration error: ${error.message}\n`);
      process.exit(78);
    }
    if (error instanceof StartupFailure) {
      log.fatal({ err: error.cause }, error.message);
      process.stderr.write(`serve: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

/** The Prometheus listener (METRICS_PORT), or a StartupFailure naming it. */
async function metricsListener(config: Config, scrape: () => Promise<string>, log: Logger): Promise<MetricsListener> {
  const { host, port } = config.metrics!;
  try {
    const { listenMetrics } = await import('../metrics/listener.js');
    return await listenMetrics(config.metrics!, scrape, log);
  } catch (error) {
    throw new StartupFailure(`cannot listen for metrics on ${host}:${port} (${(error as Error).message})`, { cause: error });
  }
}

/** Waits for the database, migrates it, and says what it holds. */
async function prepareDatabase(config: Config, log: Logger, stop: AbortSignal, options: { close: true }): Promise<void>;
async function prepareDatabase(config: Config, log: Logger, stop: AbortSignal, options: { close: false }): Promise<DatabaseHandle>;
async function prepareDatabase(config: Config, log: Logger, stop: AbortSignal, options: { close: boolean }): Promise<DatabaseHandle | void> {
  const { database, prepared } = await openWhenAvailable(config.database, {
    log,
    stop,
    prepare: async (database) => {
      await migrate(database.db);
      const firstSuperuserLink = await writeTransaction(database.db, (trx) => renewFirstSuperuserLink(trx, Date.now() * 1000));
      return { users: await countRecords(database.db, 'users'), openings: await countRecords(database.db, 'openings'), firstSuperuserLink };
    },
  });
  const { firstSuperuserLink, ...counts } = prepared;
  log.info({ database: database.location, ...counts }, `database: ${database.location}`);
  if (counts.users === 0 && counts.openings === 0) {
    log.info({}, 'the database is empty: load data with `npx hackerspace-api import <dumpdata.json>` or `npx hackerspace-api demo`');
  }
  if (firstSuperuserLink !== null) {
    // The one log line that holds a secret: members.md §4 has serve show this link at start (it is void once a superuser exists).
    log.warn(
      { firstSuperuserLink: linkUrl(config, firstSuperuserLink) },
      `no superuser yet: open firstSuperuserLink (once, within ${LINK_VALIDITY_US['first-superuser'] / 3_600_000_000} hours; a new one at each start) to create one, or run \`hackerspace-api user create USERNAME --email ADDRESS --superuser\``,
    );
  }
  if (!options.close) return database;
  await database.close();
}
