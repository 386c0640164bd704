// Rolling restart benchmark (issue 17 §2): errors across a SIGHUP under load, and shutdown times.
//
//   node bench/restart.js [--db sqlite|postgres|both] [--rounds N] [--before S] [--after S] [--connections N] [--workers N] [--keep-db]
//   (bash bench/restart.sh … runs the same)
//
// Expected duration on the 2-core development machine: about 2 minutes per engine when idle
// (3 rounds of two servers; starting a server with its workers is most of it), more when busy.
//
// For each engine (SQLite by default; `--db both`):
// 1. a scratch database filled by `demo` (BENCH_USERS… or 500 users, 20,000 openings, 50
//    projects, 100 events, 50 meetings): a SQLite file in the run's folder, or a new PostgreSQL
//    database on BENCH_POSTGRES_SERVER; removed or dropped at the end (unless --keep-db);
// 2. ROUNDS (3) rounds; in each:
//    a. `serve --workers W` (2) with LOG_LEVEL=info (the primary's log says when the restart is
//       complete; request lines are logged too, as with the default level), ready when /api/
//       answers 200 and W workers run; then `wrk -t1 -cN` (32 connections) with
//       bench/restart.lua: the requests cycle over a cached read (answered by the fast path in
//       Node's handler), /api/space/status/ and /healthz (both through the framework), every
//       status counted; after --before seconds (2), SIGHUP to the primary; the load goes on
//       until the log says `rolling restart complete` and --after seconds (2) more, then wrk is
//       interrupted (it prints its summary). The round fails when the restart does not complete
//       within 180 s of load, or when the primary's children are not W new processes. Counted:
//       socket errors (connect, read, write, timeout) and answers other than 2xx: both must be 0;
//    b. SIGTERM to that primary, idle: milliseconds until it exited (exit code 0 required);
//    c. a second server, the same load, and SIGTERM --before seconds into it: milliseconds until the primary
//       exited (exit code 0 required). wrk's errors there are expected: the service stops
//       accepting; they are not counted;
// 3. prints the Markdown report (each figure the median of the rounds with min–max, and the
//    errors of every round), also written to bench/out/restart-<date>-<engines>.md.
//
// Exit status: 0 when every round had 0 socket errors, 0 non-2xx, a complete restart and exit
// codes 0; 1 otherwise; 2 on bad usage.
import fs from 'node:fs';
import path from 'node:path';
import { pgServer, scratchEmpty } from './lib/dataset.js';
import { Rounds, figure, render } from './lib/figures.js';
import { freePort, get, waitFor200 } from './lib/http.js';
import { fail, log, sleep } from './lib/log.js';
import { IdleChecks, machineNote } from './lib/machine.js';
import { engineName, engines as enginesOf, parseOptions } from './lib/options.js';
import { childrenOf, run, runMain, start } from './lib/processes.js';
import { currentProgram, serverEnvFactory } from './lib/program.js';
import { ensureWrk, resultLine, script } from './lib/wrk.js';

const BENCH = path.dirname(new URL(import.meta.url).pathname);
const ROOT = path.dirname(BENCH);
const OUT = path.join(BENCH, 'out');

const USAGE = `
Rolling restart benchmark: node bench/restart.js [options]   (or bash bench/restart.sh [options])
Errors across a SIGHUP under wrk load (must be 0), and the time SIGTERM takes, idle and under
load (median of --rounds rounds, at least 3, with min–max). Exit 0: no error in any round; 1: an
error or a failure; 2: usage. Environment: BENCH_USERS, BENCH_OPENINGS… (dataset sizes);
BENCH_POSTGRES_SERVER (default postgres://postgres@127.0.0.1:5432): a role that may create databases.`;

const SPEC = {
  db: { type: 'string', default: 'sqlite', help: 'sqlite, postgres or both' },
  rounds: { type: 'string', default: 3, integer: [3, 99], help: 'rounds' },
  before: { type: 'string', default: 2, integer: [1, 60], help: 'seconds of load before the SIGHUP (and before the SIGTERM under load)' },
  after: { type: 'string', default: 2, integer: [1, 60], help: 'seconds of load after the restart is complete' },
  connections: { type: 'string', default: 32, integer: [1, 1000], help: 'wrk connections (wrk -t1)' },
  workers: { type: 'string', default: 2, integer: [1, 64], help: 'serve --workers' },
  'keep-db': { type: 'boolean', help: 'keep the scratch databases (their names are printed)' },
};

