// Languages benchmark (issue: "cached page throughput in French ÷ English ≥ 0.95"): the visitors'
// cached dashboard `/` and a cached record page `/projects/<id>/`, asked in French and in English
// by Accept-Language, on the read benchmark's dataset (1,000,000 openings, 2,000 members).
//
//   node bench/languages.js [--db sqlite|postgres] [--rounds N] [--seconds S] [--no-pin] [--keep-db]
//
// Expected duration on the 2-core development machine, dataset cached: about 1.5 minutes.
// Building the dataset (read.js's cache, reused while current) adds ~20 s on SQLite, under a
// minute on PostgreSQL.
//
// Method (fixed before measuring; printed at the top of the report):
// - the built bundle (built first when older than src/) with its catalogues; a scratch copy of
//   read.js's dataset (removed at the end); the record page is the project with the most
//   participants (the one member-pages.js measures);
// - the languages: `Accept-Language: fr-BE,fr;q=0.9` (French) and `Accept-Language:
//   en-US,en;q=0.9` (English), each with a browser's Accept and no Accept-Encoding, no cookie.
//   the bundle must offer French (a fr.json among its catalogues, dist/locale/), else the run fails;
// - checks before measuring, on a check server (the same program and copy, METRICS_PORT set,
//   stopped before the measured one starts): each page in each language answers 200, text/html,
//   `<html lang="fr">` or `<html lang="en">`, `Vary` naming Accept-Language; the French and the
//   English answers differ (two cache entries); a repeated request has the same ETag and is a
//   hit of the response cache (hackerspace_response_cache_hits_total + 1, misses unchanged);
// - one measured `serve` (default configuration: no metrics listener), warmed up by 2 s of wrk on
//   each page and language before the rounds (not counted: the first measurement otherwise pays
//   V8's compilation of the fast path); before and after each
//   measurement the page is asked again in its language (status, `<html lang>`, ETag: a change
//   is reported, not an error — the dashboard expires from the cache every 60 s);
// - each page and language: `wrk -t1 -c32` with bench/report.lua (answers ≥ 400 and the bytes
//   read checked against the answer's size), 1 s of warm-up, then --seconds measured; in each
//   round, per page, French first in odd rounds and English first in even ones; the ratio
//   French ÷ English per round and page; every figure the median of --rounds rounds (min–max);
//   beside it, the server's CPU time per answer (/proc/<pid>/stat over warm-up and measurement),
//   which other processes on a busy machine move less than req/s (reported, not judged);
// - target: the median ratio ≥ 0.95 for each page; wrk on the first CPU, the servers on the
//   others (taskset).
//
// Exit status: 0 when every target was met; 1 on a failure; 2 on bad usage; 3 when a target was missed.
import fs from 'node:fs';
import path from 'node:path';
import { datasetSizes, isPg, pgDescribe, query, readDataset, scratchCopy } from './lib/dataset.js';
import { answerBytes, freePort, get } from './lib/http.js';
import { fail, log, safeUrl } from './lib/log.js';
import { IdleChecks, cpuPlacement, machineNote } from './lib/machine.js';
import { code, table } from './lib/markdown.js';
import { engineName, engines, parseOptions } from './lib/options.js';
import { runMain } from './lib/processes.js';
import { programs as programsOf, serverEnvFactory } from './lib/program.js';
import { assertAlive, serverPool } from './lib/servers.js';
import { num, pairwise, spread, summarize } from './lib/stats.js';
import { ensureWrk, measure, resultLine } from './lib/wrk.js';

const BENCH = path.dirname(new URL(import.meta.url).pathname);
const ROOT = path.dirname(BENCH);
const OUT = path.join(BENCH, 'out');

const USAGE = `
Languages benchmark: node bench/languages.js [options]
The visitors' cached / and /projects/<id>/ asked in French (Accept-Language: fr-BE,fr;q=0.9) and
in English (en-US,en;q=0.9), wrk -c32 each, on read.js's dataset; target: French ÷ English ≥ 0.95
(median of the rounds' ratios). Every figure is the median of --rounds rounds (at least 3) with min–max.
Exit 0: targets met; 1: failure; 2: usage; 3: a target missed.`;

