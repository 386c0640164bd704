// Login benchmark (issue 27, members.md §1): how long a login takes at the default iterations,
// and what a flood of wrong passwords does to the API's cached reads.
//
//   node bench/login.js [--db sqlite|postgres|both] [--rounds N] [--logins N] [--seconds S] [--clients N] [--no-pin] [--keep-db]
//
// Expected duration on the 2-core development machine: about 2 minutes per engine (3 rounds of
// 20 logins of about 1 s each, then 2 × (1 s of warm-up + 10 s) of wrk).
//
// For each engine (both by default, SQLite first):
// 1. a scratch database: `demo` with restart.js's small sizes, then `import` of a fixture of 51
//    users whose password is a pbkdf2_sha256 hash at 1,200,000 iterations (Django's format,
//    made here with node:crypto): `bench-login` with a known password, and `bench-flood-000`…
//    (sharing that hash) for the flood's names;
// 2. ROUNDS (3) rounds; in each, a fresh `serve` (the built bundle, default configuration and
//    PASSWORD_ITERATIONS, plus TRUST_PROXY=127.0.0.1 so that the flood's clients can have
//    addresses of their own), pinned with taskset (the load on the first CPU, the server on the
//    others), and in this order:
//    a. login time: --logins (20) sequential logins as a browser does them, each a new client:
//       GET /accounts/login/ (the pre-session cookie and the form's token) then POST the form,
//       which must answer 303 with a session cookie; the POST timed from its first byte sent to
//       its last byte received;
//    b. alone: `wrk -t1 -c32` on /api/space/status/ (answered from the response cache), 1 s of
//       warm-up then --seconds, every answer 200;
//    c. flood: bench/login-flood.js (--clients, 50, pinned with wrk) posting wrong passwords in
//       a loop, each post from a new X-Forwarded-For address and for one of 50 existing names,
//       so that none is throttled and each costs one hash; once every client has posted and the
//       first answer came, the same wrk as in b; the flood's answers counted by status;
// 3. checks: the stored hash of `bench-login` unchanged after the logins (the server hashes at
//    1,200,000 iterations: at any other count it would have upgraded it), no wrk error, the
//    flood answered only 422, 429 or 503, and at least one 422 per round;
// 4. prints the Markdown report (every figure the median of the rounds with min–max), also
//    written to bench/out/login-<date>-<engines>.md.
//
// Exit status: 0 when the ratio flood ÷ alone is ≥ 0.5 on every engine; 3 when it is missed; 1
// on a failure; 2 on bad usage.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { demoArgs, isPg, pgDescribe, pgServer, query, scratchEmpty } from './lib/dataset.js';
import { Rounds, figure, render, textFigure } from './lib/figures.js';
import { get } from './lib/http.js';
import { fail, log, sleep } from './lib/log.js';
import { IdleChecks, cpuPlacement, machineNote } from './lib/machine.js';
import { engineName, engines as enginesOf, parseOptions } from './lib/options.js';
import { isAlive, run, runMain, start, stop } from './lib/processes.js';
import { currentProgram, serverEnvFactory } from './lib/program.js';
import { assertAlive, serverPool } from './lib/servers.js';
import { ensureWrk, measure } from './lib/wrk.js';
import { summarize } from './lib/stats.js';

const BENCH = path.dirname(new URL(import.meta.url).pathname);
const ROOT = path.dirname(BENCH);
const OUT = path.join(BENCH, 'out');

const USAGE = `
Login benchmark: node bench/login.js [options]
Login time (GET form + POST, sequential) at the default PASSWORD_ITERATIONS, and cached
/api/space/status/ throughput while clients post wrong passwords, as a share of the same without
them (target ≥ 0.5). Every figure is the median of --rounds rounds (at least 3) with min–max.
Exit 0: target met; 3: missed; 1: a failure; 2: usage. Environment: BENCH_POSTGRES_SERVER
(default postgres://postgres@127.0.0.1:5432): a role that may create databases.`;

