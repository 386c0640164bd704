// Small helpers for bench/read.sh, one per subcommand:
//   node bench/util.js free-port                  a TCP port free on 127.0.0.1 right now
//   node bench/util.js db-counts <sqlite file | postgres://…>   row counts as one line of JSON (exit 3
//                                                 if there is no such file or database)
//   node bench/util.js pg-state <postgres://…>    "<database oid> <data version> <server version>" —
//                                                 both change when the database is dropped and
//                                                 created again, or any row the API reads is written
//                                                 (the data version: the table_versions the service's
//                                                 triggers bump, or the older single data_version)
//                                                 (exit 3 if there is no such database)
//   node bench/util.js pg-clone-db <postgres://…/template> <postgres://…/new>   creates the second
//                                                 URL's database as a copy of the first (CREATE
//                                                 DATABASE … TEMPLATE; nobody may be connected to the
//                                                 template); fails if it exists
//   node bench/util.js pg-drop-db <postgres://…>  drops the URL's database if it exists (closing any
//                                                 session still on it)
//   node bench/util.js page-info <body.json>      "<count> <results on the page>" of a saved page
//   node bench/util.js pg-create-db <postgres://…>  creates the URL's database if it does not exist
//                                                 (connecting to the server's `postgres` database);
//                                                 prints "created" or "exists"
//   node bench/util.js pg-vacuum <postgres://…>   VACUUM FULL, then VACUUM (FREEZE, ANALYZE) of the
//                                                 whole database
//   node bench/util.js pg-describe <postgres://…> one line for the report: server version, size of
//                                                 the database, shared_buffers
//   node bench/util.js prof-top <file.cpuprofile>...   where the CPU time went (self time; top 25,
//                                                       or PROF_TOP=N)
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { withMaintenance } from './pg-maintenance.js';

const [command, ...args] = process.argv.slice(2);

const TABLES = ['users', 'openings', 'projects', 'events', 'meetings', 'project_participants', 'meeting_members'];

