// Write benchmark: the door sensor's POST /api/space/openings/ on a large history.
//
//   node bench/write.js [--db sqlite|postgres|both] [--seconds S] [--connections N] [--compare <git-ref>] [--keep-db]
//   (bash bench/write.sh … runs the same)
//
// Expected duration on the 2-core development machine: about 2 minutes per engine (3 rounds of
// 4 cases of 1 s warm-up + 5 s), twice that with --compare; PostgreSQL adds its dataset's copy.
//
// For each engine (both by default, SQLite first):
// 1. a scratch database with the read benchmark's dataset (2,000 users, 1,000,000 openings…): a
//    copy of bench/read.js's cached one when it is current (the SQLite file, or the PostgreSQL
//    database as template), else `demo` straight into it (PostgreSQL: then VACUUM as read.js
//    does); removed or dropped at the end, also on failure (unless --keep-db);
// 2. a door token (`token create --scope door`); its secret stays in memory and reaches wrk
//    through its environment only;
// 3. ROUNDS (3) rounds; in each, for each program (with --compare: both, before first in odd
//    rounds), a fresh `serve` runs four cases, each wrk -t1 with bench/door.lua, 1 s of warm-up then --seconds, on
//    a settled server:
//      change -c1   bodies alternate open/closed from the opposite of the latest state: each post
//                   records a change (201)
//      change -cN   the same with N connections (default 8): posts arrive in another order than
//                   sent, so some repeat the state (200)
//      same -c1     the latest state over and over: nothing recorded (200)
//      same -cN
// 4. checks: no non-2xx, no socket error, each run's new rows match its 201s (plus at most one per
//    connection: the posts wrk abandons at its end still arrive), and after all runs no two
//    consecutive openings of the history in the same state;
// 5. prints the Markdown report (the method first; every figure the median of the rounds with
//    min–max), also written to bench/out/write-<date>-<engines>.md.
//
// Exit status: 0 when every check passed; 1 otherwise; 2 on bad usage.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import {
  cachedIsCurrent,
  cachedLocation,
  datasetSizes,
  demoArgs,
  historyRepeats,
  isPg,
  openingsStat,
  pgDescribe,
  pgServer,
  pgVacuum,
  dbUrlOf,
  scratchCopy,
  scratchEmpty,
} from './lib/dataset.js';
import { Rounds, figure, render, worseInEveryRound } from './lib/figures.js';
import { fail, log, safeUrl, sleep } from './lib/log.js';
import { IdleChecks, machineNote } from './lib/machine.js';
import { code } from './lib/markdown.js';
import { engineName, engines as enginesOf, parseOptions } from './lib/options.js';
import { run, runMain } from './lib/processes.js';
import { doorToken, inTurn, programs as programsOf, serverEnvFactory } from './lib/program.js';
import { assertAlive, serverPool } from './lib/servers.js';
import { ensureWrk, door } from './lib/wrk.js';

const BENCH = path.dirname(new URL(import.meta.url).pathname);
const ROOT = path.dirname(BENCH);
const OUT = path.join(BENCH, 'out');

const USAGE = `
Write benchmark: node bench/write.js [options]   (or bash bench/write.sh [options])
Every figure is the median of --rounds rounds (at least 3) with min–max. Exit 0: every check
passed; 1: a failure; 2: usage. Environment: BENCH_USERS… as for read.js; BENCH_POSTGRES_SERVER
(default postgres://postgres@127.0.0.1:5432): a role that may create databases.`;

const SPEC = {
  db: { type: 'string', default: 'both', help: 'sqlite, postgres or both' },
  compare: { type: 'string', help: 'git ref: also measure the bundle of that commit ("before"), alternating with the working tree\'s ("after") in every round' },
  rounds: { type: 'string', default: 3, integer: [3, 99], help: 'rounds per figure' },
  seconds: { type: 'string', default: 5, integer: [1, 600], help: 'measured seconds per case and round (after 1 s of warm-up)' },
  connections: { type: 'string', default: 8, integer: [1, 1000], help: 'wrk connections of the concurrent cases (wrk -t1 always)' },
  'keep-db': { type: 'boolean', help: 'keep the scratch databases (their names are printed)' },
};

