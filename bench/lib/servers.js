// `hackerspace-api serve` processes: started on a free port, ready when /api/ answers 200, and
// their peak RSS read when they stop.
import path from 'node:path';
import { fail, log } from './log.js';
import { childrenOf, peakRssKb, start, stop, isAlive } from './processes.js';
import { freePort, waitFor200 } from './http.js';
import { sleep } from './log.js';

/**
 * Starts servers of a program. options: { work, env (a serverEnvFactory's function), pin (the
 * server prefix), workers }. Returns { start(program, name, role, dbUrl, extraEnv, port), stop(server),
 * restart(server, name), servers }.
 */
export function serverPool({ work, env, pin = [], workers = 0 }) {
  const servers = [];

  async function startServer(program, name, role, dbUrl, extraEnv = {}, fixedPort = undefined) {
    const port = fixedPort ?? (await freePort());
    const logFile = path.join(work, `${name}.log`);
    const args = [process.execPath, program.cli, 'serve', ...(workers ? ['--workers', String(workers)] : [])];
    const [command, ...rest] = [...pin, ...args];
    const t0 = performance.now();
    const child = start(command, rest, { env: env({ ...extraEnv, DATABASE_URL: dbUrl, HOST: '127.0.0.1', PORT: String(port) }), logFile });
    const base = `http://127.0.0.1:${port}`;
    await waitFor200(`${base}/api/`, child, 30, logFile);
    const startupMs = performance.now() - t0;
    const server = { name, role, program: program.label, child, port, base, startupMs, logFile, kids: [], restart: { program, dbUrl, extraEnv } };
    if (workers) server.kids = await waitForWorkers(child, workers);
    servers.push(server);
    return server;
  }

  async function stopServer(server) {
    const pids = [server.child.pid, ...server.kids];
    const parts = pids.map(peakRssKb);
    if (parts.some((kb) => !Number.isFinite(kb))) fail(`could not read the peak RSS of the server ${server.name} (did it die?)`);
    server.rssMb = parts.reduce((a, b) => a + b, 0) / 1024;
    if (workers)
      server.rssParts = `primary ${(parts[0] / 1024).toFixed(1)} + workers ${parts
        .slice(1)
        .map((kb) => (kb / 1024).toFixed(1))
        .join(' + ')} MB`;
    await stop(server.child);
  }

  /**
   * Stops a server and starts a new process of the same program on the same port and database
   * (so its answers, whose links name the port, are byte for byte the same). `name` names its log.
   */
  async function restartServer(server, name) {
    await stopServer(server);
    const { program, dbUrl, extraEnv } = server.restart;
    return startServer(program, name, server.role, dbUrl, extraEnv, server.port);
  }

  return { start: startServer, stop: stopServer, restart: restartServer, servers };
}

/** Waits (30 s at most) until a node:cluster primary has n children; returns their pids. */
export async function waitForWorkers(child, n) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (!isAlive(child)) fail(`the primary (pid ${child.pid}) exited while its workers started`);
    const kids = childrenOf(child.pid);
    if (kids.length >= n) {
      if (kids.length !== n) log(`note: the primary has ${kids.length} child processes (asked for ${n}); all are counted`);
      return kids;
    }
    if (Date.now() > deadline) fail(`--workers ${n}: only ${kids.length} worker processes after 30 s`);
    await sleep(50);
  }
}

/** Fails the run when one of the processes under test is gone. */
export function assertAlive(what, ...servers) {
  for (const server of servers) {
    if (!isAlive(server.child))
      fail(`the server ${server.name} (pid ${server.child.pid}) died during ${what} (exit ${server.child.exitCode ?? server.child.signalCode}; log ${server.logFile})`);
  }
}
