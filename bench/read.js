// Read benchmark of the HTTP API on a large demo dataset, beside the node:http ceiling.
//
//   node bench/read.js [--db sqlite|postgres] [--quick] [--compare <git-ref>] [options]
//   (bash bench/read.sh … runs the same)
//
// Expected duration on the 2-core development machine, idle, dataset cached: about 12 minutes;
// --quick about 4; --compare about 18, --compare --quick about 6; --rounds 9 three times as long.
// Building the dataset adds about 20 s (SQLite) or a minute or two (PostgreSQL, with VACUUM).
//
// Method (fixed before measuring; printed at the top of the report):
// - the dataset is built with the CLI's `demo` (2,000 users, 1,000,000 openings, 200 projects,
//   500 events, 300 meetings) and cached in bench/out/ (a SQLite file, or the PostgreSQL
//   database hackerspace_bench with a marker file);
// - the servers are the bundle dist/hackerspace-api.mjs (copied when the run starts), started
//   with LOG_LEVEL=warn and none of the developer's configuration variables;
// - load is `wrk -t1 -c32` with bench/report.lua; wrk and the other clients run on the first CPU
//   and every server on the others (taskset);
// - every figure is measured in ROUNDS (3 by default): each round is 1 s of warm-up then the
//   measured seconds (2 by default); a URL and its ceiling (bench/ceiling.js: a bare node:http
//   server answering the API's own status, headers and body as precomputed bytes) are measured
//   in turn in every round, so a drift of the machine's speed shifts both alike; a ratio is
//   computed per round; the report shows the median of the rounds with their min–max;
// - in A and B, each round after the first runs on new server processes (same port, same
//   database): a process's speed is partly luck that lasts its whole life (see sectionAB);
// - with --compare <ref>, the bundle of that commit ("before") runs beside the working tree's
//   ("after") on the same dataset, and each round measures both (before first in odd rounds,
//   after first in even ones), then the ceiling.
//
// Sections: A. first pages repeated (response cache), with gzip, and with the cache off;
// B. conditional GETs answered 304; C1. all pages of the openings once each in a random order
// on a fresh server; C2. page 1 against the last page with the cache off; C3. cold deep pages:
// distinct random deep pages, each asked once, on a fresh server with the cache off after the OS
// page cache was dropped; D. readers while door reports are posted (stale reads fail the run);
// E. peak RSS of every server. See bench/README.md for each.
//
// Exit status: 0 when every target was met; 1 on a failure (a wrong answer, a server that died,
// a stale read…); 2 on bad usage; 3 when a target was missed (the targets are judged on "after").
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { datasetSizes, demoArgs, isPg, pgDescribe, readDataset, scratchCopy, settledCopy } from './lib/dataset.js';
import { Rounds, figure, render, textFigure, worseInEveryRound } from './lib/figures.js';
import { answerBytes, freePort, get, saveAnswer, waitFor200 } from './lib/http.js';
import { fail, log, safeUrl, sleep } from './lib/log.js';
import { IdleChecks, cpuPlacement, dropPageCache, machineNote } from './lib/machine.js';
import { code } from './lib/markdown.js';
import { engineName, engines, envInteger, parseOptions } from './lib/options.js';
import { run, runMain, start, stop } from './lib/processes.js';
import { doorToken, inTurn, programs as programsOf, serverEnvFactory, sourcesRead } from './lib/program.js';
import { assertAlive, serverPool, waitForWorkers } from './lib/servers.js';
import { ceilingVerdict, num, spread, summarize } from './lib/stats.js';
import { checkWrkFfi, ensureWrk, measure, resultLine, script, shuffled, walk } from './lib/wrk.js';

const BENCH = path.dirname(new URL(import.meta.url).pathname);
const ROOT = path.dirname(BENCH);
const OUT = path.join(BENCH, 'out');

const USAGE = `
Read benchmark: node bench/read.js [options]   (or bash bench/read.sh [options])
Every figure is the median of --rounds rounds (at least 3) with min–max. Exit 0: targets met;
1: failure; 2: usage; 3: a target missed. Environment: BENCH_USERS, BENCH_OPENINGS, BENCH_PROJECTS,
BENCH_EVENTS, BENCH_MEETINGS (dataset size), BENCH_POSTGRES_URL (default
postgres://postgres@127.0.0.1:5432/hackerspace_bench), WRK_CONNECTIONS (32), WALK_SEED (1).`;

const SPEC = {
  db: { type: 'string', default: 'sqlite', help: 'sqlite or postgres' },
  compare: { type: 'string', help: 'git ref: also measure the bundle of that commit ("before"), alternating with the working tree\'s ("after") in every round' },
  quick: { type: 'boolean', help: 'fewer URLs, 1 s rounds, shorter walks and mixed load: the same method, labelled quick in the report' },
  rounds: { type: 'string', integer: [3, 99], help: 'rounds per figure (default 3)' },
  seconds: { type: 'string', integer: [1, 600], help: 'measured seconds per round (default 2; --quick 1)' },
  warmup: { type: 'string', integer: [0, 60], help: 'warm-up seconds before each round (default 1)' },
  'walk-limit': { type: 'string', integer: [1, 3600], help: 'longest one C1 walk may take, in s (default 240; a walk stopped by it misses its target)' },
  'mixed-seconds': { type: 'string', integer: [1, 600], help: 'length of each round of the mixed load (default 10; --quick 3)' },
  'cold-pages': { type: 'string', integer: [1, 100000], help: 'distinct deep pages per C3 round (default 200; --quick 100)' },
  workers: { type: 'string', integer: [1, 64], help: 'run `serve --workers N` and the ceiling as N workers (unpinned)' },
  'keep-db': { type: 'boolean', help: 'use the cached dataset as it is, without checking it' },
  rebuild: { type: 'boolean', help: 'build the dataset again even if the cached one is current' },
  'skip-uncached': { type: 'boolean', help: 'skip the cache-off rows of A (C2 still runs)' },
  'no-pin': { type: 'boolean', help: 'let the scheduler place wrk and the servers' },
};

