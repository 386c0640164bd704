// Push-stream benchmark: many idle Server-Sent Events clients on GET /api/space/stream/, then door
// posts; how long until the LAST client has each change, and the server's memory meanwhile.
//
//   node bench/stream.js [--db sqlite|postgres|both] [--clients N] [--posts N] [--compare <git-ref>] [--keep-db]
//   (bash bench/stream.sh … runs the same, after raising the open-files limit)
//
// Expected duration on the 2-core development machine: about 2 minutes per engine (3 rounds of
// two runs of 1,000 clients and 20 posts), twice that with --compare.
//
// For each engine (both by default, SQLite first):
// 1. a scratch database filled by `demo` (200 users, 100,000 openings, a few projects, events and
//    meetings): a SQLite file under bench/out/, or a new PostgreSQL database on
//    BENCH_POSTGRES_SERVER; removed or dropped at the end, also on failure (unless --keep-db);
// 2. a door token (its secret stays in memory and reaches the helper through its environment);
// 3. ROUNDS (3) rounds; in each, for each program (with --compare: both, before first in odd
//    rounds), two fresh `serve` processes A and B on that database, then two runs of bench/stream-clients.js
//    (--clients connections, a socket each; then --posts door reports, one at a time):
//      same process    clients on A, posts to A
//      cross-process   clients on B, posts to A: PostgreSQL NOTIFY, or SQLite's poll of
//                      PRAGMA data_version (every STREAM_POLL_MS, default 100 ms)
//    Latency runs from the door post's response (or its request) to the moment the last client
//    has the event, p50 and p99 over the posts. Memory: the stream server's VmRSS before the
//    clients connect and with all connected, and its VmHWM after the posts;
// 4. prints the Markdown report (every figure the median of the rounds with min–max), also
//    written to bench/out/stream-<date>-<engines>.md.
//
// Targets (same-process rows, on "after"): p99 response→last client under 250 ms, RSS with the
// clients connected under 300 MB. Exit status: 0 when met; 1 on a failure (a client missed an
// event, a post not 201, a server died…); 2 on bad usage; 3 when a target was missed.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pgServer, scratchEmpty } from './lib/dataset.js';
import { Rounds, figure, render, worseInEveryRound } from './lib/figures.js';
import { fail, log } from './lib/log.js';
import { IdleChecks, machineNote } from './lib/machine.js';
import { engineName, engines as enginesOf, parseOptions } from './lib/options.js';
import { run, runMain } from './lib/processes.js';
import { inTurn, programs as programsOf, serverEnvFactory } from './lib/program.js';
import { assertAlive, serverPool } from './lib/servers.js';
import { spread, summarize } from './lib/stats.js';

const BENCH = path.dirname(new URL(import.meta.url).pathname);
const ROOT = path.dirname(BENCH);
const OUT = path.join(BENCH, 'out');
const DEMO = ['--users', '200', '--openings', '100000', '--projects', '20', '--events', '50', '--meetings', '20', '--replace'];
const TARGETS = { p99Ms: 250, rssMb: 300 };

const USAGE = `
Stream benchmark: node bench/stream.js [options]   (or bash bench/stream.sh [options])
Every figure is the median of --rounds rounds (at least 3) with min–max. Exit 0: targets met;
1: a failure; 2: usage; 3: a target missed. Environment: BENCH_POSTGRES_SERVER (default
postgres://postgres@127.0.0.1:5432): a role that may create databases.`;

const SPEC = {
  db: { type: 'string', default: 'both', help: 'sqlite, postgres or both' },
  compare: { type: 'string', help: 'git ref: also measure the bundle of that commit ("before"), alternating with the working tree\'s ("after") in every round' },
  rounds: { type: 'string', default: 3, integer: [3, 99], help: 'rounds per figure' },
  clients: { type: 'string', default: 1000, integer: [1, 100000], help: 'stream clients per run (bash bench/stream.sh raises the open-files limit to fit)' },
  posts: { type: 'string', default: 20, integer: [1, 10000], help: 'door posts per run' },
  'keep-db': { type: 'boolean', help: 'keep the scratch databases' },
};

