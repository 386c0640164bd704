// Instructions per request, counted by valgrind's callgrind: a figure that does not depend on what
// else the machine is doing (timed runs here swing by 20 % between two processes of one bundle).
//
//   node bench/instructions.js [--compare <git-ref>] [--db sqlite|postgres] [--path /api/users/]
//                              [--header 'Name: value'] [--cache-off] [--concurrency N]
//                              [--openings N] [--walk N [--count-walk]] [--cache-sim] …
//
// Method (fixed before measuring; printed with the figures):
// - each program (the working tree's bundle, and with --compare the bundle of that commit) gets a
//   small demo dataset of its own (200 users, --openings openings: 10,000 unless set), built by
//   its own CLI;
// - with --walk N, pages 1 to N of --path (`?page=k`) are first asked once each in a random order
//   (the same order for every program and round), over one connection and with callgrind's
//   instrumentation off (valgrind still runs the server, several times slower): the state of
//   read.js's "A after the C1 walk", whose response cache holds every page; with --count-walk,
//   the walk's last --requests pages are the ones counted instead (instrumentation on, counters
//   zeroed before them, no warm-up): the cost of building a page, read.js's C1;
// - per round and program, a new `serve` process under `valgrind --tool=callgrind`
//   (LOG_LEVEL=warn); a client in this process sends --warmup requests, callgrind's counters are
//   zeroed, it sends --requests more, and the counters are dumped; the client keeps
//   --concurrency keep-alive connections busy, each sending its next request when its answer came;
// - the figure is the main thread's instructions (node's event loop, where requests are handled)
//   ÷ the requests; all threads' (V8's compiler and GC helpers too) is shown beside it; with
//   --cache-sim, callgrind also simulates the CPU caches and the main thread's first-level data
//   misses (D1mr + D1mw) and last-level misses (DLmr + DLmw + ILmr) per request are shown: the
//   cost that instructions do not show, of a larger heap or a colder one;
// - rounds alternate the programs' order; each figure is the median of the rounds (min–max).
// Valgrind runs the server about 50 times slower: a round takes a minute or two.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { clientOptions, describeRequests, sendRequests, setUp, walkOrder, walkPages, serverSettings } from './lib/client.js';
import { fail, log, sleep } from './lib/log.js';
import { engineName, parseOptions } from './lib/options.js';
import { run, runMain, start, stop, isAlive } from './lib/processes.js';
import { inTurn } from './lib/program.js';
import { freePort } from './lib/http.js';
import { spread, summarize, num } from './lib/stats.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const SPEC = {
  ...clientOptions({ concurrency: 1, requests: 5000 }),
  'count-walk': { type: 'boolean', default: false, help: "count the walk's last --requests pages (each built once: C1's cost) instead of hits after it" },
  'cache-sim': { type: 'boolean', default: false, help: 'also count cache misses (callgrind --cache-sim=yes, about twice as slow)' },
};
const USAGE =
  'Instructions per request: node bench/instructions.js [options]\nEvery figure is the median of --rounds rounds (at least 3) with min–max. Needs valgrind (callgrind).';

