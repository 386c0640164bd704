// Web benchmark (issue 15; spec web.md §6 "Speed"): the dashboard `/` and `/api/space/hours/`
// built without the response cache, and the cached `/` beside the node:http ceiling, on the read
// benchmark's dataset (1,000,000 openings).
//
//   node bench/web.js [--db sqlite|postgres] [--rounds N] [options]
//   (bash bench/web.sh … runs the same)
//
// Expected duration on the 2-core development machine, dataset cached: about 2.5 minutes on
// SQLite, about 3 on PostgreSQL. Building the dataset (read.js's cache, reused while current)
// adds ~20 s on SQLite, under a minute on PostgreSQL (with VACUUM).
//
// Method (fixed before measuring; printed at the top of the report):
// - two datasets: read.js's cached one as it is ("demo": its history ends on 2026-01-31, so the
//   dashboard's 12-week window may hold no record at all), and a scratch copy of it whose
//   openings are moved forward in time (`update openings set time_us = time_us + delta`, delta =
//   now − the newest opening − 1 hour; the service's own triggers move the opening_buckets counts
//   and bump table_versions) so that the history ends an hour before the run: "1M openings with
//   an active door", the headline figures. The copy is checked: same row count, bucket counts
//   summing to it, and pages 1, 9,000 and the last identical to the demo's except for the delta;
//   it is vacuumed (SQLite VACUUM; PostgreSQL VACUUM FULL + VACUUM (FREEZE, ANALYZE), as the
//   cache was) and removed at the end;
// - uncached rows: a server per dataset with RESPONSE_CACHE_MB=0 (checked: two hours bodies in a
//   row carry different `until`), `wrk -t1 -c1` (service time, not queueing): 1 s of warm-up,
//   then --seconds measured; EVERY answer checked by a Lua response() hook (status, Content-Type,
//   body size within ±5 % of the one seen before the run, marker strings in the body);
// - the cached `/`: a default server on the shifted dataset, a browser's Accept and no
//   Accept-Encoding, `wrk -t1 -c32` with bench/report.lua (answers ≥ 400 and the bytes read
//   checked, as read.js does: no per-answer Lua, which would slow wrk itself), then the ceiling
//   (bench/ceiling.js answering that answer's status, headers and body) in turn in every round;
//   ratio per round. The dashboard expires from the cache every 60 s: its ETag is read before and
//   after each round, and a change is reported (not an error), with the round's slowest answer;
// - wrk on the first CPU, the servers on the others (taskset); every figure the median of
//   --rounds rounds (min–max); the datasets take turns (shifted first in odd rounds).
//
// Exit status: 0 when every target was met; 1 on a failure (a wrong answer, a server that died,
// a check of the shifted copy); 2 on bad usage; 3 when a target was missed.
import fs from 'node:fs';
import path from 'node:path';
import { datasetSizes, demoArgs, isPg, pgDescribe, pgVacuum, query, readDataset, scratchCopy, withPg } from './lib/dataset.js';
import { Rounds, figure, render, textFigure } from './lib/figures.js';
import { answerBytes, freePort, get, saveAnswer, waitFor200 } from './lib/http.js';
import { fail, log, safeUrl } from './lib/log.js';
import { IdleChecks, cpuPlacement, machineNote } from './lib/machine.js';
import { code } from './lib/markdown.js';
import { engineName, engines, envInteger, parseOptions } from './lib/options.js';
import { run, runMain, start, stop } from './lib/processes.js';
import { programs as programsOf, serverEnvFactory, sourcesRead } from './lib/program.js';
import { assertAlive, serverPool } from './lib/servers.js';
import { ceilingVerdict, num, spread, summarize } from './lib/stats.js';
import { ensureWrk, measure, resultLine, script } from './lib/wrk.js';

const BENCH = path.dirname(new URL(import.meta.url).pathname);
const ROOT = path.dirname(BENCH);
const OUT = path.join(BENCH, 'out');

const USAGE = `
Web benchmark: node bench/web.js [options]   (or bash bench/web.sh [options])
Uncached builds of / and /api/space/hours/ (wrk -c1), and the cached / against the node:http
ceiling (wrk -c32), on read.js's dataset and on a copy of it moved forward in time so that the
history ends an hour ago. Every figure is the median of --rounds rounds (at least 3) with min–max.
Exit 0: targets met; 1: failure; 2: usage; 3: a target missed. Environment: BENCH_USERS,
BENCH_OPENINGS, … (dataset size, as read.js), BENCH_POSTGRES_URL, WRK_CONNECTIONS (32).`;

