// Member pages benchmark (issue 28, members.md §4): the record pages built for a logged-in member
// (never cached), and the visitors' cached record page against the node:http ceiling, on the read
// benchmark's dataset (1,000,000 openings, 2,000 members).
//
//   node bench/member-pages.js [--db sqlite|postgres] [--rounds N] [--seconds S] [--cached-seconds S] [--no-pin] [--keep-db]
//
// Expected duration on the 2-core development machine, dataset cached: about 1.5 minutes.
// Building the dataset (read.js's cache, reused while current) adds ~20 s on SQLite, under a
// minute on PostgreSQL.
//
// Method (fixed before measuring; printed at the top of the report):
// - a scratch copy of the dataset (removed at the end) in which one member — the maintainer of
//   the project with the most participants, made active and not a superuser, so that their rights
//   are read through the permission tables as any member's — gets a known password (Django's
//   pbkdf2_sha256, made here with node:crypto at PASSWORD_ITERATIONS=1000, which the server is
//   given so that the login does not rehash it); one `serve` (the built bundle, otherwise its
//   default configuration) on the copy; the member logs in through the login form;
// - member rows: that member's `/projects/<id>/` (the project they maintain: join and edit
//   buttons) and its edit form, an event's and a meeting's page, each `wrk -t1 -c1` with the session cookie (service
//   time, not queueing): 1 s of warm-up, then --seconds measured, every answer 200; before the
//   rounds, each page checked: 200, `Cache-Control: private, no-store`, the member's name in the
//   navigation, and the project's edit link;
// - the visitors' `/projects/<id>/` (no cookie, a browser's Accept, no Accept-Encoding):
//   `wrk -t1 -c32` with bench/report.lua (the bytes read checked), then the ceiling
//   (bench/ceiling.js answering that answer's status, headers and body) in turn in every round;
//   the ratio per round;
// - wrk on the first CPU, the server on the others (taskset); every figure the median of --rounds
//   rounds (min–max).
//
// Exit status: 0 when every target was met; 1 on a failure; 2 on bad usage; 3 when a target was missed.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { datasetSizes, isPg, pgDescribe, query, readDataset, scratchCopy, withPg } from './lib/dataset.js';
import { answerBytes, freePort, get, saveAnswer, waitFor200 } from './lib/http.js';
import { fail, log, safeUrl } from './lib/log.js';
import { IdleChecks, cpuPlacement, machineNote } from './lib/machine.js';
import { engineName, engines, parseOptions } from './lib/options.js';
import { runMain, start, stop } from './lib/processes.js';
import { programs as programsOf, serverEnvFactory } from './lib/program.js';
import { assertAlive, serverPool } from './lib/servers.js';
import { ceilingVerdict, spread, summarize } from './lib/stats.js';
import { ensureWrk, measure, script } from './lib/wrk.js';

const BENCH = path.dirname(new URL(import.meta.url).pathname);
const ROOT = path.dirname(BENCH);
const OUT = path.join(BENCH, 'out');

const USAGE = `
Member pages benchmark: node bench/member-pages.js [options]
Uncached record pages for a logged-in member (wrk -c1, target p50 ≤ 50 ms) and the visitors'
cached record page against the node:http ceiling (wrk -c32, target ≥ 0.70), on read.js's dataset.
Every figure is the median of --rounds rounds (at least 3) with min–max.
Exit 0: targets met; 1: failure; 2: usage; 3: a target missed.`;

const SPEC = {
  db: { type: 'string', default: 'sqlite', help: 'sqlite or postgres' },
  rounds: { type: 'string', integer: [3, 99], help: 'rounds per figure (default 3)' },
  seconds: { type: 'string', integer: [1, 600], help: 'measured seconds per round of each member page, wrk -c1 (default 3)' },
  'cached-seconds': { type: 'string', integer: [1, 600], help: "measured seconds per round of the visitors' page and its ceiling, wrk -c32 (default 2)" },
  'keep-db': { type: 'boolean', help: 'use the cached dataset as it is, without checking it' },
  rebuild: { type: 'boolean', help: 'build the dataset again even if the cached one is current' },
  'no-pin': { type: 'boolean', help: 'let the scheduler place wrk and the server' },
};

