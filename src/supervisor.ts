import cluster, { type Worker } from 'node:cluster';
import type { Logger } from './log.js';
import { SHUTDOWN_GRACE_MS } from './server.js';

/** A worker that dies is replaced after this delay, doubled for each other death in the window. */
export const FIRST_RESTART_DELAY_MS = 250;
export const MAX_RESTART_DELAY_MS = 5_000;
/** More deaths than this within RESTART_WINDOW_MS is a crash loop: the primary gives up. */
export const MAX_DEATHS_IN_WINDOW = 5;
export const RESTART_WINDOW_MS = 60_000;

export interface SuperviseOptions {
  workers: number;
  log: Logger;
  /** Aborted by SIGINT/SIGTERM: every worker is asked to stop gracefully. */
  stop: AbortSignal;
}

/**
 * Runs in the cluster primary: forks `workers` copies of this process (the same command line;
 * each sees cluster.isWorker and serves), replaces a worker that dies, and stops them all when
 * `stop` aborts. Resolves with the exit code for the primary once no worker is left: 0 after a
 * requested stop, 1 when it gave up (crash loop, or a worker that could not start).
 */
export function superviseWorkers({ workers, log, stop }: SuperviseOptions): Promise<number> {
  return new Promise((resolve) => {
    const live = new Map<Worker, { pid: number; listening: boolean }>();
    const restarts = new Set<NodeJS.Timeout>();
    const deaths: number[] = [];
    let stopping = false;
    let exitCode = 0;
    let forceTimer: NodeJS.Timeout | undefined;

    const finishIfDone = () => {
      if (!stopping || live.size > 0) return;
      clearTimeout(forceTimer);
      log.info({}, 'all workers stopped');
      resolve(exitCode);
    };

    const stopAll = (reason: string, code: number) => {
      if (stopping) return;
      stopping = true;
      exitCode = code;
      for (const timer of restarts) clearTimeout(timer);
      restarts.clear();
      log.info({ reason, workers: live.size }, `stopping ${live.size} worker${live.size === 1 ? '' : 's'} (${reason})`);
      for (const [worker] of live) worker.process.kill('SIGTERM');
      forceTimer = setTimeout(() => {
        log.error({ workers: [...live.values()].map((w) => w.pid) }, `workers still running after ${(SHUTDOWN_GRACE_MS + 5000) / 1000} s: killing them`);
        exitCode = 1;
        for (const [worker] of live) worker.process.kill('SIGKILL');
      }, SHUTDOWN_GRACE_MS + 5000);
      finishIfDone();
    };

    const start = () => {
      const worker = cluster.fork();
      const state = { pid: worker.process.pid ?? 0, listening: false };
      live.set(worker, state);
      worker.on('listening', (address) => {
        state.listening = true;
        log.info({ worker: state.pid, address: address.address, port: address.port }, `worker ${state.pid} is serving`);
      });
      worker.on('exit', (code, signal) => {
        live.delete(worker);
        if (stopping) return finishIfDone();
        const how = signal ? `signal ${signal}` : `exit code ${code}`;
        if (!state.listening && !signal && code !== 0) {
          // Its start already waits for an unreachable database: this failure will not pass by itself.
          log.fatal({ worker: state.pid, code }, `worker ${state.pid} could not start (${how}; its log says why): stopping`);
          return stopAll('a worker could not start', 1);
        }
        const now = Date.now();
        deaths.push(now);
        while (deaths[0] <= now - RESTART_WINDOW_MS) deaths.shift();
        if (deaths.length > MAX_DEATHS_IN_WINDOW) {
          log.fatal(
            { worker: state.pid, code, signal, deaths: deaths.length, windowMs: RESTART_WINDOW_MS },
            `worker ${state.pid} died (${how}): ${deaths.length} workers died within ${RESTART_WINDOW_MS / 1000} s, giving up`,
          );
          return stopAll('workers keep dying', 1);
        }
        const delay = Math.min(FIRST_RESTART_DELAY_MS * 2 ** (deaths.length - 1), MAX_RESTART_DELAY_MS);
        log.error({ worker: state.pid, code, signal, restartInMs: delay }, `worker ${state.pid} died (${how}): starting another in ${delay / 1000} s`);
        const timer = setTimeout(() => {
          restarts.delete(timer);
          if (!stopping) start();
        }, delay);
        restarts.add(timer);
      });
    };

    const onStop = () => stopAll(`${String(stop.reason)} received`, 0);
    if (stop.aborted) {
      resolve(0);
      return;
    }
    stop.addEventListener('abort', onStop, { once: true });
    for (let i = 0; i < workers; i++) start();
  });
}