const PATHS = ['/api/users/', '/api/space/status/', '/healthz'];
/** wrk's -d: the longest a round's load may last, waiting for the restart to complete. */
const MAX_LOAD_S = 180;

function sizes() {
  const n = (name, fallback) => {
    const raw = process.env[name];
    return raw && /^\d+$/.test(raw) ? Number(raw) : fallback;
  };
  return {
    users: n('BENCH_USERS', 500),
    openings: n('BENCH_OPENINGS', 20_000),
    projects: n('BENCH_PROJECTS', 50),
    events: n('BENCH_EVENTS', 100),
    meetings: n('BENCH_MEETINGS', 50),
  };
}

/** The JSON lines a server has logged so far, read from its log file as it grows. */
function logReader(file) {
  let offset = 0;
  let pending = '';
  const lines = [];
  return () => {
    if (!fs.existsSync(file)) return lines;
    const size = fs.statSync(file).size;
    if (size > offset) {
      const fd = fs.openSync(file, 'r');
      const buffer = Buffer.alloc(size - offset);
      fs.readSync(fd, buffer, 0, buffer.length, offset);
      fs.closeSync(fd);
      offset = size;
      const parts = (pending + buffer.toString('utf8')).split('\n');
      pending = parts.pop();
      for (const part of parts) {
        // Request lines are most of the log: only the lifecycle's are parsed.
        if (part.includes('"req"')) continue;
        try {
          lines.push(JSON.parse(part));
        } catch {
          // not a log line
        }
      }
    }
    return lines;
  };
}

/**
 * `serve --workers N` on a free port, its log in the run's folder: ready when /api/ answers 200
 * and the primary has logged N workers serving (up to 2 minutes: a busy machine starts slowly).
 */
async function startServer({ program, env, work, name, dbUrl, workers }) {
  const port = await freePort();
  const logFile = path.join(work, `${name}.log`);
  const child = start(process.execPath, [program.cli, 'serve', '--workers', String(workers)], {
    env: env({ DATABASE_URL: dbUrl, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'info' }),
    logFile,
  });
  const base = `http://127.0.0.1:${port}`;
  const logs = logReader(logFile);
  await waitFor200(`${base}/api/`, child, 120, logFile);
  const serving = () => logs().filter((l) => l.pid === child.pid && /^worker \d+ is serving$/.test(String(l.msg)));
  const deadline = Date.now() + 120_000;
  while (serving().length < workers) {
    if (Date.now() > deadline) fail(`${name}: ${serving().length} of ${workers} workers serving after 2 minutes (log ${logFile})`);
    await sleep(50);
  }
  return { name, child, base, logFile, logs };
}

/**
 * wrk with restart.lua, started now, for `seconds` (or until stopped). Returns { stop(), result }:
 * stop() interrupts it (wrk then prints its summary as at the end); result resolves with its
 * RESULT fields.
 */
function load(base, { connections, seconds, file }) {
  const child = start('wrk', ['-t1', `-c${connections}`, `-d${seconds}s`, '--timeout', '10s', '-s', script('restart.lua'), base], {
    env: { ...process.env, RESTART_PATHS: PATHS.join(',') },
    capture: true,
  });
  const result = child.done.then(({ code }) => {
    const text = child.stdoutText + child.stderrText;
    fs.writeFileSync(file, text);
    if (code !== 0) fail(`wrk failed (exit ${code}): ${text.trim().split('\n').slice(-5).join(' / ')} (${file})`);
    const r = resultLine(text, 'RESULT');
    if (!r) fail(`wrk printed no RESULT line (${file})`);
    const counts = String(r.statuses)
      .split(',')
      .map((pair) => pair.split(':').map(Number));
    const ok = counts.filter(([status]) => status >= 200 && status < 300).reduce((sum, [, n]) => sum + n, 0);
    return { ...r, non2xx: r.requests - ok, socketErrors: r.connect + r.read + r.write + r.timeout };
  });
  let stopped = false;
  void child.done.then(() => (stopped = true));
  return {
    result,
    isRunning: () => !stopped,
    stop: () => {
      if (!stopped) child.kill('SIGINT');
      return result;
    },
  };
}