const TARGETS = { memberP50Ms: 50, cachedRatio: 0.7 };
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const PASSWORD = 'bench member pages 2026';
const ITERATIONS = 1000;
const CONNECTIONS = 32;

/** Django's pbkdf2_sha256 hash of the password. */
function djangoHash(password) {
  const salt = crypto.randomBytes(12).toString('hex');
  return `pbkdf2_sha256$${ITERATIONS}$${salt}$${crypto.pbkdf2Sync(password, salt, ITERATIONS, 32, 'sha256').toString('base64')}`;
}

/** One writing statement on the scratch copy (query() only reads). */
async function execute(db, statement) {
  if (isPg(db)) return withPg(db, (client) => client.query(statement));
  const { default: Database } = await import('better-sqlite3');
  const sqlite = new Database(db, { fileMustExist: true });
  try {
    sqlite.prepare(statement).run();
  } finally {
    sqlite.close();
  }
}

/** A POST of a urlencoded form; resolves { status, headers }. */
function postForm(url, fields, headers) {
  const body = new URLSearchParams(fields).toString();
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body), ...headers } },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const cookieOf = (headers, name) =>
  (headers['set-cookie'] ?? []).map((line) => line.split(';')[0]).find((pair) => pair.startsWith(`${name}=`) || pair.startsWith(`__Host-${name}=`));

/** Logs in through the form as a browser does: GET (the pre-session cookie and the token), then POST; the session cookie. */
async function logIn(base, username) {
  const form = await get(`${base}/accounts/login/`);
  const csrfCookie = cookieOf(form.headers, 'csrftoken');
  const token = /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(form.body.toString())?.[1];
  if (form.status !== 200 || !csrfCookie || !token) fail(`the login form answered ${form.status} without its cookie or token`);
  const res = await postForm(`${base}/accounts/login/`, { csrfmiddlewaretoken: token, username, password: PASSWORD }, { cookie: csrfCookie, origin: base });
  const session = cookieOf(res.headers, 'session');
  if (res.status !== 303 || !session) fail(`logging in as ${username} answered ${res.status}${session ? '' : ' without a session cookie'}`);
  return session;
}

