// The benchmark datasets: built with the CLI's `demo` command, cached in bench/out/ between runs
// (a SQLite file, or a PostgreSQL database with a marker file), and scratch copies of them for
// the runs that write. Also the few queries the drivers make themselves, through the service's
// own drivers (so that neither sqlite3 nor psql need be installed).
import fs from 'node:fs';
import path from 'node:path';
import { fail, log, safeUrl } from './log.js';
import { envInteger } from './options.js';
import { atExit, run } from './processes.js';
import { gitRev } from './machine.js';

export const isPg = (db) => /^postgres(ql)?:\/\//i.test(db ?? '');
export const dbUrlOf = (db) => (isPg(db) ? db : `sqlite:${db}`);
const TABLES = ['users', 'openings', 'projects', 'events', 'meetings', 'project_participants', 'meeting_members'];

/** The read benchmark's sizes (BENCH_USERS… override them). */
export function datasetSizes() {
  return {
    users: envInteger('BENCH_USERS', 2000),
    openings: envInteger('BENCH_OPENINGS', 1_000_000, 1),
    projects: envInteger('BENCH_PROJECTS', 200),
    events: envInteger('BENCH_EVENTS', 500),
    meetings: envInteger('BENCH_MEETINGS', 300),
  };
}
export const demoArgs = (s) => ['--users', s.users, '--openings', s.openings, '--projects', s.projects, '--events', s.events, '--meetings', s.meetings, '--replace'].map(String);

// ---------------------------------------------------------------------------------------------
// PostgreSQL

const MISSING_DATABASE = '3D000';

/** Runs fn(client) with a client of the URL's database; null when that database does not exist (with missingOk). */
export async function withPg(url, fn, missingOk = false) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
  } catch (error) {
    if (missingOk && error?.code === MISSING_DATABASE) return null;
    throw error;
  }
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Runs fn(client, quotedName) with a client of the server's `postgres` database (create, clone, drop). */
export async function withMaintenance(url, fn) {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  if (!name) throw new Error('the URL names no database');
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  return withPg(maintenance.href, (client) => fn(client, client.escapeIdentifier(name), name));
}

export const pgCreateDb = (url) =>
  withMaintenance(url, async (client, quoted, name) => {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (rowCount) return 'exists';
    await client.query(`create database ${quoted}`);
    return 'created';
  });

export const pgNewDb = (url) => withMaintenance(url, (client, quoted) => client.query(`create database ${quoted}`));

/** Creates url's database as a copy of templateUrl's (nobody may be connected to the template). */
export const pgCloneDb = (templateUrl, url) =>
  withMaintenance(url, async (client, quoted) => {
    const template = decodeURIComponent(new URL(templateUrl).pathname.slice(1));
    const { rows } = await client.query(`select current_setting('server_version_num')::int as v`);
    // FILE_COPY (PostgreSQL 15+) copies the files after a checkpoint instead of writing every
    // block to the WAL: seconds instead of a minute for a million openings.
    const strategy = rows[0].v >= 150000 ? ' strategy = file_copy' : '';
    await client.query(`create database ${quoted} template ${client.escapeIdentifier(template)}${strategy}`);
  });

export const pgDropDb = (url) => withMaintenance(url, (client, quoted) => client.query(`drop database if exists ${quoted} with (force)`));

/** VACUUM FULL drops the dead tuples a --replace leaves; the second pass sets the visibility map, freezes, analyzes. */
export const pgVacuum = (url) =>
  withPg(url, async (client) => {
    await client.query('vacuum full');
    await client.query('vacuum (freeze, analyze)');
  });

export const pgDescribe = (url) =>
  withPg(url, async (client) => {
    const { rows } = await client.query(
      `select current_setting('server_version') as server, pg_size_pretty(pg_database_size(current_database())) as size,
              current_setting('shared_buffers') as shared_buffers`,
    );
    const { server, size, shared_buffers: buffers } = rows[0];
    return `PostgreSQL ${server.split(' ')[0]}, database of ${size}, shared_buffers ${buffers}`;
  });