/** SIGTERM to a primary; resolves with { ms, code, signal } once it exited. */
async function terminate(server) {
  const t0 = performance.now();
  server.child.kill('SIGTERM');
  const timeout = sleep(30_000).then(() => null);
  const exit = await Promise.race([server.child.done, timeout]);
  if (exit === null) {
    server.child.kill('SIGKILL');
    fail(`the server ${server.name} was still running 30 s after SIGTERM (log ${server.logFile})`);
  }
  return { ms: performance.now() - t0, code: exit.code, signal: exit.signal };
}

async function main() {
  const o = parseOptions(process.argv.slice(2), SPEC, USAGE);
  const engines = enginesOf(o.db, true);
  const size = sizes();
  const t0 = performance.now();
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  const work = path.join(OUT, `restart-run-${stamp}`);
  fs.mkdirSync(work, { recursive: true });
  const reportFile = path.join(OUT, `restart-${stamp}-${o.db}.md`);
  await ensureWrk(work);
  const env = serverEnvFactory(ROOT);
  const program = await currentProgram(ROOT, work);
  const idle = new IdleChecks();
  const R = new Rounds();
  const failures = [];
  const perRound = {};
  const check = (ok, message) => {
    if (!ok) {
      failures.push(message);
      log(`CHECK FAILED: ${message}`);
    }
  };
  const demoArgs = ['--users', size.users, '--openings', size.openings, '--projects', size.projects, '--events', size.events, '--meetings', size.meetings, '--replace'].map(String);

  await idle.check('before the first run');
  for (const engine of engines) {
    log(`=== ${engineName(engine)} ===`);
    const target = engine === 'sqlite' ? path.join(work, 'restart.sqlite') : `${pgServer()}/hackerspace_bench_restart_${process.pid}`;
    const { dbUrl } = await scratchEmpty(target, { keep: o['keep-db'] });
    const demo = await run(process.execPath, [program.cli, 'demo', ...demoArgs], { env: env({ DATABASE_URL: dbUrl }), logFile: path.join(work, `demo-${engine}.log`) });
    if (demo.code !== 0) fail(`demo failed on ${engine} (see ${path.join(work, `demo-${engine}.log`)})`);
    perRound[engine] = [];
    for (let r = 1; r <= o.rounds; r++) {
      const what = `${engineName(engine)}, round ${r}`;
      // a. SIGHUP under load.
      const server = await startServer({ program, env, work, name: `${engine}-hup-${r}`, dbUrl, workers: o.workers });
      const logs = server.logs;
      for (const p of PATHS) if ((await get(`${server.base}${p}`)).status !== 200) fail(`${what}: ${p} did not answer 200 before the load`);
      const old = childrenOf(server.child.pid);
      const wrk = load(server.base, { connections: o.connections, seconds: MAX_LOAD_S, file: path.join(work, `wrk-${engine}-hup-${r}.txt`) });
      await sleep(o.before * 1000);
      const hupAt = Date.now();
      server.child.kill('SIGHUP');
      const complete = () => logs().find((l) => l.pid === server.child.pid && String(l.msg).startsWith('rolling restart complete'));
      while (wrk.isRunning() && !complete()) await sleep(20);
      const restartMs = complete() ? complete().time - hupAt : NaN;
      // The load goes on a while on the new workers, then wrk is interrupted (its summary follows).
      if (wrk.isRunning()) await sleep(o.after * 1000);
      const result = await wrk.stop();
      check(complete() !== undefined, `${what}: the log did not say "rolling restart complete" within ${MAX_LOAD_S} s of load; log ${server.logFile}`);
      const kids = childrenOf(server.child.pid);
      check(kids.length === o.workers && kids.every((pid) => !old.includes(pid)), `${what}: workers before ${old.join(', ')}, after ${kids.join(', ')}`);
      check(
        result.socketErrors === 0,
        `${what}: ${result.socketErrors} socket errors (connect ${result.connect}, read ${result.read}, write ${result.write}, timeout ${result.timeout})`,
      );
      check(result.non2xx === 0, `${what}: ${result.non2xx} answers not 2xx (statuses ${result.statuses})`);
      R.add(`${engine}|requests`, 'after', result.requests);
      R.add(`${engine}|seconds`, 'after', result.duration_us / 1e6);
      R.add(`${engine}|restart`, 'after', restartMs);
      perRound[engine].push(`${result.socketErrors}/${result.non2xx}`);
      log(`${what}: ${result.requests} requests, statuses ${result.statuses}, socket errors ${result.socketErrors}, restart ${Math.round(restartMs)} ms`);
      // b. SIGTERM, idle.
      const idleStop = await terminate(server);
      check(idleStop.code === 0, `${what}: exit ${idleStop.code ?? idleStop.signal} after SIGTERM (idle)`);
      R.add(`${engine}|stopIdle`, 'after', idleStop.ms);
      // c. SIGTERM under load.
      const loaded = await startServer({ program, env, work, name: `${engine}-term-${r}`, dbUrl, workers: o.workers });
      await get(`${loaded.base}${PATHS[0]}`);
      const busy = load(loaded.base, { connections: o.connections, seconds: MAX_LOAD_S, file: path.join(work, `wrk-${engine}-term-${r}.txt`) });
      await sleep(o.before * 1000);
      const loadedStop = await terminate(loaded);
      check(loadedStop.code === 0, `${what}: exit ${loadedStop.code ?? loadedStop.signal} after SIGTERM under load`);
      R.add(`${engine}|stopLoaded`, 'after', loadedStop.ms);
      await busy.stop();
      log(`${what}: SIGTERM idle ${Math.round(idleStop.ms)} ms, under load ${Math.round(loadedStop.ms)} ms`);
    }
  }
  await idle.check('after the last run');

  const rows = engines.map((engine) => ({
    label: engineName(engine),
    figures: [
      figure('socket errors / non-2xx per round', {}, { text: perRound[engine].join(', ') }),
      figure('requests in the run', R.get(`${engine}|requests`)),
      figure('seconds of load', R.get(`${engine}|seconds`), { digits: 1 }),
      figure('SIGHUP → restart complete', R.get(`${engine}|restart`), { unit: 'ms', better: 'lower' }),
      figure('SIGTERM → exit, idle', R.get(`${engine}|stopIdle`), { unit: 'ms', better: 'lower' }),
      figure('SIGTERM → exit, under load', R.get(`${engine}|stopLoaded`), { unit: 'ms', better: 'lower' }),
    ],
  }));
  const lines = [
    `## Rolling restart benchmark — ${new Date().toISOString().slice(0, 19).replace('T', ' ')} UTC`,
    '',
    '### Method',
    '',
    `- \`hackerspace-api serve --workers ${o.workers}\` (LOG_LEVEL=info), a scratch database from \`demo ${demoArgs.join(' ')}\`.`,
    `- Every round: \`wrk -t1 -c${o.connections}\` with bench/restart.lua (requests cycling over ${PATHS.map((p) => `\`${p}\``).join(', ')}, every status counted), SIGHUP to the primary after ${o.before} s; the load goes on until the primary's log says \`rolling restart complete\`, and ${o.after} s more. Then SIGTERM to it, idle. Then a second server under the same load, SIGTERM ${o.before} s in.`,
    `- **${o.rounds} rounds**; each figure is the median with min–max. Socket errors (connect, read, write, timeout) and non-2xx answers across the SIGHUP are listed per round and must all be 0.`,
    `- Program: ${program.description}.`,
    '',
    render('engine', rows, ['after']),
    '',
    `- ${idle.note()}`,
    `- Machine: ${machineNote()}; run time ${Math.round((performance.now() - t0) / 1000)} s.`,
  ];
  if (failures.length) lines.push('', '**Checks failed:**', ...failures.map((f) => `- ${f}`));
  const report = `${lines.join('\n')}\n`;
  fs.writeFileSync(reportFile, report);
  process.stdout.write(`\n${report}\n(written to ${path.relative(ROOT, reportFile)}; raw outputs in ${path.relative(ROOT, work)}/)\n`);
  if (failures.length) {
    process.stderr.write(`restart.js: ${failures.length} check(s) failed (see above)\n`);
    return 1;
  }
  return 0;
}

await runMain('restart.js', main);