const SPEC = {
  db: { type: 'string', default: 'both', help: 'sqlite, postgres or both' },
  rounds: { type: 'string', default: 3, integer: [3, 99], help: 'rounds per figure' },
  logins: { type: 'string', default: 20, integer: [20, 10_000], help: 'sequential successful logins per round' },
  seconds: { type: 'string', default: 10, integer: [1, 600], help: 'measured seconds of wrk, alone and under the flood (after 1 s of warm-up)' },
  connections: { type: 'string', default: 32, integer: [1, 1000], help: 'wrk connections (wrk -t1)' },
  clients: { type: 'string', default: 50, integer: [1, 999], help: 'flood clients posting wrong passwords' },
  'no-pin': { type: 'boolean', help: 'let the scheduler place wrk, the flood and the servers' },
  'keep-db': { type: 'boolean', help: 'keep the scratch databases (their names are printed)' },
};

/** The target: cached reads under the flood keep at least this share of their throughput alone (members.md §1). */
const TARGET = 0.5;
const ITERATIONS = 1_200_000;
const LOGIN_USER = 'bench-login';
const FLOOD_PREFIX = 'bench-flood-';
const STATUS_PATH = '/api/space/status/';
// The small dataset of restart.js: the status endpoint reads the latest opening only.
const SIZES = { users: 500, openings: 20_000, projects: 50, events: 100, meetings: 50 };