async function main() {
  const o = parseOptions(process.argv.slice(2), SPEC, USAGE);
  const engines = enginesOf(o.db, true);
  const sizes = datasetSizes();
  const t0 = performance.now();
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  const work = path.join(OUT, `write-run-${stamp}`);
  fs.mkdirSync(work, { recursive: true });
  const reportFile = path.join(OUT, `write-${stamp}-${o.db}${o.compare ? '-compare' : ''}.md`);
  await ensureWrk(work);
  const env = serverEnvFactory(ROOT);
  const programs = await programsOf(ROOT, work, o.compare);
  const labels = programs.map((p) => p.label);
  const idle = new IdleChecks();
  const R = new Rounds();
  const failures = [];
  const check = (ok, message) => {
    if (!ok) {
      failures.push(message);
      log(`CHECK FAILED: ${message}`);
    }
  };
  const cases = [
    ['change', 1],
    ['change', o.connections],
    ['same', 1],
    ['same', o.connections],
  ].filter((_, i) => o.connections !== 1 || i % 2 === 0);
  const engineNotes = {};

  await idle.check('before the first run');
  for (const engine of engines) {
    log(`=== ${engineName(engine)} ===`);
    // Built by the oldest program (an older bundle refuses a database migrated past it), then one
    // copy per program, which it migrates to its own schema as it starts: they never share a file.
    const { db: built, note } = await scratchDataset({ engine, sizes, work, env, program: programs[0], keep: o['keep-db'] });
    const own = {};
    for (const program of programs) {
      const copy =
        programs.length === 1
          ? { db: built, dbUrl: dbUrlOf(built) }
          : await scratchCopy(built, engine === 'sqlite' ? path.join(work, `door-${program.label}.sqlite`) : `${built}_${program.label}`, { keep: o['keep-db'] });
      const history0 = await historyRepeats(copy.db);
      if (history0.repeats) fail(`${engine}: the demo history already has ${history0.repeats} consecutive openings in the same state`);
      const minId = (await openingsStat(copy.db)).maxId;
      own[program.label] = { db: copy.db, dbUrl: copy.dbUrl, secret: await doorToken(program, copy.dbUrl, env, 'bench-door'), minId };
    }
    const pool = serverPool({ work, env });
    for (let r = 1; r <= o.rounds; r++) {
      for (const program of inTurn(programs, r)) {
        const { db, dbUrl, secret } = own[program.label];
        const server = await pool.start(program, `${engine}-${program.label}-${r}`, 'door posts', dbUrl);
        const url = `${server.base}/api/space/openings/`;
        if (r === 1) {
          // Without credentials the door is refused: the token is what lets the posts through.
          const anonymous = await postWithoutToken(url);
          if (anonymous !== 401 && anonymous !== 403) fail(`${engine}: an anonymous POST answered ${anonymous}, expected 401 or 403`);
        }
        for (const [mode, connections] of cases) {
          const key = `${engine}|${mode}|${connections}`;
          const slug = `${engine}-${mode}-c${connections}-${program.label}-${r}`;
          let st = await settle(db);
          if (st.latest === null) fail(`${engine}: no opening to start from`);
          const warm = await door(url, {
            token: secret,
            mode,
            first: mode === 'change' ? !st.latest : st.latest,
            connections,
            seconds: 1,
            file: path.join(work, `wrk-${slug}.warmup.txt`),
          });
          if (warm.non2xx) fail(`${engine}, ${mode} -c${connections} (warm-up): ${warm.non2xx} answers were not 2xx (statuses ${warm.statuses})`);
          assertAlive('the warm-up', server);
          st = await settle(db);
          const d = await door(url, {
            token: secret,
            mode,
            first: mode === 'change' ? !st.latest : st.latest,
            connections,
            seconds: o.seconds,
            file: path.join(work, `wrk-${slug}.txt`),
          });
          assertAlive(`${mode} -c${connections}`, server);
          const added = (await settle(db)).rows - st.rows;
          const count = (status) => Number(new RegExp(`(?:^|,)${status}:(\\d+)`).exec(d.statuses)?.[1] ?? 0);
          const [s201, s200] = [count(201), count(200)];
          const sock = d.connect + d.read + d.write + d.timeout;
          if (d.requests <= 0) fail(`${engine}, ${mode} -c${connections}: no post completed in ${o.seconds} s`);
          R.add(`${key}|rps`, program.label, d.requests / (d.duration_us / 1e6));
          R.add(`${key}|p50`, program.label, d.p50_us / 1000);
          R.add(`${key}|p99`, program.label, d.p99_us / 1000);
          R.add(`${key}|201`, program.label, s201);
          R.add(`${key}|200`, program.label, s200);
          log(
            `${engine} ${program.label} round ${r}: ${mode} -c${connections}: ${Math.round(d.requests / (d.duration_us / 1e6))} posts/s, p50 ${(d.p50_us / 1000).toFixed(2)} ms, statuses ${d.statuses}, rows added ${added}`,
          );
          const what = `${engineName(engine)}, ${mode} -c${connections}, ${program.label}, round ${r}`;
          check(d.non2xx === 0, `${what}: ${d.non2xx} answers were not 2xx (statuses ${d.statuses})`);
          check(sock === 0, `${what}: socket errors (connect ${d.connect}, read ${d.read}, write ${d.write}, timeout ${d.timeout})`);
          check(added >= s201 && added <= s201 + connections, `${what}: ${added} new openings for ${s201} answers 201 (expected ${s201} to ${s201 + connections})`);
          if (mode === 'same') check(s201 === 0 && added === 0, `${what}: repeating the latest state recorded ${added} openings`);
          else if (connections === 1) check(s200 === 0, `${what}: ${s200} alternating posts from one client answered 200 (no change)`);
        }
        await pool.stop(server);
      }
    }
    const histories = [];
    for (const program of programs) {
      const { db, minId } = own[program.label];
      const history = await historyRepeats(db, minId);
      check(
        history.repeats === 0,
        `${engineName(engine)} (${program.label}): the history has ${history.repeats} openings in the same state as the one before (first: ${history.examples.join(', ')})`,
      );
      const where = isPg(db) ? `scratch database \`${safeUrl(db)}\`` : `scratch file \`${path.relative(ROOT, db)}\``;
      histories.push(`${program.label}: ${where}, history after the runs ${history.rows} openings, ${history.repeats} consecutive in the same state`);
    }
    engineNotes[engine] = `${engineName(engine)}: ${isPg(built) ? await pgDescribe(built).catch(() => 'PostgreSQL') : 'SQLite'}; dataset: ${note}; ${histories.join('; ')}`;
  }
  await idle.check('after the last run');

  const rows = [];
  for (const engine of engines) {
    for (const [mode, connections] of cases) {
      const key = `${engine}|${mode}|${connections}`;
      rows.push({
        label: `${engineName(engine)}, ${mode}, \`-t1 -c${connections} -d${o.seconds}s\``,
        figures: [
          figure('posts/s', R.get(`${key}|rps`)),
          figure('p50', R.get(`${key}|p50`), { digits: 2, unit: 'ms', better: 'lower' }),
          figure('p99', R.get(`${key}|p99`), { digits: 2, unit: 'ms', better: 'lower' }),
          figure('201', R.get(`${key}|201`)),
          figure('200', R.get(`${key}|200`), { better: mode === 'same' ? 'higher' : 'lower' }),
        ],
      });
    }
  }
  const lines = [
    `## Door write benchmark${o.compare ? `, before/after (\`--compare ${o.compare}\`)` : ''} — ${new Date().toISOString().slice(0, 19).replace('T', ' ')} UTC`,
    '',
    '### Method',
    '',
    `- \`POST /api/space/openings/\` with \`Authorization: Token <door token>\` and a JSON body, on the demo dataset (${sizes.openings} openings), \`hackerspace-api serve\` (one process, default configuration, unpinned).`,
    `- Rounds: every figure is the median of **${o.rounds} rounds** with min–max; in each round, for each program, a fresh server runs the cases in this order, each 1 s of warm-up then **${o.seconds} s** of \`wrk -t1 -cN\` with bench/door.lua, on a settled database.`,
    '- `change`: bodies alternate `{"is_open": true}` / `{"is_open": false}` from the opposite of the latest state (each post from a single client records a change, 201; with several connections some repeat the state, 200). `same`: the latest state over and over (200, nothing recorded).',
    `- Programs: ${programs.map((x) => `**${x.label}** = ${x.description}`).join('; ')}.${programs.length > 1 ? ' Each writes to a copy of its own of the scratch database (built by the older bundle), in turn.' : ''}`,
    '',
    render('engine, case, wrk', rows, labels),
    '',
    ...(programs.length > 1 ? ['Figures where "after" was worse than "before" in every round:', '', ...worseInEveryRound([['write', rows]]), ''] : []),
    ...engines.map((e) => `- ${engineNotes[e]}`),
    '- 201 and 200 are answers per round; new rows are checked against the 201s (plus at most one per connection: posts abandoned when wrk stops still arrive).',
    `- ${idle.note()}`,
    `- Machine: ${machineNote()}; run time ${Math.round((performance.now() - t0) / 1000)} s.`,
  ];
  if (failures.length) lines.push('', '**Checks failed:**', ...failures.map((f) => `- ${f}`));
  const report = `${lines.join('\n')}\n`;
  fs.writeFileSync(reportFile, report);
  process.stdout.write(`\n${report}\n(written to ${path.relative(ROOT, reportFile)}; raw outputs in ${path.relative(ROOT, work)}/)\n`);
  if (failures.length) {
    process.stderr.write(`write.js: ${failures.length} check(s) failed (see above)\n`);
    return 1;
  }
  return 0;
}