const TARGETS = { startupMs: 1000, aRatio: 0.7, bRatio: 0.8, walkP50Ms: 5, deepRatio: 2, rssMb: 300 };
const OPENINGS = '/api/space/openings/';
const COLLECTIONS = ['/api/users/', OPENINGS, '/api/projects/', '/api/meetings/', '/api/events/'];
const ROUTES = [...COLLECTIONS, '/api/space/status/', '/api/'];
const QUICK_ROUTES = ['/api/users/', OPENINGS, '/api/space/status/'];
const QUICK_COLLECTIONS = [OPENINGS];
const QUICK_WALK_PAGES = 1000;
const MIXED_INTERVAL_MS = 100;

async function main() {
  const o = parseOptions(process.argv.slice(2), SPEC, USAGE);
  const [engine] = engines(o.db, false);
  if (o['keep-db'] && o.rebuild) fail('--keep-db and --rebuild exclude each other');
  const quick = Boolean(o.quick);
  const cfg = {
    engine,
    quick,
    rounds: o.rounds ?? 3,
    seconds: o.seconds ?? (quick ? 1 : 2),
    warmup: o.warmup ?? 1,
    walkLimit: o['walk-limit'] ?? 240,
    mixedSeconds: o['mixed-seconds'] ?? (quick ? 3 : 10),
    coldPages: o['cold-pages'] ?? (quick ? 100 : 200),
    workers: o.workers ?? 0,
    connections: envInteger('WRK_CONNECTIONS', 32, 1),
    seed: envInteger('WALK_SEED', 1),
    routes: quick ? QUICK_ROUTES : ROUTES,
    collections: quick ? QUICK_COLLECTIONS : COLLECTIONS,
    uncached: !o['skip-uncached'],
  };
  const sizes = datasetSizes();
  const t0 = performance.now();
  fs.mkdirSync(OUT, { recursive: true });
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  const work = path.join(OUT, `run-${stamp}`);
  fs.mkdirSync(work, { recursive: true });
  const runName = `${engine}${cfg.workers ? `-w${cfg.workers}` : ''}${o.compare ? '-compare' : ''}${quick ? '-quick' : ''}`;
  const reportFile = path.join(OUT, `read-${stamp}-${runName}.md`);

  await ensureWrk(work);
  await checkWrkFfi(work);
  if (!sourcesRead(ROOT, 'RESPONSE_CACHE_MB')) fail('the sources read no RESPONSE_CACHE_MB: C2 and C3 need a server without its response cache');
  const env = serverEnvFactory(ROOT);
  const programs = await programsOf(ROOT, work, o.compare);
  const labels = programs.map((p) => p.label);
  for (const p of programs) log(`program ${p.label}: ${p.description}`);
  // Built by the first program: with --compare, the other commit's bundle, normally the older
  // schema. Each program then serves a copy of its own, migrated to its own schema and compacted
  // before any measurement (settledCopy): an older bundle refuses a database migrated past it
  // (after the dataset was built by a newer schema than the compared commit's, --rebuild).
  const dataset = await readDataset({ out: OUT, engine, sizes, mode: o['keep-db'] ? 'keep' : o.rebuild ? 'rebuild' : 'auto', program: programs[0], env, work });
  dataset.copies = {};
  for (const p of programs) {
    log(`${p.label}: its own copy of the dataset, migrated and compacted`);
    dataset.copies[p.label] = await settledCopy(p, env, dataset.db, isPg(dataset.db) ? `${dataset.db}_${p.label}_${process.pid}` : path.join(work, `dataset-${p.label}.sqlite`));
  }
  const placement = cpuPlacement({ pin: !o['no-pin'], workers: cfg.workers });
  log(`CPU placement: ${placement.text}`);
  const idle = new IdleChecks();
  await idle.check('before the first server starts');

  const pool = serverPool({ work, env, pin: placement.server, workers: cfg.workers });
  const R = new Rounds();
  const notes = [];
  const failures = [];
  const ctx = { cfg, work, env, programs, labels, pool, R, notes, failures, placement, dataset, sizes, idle };
  const measureOn = async (server, url, opts, name) => {
    const m = await measure(url, {
      connections: cfg.connections,
      seconds: cfg.seconds,
      warmup: cfg.warmup,
      pin: placement.load,
      file: path.join(work, `wrk-${name}.txt`),
      check: () => assertAlive(name, server),
      ...opts,
    });
    if (m.requests === 0) notes.push(`${name}: no request completed in the ${cfg.seconds} s of that round (counted as 0 req/s; no latency)`);
    return m;
  };
  ctx.measureOn = measureOn;

  // ----- A and B: first pages, repeated; the ceiling in turn -----
  const ab = await sectionAB(ctx);
  // ----- C1: every page once on a fresh server (and its startup: the median of 3 starts) -----
  const c1 = await sectionC1(ctx, ab);
  await stop(ab.ceiling.child);
  // ----- C3: cold deep pages -----
  const c3 = await sectionC3(ctx, c1);
  // ----- D: mixed load -----
  await idle.check('before the mixed load');
  const d = await sectionD(ctx);

  // ----- Verdicts (on "after") -----
  const A = 'after';
  const verdicts = [];
  const verdict = (name, ok, text) => verdicts.push({ name, ok, text });
  verdict(
    'startup',
    summarize(R.get('startup')[A] ?? []).median < TARGETS.startupMs,
    `Startup to the first 200 on \`/api/\`: ${spread(R.get('startup')[A] ?? [], 0, 'ms')} (target < ${TARGETS.startupMs} ms)`,
  );
  for (const [section, target] of [
    ['A', TARGETS.aRatio],
    ['B', TARGETS.bRatio],
  ]) {
    const parts = cfg.routes.map((route) => {
      if (section === 'B' && ab.bState[route] !== 'ok') return { ok: false, text: `${code(route)} MISSED (${ab.bState[route]})` };
      const v = ceilingVerdict(R.ratio(`${section}|${route}`, `${section}|${route}|ceiling`, labels)[A], target);
      return { ok: v.ok, text: `${code(route)} ${v.text}` };
    });
    verdicts.push({
      name: section,
      ok: parts.every((p) => p.ok),
      text: `${section}, ratio to the ceiling ≥ ${target} (median of the rounds): ${parts.map((p) => p.text).join(', ')}`,
    });
  }
  const walkP50 = summarize(R.get('C1|p50')[A] ?? []).median;
  verdict(
    'C1',
    c1.complete && walkP50 < TARGETS.walkP50Ms,
    `C1, walk p50 < ${TARGETS.walkP50Ms} ms: ${spread(R.get('C1|p50')[A] ?? [], 2, 'ms')}${c1.complete ? '' : ' (a walk was stopped by --walk-limit)'}`,
  );
  const deep = R.ratio('C2|last|p50', 'C2|first|p50', labels)[A];
  verdict('C2', summarize(deep).median <= TARGETS.deepRatio, `C2, p50 of page ${c1.lastPage} ÷ page 1 ≤ ${TARGETS.deepRatio}: ${spread(deep, 3)}`);
  verdict('D', d.stale === 0 && d.failures.length === 0, `D, stale reads = 0: ${d.stale} over all rounds and programs`);
  const rssMax = Math.max(...pool.servers.filter((s) => s.program === A).map((s) => s.rssMb));
  verdict('E', rssMax < TARGETS.rssMb, `E, peak RSS < ${TARGETS.rssMb} MB: highest ${num(rssMax, 1)} MB`);
  failures.push(...d.failures);

  // ----- Report -----
  const runtimeS = Math.round((performance.now() - t0) / 1000);
  const lines = [];
  const p = (...l) => lines.push(...l);
  p(
    `## Read benchmark — ${engineName(engine)}${cfg.workers ? `, \`serve --workers ${cfg.workers}\`` : ''}${o.compare ? `, before/after (\`--compare ${o.compare}\`)` : ''}${quick ? ' — QUICK RUN (--quick)' : ''} — ${new Date().toISOString().slice(0, 19).replace('T', ' ')} UTC`,
    '',
  );
  p('### Method', '');
  p(
    `- Rounds: every figure is the median of **${cfg.rounds} rounds** with their min–max; a round is ${cfg.warmup} s of warm-up then **${cfg.seconds} s** measured.${quick ? ` **Quick run**: ${cfg.routes.length} of ${ROUTES.length} URLs, gzip on ${cfg.collections.length} collection, C1 walks ${QUICK_WALK_PAGES} random pages per round instead of all, mixed load ${cfg.mixedSeconds} s per round — not comparable to a full run.` : ''}`,
  );
  p(
    `- Load: \`wrk -t1 -c${cfg.connections}\` (bench/report.lua: latencies from wrk's histogram; every answer's size and, where it matters, status checked). Ceiling: bench/ceiling.js, a bare \`node:http\` server answering the API's own status, headers and body as precomputed bytes${cfg.workers ? ` (${cfg.workers} node:cluster workers like the service)` : ''}, measured in turn with each URL in every round; ratio = req/s ÷ the same round's ceiling. A ratio above 1.0 is noise of the machine, flagged ⚠, and never a result.`,
  );
  p(`- CPU placement: ${placement.text}.`);
  p(
    `- Programs: ${programs.map((x) => `**${x.label}** = ${x.description}`).join('; ')}.${programs.length > 1 ? ' In every round both are measured, before then after in odd rounds and after then before in even ones, then the ceiling; after ÷ before is computed per round.' : ''} In A (with gzip) and B, each round after the first runs on new processes of every program (same port, same database).`,
  );
  p(
    `- Dataset: ${dataset.counts} (\`demo ${demoArgs(sizes).join(' ')}\`); ${engine === 'sqlite' ? `SQLite file \`${path.relative(ROOT, dataset.db)}\` (${num(fs.statSync(dataset.db).size / 1048576, 1)} MB)` : `${await pgDescribe(dataset.db).catch(() => 'PostgreSQL')}, \`${safeUrl(dataset.db)}\`; PostgreSQL's processes share the machine's cores`}; ${dataset.note}.`,
  );
  p(`- Service: \`hackerspace-api serve${cfg.workers ? ` --workers ${cfg.workers}` : ''}\`, default configuration unless said (cache off = \`RESPONSE_CACHE_MB=0\`).`, '');
  p('### A. First pages, repeated (response cache)', '', render('URL', ab.rowsA, labels), '');
  p(`With \`Accept-Encoding: gzip\`, against a ceiling sending the same compressed bytes and headers (no target):`, '', render('URL', ab.rowsGzip, labels), '');
  if (cfg.uncached)
    p('With the response cache off (`RESPONSE_CACHE_MB=0`: every request builds its page), against the same ceilings (no target):', '', render('URL', c1.rowsOff, labels), '');
  p(
    `${code(OPENINGS)} again on each C1 server after its walk left its pages in the response cache (no target: a fuller cache should not make hits slower):`,
    '',
    render('URL', c1.rowsAfterWalk, labels),
    '',
  );
  p(
    "### B. Conditional GET: `If-None-Match: <the URL's ETag>` → 304",
    '',
    'Every answer under load must be `304 Not Modified`. Ceiling: `node:http` answering 304 with the headers the API sent on its 304.',
    '',
    render('URL', ab.rowsB, labels),
    '',
  );
  p('### C. Uncached pages of openings', '');
  p(`C1: ${c1.description}`, '', render('walk', c1.rowsWalk, labels), '');
  p(
    `C2: page 1 against page ${c1.lastPage} with the response cache off, \`wrk -t1 -c1\`, ${cfg.warmup} s warm-up + ${cfg.seconds} s each per round:`,
    '',
    render('URL', c1.rowsDeep, labels),
    '',
  );
  p(`C3, cold deep pages: ${c3.description}`, '', render('pages', c3.rows, labels), '');
  p('### D. Mixed load: readers and door posts', '', d.description, '', render('measure', d.rows, labels), '');
  p('### E. Peak RSS of the server processes', '');
  p(
    render(
      'program',
      labels.map((label) => {
        const mine = pool.servers.filter((s) => s.program === label);
        const top = mine.reduce((a, b) => (b.rssMb > a.rssMb ? b : a), mine[0]);
        return {
          label,
          figures: [
            textFigure('servers', String(mine.length)),
            textFigure('highest VmHWM', `${num(top?.rssMb, 1)} MB (${top?.name})`),
            textFigure('lowest', `${num(Math.min(...mine.map((s) => s.rssMb)), 1)} MB`),
          ],
        };
      }),
      ['after'],
    ),
    '',
  );
  if (engine === 'postgres') p("RSS counts the Node processes only: PostgreSQL's own memory is not included.", '');
  if (programs.length > 1) {
    const sections = [
      ['A', ab.rowsA],
      ['A gzip', ab.rowsGzip],
      ['A cache off', c1.rowsOff],
      ['A after C1', c1.rowsAfterWalk],
      ['B', ab.rowsB],
      ['C1', c1.rowsWalk],
      ['C2', c1.rowsDeep],
      ['C3', c3.rows],
      ['D', d.rows],
    ];
    p('### Figures where "after" was worse than "before" in every round', '', ...worseInEveryRound(sections), '');
  }
  p('### Verdicts (on "after")', '', ...verdicts.map((v) => `- ${v.text} — **${v.ok ? 'ok' : 'MISSED'}**`), '');
  p('### Notes', '', ...notes.map((n) => `- ${n}`));
  p(`- ${idle.note()}`, `- Machine: ${machineNote()}; run time ${runtimeS} s.`);
  if (failures.length) p('', '**Checks failed:**', ...failures.map((f) => `- ${f}`));
  const report = `${lines.join('\n')}\n`;
  fs.writeFileSync(reportFile, report);
  process.stdout.write(`\n${report}\n(written to ${path.relative(ROOT, reportFile)}; raw outputs in ${path.relative(ROOT, work)}/)\n`);
  if (failures.length) {
    for (const f of failures) process.stderr.write(`read.js: FAILED: ${f}\n`);
    return 1;
  }
  const missed = verdicts.filter((v) => !v.ok).length;
  if (missed) {
    process.stderr.write(`read.js: ${missed} target(s) missed (see the verdicts)\n`);
    return 3;
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------

/** Bodies of two servers compared: absolute links name the server's port. */
const normalized = (body, port) => body.toString('latin1').replaceAll(`127.0.0.1:${port}`, '127.0.0.1:PORT');
const slug = (s) => s.replace(/[^a-zA-Z0-9]+/g, '_').replace(/^_|_$/g, '');

/**
 * GET url once its answer has settled: the API sends no Last-Modified while the latest change of
 * the page's tables is under 2 s old (src/cache/representation.ts LAST_MODIFIED_SETTLE_MS), and
 * a dataset copy made just before the run is that recent. An answer saved then would be 46 bytes
 * shorter than the answers under load, and the size check would fail on a correct server. So the
 * URL is asked again until its 200 carries Last-Modified, for up to 5 s (a page whose body
 * expires never carries one: its first answer is kept).
 */
async function settledGet(url) {
  const deadline = Date.now() + 5000;
  for (;;) {
    const answer = await get(url);
    if (answer.status !== 200 || answer.headers['last-modified'] || Date.now() >= deadline) return answer;
    await sleep(100);
  }
}

async function sectionAB(ctx) {
  const { cfg, work, programs, labels, pool, R, notes, measureOn, placement } = ctx;
  const servers = {};
  for (const program of programs)
    servers[program.label] = await pool.start(program, `default-${program.label}`, 'A, B (default configuration)', ctx.dataset.copies[program.label].dbUrl);
  // What each URL answers: the ceiling sends the "after" program's answers.
  const answers = {};
  const bState = {};
  const etag = {};
  for (const program of programs) {
    const server = servers[program.label];
    const a = (answers[program.label] = {});
    for (const route of cfg.routes) {
      const plain = await settledGet(`${server.base}${route}`);
      if (plain.status !== 200) fail(`${program.label}: GET ${route} answered ${plain.status || 'nothing'} instead of 200`);
      if (plain.body[0] !== 0x7b) fail(`${program.label}: GET ${route} answered 200 but not with a JSON object`);
      if (plain.headers['content-encoding']) fail(`${program.label}: GET ${route} without Accept-Encoding came back with Content-Encoding ${plain.headers['content-encoding']}`);
      a[`A|${route}`] = plain;
      const tag = plain.headers.etag;
      let state = tag ? 'ok' : 'no ETag in the 200';
      if (tag) {
        const nm = await get(`${server.base}${route}`, { 'if-none-match': tag });
        if (nm.status !== 304) state = `If-None-Match answered ${nm.status}`;
        else if (nm.body.length) fail(`${program.label}: GET ${route} with If-None-Match answered 304 with a body`);
        else a[`B|${route}`] = nm;
      }
      if (program.label === 'after') {
        bState[route] = state;
        etag[route] = tag;
      } else if (state !== 'ok') notes.push(`before: ${route}: ${state}`);
    }
    for (const route of cfg.collections) {
      const gz = await get(`${server.base}${route}`, { 'accept-encoding': 'gzip' });
      if (gz.status !== 200) fail(`${program.label}: GET ${route} with Accept-Encoding: gzip answered ${gz.status}`);
      const enc = gz.headers['content-encoding'] ?? '';
      const plain = a[`A|${route}`].body;
      if (enc === 'gzip' ? !zlib.gunzipSync(gz.body).equals(plain) : enc !== '' || !gz.body.equals(plain))
        fail(`${program.label}: GET ${route} with Accept-Encoding: gzip does not give the plain answer's bytes (Content-Encoding ${enc || 'none'})`);
      a[`gzip|${route}`] = gz;
    }
  }
  if (programs.length > 1) {
    for (const route of cfg.routes) {
      const [b, x] = [answers.before[`A|${route}`], answers.after[`A|${route}`]];
      if (normalized(b.body, servers.before.port) !== normalized(x.body, servers.after.port))
        notes.push(
          `${code(route)}: before and after send different bodies (${b.body.length} and ${x.body.length} bytes); each is checked against its own size, the ceiling sends after's`,
        );
      else if (answerBytes(b) !== answerBytes(x))
        notes.push(`${code(route)}: before and after send answers of different sizes (${answerBytes(b)} and ${answerBytes(x)} bytes with headers)`);
    }
  }
  log(`all ${cfg.routes.length} URLs answer 200; 304 to If-None-Match: ${Object.values(bState).filter((s) => s === 'ok').length} of ${cfg.routes.length}`);

  // The ceiling: one node:http process serving every saved answer at /r/<index>.
  const files = [];
  const index = {};
  for (const [key, answer] of Object.entries(answers.after)) {
    const file = path.join(work, `answer-${slug(key)}.body`);
    saveAnswer(file, answer);
    index[key] = files.length;
    files.push(file);
  }
  const port = await freePort();
  const [command, ...rest] = [...placement.server, process.execPath, script('ceiling.js'), ...(cfg.workers ? ['--workers', String(cfg.workers)] : []), String(port), ...files];
  const logFile = path.join(work, 'ceiling.log');
  const child = start(command, rest, { logFile });
  await waitFor200(`http://127.0.0.1:${port}/r/0`, child, 10, logFile);
  const kids = cfg.workers ? await waitForWorkers(child, cfg.workers) : [];
  const ceiling = { name: 'ceiling', child, kids, logFile, url: (key) => `http://127.0.0.1:${port}/r/${index[key]}` };
  for (const [key, i] of Object.entries(index)) {
    const got = await get(ceiling.url(key), key.startsWith('gzip') ? { 'accept-encoding': 'gzip' } : {});
    if (!got.body.equals(answers.after[key].body) || got.status !== answers.after[key].status) fail(`the ceiling does not send the bytes of ${key} (/r/${i})`);
  }
  ctx.ceiling = ceiling;
  ctx.answers = answers;
  log(`ceiling: node:http on port ${port}, ${files.length} precomputed answers`);

  // A new process of each program per round (same port, same bytes): two processes of one bundle can differ by 20 % for life.
  const pairs = async (section, routes, headersOf, status) => {
    for (let r = 1; r <= cfg.rounds; r++) {
      if (r > 1) for (const program of programs) servers[program.label] = await pool.restart(servers[program.label], `${section}-${program.label}-${r}`);
      for (const route of routes) {
        for (const program of inTurn(programs, r)) {
          const answer = answers[program.label][`${section}|${route}`];
          const m = await measureOn(
            servers[program.label],
            `${servers[program.label].base}${route}`,
            { headers: headersOf(route, program.label), status, bytes: answerBytes(answer) },
            `${section}-${slug(route)}-${program.label}-${r}`,
          );
          R.add(`${section}|${route}`, program.label, m.rps);
          R.add(`${section}|${route}|p99`, program.label, m.p99);
          if (m.socketErrors) notes.push(`wrk socket errors on ${section} ${code(route)} (${program.label}, round ${r}): ${m.socketErrors}`);
        }
        const c = await measureOn(
          ceiling,
          ceiling.url(`${section}|${route}`),
          { headers: headersOf(route, 'after'), status, bytes: answerBytes(answers.after[`${section}|${route}`]) },
          `${section}-${slug(route)}-ceiling-${r}`,
        );
        R.add(`${section}|${route}|ceiling`, 'all', c.rps);
      }
    }
    for (const route of routes) {
      const ratio = R.ratio(`${section}|${route}`, `${section}|${route}|ceiling`, labels);
      log(`${section} ${route}: ${labels.map((l) => `${l} ${spread(R.get(`${section}|${route}`)[l], 0)} req/s, ratio ${spread(ratio[l], 3)}`).join('; ')}`);
    }
  };
  await ctx.idle.check('before the API and the ceiling are measured');
  log(`A: wrk -t1 -c${cfg.connections}: each URL and its ceiling in turn, ${cfg.rounds} rounds of ${cfg.warmup} s warm-up + ${cfg.seconds} s`);
  await pairs('A', cfg.routes, () => [], undefined);
  await pairs('gzip', cfg.collections, () => ['Accept-Encoding: gzip'], undefined);
  log('B: the same URLs with If-None-Match');
  const bRoutes = cfg.routes.filter((route) => bState[route] === 'ok' && labels.every((l) => answers[l][`B|${route}`]));
  await pairs('B', bRoutes, (route, label) => [`If-None-Match: ${answers[label][`A|${route}`].headers.etag}`], 304);
  for (const program of programs) await pool.stop(servers[program.label]);

  const row = (section, route, extra = []) => ({
    label: code(route),
    figures: [
      figure('req/s', R.get(`${section}|${route}`)),
      figure('p99', R.get(`${section}|${route}|p99`), { digits: 2, unit: 'ms', better: 'lower' }),
      figure('ceiling req/s', { all: R.get(`${section}|${route}|ceiling`).all }),
      figure('ratio', R.ratio(`${section}|${route}`, `${section}|${route}|ceiling`, labels), { digits: 3, kind: 'ceiling' }),
      ...extra,
    ],
  });
  const rowsA = cfg.routes.map((route) =>
    row('A', route, [
      textFigure(`target ≥ ${TARGETS.aRatio}`, ceilingVerdict(R.ratio(`A|${route}`, `A|${route}|ceiling`, labels).after, TARGETS.aRatio).text),
      textFigure('body', `${answers.after[`A|${route}`].body.length} B`),
    ]),
  );
  const rowsGzip = cfg.collections.map((route) =>
    row('gzip', route, [
      textFigure('Content-Encoding', answers.after[`gzip|${route}`].headers['content-encoding'] ?? 'none'),
      textFigure('body sent', `${answers.after[`gzip|${route}`].body.length} B`),
    ]),
  );
  const rowsB = cfg.routes.map((route) =>
    bRoutes.includes(route)
      ? row('B', route, [textFigure(`target ≥ ${TARGETS.bRatio}`, ceilingVerdict(R.ratio(`B|${route}`, `B|${route}|ceiling`, labels).after, TARGETS.bRatio).text)])
      : {
          label: code(route),
          figures: [
            textFigure('req/s', '—'),
            textFigure('p99', '—'),
            textFigure('ceiling req/s', '—'),
            textFigure('ratio', '—'),
            textFigure(`target ≥ ${TARGETS.bRatio}`, `MISSED (${bState[route]})`),
          ],
        },
  );
  return { rowsA, rowsGzip, rowsB, bState, etag, ceiling, answers };
}

async function sectionC1(ctx, ab) {
  const { cfg, work, programs, labels, pool, R, notes, measureOn, placement, sizes } = ctx;
  const first = JSON.parse(ab.answers.after[`A|${OPENINGS}`].body);
  if (!Number.isInteger(first.count) || !Array.isArray(first.results) || first.results.length === 0) fail(`${OPENINGS} is not a page with results`);
  if (first.count !== sizes.openings) fail(`${OPENINGS} reports count ${first.count}, expected ${sizes.openings}`);
  const pageSize = first.results.length;
  const lastPage = Math.ceil(first.count / pageSize);
  const all = Array.from({ length: lastPage }, (_, i) => i + 1);
  const walkSize = cfg.quick ? Math.min(QUICK_WALK_PAGES, lastPage) : lastPage;
  let complete = true;
  log(`C1: ${walkSize} of ${lastPage} pages of ${pageSize} openings once each, in a random order, wrk -t1 -c1, per round and program a fresh server`);
  for (let r = 1; r <= cfg.rounds; r++) {
    const order = shuffled(all, cfg.seed * 1000 + r).slice(0, walkSize);
    for (const program of inTurn(programs, r)) {
      const server = await pool.start(program, `walk-${program.label}-${r}`, `C1 walk, round ${r}`, ctx.dataset.copies[program.label].dbUrl);
      R.add('startup', program.label, server.startupMs);
      if (r === 1) {
        const after = await get(`${server.base}${OPENINGS}?page=${lastPage + 1}`);
        if (after.status !== 404) fail(`the page after the last (${lastPage + 1}) answered ${after.status}, expected 404: the page count is not ${lastPage}`);
      }
      const w = await walk(`${server.base}${OPENINGS}?page=`, {
        pages: order,
        limitS: cfg.walkLimit,
        pin: placement.load,
        file: path.join(work, `walk-${program.label}-${r}.txt`),
        check: () => assertAlive('the walk', server),
      });
      if (w.pages < walkSize) {
        complete = false;
        notes.push(`C1 round ${r} (${program.label}): the walk reached ${w.pages} of ${walkSize} pages in ${cfg.walkLimit} s (--walk-limit)`);
      }
      for (const k of ['p50', 'p90', 'p99', 'max', 'rps']) R.add(`C1|${k}`, program.label, w[k]);
      log(`C1 round ${r} ${program.label}: ${w.pages} pages, p50 ${num(w.p50, 2)} ms, p99 ${num(w.p99, 2)} ms`);
      const again = await get(`${server.base}${OPENINGS}`);
      if (normalized(again.body, server.port) !== normalized(ab.answers[program.label][`A|${OPENINGS}`].body, pool.servers.find((s) => s.name === `default-${program.label}`).port))
        fail(`GET ${OPENINGS} sends different bytes after the walk than on the first server (${program.label})`);
      const m = await measureOn(server, `${server.base}${OPENINGS}`, { bytes: answerBytes(again) }, `afterwalk-${program.label}-${r}`);
      R.add('afterwalk', program.label, m.rps);
      R.add('afterwalk|p99', program.label, m.p99);
      await pool.stop(server);
    }
    const c = await measureOn(ab.ceiling, ab.ceiling.url(`A|${OPENINGS}`), { bytes: answerBytes(ab.answers.after[`A|${OPENINGS}`]) }, `afterwalk-ceiling-${r}`);
    R.add('afterwalk|ceiling', 'all', c.rps);
  }
  const rowsWalk = [
    {
      label: `${walkSize} of ${lastPage} pages`,
      figures: [
        figure('p50', R.get('C1|p50'), { digits: 2, unit: 'ms', better: 'lower' }),
        figure('p90', R.get('C1|p90'), { digits: 2, unit: 'ms', better: 'lower' }),
        figure('p99', R.get('C1|p99'), { digits: 2, unit: 'ms', better: 'lower' }),
        figure('max', R.get('C1|max'), { digits: 2, unit: 'ms', better: 'lower' }),
        figure('req/s', R.get('C1|rps')),
        figure('startup of that server', R.get('startup'), { unit: 'ms', better: 'lower' }),
      ],
    },
  ];
  const rowsAfterWalk = [
    {
      label: code(OPENINGS),
      figures: [
        figure('req/s', R.get('afterwalk')),
        figure('p99', R.get('afterwalk|p99'), { digits: 2, unit: 'ms', better: 'lower' }),
        figure('ceiling req/s', { all: R.get('afterwalk|ceiling').all }),
        figure('ratio', R.ratio('afterwalk', 'afterwalk|ceiling', labels), { digits: 3, kind: 'ceiling' }),
      ],
    },
  ];

  // ----- C2 and the cache-off rows: a server per program with RESPONSE_CACHE_MB=0 -----
  const servers = {};
  for (const program of programs)
    servers[program.label] = await pool.start(program, `nocache-${program.label}`, 'C2 and the cache-off rows (RESPONSE_CACHE_MB=0)', ctx.dataset.copies[program.label].dbUrl, {
      RESPONSE_CACHE_MB: '0',
    });
  const offAnswers = {};
  for (const program of programs) {
    const server = servers[program.label];
    offAnswers[program.label] = {};
    for (const route of cfg.routes) {
      const got = await get(`${server.base}${route}`);
      if (
        got.status !== 200 ||
        normalized(got.body, server.port) !== normalized(ab.answers[program.label][`A|${route}`].body, pool.servers.find((s) => s.name === `default-${program.label}`).port)
      ) {
        fail(`GET ${route} sends different bytes with the cache off than with the default configuration (${program.label})`);
      }
      offAnswers[program.label][route] = got;
    }
  }
  log(`C2: page 1 and page ${lastPage} with the cache off, wrk -t1 -c1, ${cfg.rounds} rounds`);
  for (let r = 1; r <= cfg.rounds; r++) {
    for (const program of inTurn(programs, r)) {
      const server = servers[program.label];
      for (const [key, page] of [
        ['first', 1],
        ['last', lastPage],
      ]) {
        const prefix = `${server.base}${OPENINGS}?page=`;
        const file = path.join(work, `page-${page}-${program.label}-${r}.txt`);
        if (cfg.warmup) await walk(prefix, { page, limitS: cfg.warmup, pin: placement.load, file: `${file}.warmup` });
        const w = await walk(prefix, { page, limitS: cfg.seconds, pin: placement.load, file, check: () => assertAlive('C2', server) });
        for (const k of ['p50', 'p90', 'p99', 'rps']) R.add(`C2|${key}|${k}`, program.label, w[k]);
      }
    }
  }
  const rowsDeep = [
    ...[
      ['first', 1],
      ['last', lastPage],
    ].map(([key, page]) => ({
      label: code(`${OPENINGS}?page=${page}`),
      figures: [
        figure('p50', R.get(`C2|${key}|p50`), { digits: 2, unit: 'ms', better: 'lower' }),
        figure('p90', R.get(`C2|${key}|p90`), { digits: 2, unit: 'ms', better: 'lower' }),
        figure('p99', R.get(`C2|${key}|p99`), { digits: 2, unit: 'ms', better: 'lower' }),
        figure('req/s', R.get(`C2|${key}|rps`)),
      ],
    })),
    {
      label: `p50 of page ${lastPage} ÷ page 1 (target ≤ ${TARGETS.deepRatio})`,
      figures: [
        figure('p50', R.ratio('C2|last|p50', 'C2|first|p50', labels), { digits: 3, better: 'lower' }),
        textFigure('p90', ''),
        textFigure('p99', ''),
        textFigure('req/s', ''),
      ],
    },
  ];
  let rowsOff = [];
  if (cfg.uncached) {
    log(`cache-off rows: wrk -t1 -c${cfg.connections}, each URL and its ceiling in turn`);
    for (const route of cfg.routes) {
      for (let r = 1; r <= cfg.rounds; r++) {
        for (const program of inTurn(programs, r)) {
          const server = servers[program.label];
          const m = await measureOn(server, `${server.base}${route}`, { bytes: answerBytes(offAnswers[program.label][route]) }, `off-${slug(route)}-${program.label}-${r}`);
          R.add(`off|${route}`, program.label, m.rps);
          R.add(`off|${route}|p99`, program.label, m.p99);
        }
        const c = await measureOn(ab.ceiling, ab.ceiling.url(`A|${route}`), { bytes: answerBytes(ab.answers.after[`A|${route}`]) }, `off-${slug(route)}-ceiling-${r}`);
        R.add(`off|${route}|ceiling`, 'all', c.rps);
      }
      log(`off ${route}: ${labels.map((l) => `${l} ${spread(R.get(`off|${route}`)[l], 0)} req/s`).join('; ')}`);
    }
    rowsOff = cfg.routes.map((route) => ({
      label: code(route),
      figures: [
        figure('req/s', R.get(`off|${route}`)),
        figure('p99', R.get(`off|${route}|p99`), { digits: 2, unit: 'ms', better: 'lower' }),
        figure('ceiling req/s', { all: R.get(`off|${route}|ceiling`).all }),
        figure('ratio', R.ratio(`off|${route}`, `off|${route}|ceiling`, labels), { digits: 3, kind: 'ceiling' }),
      ],
    }));
  }
  for (const program of programs) await pool.stop(servers[program.label]);
  const description = `${walkSize === lastPage ? `every one of the ${lastPage} pages` : `${walkSize} random pages of the ${lastPage}`} (\`${OPENINGS}?page=N\`, ${pageSize} per page) asked once, in a random order (a new order each round, the same for every program in a round), on a server just started (default configuration, so no answer comes from the response cache); \`wrk -t1 -c1\` (latency is service time, not queueing; timed by bench/walk.lua). The startup (to the first 200 on \`/api/\`) is the one of these servers.`;
  return { lastPage, pageSize, complete, rowsWalk, rowsAfterWalk, rowsDeep, rowsOff, description };
}

async function sectionC3(ctx, c1) {
  const { cfg, work, programs, pool, R, notes, placement, dataset } = ctx;
  const { lastPage } = c1;
  // Deep pages: the older half of the history. Distinct sets: round r asks pages no other round asks.
  const deep = Array.from({ length: lastPage - Math.floor(lastPage / 2) }, (_, i) => Math.floor(lastPage / 2) + 1 + i);
  const perRound = Math.min(cfg.coldPages, Math.floor(deep.length / cfg.rounds));
  if (perRound < 1) fail(`C3: only ${deep.length} deep pages: too few for ${cfg.rounds} distinct sets`);
  const order = shuffled(deep, cfg.seed * 7919 + 3);
  const dropErrors = new Set();
  const pg = isPg(dataset.db);
  log(`C3: ${perRound} distinct deep pages per round, each once, on a fresh server with the cache off after dropping the OS page cache`);
  for (let r = 1; r <= cfg.rounds; r++) {
    const pages = order.slice((r - 1) * perRound, r * perRound);
    for (const program of inTurn(programs, r)) {
      // PostgreSQL: a fresh copy of the database, so that none of its blocks is in shared_buffers.
      const own = dataset.copies[program.label];
      const copy = pg ? await scratchCopy(own.db, `${dataset.db}_cold_${process.pid}`) : null;
      const server = await pool.start(program, `cold-${program.label}-${r}`, `C3 cold deep pages, round ${r}`, copy ? copy.dbUrl : own.dbUrl, { RESPONSE_CACHE_MB: '0' });
      // Warm the code path (not the deep pages' data): the first page, 20 times.
      for (let i = 0; i < 20; i++) if ((await get(`${server.base}${OPENINGS}`)).status !== 200) fail('C3: the first page did not answer 200');
      const dropped = dropPageCache();
      if (dropped) dropErrors.add(dropped);
      const w = await walk(`${server.base}${OPENINGS}?page=`, {
        pages,
        limitS: cfg.walkLimit,
        pin: placement.load,
        file: path.join(work, `cold-${program.label}-${r}.txt`),
        check: () => assertAlive('C3', server),
      });
      if (w.pages !== pages.length) fail(`C3: the walk answered ${w.pages} of ${pages.length} pages`);
      for (const k of ['p50', 'p90', 'p99', 'max']) R.add(`C3|${k}`, program.label, w[k]);
      log(`C3 round ${r} ${program.label}: p50 ${num(w.p50, 2)} ms, p99 ${num(w.p99, 2)} ms`);
      await pool.stop(server);
      if (copy) await copy.drop();
    }
  }
  const osCache =
    dropErrors.size === 0
      ? 'the OS page cache dropped (`sync; echo 3 > /proc/sys/vm/drop_caches`) after the warm-up of each round'
      : `**the OS page cache could NOT be dropped** (${[...dropErrors].join('; ')}): the database files may still be in memory, so "cold" means a new process only`;
  const meaning = pg
    ? `on PostgreSQL "cold" means: a fresh copy of the database for every round and program (\`CREATE DATABASE … TEMPLATE\`: none of its blocks in shared_buffers; the cluster itself is not restarted), a new server process with new connections (no prepared plans), and ${osCache}`
    : `on SQLite "cold" means: a new server process (an empty SQLite page cache), and ${osCache}`;
  if (dropErrors.size) notes.push(`C3: drop_caches not permitted: ${[...dropErrors].join('; ')}`);
  const rows = [
    {
      label: `${perRound} deep pages × ${cfg.rounds} rounds`,
      figures: ['p50', 'p90', 'p99', 'max'].map((k) => figure(k, R.get(`C3|${k}`), { digits: 2, unit: 'ms', better: 'lower' })),
    },
  ];
  return {
    rows,
    description: `${perRound} distinct random pages from the older half (pages ${deep[0]}–${lastPage}) per round, each asked once (a different set every round; the same set for every program in a round), \`wrk -t1 -c1\` with the response cache off (\`RESPONSE_CACHE_MB=0\`), on a server started for that round whose code path was warmed with 20 requests of page 1; ${meaning}. No target: what a page nobody asked for costs when its index and rows must come from disk.`,
  };
}

async function sectionD(ctx) {
  const { cfg, work, env, programs, pool, R, placement, dataset } = ctx;
  // Each program on a scratch copy of its own copy (its schema), with a door token of its own: the secret only in memory and mixed.js's environment.
  const mixedDbs = {};
  const scratch = [];
  for (const program of programs) {
    const target = isPg(dataset.db) ? `${dataset.db}_mixed_${program.label}_${process.pid}` : path.join(work, `mixed-${program.label}.sqlite`);
    const copy = await scratchCopy(dataset.copies[program.label].db, target);
    const what = isPg(dataset.db)
      ? `\`${safeUrl(target)}\`, created from ${program.label}'s copy of the cached database as its template (in ${num(copy.seconds, 1)} s) and dropped afterwards`
      : `a copy of ${program.label}'s copy of the cached file (copied in ${num(copy.seconds, 1)} s, removed afterwards)`;
    log(`D: scratch database: ${what}`);
    scratch.push(what);
    mixedDbs[program.label] = { copy, secret: await doorToken(program, copy.dbUrl, env, 'bench-mixed') };
  }
  let stale = 0;
  const failures = [];
  for (let r = 1; r <= cfg.rounds; r++) {
    for (const program of inTurn(programs, r)) {
      const { copy, secret } = mixedDbs[program.label];
      const writer = await pool.start(program, `mixed-writer-${program.label}-${r}`, "D: readers' load and the posts", copy.dbUrl);
      const other = await pool.start(program, `mixed-other-${program.label}-${r}`, 'D: cross-process reads', copy.dbUrl);
      const rfile = path.join(work, `wrk-mixed-${program.label}-${r}.txt`);
      const [lc, ...lrest] = [
        ...placement.load,
        'wrk',
        '-t1',
        `-c${cfg.connections}`,
        `-d${cfg.mixedSeconds}s`,
        '--timeout',
        '10s',
        '-s',
        script('report.lua'),
        `${writer.base}${OPENINGS}`,
      ];
      const readers = run(lc, lrest, { env: { ...process.env, WRK_STATUSES: '1' } });
      const [mc, ...mrest] = [
        ...placement.load,
        process.execPath,
        path.join(BENCH, 'mixed.js'),
        '--seconds',
        String(cfg.mixedSeconds),
        '--interval-ms',
        String(MIXED_INTERVAL_MS),
        writer.base,
        other.base,
      ];
      const mixed = await run(mc, mrest, { env: { ...process.env, MIXED_TOKEN: secret } });
      const wrkOut = await readers;
      fs.writeFileSync(rfile, wrkOut.stdout + wrkOut.stderr);
      fs.writeFileSync(path.join(work, `mixed-${program.label}-${r}.json`), mixed.stdout);
      fs.writeFileSync(path.join(work, `mixed-${program.label}-${r}.log`), mixed.stderr);
      assertAlive('the mixed load', writer, other);
      const line = resultLine(wrkOut.stdout, 'RESULT');
      if (wrkOut.code !== 0 || !line) fail(`wrk (mixed readers) failed (${rfile})`);
      if (line.statuses !== `200:${line.requests}`) fail(`mixed readers: not every answer was 200: statuses ${line.statuses} (${rfile})`);
      let s;
      try {
        s = JSON.parse(mixed.stdout);
      } catch {
        fail(`mixed.js printed no summary (exit ${mixed.code}): ${mixed.stderr.trim().slice(-500)}`);
      }
      const roundStale = s.servers.reduce((n, v) => n + v.stale + v.conditional_stale, 0);
      stale += roundStale;
      if (mixed.code !== 0 || roundStale || s.errors || s.created !== s.posts)
        failures.push(
          `D round ${r} (${program.label}): ${roundStale} stale reads, ${s.errors} errors, ${s.created} of ${s.posts} posts answered 201 (details in ${path.relative(ROOT, work)}/mixed-${program.label}-${r}.json)`,
        );
      R.add('D|rps', program.label, line.requests / (line.duration_us / 1e6));
      R.add('D|p99', program.label, line.p99_us / 1000);
      R.add('D|posts', program.label, s.created);
      R.add('D|post_p50', program.label, s.post_p50_ms);
      R.add('D|post_p99', program.label, s.post_p99_ms);
      R.add('D|stale', program.label, roundStale);
      log(`D round ${r} ${program.label}: readers ${Math.round(line.requests / (line.duration_us / 1e6))} req/s; ${s.created} of ${s.posts} posts 201; stale ${roundStale}`);
      await pool.stop(writer);
      await pool.stop(other);
    }
  }
  for (const { copy } of Object.values(mixedDbs)) await copy.drop();
  const ms = (key, label) => ({ label, figures: [figure('median (min–max) of the rounds', R.get(key), { digits: 2, unit: 'ms', better: 'lower' })] });
  const rows = [
    { label: 'readers, req/s', figures: [figure('median (min–max) of the rounds', R.get('D|rps'))] },
    ms('D|p99', 'readers, p99'),
    { label: 'door posts answered 201', figures: [figure('median (min–max) of the rounds', R.get('D|posts'))] },
    ms('D|post_p50', 'door post, p50'),
    ms('D|post_p99', 'door post, p99'),
    { label: 'stale reads (must be 0)', figures: [figure('median (min–max) of the rounds', R.get('D|stale'), { better: 'lower' })] },
  ];
  const description = `On ${scratch.join('; ')}; per round and program two fresh \`serve\` processes. Readers: \`wrk -t1 -c${cfg.connections} -d${cfg.mixedSeconds}s\` on \`${OPENINGS}\` of the first process. Writer (bench/mixed.js): a door report every ${MIXED_INTERVAL_MS} ms to the first process, and after each 201, at once, on both processes: the first page (must show the opening just posted) and the first page with \`If-None-Match:\` the ETag seen before the post (must be 200, not 304). Any stale read fails the run.`;
  return { rows, stale, failures, description };
}

await runMain('read.js', main);