const SPEC = {
  db: { type: 'string', default: 'sqlite', help: 'sqlite or postgres' },
  rounds: { type: 'string', integer: [3, 99], help: 'rounds (default 3)' },
  seconds: { type: 'string', integer: [1, 600], help: 'measured seconds per page, language and round, wrk -c32 (default 3)' },
  warmup: { type: 'string', integer: [0, 60], help: 'warm-up seconds before each measurement (default 1)' },
  'keep-db': { type: 'boolean', help: 'use the cached dataset as it is, without checking it' },
  rebuild: { type: 'boolean', help: 'build the dataset again even if the cached one is current' },
  'no-pin': { type: 'boolean', help: 'let the scheduler place wrk and the server' },
};

const TARGET_RATIO = 0.95;
/** USER_HZ, the unit of /proc/<pid>/stat's times (100 on Linux's usual builds). */
const CLOCK_TICKS = 100;
const CONNECTIONS = 32;
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const LANGUAGES = [
  { key: 'fr', name: 'French', acceptLanguage: 'fr-BE,fr;q=0.9' },
  { key: 'en', name: 'English', acceptLanguage: 'en-US,en;q=0.9' },
];

const headersOf = (language) => ({ accept: BROWSER_ACCEPT, 'accept-language': language.acceptLanguage });
const htmlLang = (body) => /<html lang="([^"]*)"/.exec(body.toString())?.[1] ?? null;

/** The catalogues beside the run's copy of the bundle: French must be among them. Returns a sentence for the report. */
function frenchCatalogue(program) {
  const folder = path.join(path.dirname(program.cli), 'locale');
  const files = fs.existsSync(folder) ? fs.readdirSync(folder).filter((f) => f.endsWith('.json')) : [];
  if (!files.includes('fr.json')) fail(`the bundle's copy has no French catalogue beside it (${folder}): run \`npm run build\``);
  return `the bundle's own catalogues (${files.map((f) => f.slice(0, -'.json'.length)).join(', ')})`;
}