async function main() {
  const o = parseOptions(process.argv.slice(2), SPEC, USAGE);
  const [engine] = engines(o.db, false);
  if (o['keep-db'] && o.rebuild) fail('--keep-db and --rebuild exclude each other');
  const cfg = { rounds: o.rounds ?? 3, seconds: o.seconds ?? 3, cachedSeconds: o['cached-seconds'] ?? 2, warmup: 1 };
  const sizes = datasetSizes();
  const t0 = performance.now();
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  const work = path.join(OUT, `member-pages-run-${stamp}`);
  fs.mkdirSync(work, { recursive: true });
  await ensureWrk(work);
  const env = serverEnvFactory(ROOT);
  const [program] = await programsOf(ROOT, work, undefined);
  log(`program: ${program.description}`);
  const dataset = await readDataset({ out: OUT, engine, sizes, mode: o['keep-db'] ? 'keep' : o.rebuild ? 'rebuild' : 'auto', program, env, work });
  const placement = cpuPlacement({ pin: !o['no-pin'], workers: 0 });
  const copy = await scratchCopy(dataset.db, isPg(dataset.db) ? `${dataset.db}_members_${process.pid}` : path.join(work, 'members.sqlite'));

  // ----- The member, their project, an event and a meeting -----
  const [[chosen], [anEvent], [aMeeting]] = await query(copy.db, [
    `select p.id, p.maintainer_id, u.username from projects p join users u on u.id = p.maintainer_id
       order by (select count(*) from project_participants pp where pp.project_id = p.id) desc, p.id limit 1`,
    'select id from events where organizer_id is not null order by id limit 1',
    'select id from meetings order by id limit 1',
  ]);
  if (!chosen || !anEvent || !aMeeting) fail('the dataset has no project, event or meeting');
  await execute(copy.db, `update users set password = '${djangoHash(PASSWORD)}', is_active = 1, is_superuser = 0 where id = ${Number(chosen.maintainer_id)}`);

  const pool = serverPool({ work, env, pin: placement.server });
  const server = await pool.start(program, 'members', 'member pages', copy.dbUrl, { PASSWORD_ITERATIONS: String(ITERATIONS) });
  const session = await logIn(server.base, chosen.username);
  const memberHeaders = { cookie: session, accept: BROWSER_ACCEPT };
  const pages = [
    { key: 'project', template: '/projects/<id>/', path: `/projects/${chosen.id}/`, marker: `/projects/${chosen.id}/edit/` },
    { key: 'event', template: '/events/<id>/', path: `/events/${anEvent.id}/`, marker: `/events/${anEvent.id}/interested/` },
    { key: 'meeting', template: '/meetings/<id>/', path: `/meetings/${aMeeting.id}/`, marker: 'id="member"' },
    // The heaviest form: the project's fields, its participants ticked and its version.
    { key: 'project-edit', template: '/projects/<id>/edit/', path: `/projects/${chosen.id}/edit/`, marker: 'name="version"' },
  ];
  for (const page of pages) {
    const res = await get(server.base + page.path, memberHeaders);
    const body = res.body.toString();
    if (res.status !== 200 || res.headers['cache-control'] !== 'private, no-store' || !body.includes(`id="member">${chosen.username}<`) || !body.includes(page.marker))
      fail(`${page.path} for the member: ${res.status}, Cache-Control ${res.headers['cache-control']}, ${body.includes(page.marker) ? '' : `no ${page.marker}`}`);
  }
  // The visitors' page, and the ceiling answering its bytes.
  const visitorUrl = server.base + pages[0].path;
  const visitor = await get(visitorUrl, { accept: BROWSER_ACCEPT });
  if (visitor.status !== 200 || visitor.body.toString().includes('id="member"')) fail(`the visitors' ${pages[0].path}: ${visitor.status}`);
  const answerFile = path.join(work, 'answer-project.body');
  saveAnswer(answerFile, await get(visitorUrl, { accept: BROWSER_ACCEPT }));
  const ceilingPort = await freePort();
  const [command, ...rest] = [...placement.server, process.execPath, script('ceiling.js'), String(ceilingPort), answerFile];
  const ceilingLog = path.join(work, 'ceiling.log');
  const ceilingChild = start(command, rest, { logFile: ceilingLog });
  const ceilingUrl = `http://127.0.0.1:${ceilingPort}/r/0`;
  await waitFor200(ceilingUrl, ceilingChild, 10, ceilingLog);

  const idle = new IdleChecks();
  await idle.check('before the rounds');
  const figures = {};
  const add = (key, value) => (figures[key] ??= []).push(value);
  for (let r = 1; r <= cfg.rounds; r++) {
    for (const page of pages) {
      const m = await measure(server.base + page.path, {
        connections: 1,
        seconds: cfg.seconds,
        warmup: cfg.warmup,
        headers: [`Cookie: ${session}`, `Accept: ${BROWSER_ACCEPT}`],
        status: 200,
        pin: placement.load,
        file: path.join(work, `wrk-${page.key}-${r}.txt`),
        check: () => assertAlive(`${page.path} (round ${r})`, server),
      });
      add(`${page.key}|p50`, m.p50);
      add(`${page.key}|p99`, m.p99);
      log(`round ${r} member ${page.path}: p50 ${m.p50.toFixed(1)} ms, p99 ${m.p99.toFixed(1)} ms, ${m.rps.toFixed(0)} req/s`);
    }
    const cached = await measure(visitorUrl, {
      connections: CONNECTIONS,
      seconds: cfg.cachedSeconds,
      warmup: cfg.warmup,
      headers: [`Accept: ${BROWSER_ACCEPT}`],
      bytes: answerBytes(visitor),
      pin: placement.load,
      file: path.join(work, `wrk-cached-${r}.txt`),
      check: () => assertAlive(`the visitors' page (round ${r})`, server),
    });
    const ceiling = await measure(ceilingUrl, {
      connections: CONNECTIONS,
      seconds: cfg.cachedSeconds,
      warmup: cfg.warmup,
      headers: [`Accept: ${BROWSER_ACCEPT}`],
      bytes: answerBytes(visitor),
      pin: placement.load,
      file: path.join(work, `wrk-ceiling-${r}.txt`),
    });
    add('cached|rps', cached.rps);
    add('ceiling|rps', ceiling.rps);
    add('ratio', cached.rps / ceiling.rps);
    log(`round ${r} visitors' page: ${cached.rps.toFixed(0)} req/s, ceiling ${ceiling.rps.toFixed(0)} req/s, ratio ${(cached.rps / ceiling.rps).toFixed(3)}`);
  }
  await stop(ceilingChild);
  await pool.stop(server);
  await idle.check('after the last measurement');
  await copy.drop();

  // ----- Verdicts and report -----
  const verdicts = pages.map((page) => ({
    ok: summarize(figures[`${page.key}|p50`]).median <= TARGETS.memberP50Ms,
    text: `Uncached \`${page.template}\` for a logged-in member: p50 ${spread(figures[`${page.key}|p50`], 1, 'ms')}, p99 ${spread(figures[`${page.key}|p99`], 1, 'ms')} (target p50 ≤ ${TARGETS.memberP50Ms} ms)`,
  }));
  const cv = ceilingVerdict(figures.ratio, TARGETS.cachedRatio);
  verdicts.push({
    ok: cv.ok,
    text: `The visitors' cached \`/projects/<id>/\` ÷ the node:http ceiling: ${spread(figures.ratio, 3)} (${spread(figures['cached|rps'])} against ${spread(figures['ceiling|rps'])} req/s; target ≥ ${TARGETS.cachedRatio}; ${cv.text})`,
  });
  const lines = [
    `## Member pages benchmark (issue 28) — ${engineName(engine)} — ${new Date().toISOString().slice(0, 19).replace('T', ' ')} UTC`,
    '',
    `- Program: ${program.description}`,
    `- Dataset: ${dataset.counts} (${dataset.note}); ${engine === 'sqlite' ? 'a copy of the SQLite file' : `${await pgDescribe(dataset.db).catch(() => 'PostgreSQL')}, a copy of \`${safeUrl(dataset.db)}\``}, removed at the end`,
    `- Member: \`${chosen.username}\` (id ${chosen.maintainer_id}, not a superuser), maintainer of project ${chosen.id}; event ${anEvent.id}, meeting ${aMeeting.id}`,
    `- Load: wrk -t1 -c1 (member pages, ${cfg.warmup} s warm-up + ${cfg.seconds} s) and -c${CONNECTIONS} (the visitors' page and the ceiling, ${cfg.warmup} s + ${cfg.cachedSeconds} s); ${placement.text}; ${cfg.rounds} rounds`,
    `- Machine: ${machineNote()}`,
    '',
    ...verdicts.map((v) => `- ${v.ok ? '✅' : '❌'} ${v.text}`),
    '',
    `Run time: ${Math.round((performance.now() - t0) / 1000)} s.`,
  ];
  const report = lines.join('\n') + '\n';
  const reportFile = path.join(OUT, `member-pages-${stamp}-${engine}.md`);
  fs.writeFileSync(reportFile, report);
  process.stdout.write(`\n${report}\nreport: ${path.relative(ROOT, reportFile)}\n`);
  return verdicts.every((v) => v.ok) ? 0 : 3;
}

await runMain('member-pages.js', main);