async function main() {
  const o = parseOptions(process.argv.slice(2), SPEC, USAGE);
  const engines = enginesOf(o.db, true);
  const t0 = performance.now();
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  const work = path.join(OUT, `login-run-${stamp}`);
  fs.mkdirSync(work, { recursive: true });
  const reportFile = path.join(OUT, `login-${stamp}-${o.db}.md`);
  await ensureWrk(work);
  const env = serverEnvFactory(ROOT);
  const program = await currentProgram(ROOT, work, 'after');
  log(`program: ${program.description}`);
  const placement = cpuPlacement({ pin: !o['no-pin'], workers: 0 });
  log(`CPU placement: ${placement.text}`);
  log(
    `method: ${o.rounds} rounds per engine; in each a fresh server, ${o.logins} sequential logins, then wrk -t1 -c${o.connections} on ${STATUS_PATH} for 1 + ${o.seconds} s alone and again under ${o.clients} clients posting wrong passwords`,
  );

  const password = crypto.randomBytes(12).toString('base64url');
  const hash = djangoHash(password);
  const fixture = path.join(work, 'users.json');
  fs.writeFileSync(fixture, JSON.stringify(users(hash, o.clients)));

  const idle = new IdleChecks();
  const R = new Rounds();
  const failures = [];
  const notes = [];
  const floodTotals = {};
  await idle.check('before the first run');
  for (const [e, engine] of engines.entries()) {
    log(`=== ${engineName(engine)} ===`);
    const target = engine === 'sqlite' ? path.join(work, 'login.sqlite') : `${pgServer()}/hackerspace_bench_login_${process.pid}`;
    const scratch = await scratchEmpty(target, { keep: o['keep-db'] });
    const cliEnv = env({ DATABASE_URL: scratch.dbUrl });
    const demo = await run(process.execPath, [program.cli, 'demo', ...demoArgs(SIZES)], { env: cliEnv, logFile: path.join(work, `demo-${engine}.log`) });
    if (demo.code !== 0) fail(`demo failed on ${engine} (see ${path.join(work, `demo-${engine}.log`)})`);
    const imported = await run(process.execPath, [program.cli, 'import', fixture], { env: cliEnv });
    if (imported.code !== 0) fail(`import of the users failed on ${engine}: ${imported.stderr.trim()}`);
    const pool = serverPool({ work, env, pin: placement.server });
    floodTotals[engine] = {};
    for (let r = 1; r <= o.rounds; r++) {
      const server = await pool.start(program, `${engine}-${r}`, 'login', scratch.dbUrl, { TRUST_PROXY: '127.0.0.1' });
      const statusUrl = `${server.base}${STATUS_PATH}`;
      const a = await get(statusUrl);
      const b = await get(statusUrl);
      if (a.status !== 200 || b.status !== 200 || !a.headers.etag || a.headers.etag !== b.headers.etag)
        fail(`${engine}: ${STATUS_PATH} answered ${a.status}/${b.status} with ETags ${a.headers.etag}/${b.headers.etag}: not a cached 200`);

      // a. Login time.
      const posts = [];
      const forms = [];
      for (let i = 0; i < o.logins; i++) {
        const t = await timedLogin(server.base, LOGIN_USER, password);
        posts.push(t.postMs);
        forms.push(t.formMs);
      }
      assertAlive('the logins', server);
      const p = summarize(posts);
      R.add(`${engine}|post-p50`, 'after', p.median);
      R.add(`${engine}|post-min`, 'after', p.min);
      R.add(`${engine}|post-max`, 'after', p.max);
      R.add(`${engine}|form-p50`, 'after', summarize(forms).median);
      log(
        `${engine} round ${r}: ${o.logins} logins, POST p50 ${p.median.toFixed(0)} ms (${p.min.toFixed(0)}–${p.max.toFixed(0)}), form GET p50 ${summarize(forms).median.toFixed(1)} ms`,
      );

      // b. Cached reads alone.
      await idle.check(`${engineName(engine)} round ${r}, before wrk alone`);
      const wrkOptions = (slug) => ({
        connections: o.connections,
        seconds: o.seconds,
        warmup: 1,
        status: 200,
        pin: placement.load,
        file: path.join(work, `wrk-${engine}-${slug}-${r}.txt`),
        check: () => assertAlive(`wrk ${slug}`, server),
      });
      const alone = await measure(statusUrl, wrkOptions('alone'));
      if (alone.socketErrors) failures.push(`${engineName(engine)}, round ${r}, alone: wrk socket errors (${alone.socketErrors})`);

      // c. The same under the flood.
      const flood = await startFlood(server, {
        clients: o.clients,
        pin: placement.load,
        firstAddress: (e * 100 + r) * 65_536,
        logFile: path.join(work, `flood-${engine}-${r}.log`),
      });
      const before = await flood.snapshot();
      const t1 = performance.now();
      const under = await measure(statusUrl, wrkOptions('flood'));
      const floodS = (performance.now() - t1) / 1000;
      const after = await flood.snapshot();
      await flood.stop();
      if (under.socketErrors) failures.push(`${engineName(engine)}, round ${r}, under the flood: wrk socket errors (${under.socketErrors})`);
      await pool.stop(server);

      const answers = difference(after, before);
      for (const [status, n] of Object.entries(answers.statuses)) floodTotals[engine][status] = (floodTotals[engine][status] ?? 0) + n;
      floodTotals[engine].errors = (floodTotals[engine].errors ?? 0) + answers.errors;
      const other = Object.keys(answers.statuses).filter((s) => !['422', '429', '503'].includes(s));
      if (other.length) failures.push(`${engineName(engine)}, round ${r}: the flood got answers ${other.join(', ')} (expected 422, 429 or 503 only): ${JSON.stringify(answers)}`);
      if (!(answers.statuses['422'] > 0))
        failures.push(`${engineName(engine)}, round ${r}: no wrong password was answered 422 during the measurement: the flood did not load the hasher`);
      if (answers.errors) failures.push(`${engineName(engine)}, round ${r}: ${answers.errors} flood posts failed on the socket`);
      R.add(`${engine}|alone`, 'after', alone.rps);
      R.add(`${engine}|flood`, 'after', under.rps);
      R.add(`${engine}|ratio`, 'after', under.rps / alone.rps);
      R.add(`${engine}|flood-p99`, 'after', under.p99);
      R.add(`${engine}|alone-p99`, 'after', alone.p99);
      R.add(`${engine}|wrong-per-s`, 'after', (answers.statuses['422'] ?? 0) / floodS);
      log(
        `${engine} round ${r}: ${STATUS_PATH} alone ${alone.rps.toFixed(0)} req/s, under the flood ${under.rps.toFixed(0)} req/s, ratio ${(under.rps / alone.rps).toFixed(3)}; flood answers ${JSON.stringify(answers)}`,
      );
    }
    const stored = await storedHash(scratch.db);
    if (stored !== hash)
      failures.push(
        `${engineName(engine)}: the stored hash of ${LOGIN_USER} changed after the logins (${stored?.split('$').slice(0, 2).join('$')}…): the server does not hash at ${ITERATIONS} iterations`,
      );
    notes.push(
      `${engineName(engine)}: ${isPg(scratch.db) ? await pgDescribe(scratch.db).catch(() => 'PostgreSQL') : 'SQLite'}; flood answers over all rounds' measurements: ${statusList(floodTotals[engine])}`,
    );
  }
  await idle.check('after the last run');

  const verdicts = engines.map((engine) => {
    const s = summarize(R.get(`${engine}|ratio`).after ?? []);
    return { engine, ok: s.median >= TARGET, median: s.median };
  });
  const loginRows = engines.map((engine) => ({
    label: engineName(engine),
    figures: [
      figure('POST p50', R.get(`${engine}|post-p50`), { unit: 'ms' }),
      figure('POST fastest', R.get(`${engine}|post-min`), { unit: 'ms' }),
      figure('POST slowest', R.get(`${engine}|post-max`), { unit: 'ms' }),
      figure('form GET p50', R.get(`${engine}|form-p50`), { digits: 1, unit: 'ms' }),
    ],
  }));
  const floodRows = engines.map((engine, i) => ({
    label: engineName(engine),
    figures: [
      figure('alone, req/s', R.get(`${engine}|alone`)),
      figure('under the flood, req/s', R.get(`${engine}|flood`)),
      figure('flood ÷ alone', R.get(`${engine}|ratio`), { digits: 3 }),
      textFigure('target', `≥ ${TARGET}`),
      textFigure('verdict', verdicts[i].ok ? 'ok' : 'MISSED'),
      figure('p99 alone', R.get(`${engine}|alone-p99`), { digits: 2, unit: 'ms' }),
      figure('p99 flood', R.get(`${engine}|flood-p99`), { digits: 2, unit: 'ms' }),
      figure('wrong passwords/s', R.get(`${engine}|wrong-per-s`), { digits: 2 }),
    ],
  }));
  const lines = [
    `## Login benchmark — ${new Date().toISOString().slice(0, 19).replace('T', ' ')} UTC`,
    '',
    '### Method',
    '',
    `- Program: ${program.description}, as \`serve\` (one process; default configuration, so \`PASSWORD_ITERATIONS\` = ${ITERATIONS.toLocaleString('en')}, \`HASH_QUEUE\` = 256, hashing at most one per core the server may use; plus \`TRUST_PROXY=127.0.0.1\` for the flood's addresses). CPU placement: ${placement.text}.`,
    `- Dataset: \`demo ${demoArgs(SIZES).join(' ')}\`, then \`import\` of ${o.clients + 1} users whose password is a \`pbkdf2_sha256\` hash at ${ITERATIONS.toLocaleString('en')} iterations (made with node:crypto, as Django makes it).`,
    `- Rounds: every figure is the median of **${o.rounds} rounds** with min–max; each round a fresh server, then in this order: the logins, wrk alone, wrk under the flood.`,
    `- Login time: **${o.logins} sequential successful logins** per round, each a new client: GET \`/accounts/login/\` (pre-session cookie and token), then POST \`username\`, \`password\`, \`csrfmiddlewaretoken\` with the cookie and \`Origin\`, answered 303 with a session cookie. The POST is timed (first byte sent to last byte received); per round its p50, fastest and slowest.`,
    `- Flood: **${o.clients} clients** (bench/login-flood.js, on the load CPU) each posting a wrong password as soon as its last post was answered, for existing names (\`${FLOOD_PREFIX}000\`…), each post from a new \`X-Forwarded-For\` address: no throttling rule applies, so each post costs one hash (the worst case; a throttled post, 429, costs none). Answers counted by status from the start of wrk's warm-up to the end of its measurement.`,
    `- Cached reads: \`wrk -t1 -c${o.connections}\` on \`${STATUS_PATH}\` (a cached 200), 1 s of warm-up then **${o.seconds} s**, alone and then under the flood (started before wrk, measured once every client has posted and one has been answered). Ratio per round: under the flood ÷ alone. Target (members.md §1): **≥ ${TARGET}**.`,
    '',
    '### Login time',
    '',
    render('engine', loginRows, ['after']),
    '',
    '### Cached reads under a flood of wrong passwords',
    '',
    render('engine', floodRows, ['after']),
    '',
    ...notes.map((n) => `- ${n}`),
    `- ${idle.note()}`,
    `- Machine: ${machineNote()}; run time ${Math.round((performance.now() - t0) / 1000)} s.`,
    `- Command: \`node bench/login.js ${process.argv.slice(2).join(' ')}\``.replace(/ `$/, '`'),
  ];
  if (failures.length) lines.push('', '**Checks failed:**', ...failures.map((f) => `- ${f}`));
  const report = `${lines.join('\n')}\n`;
  fs.writeFileSync(reportFile, report);
  process.stdout.write(`\n${report}\n(written to ${path.relative(ROOT, reportFile)}; raw outputs in ${path.relative(ROOT, work)}/)\n`);
  if (failures.length) {
    process.stderr.write(`login.js: ${failures.length} check(s) failed (see above)\n`);
    return 1;
  }
  for (const v of verdicts) if (!v.ok) process.stderr.write(`login.js: ${engineName(v.engine)}: flood ÷ alone ${v.median.toFixed(3)} < ${TARGET}: MISSED\n`);
  return verdicts.every((v) => v.ok) ? 0 : 3;
}

/** Django's pbkdf2_sha256 at the default iterations: 32 bytes, base64, the salt as text. */
function djangoHash(password) {
  const salt = crypto.randomBytes(16).toString('base64url').replace(/[-_]/g, 'x').slice(0, 22);
  const digest = crypto.pbkdf2Sync(password, salt, ITERATIONS, 32, 'sha256').toString('base64');
  return `pbkdf2_sha256$${ITERATIONS}$${salt}$${digest}`;
}

/** A dumpdata fixture of the login user and the flood's names, all with `hash`, on pks past the demo's. */
function users(hash, floodNames) {
  const now = new Date().toISOString().slice(0, 19) + 'Z';
  const user = (pk, username) => ({
    model: 'users.user',
    pk,
    fields: {
      password: hash,
      last_login: null,
      is_superuser: false,
      username,
      email: `${username}@example.org`,
      created: now,
      edited: now,
      first_name: '',
      last_name: '',
      balance: '0.00',
      has_key: false,
      hide_pamela: false,
      newsletter: false,
      is_active: true,
      description: '',
      groups: [],
      user_permissions: [],
    },
  });
  return [user(900_000, LOGIN_USER), ...Array.from({ length: floodNames }, (_, i) => user(900_001 + i, `${FLOOD_PREFIX}${String(i).padStart(3, '0')}`))];
}

/** One request on a connection of its own; resolves { status, headers, body, ms } (ms: from the request's start to the end of the answer). */
function send(url, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const req = http.request(url, { method, headers, agent: false, timeout: 120_000 }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - t }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${url}: no answer in 120 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** The value of a cookie the answer sets, or null. */
function setCookieValue(res, name) {
  for (const line of res.headers['set-cookie'] ?? []) {
    const m = new RegExp(`^${name}=([^;]*)`).exec(line);
    if (m) return m[1];
  }
  return null;
}

/** A login as a browser does it: the form, then its POST; fails unless 303 with a session cookie. */
async function timedLogin(base, username, password) {
  const form = await send(`${base}/accounts/login/`);
  const csrf = setCookieValue(form, 'csrftoken');
  const token = /name="csrfmiddlewaretoken" value="([^"]*)"/.exec(form.body)?.[1];
  if (form.status !== 200 || !csrf || !token) fail(`GET /accounts/login/ answered ${form.status} without a csrftoken cookie and a form token`);
  const post = await send(`${base}/accounts/login/`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `csrftoken=${csrf}`, origin: new URL(base).origin },
    body: new URLSearchParams({ csrfmiddlewaretoken: token, username, password }).toString(),
  });
  if (post.status !== 303 || !setCookieValue(post, 'session'))
    fail(`the login of ${username} answered ${post.status}${setCookieValue(post, 'session') ? '' : ' without a session cookie'}, expected 303 with one`);
  return { formMs: form.ms, postMs: post.ms };
}