/** "<database oid> <data version> <server version>": changes when the database is created again or written. */
export const pgState = (url) =>
  withPg(
    url,
    async (client) => {
      const { rows } = await client.query(
        `select (select oid from pg_database where datname = current_database())::text as oid,
                to_regclass('table_versions')::text as tv, current_setting('server_version') as server`,
      );
      let version = 'none';
      if (rows[0].tv) {
        const { rows: v } = await client.query(`select string_agg(name || ':' || version::text || '@' || changed_us::text, ',' order by name) as v from table_versions`);
        version = `tv(${v[0].v ?? ''})`;
      }
      return `${rows[0].oid} ${version} ${rows[0].server.split(' ')[0]}`;
    },
    true,
  );

// ---------------------------------------------------------------------------------------------
// Queries on either engine

/** Runs read-only statements (no parameters) and returns their rows; null when the database does not exist. */
export async function query(db, statements) {
  if (isPg(db)) {
    return withPg(
      db,
      async (client) => {
        const results = [];
        for (const statement of statements) results.push((await client.query(statement)).rows);
        return results;
      },
      true,
    );
  }
  if (!fs.existsSync(db)) return null;
  const { default: Database } = await import('better-sqlite3');
  const sqlite = new Database(db, { readonly: true, fileMustExist: true });
  try {
    return statements.map((s) => sqlite.prepare(s).all());
  } finally {
    sqlite.close();
  }
}

/** Row counts of the tables the API reads, as one JSON line; null when there is no such database. */
export async function counts(db) {
  const results = await query(
    db,
    TABLES.map((t) => `select count(*) as n from "${t}"`),
  );
  return results && JSON.stringify(Object.fromEntries(TABLES.map((t, i) => [t, Number(results[i][0].n)])));
}

/** { rows, maxId, latest: true | false | null } of the openings, the latest by (time_us, id) as the API orders them. */
export async function openingsStat(db) {
  const [[c], latest] = await query(db, [
    'select count(*) as n, coalesce(max(id), 0) as max_id from openings',
    'select is_open from openings order by time_us desc, id desc limit 1',
  ]);
  return { rows: Number(c.n), maxId: Number(c.max_id), latest: latest.length ? Number(latest[0].is_open) === 1 : null };
}

/** The door's rule over the whole history: openings whose state repeats the one before, in (time_us, id) order. */
export async function historyRepeats(db, minId = 0) {
  const ordered = `select id, time_us, is_open, lag(id) over (order by time_us, id) as prev_id,
      lag(is_open) over (order by time_us, id) as prev_is_open from openings`;
  const [[s], examples] = await query(db, [
    `select count(*) as n, coalesce(sum(case when is_open = prev_is_open then 1 else 0 end), 0) as repeats from (${ordered}) h`,
    `select id, prev_id from (${ordered}) h where is_open = prev_is_open order by (case when id > ${Number(minId)} then 0 else 1 end), time_us, id limit 5`,
  ]);
  return { rows: Number(s.n), repeats: Number(s.repeats), examples: examples.map((r) => `${r.prev_id}→${r.id}`) };
}

// ---------------------------------------------------------------------------------------------
// The cached dataset of the read benchmark (also copied by the write benchmark)

const PG_PREPARED = 'vacuum-full+vacuum-freeze-analyze';
const DEFAULT_PG_URL = 'postgres://postgres@127.0.0.1:5432/hackerspace_bench';

/** Where a dataset of these sizes lives on an engine, and its marker file. */
export function cachedLocation(out, engine, sizes) {
  if (engine === 'sqlite') {
    const db = path.join(out, `read-u${sizes.users}-o${sizes.openings}-p${sizes.projects}-e${sizes.events}-m${sizes.meetings}.sqlite`);
    return { engine, db, meta: `${db}.meta` };
  }
  const db = process.env.BENCH_POSTGRES_URL || DEFAULT_PG_URL;
  if (!/^postgres(ql)?:\/\/[^/]+\/[^/?]+$/.test(db)) fail(`BENCH_POSTGRES_URL must look like postgres://user@host:port/database, got '${safeUrl(db)}'`);
  const slug = db.replace(/^[a-z]+:\/\/([^@/]*@)?/, '').replace(/[^A-Za-z0-9_.-]+/g, '-');
  return { engine, db, meta: path.join(out, `read-postgres-${slug}.meta`) };
}

