// Ledger benchmark (issue 38, ledger.md): a purchase and the slate page on a large ledger.
//
//   node bench/ledger.js [--db sqlite|postgres|both] [--rounds N] [--requests N] [--keep-db]
//
// Expected duration on the 2-core development machine: about 1.5 minutes per engine (most of it
// the dataset: 1,000,000 entries made by SQL in the database itself).
//
// Method (fixed before measuring; printed at the top of the report):
// - a scratch database per engine (SQLite: a file under bench/out/; PostgreSQL: a new database on
//   BENCH_POSTGRES_SERVER, default postgres://postgres@127.0.0.1:5432), migrated by the program's
//   own `migrate`, removed at the end (unless --keep-db);
// - the dataset, inserted in bulk by SQL (a recursive CTE on SQLite, generate_series on
//   PostgreSQL): 2,000 members, 4 categories (the first named Urtip), 40 products, 1,000,000
//   ledger entries (each member's: 9 in 10 purchases of a product at its price, 1 in 10 top-ups;
//   members and products spread evenly, one entry per second of time, so that a member's entries
//   lie far apart in the table: the worst case for reading them), then every member's
//   `users.balance_cents` set to the sum of their entries (the ledger's rule: `ledger check`
//   agrees) and the planner's statistics refreshed (ANALYZE; PostgreSQL: VACUUM ANALYZE, as
//   autovacuum would after such an insert); one member (id 1, ~500 entries) gets a known password (Django's
//   pbkdf2_sha256 at PASSWORD_ITERATIONS=1000) and the right `users.change_balance` (granted by
//   the program's `user grant`, read through the permission tables as any member's);
// - EXPLAIN of the queries the slate needs, for that member: their entries newest first (a page
//   of 20), their five most bought products (favourites), their balance; printed as the engine
//   gives them;
// - one `serve` (the built bundle, its default configuration but PASSWORD_ITERATIONS=1000); the
//   member logs in through the login form (session cookie and CSRF as a browser);
// - the slate page `GET /accounts/balance` with the session: --requests sequential requests per
//   round (one connection kept alive: service time, not queueing), after 20 of warm-up; every
//   answer 200;
// - a purchase `POST /accounts/balance/product` (`product`, the form's CSRF token and a new
//   one-time key each time, the fields read from the slate's own form), sequential, every answer
//   303; the balance checked against the purchases after the rounds. While the slate's routes do
//   not exist yet (404), the purchase is measured instead in-process: `buy` of
//   src/apps/stock/ledger.ts inside `writeTransaction` (the write transaction services.writes.run
//   opens), on the same database, through tsx — the ledger's own work without HTTP, sessions or
//   the page; and the slate's p50 is then that of its queries (balance, entries page, favourites)
//   in-process. The report says which was measured;
// - every figure the median of --rounds rounds (at least 3) of the p50 (and p95) of a round,
//   with min–max; targets: purchase p50 ≤ 30 ms, slate p50 ≤ 50 ms.
//
// Exit status: 0 when every target was met; 1 on a failure; 2 on bad usage; 3 when a target was missed.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { isPg, pgServer, scratchEmpty, withPg } from './lib/dataset.js';
import { freePort, waitFor200 } from './lib/http.js';
import { fail, log, safeUrl } from './lib/log.js';
import { machineNote } from './lib/machine.js';
import { engineName, engines as enginesOf, parseOptions } from './lib/options.js';
import { run, runMain, start, stop } from './lib/processes.js';
import { currentProgram, serverEnvFactory } from './lib/program.js';
import { spread, summarize } from './lib/stats.js';

const BENCH = path.dirname(new URL(import.meta.url).pathname);
const ROOT = path.dirname(BENCH);
const OUT = path.join(BENCH, 'out');

const USAGE = `
Ledger benchmark: node bench/ledger.js [options]
A purchase (target p50 ≤ 30 ms) and the slate page (target p50 ≤ 50 ms) with 2,000 members and
1,000,000 ledger entries. Every figure is the median of --rounds rounds (at least 3) with min–max.
Exit 0: targets met; 1: failure; 2: usage; 3: a target missed.`;