/** A process's CPU time (user + system) in seconds, from /proc/<pid>/stat. */
function cpuSeconds(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command's closing parenthesis, from the 3rd: utime and stime are the 14th and 15th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** The two counters of the response cache, from the metrics listener. */
async function cacheCounts(metricsUrl) {
  const res = await get(metricsUrl);
  if (res.status !== 200) fail(`${metricsUrl} answered ${res.status}`);
  const text = res.body.toString();
  const value = (name) => {
    const m = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\d+(?:\\.\\d+)?)$`, 'm').exec(text);
    if (!m) fail(`${metricsUrl} has no ${name}`);
    return Number(m[1]);
  };
  return { hits: value('hackerspace_response_cache_hits_total'), misses: value('hackerspace_response_cache_misses_total') };
}

/** One page in one language: 200, HTML, the language's `<html lang>`; returns the answer. */
async function checkedAnswer(base, page, language, what) {
  const res = await get(base + page.path, headersOf(language));
  const lang = htmlLang(res.body);
  if (res.status !== 200 || !/^text\/html/.test(res.headers['content-type'] ?? '') || lang !== language.key)
    fail(
      `${what}: ${page.path} in ${language.name} answered ${res.status}, ${res.headers['content-type']}, <html lang="${lang}"> (expected 200, text/html, lang "${language.key}")`,
    );
  return res;
}

/** The checks before measuring, on a server with the metrics listener. Returns the answers by `${page}|${language}`. */
async function checkServer(base, metricsUrl, pages) {
  const answers = {};
  for (const page of pages) {
    for (const language of LANGUAGES) {
      const first = await checkedAnswer(base, page, language, 'check');
      const vary = String(first.headers.vary ?? '');
      if (!/accept-language/i.test(vary)) fail(`${page.path} in ${language.name}: Vary is "${vary}", without Accept-Language`);
      if (!first.headers.etag) fail(`${page.path} in ${language.name}: no ETag`);
      const before = await cacheCounts(metricsUrl);
      const again = await checkedAnswer(base, page, language, 'check (repeated)');
      const after = await cacheCounts(metricsUrl);
      if (again.headers.etag !== first.headers.etag) fail(`${page.path} in ${language.name}: a repeated request changed ETag (${first.headers.etag} → ${again.headers.etag})`);
      if (after.hits !== before.hits + 1 || after.misses !== before.misses)
        fail(
          `${page.path} in ${language.name}: a repeated request was not one hit of the response cache (hits ${before.hits} → ${after.hits}, misses ${before.misses} → ${after.misses})`,
        );
      answers[`${page.key}|${language.key}`] = again;
    }
    const [fr, en] = LANGUAGES.map((l) => answers[`${page.key}|${l.key}`]);
    if (fr.headers.etag === en.headers.etag || fr.body.equals(en.body)) fail(`${page.path}: the French and the English answers are the same bytes (one cache entry for both?)`);
  }
  return answers;
}

async function main() {
  const o = parseOptions(process.argv.slice(2), SPEC, USAGE);
  const [engine] = engines(o.db, false);
  if (o['keep-db'] && o.rebuild) fail('--keep-db and --rebuild exclude each other');
  const cfg = { rounds: o.rounds ?? 3, seconds: o.seconds ?? 3, warmup: o.warmup ?? 1, serverWarmup: 2 };
  const sizes = datasetSizes();
  const t0 = performance.now();
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  const work = path.join(OUT, `languages-run-${stamp}`);
  fs.mkdirSync(work, { recursive: true });
  await ensureWrk(work);
  const env = serverEnvFactory(ROOT);
  const [program] = await programsOf(ROOT, work, undefined);
  log(`program: ${program.description}`);
  const catalogues = frenchCatalogue(program);
  const dataset = await readDataset({ out: OUT, engine, sizes, mode: o['keep-db'] ? 'keep' : o.rebuild ? 'rebuild' : 'auto', program, env, work });
  const placement = cpuPlacement({ pin: !o['no-pin'], workers: 0 });
  const copy = await scratchCopy(dataset.db, isPg(dataset.db) ? `${dataset.db}_languages_${process.pid}` : path.join(work, 'languages.sqlite'));

  const [[project]] = await query(copy.db, ['select p.id from projects p order by (select count(*) from project_participants pp where pp.project_id = p.id) desc, p.id limit 1']);
  if (!project) fail('the dataset has no project');
  const pages = [
    { key: 'dashboard', template: '/', path: '/' },
    { key: 'project', template: '/projects/<id>/', path: `/projects/${project.id}/` },
  ];

  // ----- Checks, on a server with the metrics listener -----
  const pool = serverPool({ work, env, pin: placement.server });
  const metricsPort = await freePort();
  const checker = await pool.start(program, 'check', 'checks', copy.dbUrl, { METRICS_PORT: String(metricsPort) });
  await checkServer(checker.base, `http://127.0.0.1:${metricsPort}/metrics`, pages);
  await pool.stop(checker);
  log('checks passed: each page in its language, Vary: Accept-Language, French ≠ English, a repeated request a cache hit with the same ETag');

  // ----- The measured server -----
  const server = await pool.start(program, 'languages', 'measured', copy.dbUrl);
  const answers = {};
  for (const page of pages) for (const language of LANGUAGES) answers[`${page.key}|${language.key}`] = await checkedAnswer(server.base, page, language, 'measured server');
  const sizesRow = pages.map((page) => LANGUAGES.map((l) => `${page.template} ${l.key} ${answerBytes(answers[`${page.key}|${l.key}`])} B`).join(', ')).join('; ');
  // The server's own warm-up, not counted: without it the first measurement of the run (French's
  // `/` in round 1) paid V8's compilation of the fast path, and its round's ratio was the lowest in every trial run.
  for (const page of pages) {
    for (const language of LANGUAGES) {
      await measure(server.base + page.path, {
        connections: CONNECTIONS,
        seconds: cfg.serverWarmup,
        warmup: 0,
        headers: [`Accept: ${BROWSER_ACCEPT}`, `Accept-Language: ${language.acceptLanguage}`],
        bytes: answerBytes(answers[`${page.key}|${language.key}`]),
        pin: placement.load,
        file: path.join(work, `wrk-server-warmup-${page.key}-${language.key}.txt`),
        check: () => assertAlive(`the server's warm-up`, server),
      });
    }
  }

  const idle = new IdleChecks();
  await idle.check('before the rounds');
  const figures = {};
  const add = (key, value) => (figures[key] ??= []).push(value);
  const notes = [];
  for (let r = 1; r <= cfg.rounds; r++) {
    const order = r % 2 ? LANGUAGES : [...LANGUAGES].reverse();
    for (const page of pages) {
      for (const language of order) {
        const id = `${page.key}|${language.key}`;
        const before = await checkedAnswer(server.base, page, language, `before round ${r}`);
        const file = path.join(work, `wrk-${page.key}-${language.key}-${r}.txt`);
        const cpu0 = cpuSeconds(server.child.pid);
        const m = await measure(server.base + page.path, {
          connections: CONNECTIONS,
          seconds: cfg.seconds,
          warmup: cfg.warmup,
          headers: [`Accept: ${BROWSER_ACCEPT}`, `Accept-Language: ${language.acceptLanguage}`],
          bytes: answerBytes(answers[id]),
          pin: placement.load,
          file,
          check: () => assertAlive(`${page.path} in ${language.name} (round ${r})`, server),
        });
        const cpu = cpuSeconds(server.child.pid) - cpu0;
        // The server's CPU time over the warm-up and the measurement, per answer of both (less moved by other processes than req/s).
        const warm = cfg.warmup > 0 ? (resultLine(fs.readFileSync(`${file}.warmup`, 'utf8'), 'RESULT')?.requests ?? NaN) : 0;
        const cpuUs = (cpu * 1e6) / (m.requests + warm);
        const max = resultLine(fs.readFileSync(file, 'utf8'), 'RESULT').max_us / 1000;
        const after = await checkedAnswer(server.base, page, language, `after round ${r}`);
        if (after.headers.etag !== before.headers.etag)
          notes.push(
            `round ${r}, ${code(page.template)} in ${language.name}: the ETag changed during the measurement (${before.headers.etag} → ${after.headers.etag}): built again while wrk ran (not an error)`,
          );
        add(`${id}|rps`, m.rps);
        add(`${id}|p50`, m.p50);
        add(`${id}|p99`, m.p99);
        add(`${id}|max`, max);
        add(`${id}|cpu`, cpuUs);
        log(
          `round ${r} ${page.path} ${language.name}: ${num(m.rps)} req/s, p50 ${num(m.p50, 2)} ms, p99 ${num(m.p99, 2)} ms, max ${num(max, 1)} ms, server CPU ${num(cpuUs, 1)} µs per answer`,
        );
      }
      const ratio = figures[`${page.key}|fr|rps`].at(-1) / figures[`${page.key}|en|rps`].at(-1);
      const cpuRatio = figures[`${page.key}|fr|cpu`].at(-1) / figures[`${page.key}|en|cpu`].at(-1);
      log(`round ${r} ${page.path}: French ÷ English ${num(ratio, 3)}, server CPU per answer French ÷ English ${num(cpuRatio, 3)} (${order[0].name} first)`);
    }
  }
  await pool.stop(server);
  await idle.check('after the last measurement');
  await copy.drop();

  // ----- Verdicts and report -----
  const ratios = Object.fromEntries(pages.map((page) => [page.key, pairwise(figures[`${page.key}|fr|rps`], figures[`${page.key}|en|rps`])]));
  const cpuRatios = Object.fromEntries(pages.map((page) => [page.key, pairwise(figures[`${page.key}|fr|cpu`], figures[`${page.key}|en|cpu`])]));
  const verdicts = pages.map((page) => {
    const median = summarize(ratios[page.key]).median;
    return {
      ok: median >= TARGET_RATIO,
      text: `Cached \`${page.template}\`, French ÷ English: ${spread(ratios[page.key], 3)} (${spread(figures[`${page.key}|fr|rps`])} against ${spread(figures[`${page.key}|en|rps`])} req/s; target ≥ ${TARGET_RATIO}: ${median >= TARGET_RATIO ? 'met' : 'MISSED'})`,
    };
  });
  const rows = [];
  for (const page of pages) {
    for (const language of LANGUAGES) {
      const id = `${page.key}|${language.key}`;
      rows.push([
        code(page.template),
        language.name,
        spread(figures[`${id}|rps`]),
        spread(figures[`${id}|p50`], 2, 'ms'),
        spread(figures[`${id}|p99`], 2, 'ms'),
        spread(figures[`${id}|max`], 1, 'ms'),
        spread(figures[`${id}|cpu`], 1, 'µs'),
      ]);
    }
    rows.push([code(page.template), '**French ÷ English**', spread(ratios[page.key], 3), '', '', '', spread(cpuRatios[page.key], 3)]);
  }
  const perRound = table(
    [
      ['round', 'r'],
      ['first', 'l'],
      ...pages.flatMap((page) => [
        [`${page.template} req/s fr ÷ en`, 'r'],
        [`${page.template} CPU fr ÷ en`, 'r'],
      ]),
    ],
    Array.from({ length: cfg.rounds }, (_, i) => [i + 1, i % 2 ? 'English' : 'French', ...pages.flatMap((page) => [num(ratios[page.key][i], 3), num(cpuRatios[page.key][i], 3)])]),
  );
  const lines = [
    `## Languages benchmark — ${engineName(engine)} — ${new Date().toISOString().slice(0, 19).replace('T', ' ')} UTC`,
    '',
    '### Method',
    '',
    `- Program: ${program.description}; catalogues: ${catalogues}`,
    `- Dataset: ${dataset.counts} (${dataset.note}); ${engine === 'sqlite' ? 'a copy of the SQLite file' : `${await pgDescribe(dataset.db).catch(() => 'PostgreSQL')}, a copy of \`${safeUrl(dataset.db)}\``}, removed at the end`,
    `- Pages: the visitors' cached \`/\` (the dashboard) and \`/projects/${project.id}/\` (the project with the most participants); no cookie, \`Accept: ${BROWSER_ACCEPT}\`, no Accept-Encoding; French \`Accept-Language: ${LANGUAGES[0].acceptLanguage}\`, English \`Accept-Language: ${LANGUAGES[1].acceptLanguage}\`; answers of ${sizesRow}`,
    '- Checks before measuring (a check server with METRICS_PORT, stopped before the measured one started): 200, text/html, `<html lang="fr">` / `<html lang="en">`, `Vary` naming Accept-Language, French and English answers different, a repeated request with the same ETag and counted as one response-cache hit (no miss); on the measured server (default configuration), each page and language asked again before and after every measurement (status, `<html lang>`, ETag)',
    `- Load: one \`serve\`, warmed up first by ${cfg.serverWarmup} s of each page and language (not counted); \`wrk -t1 -c${CONNECTIONS}\` with bench/report.lua (answers ≥ 400 and the bytes read checked), ${cfg.warmup} s warm-up + ${cfg.seconds} s per page, language and round; per page French first in odd rounds, English first in even ones; the ratio French ÷ English per round; ${cfg.rounds} rounds, median (min–max); target: median ratio ≥ ${TARGET_RATIO} for each page; ${placement.text}`,
    `- Machine: ${machineNote()}; ${idle.note()}`,
    '',
    '### Verdicts',
    '',
    ...verdicts.map((v) => `- ${v.ok ? '✅' : '❌'} ${v.text}`),
    '',
    '### Figures',
    '',
    table(
      [
        ['page', 'l'],
        ['language', 'l'],
        ['req/s', 'r'],
        ['p50', 'r'],
        ['p99', 'r'],
        ['max', 'r'],
        ['server CPU per answer', 'r'],
      ],
      rows,
    ),
    '',
    "The server's CPU time (user + system, /proc/<pid>/stat, 10 ms ticks) over each warm-up and measurement ÷ the answers of both: a figure other processes move less than req/s, reported beside the verdict (which is the req/s ratio's).",
    '',
    'Per round:',
    '',
    perRound,
    '',
    ...(notes.length ? ['Notes:', '', ...notes.map((n) => `- ${n}`), ''] : []),
    `Run time: ${Math.round((performance.now() - t0) / 1000)} s.`,
  ];
  const report = lines.join('\n') + '\n';
  const reportFile = path.join(OUT, `languages-${stamp}-${engine}.md`);
  fs.writeFileSync(reportFile, report);
  process.stdout.write(`\n${report}\nreport: ${path.relative(ROOT, reportFile)}\n`);
  return verdicts.every((v) => v.ok) ? 0 : 3;
}

await runMain('languages.js', main);