function openFilesLimit() {
  try {
    return Number(execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).trim());
  } catch {
    return NaN;
  }
}

async function main() {
  const o = parseOptions(process.argv.slice(2), SPEC, USAGE);
  const engines = enginesOf(o.db, true);
  // Every client is a socket in the helper and one in the server.
  const limit = openFilesLimit();
  if (limit < o.clients + 1024)
    fail(
      `${o.clients} clients need ${o.clients + 1024} open files per process, but the limit is ${limit} (run through bash bench/stream.sh, which raises it, or use fewer --clients)`,
    );
  const t0 = performance.now();
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  const work = path.join(OUT, `stream-run-${stamp}`);
  fs.mkdirSync(work, { recursive: true });
  const reportFile = path.join(OUT, `stream-${stamp}-${o.db}${o.compare ? '-compare' : ''}.md`);
  const env = serverEnvFactory(ROOT);
  const programs = await programsOf(ROOT, work, o.compare);
  const labels = programs.map((p) => p.label);
  const after = programs.at(-1);
  const idle = new IdleChecks();
  const R = new Rounds();
  const RUNS = ['same process', 'cross-process'];
  await idle.check('before the first run');

  for (const engine of engines) {
    const target = engine === 'sqlite' ? path.join(work, 'stream-bench.sqlite') : `${pgServer()}/hackerspace_bench_stream_${process.pid}`;
    const { dbUrl } = await scratchEmpty(target, { keep: o['keep-db'] });
    log(`${engine}: demo data`);
    const cli = async (...args) => {
      const result = await run(process.execPath, [after.cli, ...args], { env: env({ DATABASE_URL: dbUrl }) });
      if (result.code !== 0) fail(`${args[0]} failed on ${engine}: ${result.stderr.trim().split('\n').slice(-5).join(' / ')}`);
      return result.stdout.trim();
    };
    await cli('migrate');
    await cli('demo', ...DEMO);
    const secret = await cli('token', 'create', '--name', 'bench-stream-door', '--scope', 'door');
    if (!/^\S+$/.test(secret)) fail('token create printed no secret');
    const pool = serverPool({ work, env });
    for (let r = 1; r <= o.rounds; r++) {
      for (const program of inTurn(programs, r)) {
        const a = await pool.start(program, `${engine}-A-${program.label}-${r}`, 'stream and posts', dbUrl);
        const b = await pool.start(program, `${engine}-B-${program.label}-${r}`, 'cross-process stream', dbUrl);
        for (const [label, streamServer] of [
          [RUNS[0], a],
          [RUNS[1], b],
        ]) {
          const file = path.join(work, `${engine}-${label.replace(/ /g, '-')}-${program.label}-${r}.json`);
          log(`${engine}, ${label}, ${program.label}, round ${r}: ${o.clients} clients, ${o.posts} posts`);
          const result = await run(
            process.execPath,
            [
              path.join(BENCH, 'stream-clients.js'),
              '--stream',
              streamServer.base,
              '--post',
              a.base,
              '--clients',
              String(o.clients),
              '--posts',
              String(o.posts),
              '--server-pid',
              String(streamServer.child.pid),
            ],
            { env: { ...process.env, DOOR_TOKEN: secret } },
          );
          fs.writeFileSync(file, result.stdout);
          if (result.code !== 0) fail(`${engine}, ${label}, ${program.label}: the run reported errors: ${result.stdout.slice(-800)} ${result.stderr.slice(-400)}`);
          assertAlive(`${engine}, ${label}`, streamServer, a);
          const m = JSON.parse(result.stdout);
          const key = `${engine}|${label}`;
          for (const k of ['connect_ms', 'p50_from_response_ms', 'p99_from_response_ms', 'p50_from_request_ms', 'p99_from_request_ms', 'p50_post_ms'])
            R.add(`${key}|${k}`, program.label, m[k]);
          for (const k of ['rss_idle_kb', 'rss_connected_kb', 'hwm_kb']) R.add(`${key}|${k}`, program.label, m[k] / 1024);
        }
        await pool.stop(a);
        await pool.stop(b);
      }
    }
  }
  await idle.check('after the last run');

  const verdicts = [];
  const rows = [];
  for (const engine of engines) {
    for (const label of RUNS) {
      const key = `${engine}|${label}`;
      const ms = (k, name) => figure(name, R.get(`${key}|${k}`), { digits: 1, unit: 'ms', better: 'lower' });
      const mb = (k, name) => figure(name, R.get(`${key}|${k}`), { digits: 1, unit: 'MB', better: 'lower' });
      rows.push({
        label: `${engineName(engine)}, ${label}`,
        figures: [
          ms('connect_ms', `all ${o.clients} connected in`),
          ms('p50_from_response_ms', 'p50 response→last client'),
          ms('p99_from_response_ms', 'p99 response→last client'),
          ms('p50_from_request_ms', 'p50 request→last client'),
          ms('p99_from_request_ms', 'p99 request→last client'),
          ms('p50_post_ms', 'p50 door post'),
          mb('rss_idle_kb', 'server RSS, no client'),
          mb('rss_connected_kb', 'server RSS, clients connected'),
          mb('hwm_kb', 'server VmHWM'),
        ],
      });
    }
    const p99 = R.get(`${engine}|same process|p99_from_response_ms`).after ?? [];
    const rss = R.get(`${engine}|same process|rss_connected_kb`).after ?? [];
    verdicts.push({
      ok: summarize(p99).median < TARGETS.p99Ms,
      text: `${engineName(engine)}, same process: p99 response→last client ${spread(p99, 1, 'ms')} (target < ${TARGETS.p99Ms} ms)`,
    });
    verdicts.push({
      ok: summarize(rss).median < TARGETS.rssMb,
      text: `${engineName(engine)}, same process: server RSS with the clients connected ${spread(rss, 1, 'MB')} (target < ${TARGETS.rssMb} MB)`,
    });
  }
  const lines = [
    `## Stream benchmark${o.compare ? `, before/after (\`--compare ${o.compare}\`)` : ''} — ${new Date().toISOString().slice(0, 19).replace('T', ' ')} UTC`,
    '',
    '### Method',
    '',
    `- Dataset: \`demo ${DEMO.join(' ')}\` in a scratch database per engine${engines.includes('postgres') ? ' (PostgreSQL: a new database on the local server)' : ''}.`,
    `- Rounds: every figure is the median of **${o.rounds} rounds** with min–max; in each round, for each program, two fresh \`serve\` processes (A, B; unpinned), then ${o.clients} stream clients (bench/stream-clients.js, a socket each) and ${o.posts} door posts to A, one at a time: "same process" with the clients on A, "cross-process" with them on B.`,
    `- Programs: ${programs.map((x) => `**${x.label}** = ${x.description}`).join('; ')}.`,
    '',
    render('engine, run', rows, labels),
    '',
    ...(programs.length > 1 ? ['Figures where "after" was worse than "before" in every round:', '', ...worseInEveryRound([['stream', rows]]), ''] : []),
    '### Verdicts (on "after")',
    '',
    ...verdicts.map((v) => `- ${v.text} — **${v.ok ? 'ok' : 'MISSED'}**`),
    '',
    `- ${idle.note()}`,
    `- Machine: ${machineNote()}; run time ${Math.round((performance.now() - t0) / 1000)} s.`,
  ];
  const report = `${lines.join('\n')}\n`;
  fs.writeFileSync(reportFile, report);
  process.stdout.write(`\n${report}\n(written to ${path.relative(ROOT, reportFile)}; raw outputs in ${path.relative(ROOT, work)}/)\n`);
  const missed = verdicts.filter((v) => !v.ok).length;
  if (missed) {
    process.stderr.write(`stream.js: ${missed} target(s) missed (see the verdicts)\n`);
    return 3;
  }
  return 0;
}

await runMain('stream.js', main);
