// Small helpers for bench/read.sh, one per subcommand:
//   node bench/util.js free-port                  a TCP port free on 127.0.0.1 right now
//   node bench/util.js db-counts <sqlite file>    row counts as one line of JSON (exit 3 if no such file)
//   node bench/util.js prof-top <file.cpuprofile>...   where the CPU time went (self time; top 25,
//                                                       or PROF_TOP=N)
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

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
  case 'prof-top': for (const file of args) profTop(file); break;
  default:
    process.stderr.write('usage: node bench/util.js free-port | db-counts <file> | prof-top <file.cpuprofile>...\n');
    process.exit(2);
}
