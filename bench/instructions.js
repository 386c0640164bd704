// Instructions per request, counted by valgrind's callgrind: a figure that does not depend on what
// else the machine is doing (timed runs here swing by 20 % between two processes of one bundle).
//
//   node bench/instructions.js [--compare <git-ref>] [--db sqlite|postgres] [--path /api/users/]
//                              [--header 'Name: value'] [--cache-off] [--concurrency N] …
//
// Method (fixed before measuring; printed with the figures):
// - each program (the working tree's bundle, and with --compare the bundle of that commit) gets a
//   small demo dataset of its own (200 users, 10,000 openings), built by its own CLI;
// - per round and program, a new `serve` process under `valgrind --tool=callgrind`
//   (LOG_LEVEL=warn); a client in this process sends --warmup requests, callgrind's counters are
//   zeroed, it sends --requests more, and the counters are dumped; the client keeps
//   --concurrency keep-alive connections busy, each sending its next request when its answer came;
// - the figure is the main thread's instructions (node's event loop, where requests are handled)
//   ÷ the requests; all threads' (V8's compiler and GC helpers too) is shown beside it;
// - rounds alternate the programs' order; each figure is the median of the rounds (min–max).
// Valgrind runs the server about 50 times slower: a round takes a minute or two.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pgServer, scratchEmpty } from './lib/dataset.js';
import { fail, log, safeUrl, sleep } from './lib/log.js';
import { engineName, parseOptions } from './lib/options.js';
import { run, runMain, start, stop, isAlive } from './lib/processes.js';
import { inTurn, programs as programsOf, serverEnvFactory } from './lib/program.js';
import { freePort } from './lib/http.js';
import { spread, summarize, num } from './lib/stats.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const SPEC = {
  compare: { type: 'string', help: 'git ref: also count the bundle of that commit ("before")' },
  db: { type: 'string', default: 'sqlite', choices: ['sqlite', 'postgres'], help: 'sqlite or postgres' },
  path: { type: 'string', default: '/api/users/', help: 'the URL path (and query) asked' },
  header: { type: 'string', multiple: true, help: "a request header, 'Name: value' (repeatable)" },
  'cache-off': { type: 'boolean', default: false, help: 'serve with RESPONSE_CACHE_MB=0 (every request builds its page)' },
  concurrency: { type: 'string', default: 1, integer: [1, 256], help: 'keep-alive connections kept busy' },
  warmup: { type: 'string', default: 20000, integer: [1, 10_000_000], help: 'requests before counting' },
  requests: { type: 'string', default: 5000, integer: [1, 10_000_000], help: 'requests counted' },
  rounds: { type: 'string', default: 3, integer: [3, 50], help: 'rounds per program' },
};
const USAGE =
  'Instructions per request: node bench/instructions.js [options]\nEvery figure is the median of --rounds rounds (at least 3) with min–max. Needs valgrind (callgrind).';

