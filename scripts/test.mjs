// Runs the whole test suite once per database engine: SQLite, then PostgreSQL in a database
// created for this run and dropped afterwards, so that runs never see each other's data.
//
//   node scripts/test.mjs [sqlite|postgres]       (default: both)
//
// PostgreSQL is reached through TEST_POSTGRES_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres),
// a role allowed to create databases.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import pg from 'pg';

const engines = process.argv[2] ? [process.argv[2]] : ['sqlite', 'postgres'];
const files = readdirSync('test').filter((f) => f.endsWith('.test.ts')).sort().map((f) => `test/${f}`);

function runSuite(engine, extraEnv = {}) {
  process.stdout.write(`\n# ---- test suite on ${engine} ----\n`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=1', ...files], {
    stdio: 'inherit',
    env: { ...process.env, TEST_ENGINE: engine, ...extraEnv },
  });
  return result.status ?? 1;
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
    return 1;
  }
  await admin.query(`create database ${name}`);
  try {
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    return run(url.toString());
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

let failed = 0;
for (const engine of engines) {
  if (engine === 'sqlite') failed += runSuite('sqlite') === 0 ? 0 : 1;
  else if (engine === 'postgres') failed += (await withPostgresDatabase((url) => runSuite('postgres', { TEST_POSTGRES_URL: url }))) === 0 ? 0 : 1;
  else {
    process.stderr.write(`unknown engine ${engine}: expected sqlite or postgres\n`);
    process.exit(2);
  }
}
process.exit(failed ? 1 : 0);
