// Instructions per request, counted by valgrind's callgrind: a figure the machine's load does not
// move. The acceptance tool of "instructions per cached request (the fast path) and per uncached
// /api/users/ build within 2 % of before":
//
//   node bench/instructions.js --compare <git-ref>               # cached GET /api/users/
//   node bench/instructions.js --compare <git-ref> --cache-off   # every request builds its page
//
// Method (printed with the figures):
// - each program (the working tree's bundle, and with --compare the bundle of that commit, built in
//   a temporary git worktree) gets a demo dataset of its own (200 users, 10,000 openings), built
//   by its own CLI;
// - per round and program, a new `serve` under `valgrind --tool=callgrind` (LOG_LEVEL=warn); a
//   client in this process sends --warmup requests over --concurrency keep-alive connections,
//   opened anew WARMUP_CONNECTIONS times in turn, callgrind's counters are zeroed, it sends
//   --requests more over new connections, and the counters are dumped. The warm-up's turns of
//   connections matter: after a warm-up on one connection, V8 deoptimised and recompiled a dozen
//   of Node's stream functions on the first new connection, one-off work that the count then
//   spread over its requests (`--trace-deopt`: nothing of the kind after 10 turns);
// - the figure is the main thread's instructions (node's event loop, where requests are handled)
//   ÷ the requests; all threads' (V8's compiler and GC helpers too) is shown beside it;
// - rounds alternate the programs' order; each figure is the median of the rounds (min–max).
// Exit status: 0, or 3 when after ÷ before (main thread, medians) is above 1.02; 1 on a failure.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEMO, sendRequests, setUp } from './lib/client.js';
import { freePort } from './lib/http.js';
import { fail, log, sleep } from './lib/log.js';
import { engineName, parseOptions } from './lib/options.js';
import { isAlive, run, runMain, start, stop } from './lib/processes.js';
import { inTurn } from './lib/program.js';
import { num, spread, summarize } from './lib/stats.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** How many times the warm-up's connections are opened anew, as clients come and go. */
const WARMUP_CONNECTIONS = 10;
/** The criterion's bound on after ÷ before. */
const TARGET_RATIO = 1.02;

const SPEC = {
  compare: { type: 'string', help: 'git ref: also measure the bundle of that commit ("before")' },
  db: { type: 'string', default: 'sqlite', choices: ['sqlite', 'postgres'], help: 'sqlite or postgres' },
  path: { type: 'string', default: '/api/users/', help: 'the URL path (and query) asked' },
  'cache-off': { type: 'boolean', default: false, help: 'serve with RESPONSE_CACHE_MB=0 (every request builds its page)' },
  concurrency: { type: 'string', default: 1, integer: [1, 256], help: 'keep-alive connections kept busy' },
  warmup: { type: 'string', default: 20000, integer: [1, 10_000_000], help: 'requests before counting' },
  requests: { type: 'string', default: 5000, integer: [1, 10_000_000], help: 'requests counted' },
  rounds: { type: 'string', default: 3, integer: [3, 50], help: 'rounds per program' },
  keep: { type: 'boolean', default: false, help: 'keep the callgrind dumps (for callgrind_annotate) and print where' },
};
const USAGE =
  'Instructions per request: node bench/instructions.js [options]\nEvery figure is the median of --rounds rounds (at least 3) with min–max. Needs valgrind (callgrind).';

async function main() {
  const cfg = parseOptions(process.argv.slice(2), SPEC, USAGE);
  for (const tool of ['valgrind', 'callgrind_control', 'callgrind_annotate'])
    if ((await run('sh', ['-c', `command -v ${tool}`])).code !== 0) fail(`${tool} is missing: apt-get install valgrind`);
  const { work, programs, env, databases } = await setUp(ROOT, cfg, 'instructions');
  const serverEnv = cfg['cache-off'] ? { RESPONSE_CACHE_MB: '0' } : {};

  const counts = Object.fromEntries(programs.map((p) => [p.label, { main: [], all: [] }]));
  for (let r = 1; r <= cfg.rounds; r++) {
    for (const program of inTurn(programs, r)) {
      const c = await countRound(program, cfg, env({ ...serverEnv, DATABASE_URL: databases[program.label] }), work, `${program.label}-${r}`);
      counts[program.label].main.push(c.main / cfg.requests);
      counts[program.label].all.push(c.all / cfg.requests);
      log(`round ${r} ${program.label}: ${num(c.main / cfg.requests)} main-thread instructions per request (${num(c.all / cfg.requests)} in all threads)`);
    }
  }
  const settings = cfg['cache-off'] ? 'RESPONSE_CACHE_MB=0, ' : '';
  const what = `${settings}GET ${cfg.path}, ${cfg.concurrency} connection(s), ${engineName(cfg.db)}, ${DEMO.users} users and ${num(DEMO.openings)} openings`;
  const lines = [
    `Instructions per request (${what}; ${cfg.warmup} warm-up over ${WARMUP_CONNECTIONS} turns of connections, then ${cfg.requests} counted; median of ${cfg.rounds} rounds, min–max):`,
  ];
  for (const program of programs) {
    const c = counts[program.label];
    lines.push(`- ${program.label} (${program.description}): main thread ${spread(c.main)}, all threads ${spread(c.all)}`);
  }
  let status = 0;
  if (programs.length === 2) {
    const [before, after] = programs.map((p) => summarize(counts[p.label].main).median);
    const met = after / before <= TARGET_RATIO;
    lines.push(`- after ÷ before, main thread (medians): ${num(after / before, 3)} (target ≤ ${TARGET_RATIO}: ${met ? 'met' : 'MISSED'})`);
    if (!met) status = 3;
  }
  if (cfg.keep) lines.push(`- callgrind dumps kept in ${work}`);
  process.stdout.write(`${lines.join('\n')}\n`);
  if (!cfg.keep) fs.rmSync(work, { recursive: true, force: true });
  return status;
}