const SPEC = {
  db: { type: 'string', default: 'both', help: 'sqlite, postgres or both' },
  rounds: { type: 'string', default: 3, integer: [3, 99], help: 'rounds per figure' },
  requests: { type: 'string', default: 200, integer: [20, 100_000], help: 'measured requests per round and case' },
  'keep-db': { type: 'boolean', help: 'keep the scratch databases (their names are printed)' },
};

const SIZES = { members: 2_000, categories: 4, products: 40, entries: 1_000_000 };
const TARGETS = { purchase: 30, slate: 50 };
const PASSWORD = 'bench-ledger-password';
const ITERATIONS = 1000;
const MEMBER = 1;
const T0_US = 1_600_000_000_000_000;

/** Django's pbkdf2_sha256 hash of the password. */
function djangoHash(password) {
  const salt = crypto.randomBytes(12).toString('hex');
  return `pbkdf2_sha256$${ITERATIONS}$${salt}$${crypto.pbkdf2Sync(password, salt, ITERATIONS, 32, 'sha256').toString('base64')}`;
}

/** Writing statements on the scratch database, in order. */
async function execute(db, statements) {
  if (isPg(db))
    return withPg(db, async (client) => {
      for (const statement of statements) await client.query(statement);
    });
  const { default: Database } = await import('better-sqlite3');
  const sqlite = new Database(db, { fileMustExist: true });
  try {
    for (const statement of statements) sqlite.exec(statement);
  } finally {
    sqlite.close();
  }
}

/** Rows of read statements. */
async function rows(db, statement) {
  if (isPg(db)) return withPg(db, async (client) => (await client.query(statement)).rows);
  const { default: Database } = await import('better-sqlite3');
  const sqlite = new Database(db, { fileMustExist: true, readonly: true });
  try {
    return sqlite.prepare(statement).all();
  } finally {
    sqlite.close();
  }
}

/** The product of an entry, its price and its member: the same formulas on both engines. */
const PRICE = (p) => `(50 + ((${p}) * 37) % 400)`;

/** The dataset, by SQL in the database itself. */
function datasetStatements(pg) {
  const { members, categories, products, entries } = SIZES;
  const series = (n, body) =>
    pg
      ? body.replace(/\bFROM_SERIES\b/g, `from generate_series(1::bigint, ${n}) as s(i)`)
      : `with recursive s(i) as (select 1 union all select i + 1 from s where i < ${n}) ${body.replace(/\bFROM_SERIES\b/g, 'from s')}`;
  // An entry i: member 1 + (i * 7919) % members, product 1 + (i * 31 + i / members) % products.
  const member = `(1 + (i * 7919) % ${members})`;
  const product = `(1 + (i * 31 + i / ${members}) % ${products})`;
  return [
    series(
      members,
      `insert into users (id, username, email, password, is_active, created_us, edited_us) select i, 'bench-' || i, 'bench-' || i || '@example.org', '!', 1, 0, 0 FROM_SERIES`,
    ),
    // Category 1 is the urtip stream's (`/api/streams/urtip/`: a quarter of the purchases).
    series(categories, `insert into stock_categories (id, name) select i, case when i = 1 then 'Urtip' else 'Category ' || i end FROM_SERIES`),
    series(products, `insert into stock_products (id, name, price_cents, category_id, active) select i, 'Product ' || i, ${PRICE('i')}, 1 + i % ${categories}, 1 FROM_SERIES`),
    series(
      entries,
      `insert into ledger_entries (id, user_id, kind, amount_cents, product_id, unit_price_cents, quantity, location, info, channel, created_us)
       select i, ${member},
         case when (i / ${members}) % 10 = 0 then 'topup' else 'purchase' end,
         case when (i / ${members}) % 10 = 0 then 2000 else -${PRICE(product)} end,
         case when (i / ${members}) % 10 = 0 then null else ${product} end,
         case when (i / ${members}) % 10 = 0 then null else ${PRICE(product)} end,
         case when (i / ${members}) % 10 = 0 then null else 1 end,
         case when (i / ${members}) % 10 = 0 then 'BANK' else null end,
         '', 'web', ${T0_US} + i * 1000000 FROM_SERIES`,
    ),
    // The balance kept on the member is the sum of their entries (ledger.md §3).
    `update users set balance_cents = coalesce((select sum(amount_cents) from ledger_entries e where e.user_id = users.id), 0)`,
    `update users set password = '${djangoHash(PASSWORD)}', is_superuser = 0 where id = ${MEMBER}`,
    ...(pg
      ? [
          `select setval(pg_get_serial_sequence('users', 'id'), ${members})`,
          `select setval(pg_get_serial_sequence('stock_categories', 'id'), ${categories})`,
          `select setval(pg_get_serial_sequence('stock_products', 'id'), ${products})`,
          `select setval(pg_get_serial_sequence('ledger_entries', 'id'), ${entries})`,
          'vacuum analyze',
        ]
      : ['analyze']),
  ];
}

