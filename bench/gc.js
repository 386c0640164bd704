// What the young generation's collections keep, per request: the memory traffic that instruction
// counts do not show (a scavenge copies every young object still alive; the more that survives,
// the more each request costs in copying and in cache misses). Read from V8's own trace.
//
//   node bench/gc.js [--compare <git-ref>] [--db sqlite|postgres] [--path /api/users/]
//                    [--header 'Name: value'] [--cache-off] [--concurrency N] [--openings N]
//                    [--walk N] …
//
// Method (fixed before measuring; printed with the figures):
// - each program (the working tree's bundle, and with --compare the bundle of that commit) gets a
//   small demo dataset of its own (200 users, --openings openings: 10,000 unless set), built by
//   its own CLI;
// - per round and program, a new `serve` process started as `node --trace-gc-nvp` (LOG_LEVEL=warn),
//   its output to a file; with --walk N, pages 1 to N of --path (`?page=k`) are first asked once
//   each, in a random order (the same for every program and round), over one connection; then a
//   client in this process sends --warmup requests, then --requests more, keeping --concurrency
//   keep-alive connections busy;
// - the counted requests are told apart from the rest by the trace's own clock: each trace line
//   gives the milliseconds since the server's start, and the server's uptime at the start and end
//   of the counted requests is read from /proc (the process's start time, in clock ticks);
//   only the collections that began inside that window count (a collection that began in the
//   warm-up, and the one that perhaps runs at exit, do not);
// - figures of those collections: scavenges per 1,000 requests; kilobytes surviving a scavenge
//   (kept in the young generation plus promoted to the old one: V8's `new_space_survived`, called
//   `semi_space_copied` before V8 11, and `promoted`), as the total over the round's scavenges ÷ their number; the same total ÷ the
//   requests, in bytes per request; the time scavenges paused the server, in microseconds per
//   request; and the count of full (mark-compact) collections;
// - rounds alternate the programs' order; each figure is the median of the rounds (min–max).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { clientOptions, describeRequests, sendRequests, setUp, walkOrder, walkPages, serverSettings } from './lib/client.js';
import { fail, log } from './lib/log.js';
import { parseOptions } from './lib/options.js';
import { runMain, start, stop } from './lib/processes.js';
import { inTurn } from './lib/program.js';
import { freePort, waitFor200 } from './lib/http.js';
import { num, spread, summarize } from './lib/stats.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const SPEC = clientOptions({ concurrency: 32, requests: 50000 });
const USAGE = 'Young-generation survivors per request: node bench/gc.js [options]\nEvery figure is the median of --rounds rounds (at least 3) with min–max.';

/** The figures of one round, and how each is shown. */
const FIGURES = [
  ['scavenges', 'scavenges per 1,000 requests', 1],
  ['survivedKb', 'KB surviving a scavenge', 1],
  ['survivedPerRequest', 'bytes surviving per request', 0],
  ['pausePerRequest', 'scavenge pause µs per request', 2],
  ['fullGcs', 'full collections', 0],
];