/** One round: a server under callgrind, warm-up, zero, the counted requests, dump. */
async function countRound(program, cfg, env, work, name) {
  const port = await freePort();
  const out = path.join(work, `callgrind-${name}.out`);
  // callgrind_control finds the server by a file name made of the PID, USER and HOST of the environment: it must run in the server's.
  const serverEnv = { ...env, HOST: '127.0.0.1', PORT: String(port) };
  const child = start('valgrind', ['--tool=callgrind', `--callgrind-out-file=${out}`, '--smc-check=all-non-file', process.execPath, program.cli, 'serve'], {
    env: serverEnv,
    logFile: path.join(work, `${name}.log`),
  });
  const control = async (flag) => {
    const r = await run('callgrind_control', [flag, String(child.pid)], { env: serverEnv });
    if (r.code !== 0 || !/OK/.test(r.stdout) || /failed|error/.test(r.stderr + r.stdout)) fail(`callgrind_control ${flag}: ${r.stdout.trim()} ${r.stderr.trim()}`);
  };
  const url = `http://127.0.0.1:${port}${cfg.path}`;
  await waitForServer(url, child);
  for (let turn = 0; turn < WARMUP_CONNECTIONS; turn++) await sendRequests(url, Math.ceil(cfg.warmup / WARMUP_CONNECTIONS), cfg.concurrency);
  await control('-z');
  await sendRequests(url, cfg.requests, cfg.concurrency);
  await control('-d');
  const dump = `${out}.1`;
  await written(dump);
  await stop(child);
  return totals(dump);
}

async function waitForServer(url, child) {
  const deadline = Date.now() + 300_000;
  while (Date.now() < deadline) {
    if (!isAlive(child)) fail(`the server under valgrind exited (${child.exitCode ?? child.signalCode})`);
    const status = await new Promise((resolve) => http.get(url, (res) => res.resume().on('end', () => resolve(res.statusCode))).on('error', () => resolve(0)));
    if (status !== 0) return;
    await sleep(500);
  }
  fail('the server under valgrind did not answer within 300 s');
}

/** Waits until callgrind has written a dump to its end (its `totals:` line), 60 s at most. */
async function written(file) {
  const deadline = Date.now() + 60_000;
  while (!(fs.existsSync(file) && /^totals:/m.test(fs.readFileSync(file, 'utf8')))) {
    if (Date.now() > deadline) fail(`callgrind wrote no complete dump ${file} within 60 s`);
    await sleep(200);
  }
}

/** The instructions of the dump: { all: every thread's, main: node's event loop's (inclusive) }. */
async function totals(file) {
  const all = Number(/^summary:\s+(\d+)/m.exec(fs.readFileSync(file, 'utf8'))?.[1]);
  const annotated = await run('callgrind_annotate', ['--inclusive=yes', '--threshold=100', file]);
  const line = annotated.stdout.split('\n').find((l) => l.includes('node::SpinEventLoopInternal'));
  // The line's first figure is the inclusive Ir, perhaps followed by its share "(12.3%)".
  const main = Number(
    (line ?? '')
      .trim()
      .split(/\s+/)
      .find((t) => /^[\d,]+$/.test(t))
      ?.replaceAll(',', ''),
  );
  if (!Number.isFinite(all) || !Number.isFinite(main) || main <= 0) fail(`could not read the totals of ${file}`);
  return { all, main };
}

await runMain('instructions.js', main);