const SPEC = {
  db: { type: 'string', default: 'sqlite', help: 'sqlite or postgres' },
  rounds: { type: 'string', integer: [3, 99], help: 'rounds per figure (default 3)' },
  seconds: { type: 'string', integer: [1, 600], help: 'measured seconds per round of the uncached rows, wrk -c1 (default 5)' },
  'cached-seconds': { type: 'string', integer: [1, 600], help: 'measured seconds per round of the cached / and its ceiling, wrk -c32 (default 2)' },
  warmup: { type: 'string', integer: [0, 60], help: 'warm-up seconds before each measurement (default 1)' },
  'keep-db': { type: 'boolean', help: 'use the cached dataset as it is, without checking it' },
  rebuild: { type: 'boolean', help: 'build the dataset again even if the cached one is current' },
  'no-pin': { type: 'boolean', help: 'let the scheduler place wrk and the servers' },
};

const TARGETS = { dashboardP50Ms: 100, hoursP50Ms: 100, cachedRatio: 0.7 };
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const HOUR_US = 3_600_000_000;
const WEEK_US = 7 * 24 * HOUR_US;
const OPENINGS = '/api/space/openings/';
const DEEP_PAGE = 9000;
/** The uncached URLs: what each must answer (Content-Type prefix, markers in the body) and its target. */
const URLS = [
  {
    key: 'dash',
    path: '/',
    headers: [`Accept: ${BROWSER_ACCEPT}`],
    type: 'text/html',
    markers: ['id="space-state"', 'id="opening-hours"', '</html>'],
    target: TARGETS.dashboardP50Ms,
  },
  { key: 'hours', path: '/api/space/hours/', headers: [], type: 'application/json', markers: ['"weeks":12,', '"open_share":[['], target: TARGETS.hoursP50Ms },
  { key: 'hours104', path: '/api/space/hours/?weeks=104', headers: [], type: 'application/json', markers: ['"weeks":104,', '"open_share":[['], target: null },
];

// The per-answer check of the uncached rows: bench/report.lua (its RESULT line) plus a
// response() hook that checks every answer and prints a CHECK line. Written into the run's folder.
const CHECK_LUA = `-- generated by bench/web.js: report.lua's RESULT line, and every answer checked.
dofile(os.getenv("REPORT_LUA"))
local report_setup, report_done = setup, done
local mine = {}
function setup(thread)
  table.insert(mine, thread)
  report_setup(thread)
end
local want_status = tonumber(os.getenv("CHECK_STATUS"))
local want_type = os.getenv("CHECK_TYPE")
local min_len = tonumber(os.getenv("CHECK_MIN_BYTES"))
local max_len = tonumber(os.getenv("CHECK_MAX_BYTES"))
local markers = {}
for m in string.gmatch(os.getenv("CHECK_MARKERS") or "", "[^\\t]+") do markers[#markers + 1] = m end
checked = 0
bad = 0
first_bad = ""
function response(status, headers, body)
  checked = checked + 1
  local why = nil
  local ctype = ""
  for name, value in pairs(headers) do
    if string.lower(name) == "content-type" then ctype = value end
  end
  if status ~= want_status then why = "status " .. status
  elseif string.sub(ctype, 1, #want_type) ~= want_type then why = "content-type " .. ctype
  elseif #body < min_len or #body > max_len then why = "body of " .. #body .. " bytes"
  else
    for _, m in ipairs(markers) do
      if not string.find(body, m, 1, true) then why = "no " .. m; break end
    end
  end
  if why then
    bad = bad + 1
    if first_bad == "" then first_bad = why end
  end
end
function done(summary, latency, requests)
  report_done(summary, latency, requests)
  local c, b, f = 0, 0, ""
  for _, t in ipairs(mine) do
    c = c + (t:get("checked") or 0)
    b = b + (t:get("bad") or 0)
    local x = t:get("first_bad")
    if f == "" and x ~= nil then f = x end
  end
  if f == "" then f = "none" end
  io.write(string.format("CHECK checked=%d bad=%d first_bad=%s\\n", c, b, (string.gsub(f, "%s", "_"))))
end
`;