async function freePort() {
  const server = net.createServer();
  await new Promise((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  console.log(port);
}

async function dbCounts(file) {
  if (/^postgres(ql)?:\/\//i.test(file ?? '')) return pgCounts(file);
  if (!file || !fs.existsSync(file)) {
    process.stderr.write(`no database at ${file}\n`);
    process.exit(3);
  }
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const counts = {};
    for (const table of TABLES) counts[table] = db.prepare(`select count(*) as n from "${table}"`).get().n;
    console.log(JSON.stringify(counts));
  } finally {
    db.close();
  }
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL (through the service's own driver, so that psql need not be installed)

const MISSING_DATABASE = '3D000';

/** Runs fn with a connected client of the URL's database; exit 3 when that database does not exist. */
async function withPg(url, fn) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
  } catch (error) {
    if (error?.code === MISSING_DATABASE) {
      process.stderr.write(`no database ${new URL(url).pathname.slice(1)} on that server\n`);
      process.exit(3);
    }
    throw error;
  }
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function pgCounts(url) {
  await withPg(url, async (client) => {
    const counts = {};
    for (const table of TABLES) {
      const { rows } = await client.query(`select count(*)::int as n from "${table}"`);
      counts[table] = rows[0].n;
    }
    console.log(JSON.stringify(counts));
  });
}

async function pgState(url) {
  await withPg(url, async (client) => {
    const { rows } = await client.query(
      `select (select oid from pg_database where datname = current_database())::text as oid,
              to_regclass('table_versions')::text as table_versions,
              to_regclass('data_version')::text as data_version,
              current_setting('server_version') as server`,
    );
    const { oid, server } = rows[0];
    // Since migration 0005 every write to a table the API reads bumps that table's row of
    // table_versions; before it, a single data_version.
    let version = 'none';
    if (rows[0].table_versions) {
      const { rows: v } = await client.query(
        `select string_agg(name || ':' || version::text || '@' || changed_us::text, ',' order by name) as v from table_versions`,
      );
      version = `tv(${v[0].v ?? ''})`;
    } else if (rows[0].data_version) {
      const { rows: v } = await client.query('select version::text as v from data_version');
      version = `dv${v[0]?.v ?? ''}`;
    }
    console.log(`${oid} ${version} ${server.split(' ')[0]}`);
  });
}

async function pgCloneDb(templateUrl, url) {
  const template = decodeURIComponent(new URL(templateUrl).pathname.slice(1));
  await withMaintenance(url, async (client, name) => {
    const { rows } = await client.query(`select current_setting('server_version_num')::int as v`);
    // FILE_COPY (PostgreSQL 15+) copies the files after a checkpoint instead of writing every
    // block to the WAL: seconds instead of a minute for the benchmark's million openings.
    const strategy = rows[0].v >= 150000 ? ' strategy = file_copy' : '';
    await client.query(`create database ${name} template ${client.escapeIdentifier(template)}${strategy}`);
  });
}

async function pgDropDb(url) {
  await withMaintenance(url, (client, name) => client.query(`drop database if exists ${name} with (force)`));
}

function pageInfo(file) {
  const page = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (!Number.isInteger(page.count) || !Array.isArray(page.results)) throw new Error(`${file}: not a page (no count and results)`);
  console.log(`${page.count} ${page.results.length}`);
}

async function pgCreateDb(url) {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  await withMaintenance(url, async (client, quoted) => {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (rowCount) {
      console.log('exists');
      return;
    }
    await client.query(`create database ${quoted}`);
    console.log('created');
  });
}

async function pgVacuum(url) {
  await withPg(url, async (client) => {
    // FULL drops the dead tuples a --replace leaves, but sets no visibility map (every
    // index-only scan would still visit the table); the second pass sets it, freezes, analyzes.
    await client.query('vacuum full');
    await client.query('vacuum (freeze, analyze)');
  });
}

async function pgDescribe(url) {
  await withPg(url, async (client) => {
    const { rows } = await client.query(
      `select current_setting('server_version') as server,
              pg_size_pretty(pg_database_size(current_database())) as size,
              current_setting('shared_buffers') as shared_buffers`,
    );
    const { server, size, shared_buffers } = rows[0];
    console.log(`PostgreSQL ${server.split(' ')[0]}, database of ${size}, shared_buffers ${shared_buffers}`);
  });
}

// ---------------------------------------------------------------------------------------------

/** Self time per function and per "place" (a package in node_modules, a src/ file, node internals). */
function profTop(file, n = Number(process.env.PROF_TOP) || 25) {
  console.log(`${path.basename(file)}:`);
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  const deltas = profile.timeDeltas;
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    self.set(id, (self.get(id) ?? 0) + (deltas[i] ?? 0));
  }
  let total = 0;
  const perFunction = new Map();
  const perPlace = new Map();
  for (const [id, us] of self) {
    const { callFrame } = byId.get(id);
    const name = callFrame.functionName || '(anonymous)';
    if (name === '(idle)') continue;
    total += us;
    const place = placeOf(callFrame.url, name);
    const key = `${name}  ${shortUrl(callFrame.url)}${callFrame.url ? `:${callFrame.lineNumber + 1}` : ''}`;
    perFunction.set(key, (perFunction.get(key) ?? 0) + us);
    perPlace.set(place, (perPlace.get(place) ?? 0) + us);
  }
  const print = (title, map, limit) => {
    console.log(`${title} (busy CPU ${(total / 1000).toFixed(0)} ms):`);
    for (const [key, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, limit)) {
      console.log(`  ${((100 * us) / total).toFixed(1).padStart(5)}%  ${key}`);
    }
  };
  print('self time by place', perPlace, 15);
  print('self time by function', perFunction, n);
  console.log();
}

function shortUrl(url) {
  if (!url) return '';
  const m = /node_modules\/(.*)$/.exec(url);
  if (m) return m[1];
  return url.startsWith('file://') ? path.relative(process.cwd(), new URL(url).pathname) : url;
}

function placeOf(url, name) {
  if (!url) return name.startsWith('(') ? name : '(native / V8 builtins)';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return `node_modules/${m[1]}`;
  if (url.startsWith('node:')) return 'node internals';
  return shortUrl(url);
}

switch (command) {
  case 'free-port': await freePort(); break;
  case 'db-counts': await dbCounts(args[0]); break;
  case 'pg-state': await pgState(args[0]); break;
  case 'pg-create-db': await pgCreateDb(args[0]); break;
  case 'pg-clone-db': await pgCloneDb(args[0], args[1]); break;
  case 'pg-drop-db': await pgDropDb(args[0]); break;
  case 'page-info': pageInfo(args[0]); break;
  case 'pg-vacuum': await pgVacuum(args[0]); break;
  case 'pg-describe': await pgDescribe(args[0]); break;
  case 'prof-top': for (const file of args) profTop(file); break;
  default:
    process.stderr.write('usage: node bench/util.js free-port | db-counts <file | url> | pg-state <url> | pg-create-db <url> | pg-clone-db <template-url> <url> | pg-drop-db <url> | pg-vacuum <url> | pg-describe <url> | page-info <file> | prof-top <file.cpuprofile>...\n');
    process.exit(2);
}
