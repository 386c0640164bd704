// Runs the whole test suite once per database engine, the engines at the same time: SQLite, and
// PostgreSQL in a database created for this run and dropped afterwards, so that runs never see
// each other's data.
// Before the suites: scripts/test-prerequisites.mjs readies the machine (Debian packages,
// PostgreSQL, an MQTT broker), then scripts/test-checks.mjs runs the static checks; a failure of
// either stops here.
//
//   node scripts/test.mjs [sqlite|postgres]       (default: both)
//
// PostgreSQL is reached through TEST_POSTGRES_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres),
// a role allowed to create databases.
//
// Each run also fails when it executes no test at all, and a run of both engines fails when they
// do not declare the same number of tests: a test that only applies to one engine must show as
// skipped, with its reason, on the other, never disappear. The counts come from node:test's
// closing summary, written as TAP to a file of their own next to the usual output on stdout.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

const engines = process.argv[2] ? [process.argv[2]] : ['sqlite', 'postgres'];
// Every test file under test/: the machinery's beside its folders, each app's under test/apps/<app>/.
const files = readdirSync('test', { recursive: true })
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => `test/${f}`)
  .sort();
for (const engine of engines) {
  if (engine !== 'sqlite' && engine !== 'postgres') {
    process.stderr.write(`unknown engine ${engine}: expected sqlite or postgres\n`);
    process.exit(2);
  }
}

// The same checks whichever engines run: `test:sqlite` alone is a complete run for a machine without PostgreSQL.
for (const script of [['scripts/test-prerequisites.mjs', ...engines], ['scripts/test-checks.mjs']]) {
  const result = spawnSync(process.execPath, script, { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const SUMMARY_KEYS = ['tests', 'suites', 'pass', 'fail', 'cancelled', 'skipped', 'todo'];

/**
 * The runner's closing summary in a TAP file: its last `# tests N`, `# pass N`, … lines (a test's
 * own output, also written as `# …` lines, always comes before them). Null when there is none (the
 * runner died).
 */
function summaryOf(tapFile) {
  let text;
  try {
    text = readFileSync(tapFile, 'utf8');
  } catch {
    return null;
  }
  const summary = {};
  for (const line of text.split('\n')) {
    const m = /^# (\w+) (\d+)$/.exec(line);
    if (m && SUMMARY_KEYS.includes(m[1])) summary[m[1]] = Number(m[2]);
  }
  return SUMMARY_KEYS.every((key) => key in summary) ? summary : null;
}

/**
 * Runs the suite on one engine: its exit status and the summary of its tests. Its output goes to
 * `out`, a file descriptor: this process's standard output, or a file printed once it is done.
 */
async function runSuite(engine, extraEnv, out) {
  const say = (text) => writeSync(out, text);
  say(`\n# ---- test suite on ${engine} ----\n`);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hackerspace-api-test-summary-'));
  const tapFile = path.join(dir, 'summary.tap');
  const started = Date.now();
  try {
    // The usual reporter (spec on a terminal, TAP otherwise), and TAP to a file for the counts.
    const reporters = [
      `--test-reporter=${process.stdout.isTTY ? 'spec' : 'tap'}`,
      '--test-reporter-destination=stdout',
      '--test-reporter=tap',
      `--test-reporter-destination=${tapFile}`,
    ];
    const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=1', ...reporters, ...files], {
      stdio: ['ignore', out, out],
      env: { ...process.env, TEST_ENGINE: engine, ...extraEnv },
    });
    const exit = await new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
    const summary = summaryOf(tapFile);
    let status = exit.code ?? 1;
    if (summary === null) {
      say(`\n${engine}: the test runner wrote no summary (exit ${exit.code ?? exit.signal}).\n`);
      status ||= 1;
    } else {
      const executed = summary.tests - summary.skipped - summary.todo;
      say(
        `# ${engine} summary: ${summary.tests} tests declared, ${summary.pass} passed, ${summary.skipped} skipped, ` +
          `${summary.fail} failed, ${summary.cancelled} cancelled, ${summary.todo} todo\n`,
      );
      if (executed <= 0) {
        say(`\n${engine}: no test was executed (${summary.tests} declared, ${summary.skipped} skipped).\n`);
        status ||= 1;
      }
    }
    say(`# ${engine} wall time: ${minutes(Date.now() - started)}\n`);
    return { status, summary };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A duration as `12 min 34 s`: each engine's suite says how long it took (apps.md: under 40 minutes both). */
function minutes(ms) {
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

async function withPostgresDatabase(run) {
  const adminUrl = process.env.TEST_POSTGRES_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `hackerspace_test_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5000 });
  try {
    await admin.connect();
  } catch (error) {
    process.stderr.write(
      `PostgreSQL is not reachable at ${adminUrl.replace(/:[^:@/]*@/, ':***@')} (${error.message}).\n` +
        'Start it, or set TEST_POSTGRES_ADMIN_URL, or run only the SQLite suite with `npm run test:sqlite`.\n',
    );
    return { status: 1, summary: null };
  }
  await admin.query(`create database ${name}`);
  try {
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    return await run(url.toString());
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

/** One engine's whole run, its output to `out`. */
function runEngine(engine, out) {
  if (engine === 'sqlite') return runSuite('sqlite', {}, out);
  return withPostgresDatabase((url) => runSuite('postgres', { TEST_POSTGRES_URL: url }, out));
}

// The engines' suites run at the same time (each on its own database, its files one after
// another): on two cores that takes about the longer suite's time, not the sum. The first engine's
// output shows as it comes, the others' from a file each once all are done.
const started = Date.now();
const later = engines.slice(1).map((engine) => ({ engine, file: path.join(mkdtempSync(path.join(os.tmpdir(), 'hackerspace-api-test-output-')), `${engine}.out`) }));
if (later.length > 0) process.stdout.write(`# ${engines.join(' and ')} at once: ${later.map(({ engine }) => engine).join(', ')} printed after ${engines[0]}\n`);
const runs = await Promise.all(
  engines.map(async (engine, i) => {
    if (i === 0) return runEngine(engine, process.stdout.fd);
    const out = openSync(later[i - 1].file, 'w');
    try {
      return await runEngine(engine, out);
    } finally {
      closeSync(out);
    }
  }),
);
for (const { file } of later) {
  process.stdout.write(readFileSync(file));
  rmSync(path.dirname(file), { recursive: true, force: true });
}
let failed = 0;
const declared = new Map();
engines.forEach((engine, i) => {
  if (runs[i].status !== 0) failed++;
  if (runs[i].summary) declared.set(engine, runs[i].summary.tests);
});
if (later.length > 0) process.stdout.write(`# every engine's wall time: ${minutes(Date.now() - started)}\n`);

// Both engines declare the same tests: one that only applies to one engine is skipped on the other.
if (engines.length > 1) {
  const counts = engines.map((engine) => `${engine} ${declared.get(engine) ?? 'no summary'}`).join(', ');
  if (declared.size === engines.length && new Set(declared.values()).size === 1) {
    process.stdout.write(`# engine parity: every engine declares ${declared.get(engines[0])} tests (${counts})\n`);
  } else {
    process.stderr.write(
      `\nThe engines do not declare the same number of tests (${counts}).\n` +
        'A test that only applies to one engine must be declared on both and skipped, with its reason, on the other\n' +
        "(`it(name, postgresOnly('why'), ...)` from test/support/server.ts), not left out.\n",
    );
    failed++;
  }
}
process.exit(failed ? 1 : 0);
