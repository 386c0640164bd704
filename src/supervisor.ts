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
  /** Registers the handler of a rolling restart (SIGHUP). */
  onReload?: (handler: () => void) => void;
}

/**
 * Runs in the cluster primary: forks `workers` copies of this process (the same command line;
 * each sees cluster.isWorker and serves), replaces a worker that dies, and stops them all when
 * `stop` aborts. Resolves with the exit code for the primary once no worker is left: 0 after a
 * requested stop, 1 when it gave up (crash loop, or a worker that could not start).
 *
 * `onReload` (SIGHUP) replaces the workers one at a time, with the code and files on disk now:
 * a new worker first, and once it listens, one old worker drains (SIGTERM: it stops accepting,
 * and the primary gives new connections to the others) and exits; then the next. A new worker
 * that cannot start abandons the restart: the old workers keep serving.
 */
export function superviseWorkers({ workers, log, stop, onReload }: SuperviseOptions): Promise<number> {
  return new Promise((resolve) => {
    const live = new Map<Worker, { pid: number; listening: boolean; retiring: boolean }>();
    /** Fulfilled when a worker listens, or exits first (false). */
    const started = new Map<Worker, (listening: boolean) => void>();
    const exited = new Map<Worker, () => void>();
    let reloading = false;
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

    const start = (): Worker => {
      const worker = cluster.fork();
      const state = { pid: worker.process.pid ?? 0, listening: false, retiring: false };
      live.set(worker, state);
      worker.on('listening', (address) => {
        state.listening = true;
        log.info({ worker: state.pid, address: address.address, port: address.port }, `worker ${state.pid} is serving`);
        started.get(worker)?.(true);
      });
      worker.on('exit', (code, signal) => {
        live.delete(worker);
        exited.get(worker)?.();
        const waiting = started.get(worker);
        if (stopping) {
          waiting?.(false);
          return finishIfDone();
        }
        if (state.retiring) {
          const how = signal ? `signal ${signal}` : `exit code ${code}`;
          if (code === 0) log.info({ worker: state.pid, code }, `worker ${state.pid} retired`);
          else log.error({ worker: state.pid, code, signal }, `worker ${state.pid} retired with ${how}`);
          return;
        }
        if (waiting) {
          // A rolling restart's new worker: the restart gives up, the old workers keep serving.
          return waiting(false);
        }
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
      return worker;
    };

    /** Whether a new worker listens (true) or exits first (false). */
    const startListening = (worker: Worker) =>
      new Promise<boolean>((done) => {
        started.set(worker, done);
      }).finally(() => started.delete(worker));

    const retire = (worker: Worker, by: number) => {
      const state = live.get(worker);
      if (state === undefined) return Promise.resolve();
      state.retiring = true;
      const gone = new Promise<void>((done) => exited.set(worker, done)).finally(() => exited.delete(worker));
      log.info({ worker: state.pid, by }, `worker ${state.pid} is draining (replaced by ${by})`);
      worker.process.kill('SIGTERM');
      return gone;
    };

    const reload = async () => {
      if (stopping) return;
      if (reloading) {
        log.warn({}, 'SIGHUP: a rolling restart is under way already; ignored');
        return;
      }
      reloading = true;
      const old = [...live].filter(([, state]) => !state.retiring).map(([worker]) => worker);
      const replaced: number[] = [];
      const by: number[] = [];
      log.info({ workers: old.map((w) => live.get(w)!.pid) }, `SIGHUP: replacing ${old.length} worker${old.length === 1 ? '' : 's'} one at a time`);
      try {
        for (const worker of old) {
          if (stopping) return;
          // Died meanwhile (and replaced, by a worker of the new code already).
          if (!live.has(worker)) continue;
          const fresh = start();
          const pid = fresh.process.pid ?? 0;
          if (!(await startListening(fresh))) {
            if (!stopping) {
              log.error(
                { worker: pid, replaced, by },
                `rolling restart abandoned: the new worker ${pid} could not start (its log says why); ${old.length - replaced.length} old worker(s) keep serving`,
              );
            }
            return;
          }
          if (stopping) return;
          by.push(pid);
          replaced.push(live.get(worker)?.pid ?? 0);
          await retire(worker, pid);
        }
        if (!stopping) log.info({ replaced, by }, `rolling restart complete: workers ${replaced.join(', ')} replaced by ${by.join(', ')}`);
      } finally {
        reloading = false;
      }
    };

    const onStop = () => stopAll(`${String(stop.reason)} received`, 0);
    if (stop.aborted) {
      resolve(0);
      return;
    }
    stop.addEventListener('abort', onStop, { once: true });
    onReload?.(() => void reload());
    for (let i = 0; i < workers; i++) start();
  });
}