async function main() {
  const cfg = parseOptions(process.argv.slice(2), SPEC, USAGE);
  for (const tool of ['valgrind', 'callgrind_control', 'callgrind_annotate'])
    if ((await run('sh', ['-c', `command -v ${tool}`])).code !== 0) fail(`${tool} is missing: apt-get install valgrind`);
  if (cfg['count-walk'] && !(cfg.requests < cfg.walk)) fail('--count-walk counts the last --requests pages of the walk: --requests must be below --walk');
  const { work, programs, env, headers, databases } = await setUp(ROOT, cfg, 'instructions');

  const counts = Object.fromEntries(programs.map((p) => [p.label, { main: [], all: [], d1: [], ll: [] }]));
  for (let r = 1; r <= cfg.rounds; r++) {
    for (const program of inTurn(programs, r)) {
      const c = await countRound(program, databases[program.label], cfg, headers, env, work, `${program.label}-${r}`);
      const per = (n) => n / cfg.requests;
      counts[program.label].main.push(per(c.main));
      counts[program.label].all.push(per(c.all));
      if (cfg['cache-sim']) {
        counts[program.label].d1.push(per(c.d1));
        counts[program.label].ll.push(per(c.ll));
      }
      const misses = cfg['cache-sim'] ? `; main thread's misses per request: ${num(per(c.d1), 1)} D1, ${num(per(c.ll), 1)} LL` : '';
      log(`round ${r} ${program.label}: ${num(per(c.main))} main-thread instructions per request (${num(per(c.all))} in all threads)${misses}`);
    }
  }
  const what = cfg['count-walk']
    ? `${serverSettings(cfg).text}GET ${cfg.path}?page=k for pages 1–${cfg.walk} once each, the last ${cfg.requests} counted, 1 connection, ${engineName(cfg.db)}, ${cfg.openings} openings`
    : describeRequests(cfg);
  const counted = cfg['count-walk'] ? '' : `; ${cfg.warmup} warm-up then ${cfg.requests} counted`;
  const lines = [`Instructions per request (${what}${counted}; median of ${cfg.rounds} rounds, min–max):`];
  for (const program of programs) {
    const c = counts[program.label];
    const misses = cfg['cache-sim'] ? `; main thread's data misses: D1 ${spread(c.d1, 1)}, last level ${spread(c.ll, 1)}` : '';
    lines.push(`- ${program.label} (${program.description}): main thread ${spread(c.main)}, all threads ${spread(c.all)}${misses}`);
  }
  if (programs.length === 2) {
    const [b, a] = programs.map((p) => summarize(counts[p.label].main).median);
    lines.push(`- after ÷ before, main thread (medians): ${num(a / b, 3)}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  fs.rmSync(work, { recursive: true, force: true });
}

/** One round: a server under callgrind, warm-up, zero, the counted requests, dump. */
async function countRound(program, dbUrl, cfg, headers, env, work, name) {
  const port = await freePort();
  const out = path.join(work, `callgrind-${name}.out`);
  const extra = serverSettings(cfg).env;
  // callgrind_control finds the server by a file name made of the PID, USER and HOST of the
  // environment: it must run in the server's (whose HOST is the address listened on).
  const serverEnv = env({ ...extra, DATABASE_URL: dbUrl, HOST: '127.0.0.1', PORT: String(port) });
  const control = (...flags) => run('callgrind_control', [...flags, String(child.pid)], { env: serverEnv });
  const walking = cfg.walk > 0;
  const options = [
    `--callgrind-out-file=${out}`,
    '--smc-check=all-non-file',
    ...(walking ? ['--instr-atstart=no', '--separate-threads=yes'] : []),
    ...(cfg['cache-sim'] ? ['--cache-sim=yes'] : []),
  ];
  const child = start('valgrind', ['--tool=callgrind', ...options, process.execPath, program.cli, 'serve'], {
    env: serverEnv,
    logFile: path.join(work, `${name}.log`),
  });
  const url = `http://127.0.0.1:${port}${cfg.path}`;
  await waitForServer(url, child);
  const order = walking ? walkOrder(cfg.walk) : [];
  const walkCounted = cfg['count-walk'] ? cfg.requests : 0;
  if (walking) {
    await walkPages(url, headers, order.slice(0, order.length - walkCounted));
    await controlled(control, '-i', 'on');
  }
  if (walkCounted > 0) {
    await controlled(control, '-z');
    await walkPages(url, headers, order.slice(order.length - walkCounted));
  } else {
    await sendRequests(url, headers, cfg.warmup, cfg.concurrency);
    await controlled(control, '-z');
    await sendRequests(url, headers, cfg.requests, cfg.concurrency);
  }
  await controlled(control, '-d');
  if (!walking) {
    const dump = `${out}.1`;
    await written(dump);
    await stop(child);
    return totals(dump);
  }
  // One dump per thread (`.1-01` is the main thread's); all written once the server has stopped.
  await written(`${out}.1-01`);
  await stop(child);
  const dumps = fs
    .readdirSync(work)
    .filter((f) => f.startsWith(`${path.basename(out)}.1-`))
    .map((f) => path.join(work, f));
  for (const dump of dumps) await written(dump);
  return threadTotals(dumps);
}

/** Runs callgrind_control with `flags`; fails the run unless it says OK. */
async function controlled(control, ...flags) {
  const r = await control(...flags);
  if (r.code !== 0 || !/OK/.test(r.stdout) || /failed|error/.test(r.stderr + r.stdout)) fail(`callgrind_control ${flags.join(' ')}: ${r.stdout.trim()} ${r.stderr.trim()}`);
}

/**
 * The counts of one dump per thread (--separate-threads=yes, with the instrumentation turned on
 * after the walk: the event loop was entered before and is no frame of its calls, so the main
 * thread's figures are all of its thread's). Same shape as totals().
 */
function threadTotals(dumps) {
  const summaries = dumps.map((file) => ({ main: /-01$/.test(file), counts: summaryOf(fs.readFileSync(file, 'utf8')).counts }));
  const main = summaries.find((s) => s.main)?.counts ?? {};
  const all = summaries.reduce((n, s) => n + s.counts.Ir, 0);
  if (!Number.isFinite(all) || !Number.isFinite(main.Ir)) fail(`could not read the totals of ${dumps.join(', ')}`);
  return { all, main: main.Ir, ...misses(main) };
}

/** A dump's event names (its `events:` line) and its whole-run count of each (its `summary:` line). */
function summaryOf(text) {
  const events = /^events:\s+(.*)$/m.exec(text)?.[1].trim().split(/\s+/) ?? [];
  const figures = /^summary:\s+(.*)$/m.exec(text)?.[1].trim().split(/\s+/).map(Number) ?? [];
  return { events, counts: Object.fromEntries(events.map((e, i) => [e, figures[i]])) };
}

/** First-level data misses and last-level misses, from callgrind's cache simulation (NaN without it). */
const misses = (counts) => {
  const sum = (names) => names.reduce((n, e) => n + (counts[e] ?? NaN), 0);
  return { d1: sum(['D1mr', 'D1mw']), ll: sum(['DLmr', 'DLmw', 'ILmr']) };
};

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

/**
 * The counts of the dump: { all: every thread's instructions, main: node's event loop's
 * (inclusive), and with --cache-sim d1 and ll: the event loop's first-level data misses and
 * last-level misses }.
 */
async function totals(file) {
  const { events, counts } = summaryOf(fs.readFileSync(file, 'utf8'));
  const annotated = await run('callgrind_annotate', ['--inclusive=yes', '--threshold=100', file]);
  const line = annotated.stdout.split('\n').find((l) => l.includes('node::SpinEventLoopInternal'));
  // One figure per event, in the order of `events:`, each perhaps followed by its share "(12.3%)".
  const figures = (line ?? '')
    .trim()
    .split(/\s+/)
    .filter((t) => /^[\d,]+$/.test(t))
    .slice(0, events.length)
    .map((t) => Number(t.replaceAll(',', '')));
  const main = Object.fromEntries(events.map((e, i) => [e, figures[i]]));
  const all = counts.Ir;
  if (!Number.isFinite(all) || !Number.isFinite(main.Ir)) fail(`could not read the totals of ${file}`);
  return { all, main: main.Ir, ...misses(main) };
}

await runMain('instructions.js', main);