/** The read benchmark's dataset in a scratch database: copied from its cache when current, else built. */
async function scratchDataset({ engine, sizes, work, env, program, keep }) {
  const location = cachedLocation(OUT, engine, sizes);
  const target = engine === 'sqlite' ? path.join(work, 'door.sqlite') : `${pgServer()}/hackerspace_bench_write_${process.pid}`;
  if (await cachedIsCurrent(location, sizes)) {
    const copy = await scratchCopy(location.db, target, { keep });
    return {
      ...copy,
      note: `a copy of read.js's cached dataset ${code(engine === 'sqlite' ? path.relative(ROOT, location.db) : safeUrl(location.db))} (copied in ${copy.seconds.toFixed(1)} s)`,
    };
  }
  const scratch = await scratchEmpty(target, { keep });
  log(`building the dataset: hackerspace-api demo ${demoArgs(sizes).join(' ')}`);
  const t0 = performance.now();
  const demo = await run(process.execPath, [program.cli, 'demo', ...demoArgs(sizes)], {
    env: env({ DATABASE_URL: scratch.dbUrl }),
    logFile: path.join(work, `demo-${engine}.log`),
  });
  if (demo.code !== 0) fail(`demo failed on ${engine} (see ${path.join(work, `demo-${engine}.log`)})`);
  const buildS = (performance.now() - t0) / 1000;
  if (engine === 'postgres') await pgVacuum(scratch.db);
  return {
    ...scratch,
    note: `\`demo ${demoArgs(sizes).join(' ')}\` into the scratch database (${buildS.toFixed(1)} s${engine === 'postgres' ? ', then VACUUM FULL + VACUUM (FREEZE, ANALYZE)' : ''}; no current read.js cache to copy)`,
  };
}

/** Waits until the openings stop changing (posts wrk abandoned still arrive); returns the stat. */
async function settle(db) {
  let a = await openingsStat(db);
  for (let i = 0; i < 50; i++) {
    await sleep(200);
    const b = await openingsStat(db);
    if (b.rows === a.rows && b.maxId === a.maxId && b.latest === a.latest) return b;
    a = b;
  }
  return fail('the openings kept changing for 10 s after wrk stopped');
}

async function postWithoutToken(url) {
  return new Promise((resolve) => {
    const request = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, timeout: 10_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    request.on('error', () => resolve(0));
    request.end('{"is_open": true}');
  });
}

await runMain('write.js', main);
