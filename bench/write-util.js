// Small helpers for bench/write.sh, one per subcommand (<db> is a SQLite file or a postgres:// URL;
// the drivers are the service's own, so neither sqlite3 nor psql need be installed):
//   node bench/write-util.js stat <db>       "<rows> <max id> <latest is_open>" of the openings, the
//                                            latest by (time_us, id) as the API orders them
//                                            ("none" when there is none)
//   node bench/write-util.js history <db> [min-id]   the door's rule over the whole history: one
//                                            line of JSON {rows, repeats, examples}, where repeats
//                                            counts openings whose state equals the one just before
//                                            them in (time_us, id) order (must be 0), and examples
//                                            shows the first few (with the row before), preferring
//                                            those with id > min-id
//   node bench/write-util.js pg-new-db <postgres://…>   creates the URL's database, failing if it
//                                            exists (connecting to the server's `postgres` database)
import fs from 'node:fs';
import { withMaintenance } from './pg-maintenance.js';

const [command, ...args] = process.argv.slice(2);

const isPg = (db) => /^postgres(ql)?:\/\//i.test(db ?? '');

/** Runs `sql` (no parameters) and returns its rows, on either engine. */
async function query(db, statements) {
  if (isPg(db)) {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: db });
    await client.connect();
    try {
      const results = [];
      for (const statement of statements) results.push((await client.query(statement)).rows);
      return results;
    } finally {
      await client.end();
    }
  }
  if (!db || !fs.existsSync(db)) {
    process.stderr.write(`no database at ${db}\n`);
    process.exit(3);
  }
  const { default: Database } = await import('better-sqlite3');
  const sqlite = new Database(db, { readonly: true, fileMustExist: true });
  try {
    return statements.map((statement) => sqlite.prepare(statement).all());
  } finally {
    sqlite.close();
  }
}

async function stat(db) {
  const [[counts], latest] = await query(db, [
    'select count(*) as n, coalesce(max(id), 0) as max_id from openings',
    'select is_open from openings order by time_us desc, id desc limit 1',
  ]);
  const state = latest.length === 0 ? 'none' : Number(latest[0].is_open) === 1 ? 'true' : 'false';
  console.log(`${Number(counts.n)} ${Number(counts.max_id)} ${state}`);
}

async function history(db, minId = 0) {
  const ordered = `select id, time_us, is_open,
      lag(id) over (order by time_us, id) as prev_id,
      lag(time_us) over (order by time_us, id) as prev_time_us,
      lag(is_open) over (order by time_us, id) as prev_is_open
    from openings`;
  const [[summary], examples] = await query(db, [
    `select count(*) as n_rows, coalesce(sum(case when is_open = prev_is_open then 1 else 0 end), 0) as repeats from (${ordered}) h`,
    `select * from (${ordered}) h where is_open = prev_is_open order by (case when id > ${Number(minId)} then 0 else 1 end), time_us, id limit 5`,
  ]);
  console.log(JSON.stringify({
    rows: Number(summary.n_rows),
    repeats: Number(summary.repeats),
    examples: examples.map((r) => ({
      id: Number(r.id), time_us: Number(r.time_us), is_open: Number(r.is_open) === 1,
      previous: { id: Number(r.prev_id), time_us: Number(r.prev_time_us), is_open: Number(r.prev_is_open) === 1 },
    })),
  }));
}

switch (command) {
  case 'stat': await stat(args[0]); break;
  case 'history': await history(args[0], args[1]); break;
  case 'pg-new-db': await withMaintenance(args[0], (client, name) => client.query(`create database ${name}`)); break;
  default:
    process.stderr.write('usage: node bench/write-util.js stat <db> | history <db> [min-id] | pg-new-db <url>\n');
    process.exit(2);
}