async function main() {
  const o = parseOptions(process.argv.slice(2), SPEC, USAGE);
  const [engine] = engines(o.db, false);
  if (o['keep-db'] && o.rebuild) fail('--keep-db and --rebuild exclude each other');
  const cfg = {
    engine,
    rounds: o.rounds ?? 3,
    seconds: o.seconds ?? 5,
    cachedSeconds: o['cached-seconds'] ?? 2,
    warmup: o.warmup ?? 1,
    connections: envInteger('WRK_CONNECTIONS', 32, 1),
  };
  const sizes = datasetSizes();
  const t0 = performance.now();
  fs.mkdirSync(OUT, { recursive: true });
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  const work = path.join(OUT, `web-run-${stamp}`);
  fs.mkdirSync(work, { recursive: true });
  const reportFile = path.join(OUT, `web-${stamp}-${engine}.md`);
  const checkLua = path.join(work, 'check.lua');
  fs.writeFileSync(checkLua, CHECK_LUA);

  await ensureWrk(work);
  if (!sourcesRead(ROOT, 'RESPONSE_CACHE_MB')) fail('the sources read no RESPONSE_CACHE_MB: the uncached rows need a server without its response cache');
  const env = serverEnvFactory(ROOT);
  const [program] = await programsOf(ROOT, work, undefined);
  log(`program: ${program.description}`);
  const dataset = await readDataset({ out: OUT, engine, sizes, mode: o['keep-db'] ? 'keep' : o.rebuild ? 'rebuild' : 'auto', program, env, work });
  const placement = cpuPlacement({ pin: !o['no-pin'], workers: 0 });
  log(`CPU placement: ${placement.text}`);
  const notes = [];
  const failures = [];

  // ----- The shifted copy: the history moved forward to end an hour before now -----
  const shifted = await shiftedCopy(dataset, work);
  const sets = [
    { key: 'shifted', label: 'active door (history shifted to end 1 h before the run)', db: shifted.db, dbUrl: shifted.dbUrl },
    { key: 'demo', label: 'demo history as built', db: dataset.db, dbUrl: dataset.dbUrl },
  ];
  // What the dashboard's and the JSON's windows hold at the start of the measurements.
  const nowUs = Date.now() * 1000;
  for (const set of sets) set.window = await windowCounts(set.db, nowUs);
  sets[1].label += ` (ends ${sets[1].window.newest.slice(0, 10)})`;

  const idle = new IdleChecks();
  await idle.check('before the first server starts');
  const pool = serverPool({ work, env, pin: placement.server });
  const R = new Rounds();
  const labels = ['after'];

  // ----- Servers and the checks of their answers -----
  for (const set of sets) {
    set.server = await pool.start(program, `nocache-${set.key}`, `uncached rows, ${set.key} dataset (RESPONSE_CACHE_MB=0)`, set.dbUrl, { RESPONSE_CACHE_MB: '0' });
    const a = await get(`${set.server.base}/api/space/hours/`);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const b = await get(`${set.server.base}/api/space/hours/`);
    const until = (x) => (x.status === 200 ? JSON.parse(x.body).until : null);
    if (!until(a) || until(a) === until(b))
      fail(`${set.key}: two requests of /api/space/hours/ 20 ms apart gave the same \`until\` (${until(a)}): is the response cache really off?`);
    set.expected = {};
    for (const u of URLS) set.expected[u.key] = checkAnswer(await get(`${set.server.base}${u.path}`, headerObject(u.headers)), u, `${set.key} ${u.path}`);
    set.nonZeroCells = nonZeroCells(set.expected.dash.body);
    set.hoursSum = JSON.parse(set.expected.hours.body)
      .open_share.flat()
      .reduce((x, y) => x + y, 0);
  }
  if (sets[0].nonZeroCells === 0) fail("the shifted dataset's dashboard shows 0 % in every heatmap cell: its window holds no open time");
  const pages = await comparePages(sets[1].server, sets[0].server, shifted.deltaUs);
  log(`shifted copy checked: pages ${pages.checked.join(', ')} of ${OPENINGS} are the demo's moved by ${shifted.deltaUs} µs`);

  // The cached server (default configuration) on the shifted dataset, and the ceiling.
  const cachedServer = await pool.start(program, 'cached-shifted', 'cached / (default configuration), shifted dataset', shifted.dbUrl);
  const dashUrl = `${cachedServer.base}/`;
  const dashHeaders = { accept: BROWSER_ACCEPT };
  const dash = checkAnswer(await get(dashUrl, dashHeaders), URLS[0], 'cached /');
  if (dash.headers['content-encoding']) fail(`GET / without Accept-Encoding came back with Content-Encoding ${dash.headers['content-encoding']}`);
  const again = await get(dashUrl, dashHeaders);
  if (again.headers.etag !== dash.headers.etag) notes.push(`the cached \`/\` changed ETag between the first two requests (${dash.headers.etag} → ${again.headers.etag})`);
  const answerFile = path.join(work, 'answer-dashboard.body');
  saveAnswer(answerFile, again);
  const ceilingPort = await freePort();
  const [command, ...rest] = [...placement.server, process.execPath, script('ceiling.js'), String(ceilingPort), answerFile];
  const ceilingLog = path.join(work, 'ceiling.log');
  const ceilingChild = start(command, rest, { logFile: ceilingLog });
  const ceilingUrl = `http://127.0.0.1:${ceilingPort}/r/0`;
  await waitFor200(ceilingUrl, ceilingChild, 10, ceilingLog);
  const ceiling = { name: 'ceiling', child: ceilingChild, logFile: ceilingLog };
  const fromCeiling = await get(ceilingUrl, dashHeaders);
  // As read.js: status and body (Node's own Date and Keep-Alive headers differ from the service's by a byte or two).
  if (fromCeiling.status !== again.status || !fromCeiling.body.equals(again.body) || fromCeiling.headers['content-type'] !== again.headers['content-type'])
    fail(`the ceiling does not send the dashboard's status, Content-Type and body (${fromCeiling.status}, ${fromCeiling.body.length} B)`);

  // ----- 1 and 2: uncached, wrk -t1 -c1, every answer checked -----
  await idle.check('before the uncached rows');
  log(`uncached rows: wrk -t1 -c1, ${cfg.rounds} rounds of ${cfg.warmup} s warm-up + ${cfg.seconds} s, every answer checked`);
  for (let r = 1; r <= cfg.rounds; r++) {
    for (const set of r % 2 ? sets : [...sets].reverse()) {
      for (const u of URLS) {
        const m = await serviceTime(set.server, u, set.expected[u.key], `${u.key}-${set.key}-${r}`, { cfg, work, placement, checkLua });
        for (const k of ['p50', 'p90', 'p99', 'max', 'rps']) R.add(`${set.key}|${u.key}|${k}`, 'after', m[k]);
        if (m.socketErrors) notes.push(`wrk socket errors on ${code(u.path)} (${set.key}, round ${r}): ${m.socketErrors}`);
        log(`round ${r} ${set.key} ${u.path}: p50 ${num(m.p50, 1)} ms, p99 ${num(m.p99, 1)} ms, ${num(m.rps, 1)} req/s (${m.checked} answers checked)`);
      }
    }
  }

  // ----- 3: the cached / against the ceiling, wrk -t1 -c32 -----
  await idle.check('before the cached / and its ceiling');
  log(`cached /: wrk -t1 -c${cfg.connections}, the service then the ceiling in every round, ${cfg.rounds} rounds of ${cfg.warmup} s warm-up + ${cfg.cachedSeconds} s`);
  const etagChanges = [];
  for (let r = 1; r <= cfg.rounds; r++) {
    const before = checkAnswer(await get(dashUrl, dashHeaders), URLS[0], `cached /, before round ${r}`);
    const file = path.join(work, `wrk-cached-${r}.txt`);
    const m = await measure(dashUrl, {
      connections: cfg.connections,
      seconds: cfg.cachedSeconds,
      warmup: cfg.warmup,
      headers: [`Accept: ${BROWSER_ACCEPT}`],
      bytes: answerBytes(before),
      pin: placement.load,
      file,
      check: () => assertAlive(`the cached / (round ${r})`, cachedServer),
    });
    const after = checkAnswer(await get(dashUrl, dashHeaders), URLS[0], `cached /, after round ${r}`);
    const maxMs = (resultLine(fs.readFileSync(file, 'utf8'), 'RESULT')?.max_us ?? NaN) / 1000;
    if (after.headers.etag !== before.headers.etag) {
      etagChanges.push(r);
      notes.push(
        `cached \`/\`, round ${r}: the ETag changed during the round (${before.headers.etag} → ${after.headers.etag}): the dashboard expired from the cache (60 s) and was built again while wrk ran; its slowest answer took ${num(maxMs, 1)} ms (not an error)`,
      );
    }
    R.add('cached|rps', 'after', m.rps);
    R.add('cached|p99', 'after', m.p99);
    R.add('cached|max', 'after', maxMs);
    if (m.socketErrors) notes.push(`wrk socket errors on the cached \`/\` (round ${r}): ${m.socketErrors}`);
    const c = await measure(ceilingUrl, {
      connections: cfg.connections,
      seconds: cfg.cachedSeconds,
      warmup: cfg.warmup,
      headers: [`Accept: ${BROWSER_ACCEPT}`],
      bytes: answerBytes(again),
      pin: placement.load,
      file: path.join(work, `wrk-ceiling-${r}.txt`),
      check: () => assertAlive(`the ceiling (round ${r})`, ceiling),
    });
    R.add('cached|ceiling', 'all', c.rps);
    log(
      `cached / round ${r}: ${num(m.rps, 0)} req/s, ceiling ${num(c.rps, 0)} req/s, ratio ${num(m.rps / c.rps, 3)}${etagChanges.includes(r) ? ' (ETag changed during the round)' : ''}`,
    );
  }
  await stop(ceilingChild);
  for (const server of [...sets.map((s) => s.server), cachedServer]) await pool.stop(server);
  await idle.check('after the last measurement');
  await shifted.drop();

  // ----- Verdicts -----
  const verdicts = [];
  const p50 = (set, key) => summarize(R.get(`${set}|${key}|p50`).after ?? []).median;
  const forSqlite = engine === 'sqlite' ? '' : ', which web.md §6 sets on SQLite';
  for (const set of sets) {
    verdicts.push({
      ok: p50(set.key, 'dash') <= TARGETS.dashboardP50Ms,
      text: `Uncached \`/\`, ${set.key === 'shifted' ? '**active door (headline)**' : 'demo history'}: p50 ${spread(R.get(`${set.key}|dash|p50`).after ?? [], 1, 'ms')} (target ≤ ${TARGETS.dashboardP50Ms} ms${forSqlite})`,
    });
    verdicts.push({
      ok: p50(set.key, 'hours') <= TARGETS.hoursP50Ms,
      text: `Uncached \`/api/space/hours/\`, ${set.key === 'shifted' ? 'active door' : 'demo history'}: p50 ${spread(R.get(`${set.key}|hours|p50`).after ?? [], 1, 'ms')} (target ≤ ${TARGETS.hoursP50Ms} ms)`,
    });
  }
  const ratio = R.ratio('cached|rps', 'cached|ceiling', labels).after;
  const cv = ceilingVerdict(ratio, TARGETS.cachedRatio);
  verdicts.push({ ok: cv.ok, text: `Cached \`/\` ÷ the node:http ceiling: ${spread(ratio, 3)} (target ≥ ${TARGETS.cachedRatio}; ${cv.text})` });

  // ----- Report -----
  const runtimeS = Math.round((performance.now() - t0) / 1000);
  const lines = [];
  const p = (...l) => lines.push(...l);
  const ms = (key, digits = 1) => figure(key.split('|').pop(), R.get(key), { digits, unit: 'ms', better: 'lower' });
  const engineDb =
    engine === 'sqlite'
      ? `SQLite file \`${path.relative(ROOT, dataset.db)}\` (${num(fs.statSync(dataset.db).size / 1048576, 1)} MB)`
      : `${await pgDescribe(dataset.db).catch(() => 'PostgreSQL')}, \`${safeUrl(dataset.db)}\`; PostgreSQL's processes share the machine's cores (unpinned)`;
  p(`## Web benchmark (issue 15, web.md §6) — ${engineName(engine)} — ${new Date().toISOString().slice(0, 19).replace('T', ' ')} UTC`, '');
  p('### Method', '');
  p(
    `- Rounds: every figure is the median of **${cfg.rounds} rounds** with their min–max. Uncached rows: ${cfg.warmup} s of warm-up then **${cfg.seconds} s** of \`wrk -t1 -c1\` (service time, not queueing; latencies from wrk's histogram) per URL, dataset and round; the datasets take turns (shifted first in odd rounds). Cached \`/\`: ${cfg.warmup} s of warm-up then **${cfg.cachedSeconds} s** of \`wrk -t1 -c${cfg.connections}\`, then the same for the ceiling, in every round.`,
    `- Checks: in the uncached rows every answer is checked by a Lua hook (status 200, Content-Type \`text/html\` for \`/\` and \`application/json\` for the hours, body within ±5 % of the size seen before the run, marker strings: \`id="space-state"\`, \`id="opening-hours"\` and \`</html>\` in \`/\`, \`"weeks":N,\` and \`"open_share"\` in the hours); cache off verified (two hours bodies 20 ms apart differ in \`until\`). Cached \`/\`: no answer ≥ 400 and the bytes read fit the answer's size (as read.js: a per-answer hook would slow wrk itself), the answer checked like the uncached ones before and after every round, and its ETag compared (the dashboard expires from the cache every 60 s; a rebuild that gives the same bytes keeps its ETag and shows only in the round's slowest answer).`,
    `- Ceiling: bench/ceiling.js, a bare \`node:http\` server answering the service's own status, headers and body for \`/\` (${again.body.length} B of HTML, fetched once with the browser's Accept and no Accept-Encoding) as precomputed bytes; ratio = the service's req/s ÷ the same round's ceiling req/s. A ratio above 1.0 is noise of the machine, flagged ⚠, and never a result.`,
    `- Request headers: \`/\` with \`Accept: ${BROWSER_ACCEPT}\` (a browser's) and no Accept-Encoding; the hours with none (JSON).`,
    `- CPU placement: ${placement.text}.`,
    `- Program: ${program.description}; \`hackerspace-api serve\` with LOG_LEVEL=warn and none of the developer's configuration variables (so TIME_ZONE is UTC); uncached = \`RESPONSE_CACHE_MB=0\`.`,
    `- Dataset: ${dataset.counts} (\`demo ${demoArgs(sizes).join(' ')}\`); ${engineDb}; ${dataset.note}.`,
    `- Active door: ${shifted.description}`,
    '',
  );
  p(
    'What the windows hold when the measurements start (openings recorded in the last 12 and 104 weeks; the dashboard and `/api/space/hours/` use 12; the heatmap and the mean share are the ones of the answers checked before measuring):',
    '',
    render(
      'dataset',
      sets.map((s) => ({
        label: s.label,
        figures: [
          textFigure('newest opening', s.window.newest),
          textFigure('openings in 12 weeks', String(s.window.w12)),
          textFigure('in 104 weeks', String(s.window.w104)),
          textFigure('heatmap cells above 0 %', `${s.nonZeroCells} of 168`),
          textFigure('mean share (12 weeks)', num(s.hoursSum / 168, 3)),
          textFigure('`/` body', `${s.expected.dash.body.length} B`),
        ],
      })),
      labels,
    ),
    '',
  );
  p(`### 1. Uncached \`/\` (the dashboard, HTML), \`wrk -t1 -c1\`, \`RESPONSE_CACHE_MB=0\``, '');
  p(
    render(
      'dataset',
      sets.map((s) => ({
        label: s.key === 'shifted' ? `**${s.label}**` : s.label,
        figures: [
          ms(`${s.key}|dash|p50`),
          ms(`${s.key}|dash|p90`),
          ms(`${s.key}|dash|p99`),
          ms(`${s.key}|dash|max`),
          figure('req/s', R.get(`${s.key}|dash|rps`), { digits: 1 }),
          textFigure(`p50 ≤ ${TARGETS.dashboardP50Ms} ms`, p50(s.key, 'dash') <= TARGETS.dashboardP50Ms ? 'ok' : 'MISSED'),
        ],
      })),
      labels,
    ),
    '',
  );
  p('### 2. Uncached `/api/space/hours/` (JSON), `wrk -t1 -c1`, `RESPONSE_CACHE_MB=0`', '');
  p(
    render(
      'dataset, URL',
      sets.flatMap((s) =>
        URLS.slice(1).map((u) => ({
          label: `${s.key === 'shifted' ? 'active door' : 'demo history'}, ${code(u.path)}`,
          figures: [
            ms(`${s.key}|${u.key}|p50`),
            ms(`${s.key}|${u.key}|p90`),
            ms(`${s.key}|${u.key}|p99`),
            ms(`${s.key}|${u.key}|max`),
            figure('req/s', R.get(`${s.key}|${u.key}|rps`), { digits: 1 }),
            textFigure(`p50 ≤ ${TARGETS.hoursP50Ms} ms`, u.target === null ? '(no target)' : p50(s.key, u.key) <= u.target ? 'ok' : 'MISSED'),
          ],
        })),
      ),
      labels,
    ),
    '',
  );
  p(`### 3. Cached \`/\` against the node:http ceiling, \`wrk -t1 -c${cfg.connections}\` (active door dataset, default configuration)`, '');
  p(
    render(
      'URL',
      [
        {
          label: code('/'),
          figures: [
            figure('req/s', R.get('cached|rps')),
            ms('cached|p99', 2),
            ms('cached|max', 1),
            figure('ceiling req/s', R.get('cached|ceiling')),
            figure('ratio', { after: ratio }, { digits: 3, kind: 'ceiling' }),
            textFigure(`target ≥ ${TARGETS.cachedRatio}`, cv.text),
            textFigure('ETag changed', etagChanges.length ? `in round ${etagChanges.join(', ')}` : 'in no round'),
          ],
        },
      ],
      labels,
    ),
    '',
  );
  p('### Verdicts', '', ...verdicts.map((v) => `- ${v.text} — **${v.ok ? 'ok' : 'MISSED'}**`), '');
  p('### Notes', '', ...notes.map((n) => `- ${n}`));
  p(
    `- Shifted copy checked: ${pages.text}.`,
    `- Peak RSS (VmHWM): ${pool.servers.map((s) => `${s.name} ${num(s.rssMb, 1)} MB`).join(', ')}${engine === 'postgres' ? " (the Node processes only: PostgreSQL's memory is not included)" : ''}.`,
    `- ${idle.note()}`,
    `- Machine: ${machineNote()}; run time ${runtimeS} s.`,
  );
  if (failures.length) p('', '**Checks failed:**', ...failures.map((f) => `- ${f}`));
  const report = `${lines.join('\n')}\n`;
  fs.writeFileSync(reportFile, report);
  process.stdout.write(`\n${report}\n(written to ${path.relative(ROOT, reportFile)}; raw outputs in ${path.relative(ROOT, work)}/)\n`);
  if (failures.length) return 1;
  const missed = verdicts.filter((v) => !v.ok).length;
  if (missed) {
    process.stderr.write(`web.js: ${missed} target(s) missed (see the verdicts)\n`);
    return 3;
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------

const headerObject = (lines) => Object.fromEntries(lines.map((h) => [h.slice(0, h.indexOf(':')).toLowerCase(), h.slice(h.indexOf(':') + 1).trim()]));

/** An answer checked as the Lua hook checks every answer under load; returns it. */
function checkAnswer(answer, u, what) {
  if (answer.status !== 200) fail(`${what}: answered ${answer.status || 'nothing'} instead of 200`);
  const type = answer.headers['content-type'] ?? '';
  if (!type.startsWith(u.type)) fail(`${what}: Content-Type ${type || 'none'}, expected ${u.type}`);
  const text = answer.body.toString('utf8');
  for (const marker of u.markers) if (!text.includes(marker)) fail(`${what}: the body (${answer.body.length} B) lacks ${marker}`);
  if (u.key === 'dash' && (text.match(/ of the time<\/title>/g) ?? []).length !== 168) fail(`${what}: the heatmap does not have 168 cells with a title`);
  if (u.key !== 'dash') {
    const body = JSON.parse(text);
    if (!Array.isArray(body.open_share) || body.open_share.length !== 7 || body.open_share.some((row) => row.length !== 24)) fail(`${what}: open_share is not 7 × 24`);
  }
  return answer;
}

/** Heatmap cells of the dashboard whose title says more than 0 %. */
const nonZeroCells = (body) => (body.toString('utf8').match(/: open [1-9][0-9]*% of the time<\/title>/g) ?? []).length;

/** wrk -t1 -c1 with the check script: warm-up, then the measured seconds; fails on any bad answer. */
async function serviceTime(server, u, expected, name, { cfg, work, placement, checkLua }) {
  const size = expected.body.length;
  const env = {
    ...process.env,
    WRK_STATUSES: '0',
    REPORT_LUA: script('report.lua'),
    CHECK_STATUS: '200',
    CHECK_TYPE: u.type,
    CHECK_MIN_BYTES: String(Math.floor(size * 0.95)),
    CHECK_MAX_BYTES: String(Math.ceil(size * 1.05)),
    CHECK_MARKERS: u.markers.join('\t'),
  };
  const url = `${server.base}${u.path}`;
  const once = async (seconds, file) => {
    const [command, ...rest] = [...placement.load, 'wrk', '-t1', '-c1', `-d${seconds}s`, '--timeout', '10s', '-s', checkLua, ...u.headers.flatMap((h) => ['-H', h]), url];
    const result = await run(command, rest, { env });
    const text = result.stdout + result.stderr;
    fs.writeFileSync(file, text);
    assertAlive(name, server);
    if (result.code !== 0) fail(`wrk failed (exit ${result.code}): ${text.trim().split('\n').slice(-5).join(' / ')} (${file})`);
    const r = resultLine(text, 'RESULT');
    const c = resultLine(text, 'CHECK');
    if (!r || !c) fail(`wrk printed no RESULT or CHECK line (${file})`);
    if (c.bad !== 0 || r.status_errors !== 0)
      fail(`${u.path} on ${server.name}: ${c.bad} of ${c.checked} answers failed the check (first: ${String(c.first_bad).replaceAll('_', ' ')}; ${file})`);
    if (c.checked !== r.requests) fail(`${u.path}: ${c.checked} answers checked of ${r.requests} counted (${file})`);
    return { r, c };
  };
  if (cfg.warmup > 0) await once(cfg.warmup, path.join(work, `wrk-${name}.warmup.txt`));
  const { r, c } = await once(cfg.seconds, path.join(work, `wrk-${name}.txt`));
  if (r.requests <= 0) fail(`${u.path}: no answer in ${cfg.seconds} s on ${server.name}`);
  const sock = r.connect + r.read + r.write + r.timeout;
  return {
    p50: r.p50_us / 1000,
    p90: r.p90_us / 1000,
    p99: r.p99_us / 1000,
    max: r.max_us / 1000,
    rps: r.requests / (r.duration_us / 1e6),
    checked: c.checked,
    socketErrors: sock ? `connect ${r.connect}, read ${r.read}, write ${r.write}, timeout ${r.timeout}` : '',
  };
}

/** Records in the windows of 12 and 104 weeks before nowUs, and the newest opening's time. */
async function windowCounts(db, nowUs) {
  const [[row]] = await query(db, [
    `select max(time_us) as newest,
       sum(case when time_us >= ${nowUs - 12 * WEEK_US} then 1 else 0 end) as w12,
       sum(case when time_us >= ${nowUs - 104 * WEEK_US} then 1 else 0 end) as w104 from openings`,
  ]);
  return { newest: new Date(Number(row.newest) / 1000).toISOString().slice(0, 19).replace('T', ' ') + ' UTC', w12: Number(row.w12), w104: Number(row.w104) };
}

/**
 * A scratch copy of the dataset whose openings end an hour before now: one UPDATE on the copy
 * (the service's triggers move opening_buckets and bump table_versions), checked (row count,
 * bucket counts summing to it), then vacuumed. Returns the copy with deltaUs and a description.
 */
async function shiftedCopy(dataset, work) {
  const pg = isPg(dataset.db);
  const target = pg ? `${dataset.db}_web_${process.pid}` : path.join(work, 'web-shifted.sqlite');
  const copy = await scratchCopy(dataset.db, target);
  log(`shifted copy: ${pg ? `database ${safeUrl(target)}` : path.relative(ROOT, target)} (copied in ${num(copy.seconds, 1)} s); moving the openings forward`);
  const t0 = performance.now();
  let stat;
  let vacuumS;
  if (pg) {
    stat = await withPg(target, async (client) => {
      const { rows } = await client.query('select count(*)::bigint as n, max(time_us)::bigint as newest from openings');
      const n = Number(rows[0].n);
      const deltaUs = Date.now() * 1000 - Number(rows[0].newest) - HOUR_US;
      await client.query('begin');
      const updated = await client.query(`update openings set time_us = time_us + ${deltaUs}`);
      await client.query('commit');
      return { n, deltaUs, updated: updated.rowCount };
    });
  } else {
    const { default: Database } = await import('better-sqlite3');
    const sqlite = new Database(target, { fileMustExist: true });
    try {
      // The row triggers' temporary b-trees in memory, not in a temporary file (this connection
      // only): 30 times faster here, and nothing of the database file changes.
      sqlite.pragma('temp_store = memory');
      const row = sqlite.prepare('select count(*) as n, max(time_us) as newest from openings').get();
      const deltaUs = Date.now() * 1000 - Number(row.newest) - HOUR_US;
      const updated = sqlite.prepare('update openings set time_us = time_us + ?').run(deltaUs).changes;
      stat = { n: Number(row.n), deltaUs, updated };
    } finally {
      sqlite.close();
    }
  }
  const updateS = (performance.now() - t0) / 1000;
  if (stat.updated !== stat.n) fail(`the shift updated ${stat.updated} of ${stat.n} openings`);
  const t1 = performance.now();
  if (pg) await pgVacuum(target);
  else {
    const { default: Database } = await import('better-sqlite3');
    const sqlite = new Database(target, { fileMustExist: true });
    try {
      sqlite.exec('vacuum');
    } finally {
      sqlite.close();
    }
  }
  vacuumS = (performance.now() - t1) / 1000;
  const [[count], buckets] = await query(target, ['select count(*) as n from openings', 'select level, sum(n) as n from opening_buckets group by level order by level']);
  if (Number(count.n) !== stat.n) fail(`the shifted copy has ${count.n} openings, expected ${stat.n}`);
  if (buckets.length === 0 || buckets.some((b) => Number(b.n) !== stat.n))
    fail(`opening_buckets no longer counts ${stat.n} openings per level after the shift: ${JSON.stringify(buckets)}`);
  log(`shifted by ${num(stat.deltaUs / 86_400e6, 2)} days: UPDATE ${num(updateS, 1)} s, vacuum ${num(vacuumS, 1)} s`);
  return {
    ...copy,
    deltaUs: stat.deltaUs,
    description: `a scratch copy (${pg ? `\`${safeUrl(target)}\`, created from the cached database as template` : 'a copy of the cached file'}, removed at the end) where \`update openings set time_us = time_us + ${stat.deltaUs}\` (${num(stat.deltaUs / 86_400e6, 2)} days: now − the newest opening − 1 hour, at the start of the run) moved all ${stat.n} openings (${num(updateS, 1)} s, the service's triggers moving the opening_buckets counts), then ${pg ? 'VACUUM FULL + VACUUM (FREEZE, ANALYZE)' : 'VACUUM'} (${num(vacuumS, 1)} s).`,
  };
}