function readMeta(file) {
  if (!fs.existsSync(file)) return {};
  return Object.fromEntries(
    fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

/**
 * The cached dataset is up to date: its marker records these demo arguments and the rows it has
 * now, and (PostgreSQL) the database's oid and data version are the ones it had when built (any
 * write, or a drop and create, means a rebuild).
 */
export async function cachedIsCurrent(location, sizes) {
  const meta = readMeta(location.meta);
  if (meta.args !== demoArgs(sizes).join(' ')) return false;
  if (location.engine === 'sqlite' && !fs.existsSync(location.db)) return false;
  if (location.engine === 'postgres' && (meta.prepared !== PG_PREPARED || (await pgState(location.db)) !== meta.state)) return false;
  return (await counts(location.db).catch(() => null)) === meta.counts;
}

/**
 * The read benchmark's dataset: reused when current (mode 'auto'), as it is ('keep'), or built
 * again ('rebuild'). Built by `program` (the working tree's bundle). Returns
 * { ...location, dbUrl, counts, note }.
 */
export async function readDataset({ out, engine, sizes, mode, program, env, work }) {
  const location = cachedLocation(out, engine, sizes);
  const dbUrl = dbUrlOf(location.db);
  const meta = readMeta(location.meta);
  const built = () => `built in ${meta.build_s} s${meta.vacuum_s ? ` + VACUUM ${meta.vacuum_s} s` : ''} on ${meta.built_at}`;
  if (mode === 'keep') {
    const c = await counts(location.db);
    if (!c) fail(`--keep-db: there is no cached database at ${safeUrl(location.db)}; run without --keep-db to build it`);
    return { ...location, dbUrl, counts: c, note: `reused as is (--keep-db)${meta.build_s ? `; ${built()}` : ''}` };
  }
  if (mode === 'auto' && (await cachedIsCurrent(location, sizes))) {
    log(`reusing the cached dataset: ${meta.counts}`);
    return { ...location, dbUrl, counts: meta.counts, note: `reused the cached dataset (${built()}; --rebuild to time a new build)` };
  }
  fs.rmSync(location.meta, { force: true });
  if (engine === 'sqlite') for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(location.db + suffix, { force: true });
  else log(`PostgreSQL database ${safeUrl(location.db)}: ${await pgCreateDb(location.db)}`);
  const args = demoArgs(sizes);
  log(`building the dataset: hackerspace-api demo ${args.join(' ')}`);
  let t0 = performance.now();
  const demo = await run(process.execPath, [program.cli, 'demo', ...args], { env: env({ DATABASE_URL: dbUrl }), logFile: path.join(work, 'demo.log') });
  if (demo.code !== 0) fail(`the demo command failed (exit ${demo.code}; see ${path.join(work, 'demo.log')})`);
  const buildS = ((performance.now() - t0) / 1000).toFixed(1);
  const c = await counts(location.db);
  const got = JSON.parse(c);
  if (got.users !== sizes.users || got.openings !== sizes.openings) fail(`demo built the wrong number of users or openings; expected ${sizes.users} and ${sizes.openings} (${c})`);
  let vacuumS = '';
  let state = '';
  if (engine === 'postgres') {
    // A bulk load leaves no statistics and no visibility map until autovacuum comes by: measure
    // a settled database instead (without the visibility map an index-only scan visits the table).
    log('VACUUM FULL, then VACUUM (FREEZE, ANALYZE) of the database');
    t0 = performance.now();
    await pgVacuum(location.db);
    vacuumS = ((performance.now() - t0) / 1000).toFixed(1);
    state = await pgState(location.db);
  }
  const lines = {
    args: args.join(' '),
    counts: c,
    build_s: buildS,
    vacuum_s: vacuumS,
    state,
    url: safeUrl(location.db),
    built_at: new Date().toISOString().slice(0, 19) + 'Z',
    commit: gitRev(path.dirname(out)),
  };
  if (engine === 'postgres') lines.prepared = PG_PREPARED;
  fs.writeFileSync(
    location.meta,
    Object.entries(lines)
      .map(([k, v]) => `${k}=${v}\n`)
      .join(''),
  );
  log(`dataset built in ${buildS} s${vacuumS ? `, vacuumed in ${vacuumS} s` : ''}: ${c}`);
  return { ...location, dbUrl, counts: c, note: `built in ${buildS} s${vacuumS ? `, then vacuumed in ${vacuumS} s` : ''} (this run)` };
}

/**
 * A scratch copy of a database, removed (or, with keep, named) at the end of the run: a copy of
 * the SQLite file (with its WAL), or a PostgreSQL database created from it as template (nobody may
 * be connected to the template then). Returns { db, dbUrl, seconds, drop() }.
 */
export async function scratchCopy(source, target, { keep = false } = {}) {
  const t0 = performance.now();
  if (isPg(source)) await pgCloneDb(source, target);
  else {
    fs.copyFileSync(source, target);
    if (fs.existsSync(`${source}-wal`)) fs.copyFileSync(`${source}-wal`, `${target}-wal`);
  }
  const seconds = (performance.now() - t0) / 1000;
  let dropped = false;
  const drop = async () => {
    if (dropped) return;
    dropped = true;
    if (keep) return log(`kept the scratch database ${safeUrl(target)} (--keep-db)`);
    await dropScratch(target);
  };
  atExit(drop);
  return { db: target, dbUrl: dbUrlOf(target), seconds, drop };
}

/**
 * A program's own copy of the dataset, settled: copied, migrated by that program to its schema,
 * then compacted the way the dataset was (PostgreSQL: VACUUM FULL, then VACUUM (FREEZE,
 * ANALYZE); SQLite: VACUUM). A program whose schema is newer than the builder's rewrites tables
 * as it migrates (dead rows on PostgreSQL, free pages on SQLite) that the builder's own copy does
 * not have: settled, both programs read databases in the same state. Returns scratchCopy's object.
 */
export async function settledCopy(program, env, source, target) {
  const copy = await scratchCopy(source, target);
  const migrated = await run(process.execPath, [program.cli, 'migrate'], { env: env({ DATABASE_URL: copy.dbUrl }) });
  if (migrated.code !== 0)
    fail(`${program.label}: migrate on its copy failed (exit ${migrated.code}): ${(migrated.stderr || migrated.stdout).trim().split('\n').slice(-5).join('\n')}`);
  if (isPg(target)) await pgVacuum(target);
  else {
    const { default: Database } = await import('better-sqlite3');
    const sqlite = new Database(target, { fileMustExist: true });
    try {
      sqlite.exec('vacuum');
      sqlite.pragma('wal_checkpoint(truncate)');
    } finally {
      sqlite.close();
    }
  }
  return copy;
}

/** Removes a scratch SQLite file (with its -wal, -shm, -journal) or drops a scratch PostgreSQL database. */
export async function dropScratch(db) {
  if (isPg(db)) {
    try {
      await pgDropDb(db);
    } catch (error) {
      log(`WARNING: could not drop the scratch database ${safeUrl(db)}: ${error.message}`);
    }
  } else for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(db + suffix, { force: true });
}

/** A scratch database that starts empty (PostgreSQL: created here; SQLite: a new file), dropped at the end. */
export async function scratchEmpty(target, { keep = false } = {}) {
  if (isPg(target)) await pgNewDb(target);
  atExit(async () => (keep ? log(`kept the scratch database ${safeUrl(target)} (--keep-db)`) : dropScratch(target)));
  return { db: target, dbUrl: dbUrlOf(target) };
}

/** The server part of a PostgreSQL URL for scratch databases (BENCH_POSTGRES_SERVER). */
export function pgServer() {
  const server = (process.env.BENCH_POSTGRES_SERVER || 'postgres://postgres@127.0.0.1:5432').replace(/\/$/, '');
  if (!/^postgres(ql)?:\/\/[^/]+$/.test(server)) fail(`BENCH_POSTGRES_SERVER must look like postgres://user@host:port (no database), got '${safeUrl(server)}'`);
  return server;
}