/** The queries the slate needs for one member (ledger.ts entriesOf, balanceOf; the favourites), as SQL. */
const SLATE_QUERIES = {
  'entries, newest first (a page of 20)': `select * from ledger_entries where user_id = ${MEMBER} order by id desc limit 20`,
  'entries counted (the pages)': `select count(*) from ledger_entries where user_id = ${MEMBER}`,
  'favourites (five most bought)': `select product_id, count(*) as n from ledger_entries where user_id = ${MEMBER} and kind = 'purchase' and product_id is not null group by product_id order by n desc, product_id limit 5`,
  balance: `select balance_cents from users where id = ${MEMBER}`,
  'undone among the page (reversedAmong)': `select reverses_id from ledger_entries where reverses_id in (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20)`,
  // Not the slate's: the count of /api/streams/urtip/ (apps/stock/products.ts countUrtips), for the record.
  'urtip stream counted (/api/streams/urtip/)': `select count(*) from ledger_entries e join stock_products p on p.id = e.product_id join stock_categories c on c.id = p.category_id join users u on u.id = e.user_id where e.kind = 'purchase' and lower(c.name) = 'urtip' and not exists (select r.id from ledger_entries r where r.reverses_id = e.id)`,
};

async function explain(db) {
  const out = {};
  for (const [name, statement] of Object.entries(SLATE_QUERIES)) {
    const plan = await rows(db, isPg(db) ? `explain (analyze, costs off, timing off, summary on) ${statement}` : `explain query plan ${statement}`);
    out[name] = plan.map((row) => (isPg(db) ? row['QUERY PLAN'] : row.detail)).join('\n');
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// HTTP as a browser: one kept-alive connection

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function send(url, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.request(
      url,
      { method, agent, headers: body === undefined ? headers : { ...headers, 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString(), ms: performance.now() - t0 }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const cookieOf = (headers, name) =>
  (headers['set-cookie'] ?? []).map((line) => line.split(';')[0]).find((pair) => pair.startsWith(`${name}=`) || pair.startsWith(`__Host-${name}=`));

async function logIn(base, username) {
  const form = await send(`${base}/accounts/login/`);
  const csrfCookie = cookieOf(form.headers, 'csrftoken');
  const token = /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(form.body)?.[1];
  if (form.status !== 200 || !csrfCookie || !token) fail(`the login form answered ${form.status} without its cookie or token`);
  const res = await send(`${base}/accounts/login/`, {
    method: 'POST',
    headers: { cookie: csrfCookie, origin: base },
    body: new URLSearchParams({ csrfmiddlewaretoken: token, username, password: PASSWORD }).toString(),
  });
  const session = cookieOf(res.headers, 'session');
  if (res.status !== 303 || !session) fail(`logging in as ${username} answered ${res.status}${session ? '' : ' without a session cookie'}`);
  return [session, csrfCookie].join('; ');
}

/** The purchase form of the slate page: its hidden fields (CSRF token, one-time key) and its products, or null when there is none. */
function purchaseForm(page) {
  const form = /<form[^>]*action="\/accounts\/balance\/product"[^>]*>([\s\S]*?)<\/form>/.exec(page);
  if (!form) return null;
  const hidden = Object.fromEntries(
    [...form[1].matchAll(/<input[^>]*type="hidden"[^>]*>/g)].map((m) => [/name="([^"]+)"/.exec(m[0])?.[1], /value="([^"]*)"/.exec(m[0])?.[1] ?? '']).filter(([n]) => n),
  );
  const product = /name="product"[^>]*value="(\d+)"|value="(\d+)"[^>]*name="product"/.exec(form[1]);
  return { hidden, product: product ? (product[1] ?? product[2]) : null };
}

// ---------------------------------------------------------------------------------------------
// In-process stand-ins (while the slate's routes do not exist), through tsx on src/

const IN_PROCESS = `
import { openDatabase } from './src/db/connection.ts';
import { configFrom } from './src/config.ts';
import { writeTransaction } from './src/db/write-transaction.ts';
import { buy, balanceOf, entriesOf, countEntriesOf, reversedAmong } from './src/apps/stock/ledger.ts';
const [url, what, n, warm, member] = process.argv.slice(1);
const config = configFrom({ DATABASE_URL: url });
const handle = await openDatabase(config.database);
const db = handle.db;
const rules = config.ledger;
const p = (ms) => ms.sort((a, b) => a - b)[Math.floor(ms.length * 0.5)];
const one = async (i) => {
  if (what === 'purchase') {
    await writeTransaction(db, (trx) => buy(trx, rules, { userId: Number(member), productId: 1 + ((i + 4000) % 40), key: 'bench-' + process.pid + '-' + i, by: { userId: Number(member), channel: 'web' }, nowUs: Date.now() * 1000 }));
  } else {
    const [, entries] = await Promise.all([balanceOf(db, Number(member)), entriesOf(db, Number(member), { offset: 0, limit: 20 }), countEntriesOf(db, Number(member))]);
    await reversedAmong(db, entries.map((e) => e.id));
    await db.selectFrom('ledger_entries').select(['product_id', (eb) => eb.fn.countAll().as('n')]).where('user_id', '=', Number(member)).where('kind', '=', 'purchase').where('product_id', 'is not', null).groupBy('product_id').orderBy('n', 'desc').orderBy('product_id').limit(5).execute();
  }
};
for (let i = 0; i < Number(warm); i++) await one(-1 - i);
const ms = [];
for (let i = 0; i < Number(n); i++) { const t = performance.now(); await one(i); ms.push(performance.now() - t); }
process.stdout.write(JSON.stringify(ms));
await handle.close();
`;

async function inProcess(dbUrl, what, n, warm) {
  const res = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', IN_PROCESS, dbUrl, what, String(n), String(warm), String(MEMBER)], { cwd: ROOT });
  if (res.code !== 0) fail(`in-process ${what}: ${res.stderr.trim().slice(0, 500)}`);
  return JSON.parse(res.stdout);
}

const pct = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];
};

// ---------------------------------------------------------------------------------------------

async function benchEngine(engine, o, work, program, env) {
  const name = `bench_ledger_${process.pid}`;
  const db = engine === 'sqlite' ? path.join(work, `${name}.sqlite`) : `${pgServer()}/${name}`;
  const { dbUrl } = await scratchEmpty(db, { keep: o['keep-db'] });
  log(`${engineName(engine)}: migrating ${safeUrl(dbUrl)}`);
  const migrated = await run(process.execPath, [program.cli, 'migrate'], { env: env({ DATABASE_URL: dbUrl }) });
  if (migrated.code !== 0) fail(`migrate: ${migrated.stderr.trim()}`);
  const t0 = performance.now();
  log(`${engineName(engine)}: inserting ${SIZES.members} members and ${SIZES.entries} entries`);
  await execute(db, datasetStatements(isPg(db)));
  const datasetS = (performance.now() - t0) / 1000;
  const granted = await run(process.execPath, [program.cli, 'user', 'grant', `bench-${MEMBER}`, 'users.change_balance'], { env: env({ DATABASE_URL: dbUrl }) });
  if (granted.code !== 0) fail(`user grant: ${granted.stderr.trim()}`);
  const check = await run(process.execPath, [program.cli, 'ledger', 'check'], { env: env({ DATABASE_URL: dbUrl }) });
  if (check.code !== 0) fail(`ledger check after the dataset: ${check.stdout.trim()} ${check.stderr.trim()}`);
  const [{ n: entriesOfMember }] = await rows(db, `select count(*) as n from ledger_entries where user_id = ${MEMBER}`);
  const plans = await explain(db);

  const port = await freePort();
  const logFile = path.join(work, `${engine}-serve.log`);
  const child = start(process.execPath, [program.cli, 'serve'], {
    env: env({ DATABASE_URL: dbUrl, HOST: '127.0.0.1', PORT: String(port), PASSWORD_ITERATIONS: String(ITERATIONS) }),
    logFile,
  });
  const base = `http://127.0.0.1:${port}`;
  const result = { engine, datasetS, entriesOfMember: Number(entriesOfMember), plans, cases: {} };
  try {
    await waitFor200(`${base}/api/`, child, 60, logFile);
    const cookie = await logIn(base, `bench-${MEMBER}`);
    const slate = await send(`${base}/accounts/balance`, { headers: { cookie } });
    const form = slate.status === 200 ? purchaseForm(slate.body) : null;
    result.slateRoute = slate.status;
    const [before] = await rows(db, `select balance_cents from users where id = ${MEMBER}`);
    let bought = 0;
    let boughtCents = 0;
    const prices = Object.fromEntries((await rows(db, 'select id, price_cents from stock_products')).map((r) => [String(r.id), Number(r.price_cents)]));
    const rounds = { slate: [], purchase: [] };
    for (let round = 0; round < o.rounds; round++) {
      // The slate page.
      if (slate.status === 200) {
        const ms = [];
        for (let i = 0; i < 20 + o.requests; i++) {
          const res = await send(`${base}/accounts/balance`, { headers: { cookie } });
          if (res.status !== 200) fail(`GET /accounts/balance answered ${res.status}`);
          if (i >= 20) ms.push(res.ms);
        }
        rounds.slate.push(ms);
      } else rounds.slate.push(await inProcess(dbUrl, 'slate', o.requests, 20));
      // A purchase.
      if (form && form.product) {
        const ms = [];
        for (let i = 0; i < o.requests; i++) {
          const fields = { ...form.hidden, product: form.product };
          for (const key of Object.keys(fields)) if (/key/i.test(key)) fields[key] = crypto.randomBytes(16).toString('base64url');
          const res = await send(`${base}/accounts/balance/product`, { method: 'POST', headers: { cookie, origin: base }, body: new URLSearchParams(fields).toString() });
          if (res.status !== 303) fail(`POST /accounts/balance/product answered ${res.status}: ${res.body.slice(0, 300)}`);
          ms.push(res.ms);
          bought++;
          boughtCents += prices[form.product];
        }
        rounds.purchase.push(ms);
      } else {
        const ms = await inProcess(dbUrl, 'purchase', o.requests, 5);
        rounds.purchase.push(ms);
        bought += o.requests + 5;
      }
    }
    const [after] = await rows(db, `select balance_cents from users where id = ${MEMBER}`);
    if (form && form.product && Number(before.balance_cents) - Number(after.balance_cents) !== boughtCents)
      fail(`the balance moved by ${Number(before.balance_cents) - Number(after.balance_cents)} cents for ${bought} purchases of ${boughtCents} cents`);
    const checkAfter = await run(process.execPath, [program.cli, 'ledger', 'check'], { env: env({ DATABASE_URL: dbUrl }) });
    if (checkAfter.code !== 0) fail(`ledger check after the purchases: ${checkAfter.stdout.trim()}`);
    result.purchasesOverHttp = Boolean(form && form.product);
    result.slateOverHttp = slate.status === 200;
    for (const what of ['slate', 'purchase']) {
      result.cases[what] = { p50: rounds[what].map((ms) => pct(ms, 0.5)), p95: rounds[what].map((ms) => pct(ms, 0.95)) };
    }
  } finally {
    await stop(child);
  }
  return result;
}

function report(results, o, program) {
  const lines = [
    '# Ledger benchmark',
    '',
    `${machineNote()}. Program: ${program.description}.`,
    '',
    '## Method',
    '',
    `Dataset per engine, by SQL in the database: ${SIZES.members} members, ${SIZES.categories} categories, ${SIZES.products} products, ${SIZES.entries.toLocaleString('en')} ledger entries (9 in 10 purchases, 1 in 10 top-ups), balances set to the sum of the entries (\`ledger check\` passes before and after), ANALYZE. The measured member (id ${MEMBER}) holds \`users.change_balance\` through the permission tables. ${o.rounds} rounds of ${o.requests} sequential requests per case on one kept-alive connection; each figure is the median of the rounds' p50 (p95) with min–max. Targets: purchase p50 ≤ ${TARGETS.purchase} ms, slate p50 ≤ ${TARGETS.slate} ms.`,
    '',
  ];
  let missed = false;
  for (const r of results) {
    lines.push(`## ${engineName(r.engine)}`, '');
    lines.push(`Dataset made in ${r.datasetS.toFixed(1)} s; the member has ${r.entriesOfMember} entries.`, '');
    lines.push(
      `- slate: ${r.slateOverHttp ? '`GET /accounts/balance` over HTTP with the session' : `the slate's queries in-process (balance, a page of 20 entries newest first, their count, undone among them, favourites), through tsx — GET /accounts/balance answered ${r.slateRoute}: the slate's route is not there yet`}`,
      `- purchase: ${r.purchasesOverHttp ? '`POST /accounts/balance/product` over HTTP (session, CSRF, a new one-time key each), 303 each, the balance checked' : '`buy` (src/apps/stock/ledger.ts) inside `writeTransaction` in-process, through tsx, on the same database — the purchase route is not there yet'}`,
      '',
      '| case | p50 ms | p95 ms | target |',
      '|---|---|---|---|',
    );
    for (const what of ['purchase', 'slate']) {
      const c = r.cases[what];
      const target = TARGETS[what];
      const met = summarize(c.p50).median <= target;
      missed ||= !met;
      lines.push(`| ${what} | ${spread(c.p50, 1)} | ${spread(c.p95, 1)} | ≤ ${target} ${met ? 'met' : '**missed**'} |`);
    }
    lines.push('', "Plans of the slate's queries for the member:", '');
    for (const [name, plan] of Object.entries(r.plans)) lines.push(`- ${name}:`, '', '```', plan, '```', '');
  }
  return { text: lines.join('\n'), missed };
}

async function main() {
  const o = parseOptions(process.argv.slice(2), SPEC, USAGE);
  o.rounds = Number(o.rounds);
  o.requests = Number(o.requests);
  const engines = enginesOf(o.db, true);
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  const work = path.join(OUT, `ledger-run-${stamp}`);
  fs.mkdirSync(work, { recursive: true });
  const env = serverEnvFactory(ROOT);
  const program = await currentProgram(ROOT, work);
  const results = [];
  for (const engine of engines) results.push(await benchEngine(engine, o, work, program, env));
  const { text, missed } = report(results, o, program);
  const file = path.join(OUT, `ledger-${stamp}-${engines.join('-')}.md`);
  fs.writeFileSync(file, text + '\n');
  process.stdout.write(`${text}\n`);
  log(`report written to ${path.relative(ROOT, file)}`);
  return missed ? 3 : 0;
}

runMain('ledger', main);