async function main() {
  const cfg = parseOptions(process.argv.slice(2), SPEC, USAGE);
  const { work, programs, env, headers, databases } = await setUp(ROOT, cfg, 'gc');

  const rounds = Object.fromEntries(programs.map((p) => [p.label, []]));
  for (let r = 1; r <= cfg.rounds; r++) {
    for (const program of inTurn(programs, r)) {
      const f = await measureRound(program, databases[program.label], cfg, headers, env, work, `${program.label}-${r}`);
      rounds[program.label].push(f);
      log(`round ${r} ${program.label}: ${FIGURES.map(([key, label, digits]) => `${num(f[key], digits)} ${label}`).join(', ')}`);
    }
  }
  const what = describeRequests(cfg);
  const lines = [`Young-generation collections (${what}; ${cfg.warmup} warm-up then ${cfg.requests} counted; median of ${cfg.rounds} rounds, min–max):`];
  for (const program of programs) {
    const of = (key) => rounds[program.label].map((f) => f[key]);
    lines.push(`- ${program.label} (${program.description}): ${FIGURES.map(([key, label, digits]) => `${label} ${spread(of(key), digits)}`).join('; ')}`);
  }
  if (programs.length === 2) {
    const [b, a] = programs.map((p) => summarize(rounds[p.label].map((f) => f.survivedPerRequest)).median);
    lines.push(`- after ÷ before, bytes surviving per request (medians): ${num(a / b, 3)}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  fs.rmSync(work, { recursive: true, force: true });
}

/** One round: a traced server, the walk, the warm-up and the counted requests; the figures of the collections between. */
async function measureRound(program, dbUrl, cfg, headers, env, work, name) {
  const port = await freePort();
  const extra = serverSettings(cfg).env;
  const trace = path.join(work, `${name}.trace`);
  const child = start(process.execPath, ['--trace-gc-nvp', program.cli, 'serve'], {
    env: env({ ...extra, DATABASE_URL: dbUrl, HOST: '127.0.0.1', PORT: String(port) }),
    logFile: trace,
  });
  const url = `http://127.0.0.1:${port}${cfg.path}`;
  await waitFor200(url, child, 60, trace);
  if (cfg.walk > 0) await walkPages(url, headers, walkOrder(cfg.walk));
  await sendRequests(url, headers, cfg.warmup, cfg.concurrency);
  const from = uptimeMs(child.pid);
  await sendRequests(url, headers, cfg.requests, cfg.concurrency);
  const to = uptimeMs(child.pid);
  await stop(child);
  const collections = parseTrace(fs.readFileSync(trace, 'utf8')).filter((c) => c.atMs >= from && c.atMs <= to);
  return figuresOf(collections, cfg.requests);
}

/**
 * The process's age in ms: now, less its start time (field 22 of /proc/PID/stat, in clock ticks
 * since boot) read against /proc/uptime. V8's trace clock starts a few ms later (when the isolate
 * is made), which shifts the window by as much: far less than one collection's spacing.
 */
function uptimeMs(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const startTicks = Number(fields[19]);
  const bootS = Number(fs.readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
  return bootS * 1000 - (startTicks / CLOCK_TICKS) * 1000;
}
const CLOCK_TICKS = 100; // sysconf(_SC_CLK_TCK) on Linux: 100 on every architecture Node runs on

/**
 * The collections of a `--trace-gc-nvp` log: one line each, `[pid:isolate] <ms> ms: pause=…
 * gc=s …` with key=value pairs (gc=s a scavenge, ms/mc a full collection).
 */
function parseTrace(text) {
  const out = [];
  for (const line of text.split('\n')) {
    const m = /^\[\d+:0x[0-9a-f]+\]\s+(\d+(?:\.\d+)?) ms: (pause=.*)$/.exec(line);
    if (!m) continue;
    const pairs = Object.fromEntries([...m[2].matchAll(/(\w[\w.]*)=(\S+)/g)].map(([, k, v]) => [k, v]));
    out.push({ atMs: Number(m[1]), kind: pairs.gc, pauseMs: Number(pairs.pause), survived: Number(pairs.new_space_survived ?? pairs.semi_space_copied) + Number(pairs.promoted) });
  }
  return out;
}

function figuresOf(collections, requests) {
  const scavenges = collections.filter((c) => c.kind === 's');
  const survived = scavenges.reduce((n, c) => n + c.survived, 0);
  const pause = scavenges.reduce((n, c) => n + c.pauseMs, 0);
  if (scavenges.length === 0) fail(`no scavenge during the ${requests} counted requests: ask for more (--requests)`);
  return {
    scavenges: (scavenges.length / requests) * 1000,
    survivedKb: survived / scavenges.length / 1024,
    survivedPerRequest: survived / requests,
    pausePerRequest: (pause * 1000) / requests,
    fullGcs: collections.length - scavenges.length,
  };
}

await runMain('gc.js', main);