async function main() {
  const cfg = parseOptions(process.argv.slice(2), SPEC, USAGE);
  for (const tool of ['valgrind', 'callgrind_control', 'callgrind_annotate'])
    if ((await run('sh', ['-c', `command -v ${tool}`])).code !== 0) fail(`${tool} is missing: apt-get install valgrind`);
  // Under bench/out/, like the other benchmarks' runs: the bundles copied there find node_modules.
  fs.mkdirSync(path.join(ROOT, 'bench', 'out'), { recursive: true });
  const work = fs.mkdtempSync(path.join(ROOT, 'bench', 'out', 'instructions-'));
  const programs = await programsOf(ROOT, work, cfg.compare);
  const env = serverEnvFactory(ROOT);
  const headers = Object.fromEntries((cfg.header ?? []).map(headerPair));
  const databases = {};
  for (const program of programs) databases[program.label] = await dataset(program, cfg.db, env, work);

  const counts = Object.fromEntries(programs.map((p) => [p.label, { main: [], all: [] }]));
  for (let r = 1; r <= cfg.rounds; r++) {
    for (const program of inTurn(programs, r)) {
      const c = await countRound(program, databases[program.label], cfg, headers, env, work, `${program.label}-${r}`);
      counts[program.label].main.push(c.main / cfg.requests);
      counts[program.label].all.push(c.all / cfg.requests);
      log(`round ${r} ${program.label}: ${num(c.main / cfg.requests)} main-thread instructions per request (${num(c.all / cfg.requests)} in all threads)`);
    }
  }
  const what = `${cfg['cache-off'] ? 'RESPONSE_CACHE_MB=0, ' : ''}GET ${cfg.path}${cfg.header?.length ? ` with ${cfg.header.join(', ')}` : ''}, ${cfg.concurrency} connection(s), ${engineName(cfg.db)}`;
  const lines = [`Instructions per request (${what}; ${cfg.warmup} warm-up then ${cfg.requests} counted; median of ${cfg.rounds} rounds, min–max):`];
  for (const program of programs) {
    const c = counts[program.label];
    lines.push(`- ${program.label} (${program.description}): main thread ${spread(c.main)}, all threads ${spread(c.all)}`);
  }
  if (programs.length === 2) {
    const [b, a] = programs.map((p) => summarize(counts[p.label].main).median);
    lines.push(`- after ÷ before, main thread (medians): ${num(a / b, 3)}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  fs.rmSync(work, { recursive: true, force: true });
}

function headerPair(text) {
  const colon = text.indexOf(':');
  if (colon <= 0) fail(`--header expects 'Name: value', got '${text}'`);
  return [text.slice(0, colon).trim().toLowerCase(), text.slice(colon + 1).trim()];
}

/** A demo dataset built by the program's own CLI (so in its own schema), removed at exit; its DATABASE_URL. */
async function dataset(program, db, env, work) {
  const target = db === 'sqlite' ? path.join(work, `${program.label}.sqlite`) : `${pgServer()}/hackerspace_bench_instructions_${program.label}_${process.pid}`;
  const { dbUrl } = await scratchEmpty(target);
  const r = await run(process.execPath, [program.cli, 'demo', '--users', '200', '--openings', '10000', '--replace'], { env: env({ DATABASE_URL: dbUrl }) });
  if (r.code !== 0) fail(`${program.label}: demo failed: ${r.stderr.trim()}`);
  log(`${program.label}: demo dataset (200 users, 10,000 openings) in ${safeUrl(dbUrl)}`);
  return dbUrl;
}

/** One round: a server under callgrind, warm-up, zero, the counted requests, dump. */
async function countRound(program, dbUrl, cfg, headers, env, work, name) {
  const port = await freePort();
  const out = path.join(work, `callgrind-${name}.out`);
  const extra = cfg['cache-off'] ? { RESPONSE_CACHE_MB: '0' } : {};
  // callgrind_control finds the server by a file name made of the PID, USER and HOST of the
  // environment: it must run in the server's (whose HOST is the address listened on).
  const serverEnv = env({ ...extra, DATABASE_URL: dbUrl, HOST: '127.0.0.1', PORT: String(port) });
  const control = (flag) => run('callgrind_control', [flag, String(child.pid)], { env: serverEnv });
  const child = start('valgrind', ['--tool=callgrind', `--callgrind-out-file=${out}`, '--smc-check=all-non-file', process.execPath, program.cli, 'serve'], {
    env: serverEnv,
    logFile: path.join(work, `${name}.log`),
  });
  const url = `http://127.0.0.1:${port}${cfg.path}`;
  await waitForServer(url, child);
  await requests(url, headers, cfg.warmup, cfg.concurrency);
  const zeroed = await control('-z');
  if (zeroed.code !== 0 || !/OK/.test(zeroed.stdout) || /failed|error/.test(zeroed.stderr + zeroed.stdout))
    fail(`callgrind_control -z ${child.pid}: ${zeroed.stdout.trim()} ${zeroed.stderr.trim()}`);
  await requests(url, headers, cfg.requests, cfg.concurrency);
  const dumped = await control('-d');
  if (dumped.code !== 0 || !/OK/.test(dumped.stdout) || /failed|error/.test(dumped.stderr + dumped.stdout))
    fail(`callgrind_control -d ${child.pid}: ${dumped.stdout.trim()} ${dumped.stderr.trim()}`);
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

/** Sends n GETs over `concurrency` keep-alive connections; any answer but 200 or 304 fails the run. */
async function requests(url, headers, n, concurrency) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  let left = n;
  const loop = async () => {
    while (left > 0) {
      left--;
      const status = await new Promise((resolve, reject) => http.get(url, { agent, headers }, (res) => res.resume().on('end', () => resolve(res.statusCode))).on('error', reject));
      if (status !== 200 && status !== 304) fail(`GET ${url} answered ${status}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  agent.destroy();
}

/** Waits until callgrind has written a dump to its end (its `totals:` line), 60 s at most. */
async function written(file) {
  const deadline = Date.now() + 60_000;
  while (!(fs.existsSync(file) && /^totals:/m.test(fs.readFileSync(file, 'utf8')))) {
    if (Date.now() > deadline) fail(`callgrind wrote no complete dump ${file} within 60 s`);
    await sleep(200);
  }
}

/** Instructions of the dump: { all: every thread, main: node's event loop (inclusive) }. */
async function totals(file) {
  const all = Number(/^summary:\s+(\d+)/m.exec(fs.readFileSync(file, 'utf8'))?.[1]);
  const annotated = await run('callgrind_annotate', ['--inclusive=yes', '--threshold=100', file]);
  const line = annotated.stdout.split('\n').find((l) => l.includes('node::SpinEventLoopInternal'));
  const main = Number(line?.trim().split(/\s+/)[0].replaceAll(',', ''));
  if (!Number.isFinite(all) || !Number.isFinite(main)) fail(`could not read the totals of ${file}`);
  return { all, main };
}

await runMain('instructions.js', main);