/** An instant `2026-01-07T23:14:40.945201+00:00` in microseconds since the epoch. */
function micros(text) {
  const m = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?(Z|([+-])(\d\d):(\d\d))$/.exec(text);
  if (!m) fail(`not a time: ${text}`);
  const offset = m[8] === 'Z' ? 0 : (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11])) * 60_000_000;
  return Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) * 1000 + Number((m[7] ?? '').padEnd(6, '0')) - offset;
}

/**
 * Pages 1, 9,000 (or the last when there are fewer) and the last of the openings on the demo and
 * the shifted servers: 200 each, the same states in the same order, every time moved by deltaUs.
 */
async function comparePages(demoServer, shiftedServer, deltaUs) {
  const first = await get(`${demoServer.base}${OPENINGS}`);
  if (first.status !== 200) fail(`${OPENINGS} answered ${first.status} on the demo dataset`);
  const body = JSON.parse(first.body);
  const pageSize = body.results.length;
  const lastPage = Math.ceil(body.count / pageSize);
  const checked = [...new Set([1, Math.min(DEEP_PAGE, lastPage), lastPage])];
  for (const page of checked) {
    const [a, b] = await Promise.all([demoServer, shiftedServer].map((s) => get(`${s.base}${OPENINGS}?page=${page}`)));
    if (a.status !== 200 || b.status !== 200) fail(`${OPENINGS}?page=${page} answered ${a.status} (demo) and ${b.status} (shifted)`);
    const [x, y] = [JSON.parse(a.body), JSON.parse(b.body)];
    if (x.count !== y.count || x.results.length !== y.results.length)
      fail(`${OPENINGS}?page=${page}: the shifted copy has another count or page length (${y.count}/${y.results.length} against ${x.count}/${x.results.length})`);
    x.results.forEach((record, i) => {
      const other = y.results[i];
      if (record.is_open !== other.is_open || micros(other.time) - micros(record.time) !== deltaUs)
        fail(`${OPENINGS}?page=${page}, record ${i + 1}: ${JSON.stringify(other)} on the shifted copy is not ${JSON.stringify(record)} moved by ${deltaUs} µs`);
    });
  }
  return {
    checked,
    text: `\`${OPENINGS}\` pages ${checked.join(', ')} answered 200 on both datasets, with the same states in the same order and every time moved by exactly the delta (so the bucketed deep pages still find the right rows)`,
  };
}

await runMain('web.js', main);