/**
 * bench/login-flood.js against a server, pinned with the load: resolves once every client has
 * posted and one answer came. { snapshot(): its counts so far, stop() }.
 */
async function startFlood(server, { clients, pin, firstAddress, logFile }) {
  const args = [
    process.execPath,
    path.join(BENCH, 'login-flood.js'),
    '--base',
    server.base,
    '--clients',
    String(clients),
    '--names',
    FLOOD_PREFIX,
    '--first-address',
    String(firstAddress),
  ];
  const [command, ...rest] = [...pin, ...args];
  const child = start(command, rest, { capture: true });
  const lines = () => child.stdoutText.split('\n').filter(Boolean);
  const waitFor = async (test, what, seconds) => {
    const deadline = Date.now() + seconds * 1000;
    while (!test()) {
      if (!isAlive(child)) {
        fs.writeFileSync(logFile, child.stdoutText + child.stderrText);
        fail(`the flood exited ${what}: ${child.stderrText.trim()}`);
      }
      assertAlive('the flood', server);
      if (Date.now() > deadline) fail(`the flood: ${what} took over ${seconds} s`);
      await sleep(20);
    }
  };
  const snapshot = async () => {
    const n = lines().length;
    child.kill('SIGUSR2');
    await waitFor(() => lines().length > n, 'while reporting its counts', 10);
    return JSON.parse(lines()[n]);
  };
  await waitFor(() => lines()[0] === 'READY', 'before every client posted', 60);
  // Steady: the hasher has worked through at least one post.
  const deadline = Date.now() + 120_000;
  while (!Object.values((await snapshot()).statuses).some((n) => n > 0)) {
    if (Date.now() > deadline) fail('the flood had no answer in 120 s');
    await sleep(200);
  }
  return {
    snapshot,
    async stop() {
      await stop(child);
      fs.writeFileSync(logFile, child.stdoutText + child.stderrText);
    },
  };
}

function difference(after, before) {
  const statuses = {};
  for (const [status, n] of Object.entries(after.statuses)) if (n - (before.statuses[status] ?? 0) > 0) statuses[status] = n - (before.statuses[status] ?? 0);
  return { statuses, errors: after.errors - before.errors };
}

const statusList = (totals) =>
  Object.entries(totals)
    .map(([status, n]) => `${status === 'errors' ? 'socket errors' : status} × ${n}`)
    .join(', ') || 'none';

async function storedHash(db) {
  const [rows] = (await query(db, [`select password from users where username = '${LOGIN_USER}'`])) ?? [[]];
  return rows[0]?.password ?? null;
}

await runMain('login.js', main);
