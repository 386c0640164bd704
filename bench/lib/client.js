// The client of instructions.js: a small demo dataset per program, and plain node:http requests
// sent in a fixed way; it measures the server's work per request, not how fast a client can ask.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pgServer, scratchEmpty } from './dataset.js';
import { fail, log, safeUrl } from './log.js';
import { run } from './processes.js';
import { programs as programsOf, serverEnvFactory } from './program.js';

/** Users and openings of each program's demo dataset: small, so that valgrind builds and serves it in minutes. */
export const DEMO = { users: 200, openings: 10000 };

/**
 * What a count needs before its rounds: a work folder under bench/out/ (where the bundles copied
 * there find node_modules), the programs (with --compare, that commit's bundle too), the servers'
 * environment, and each program's demo dataset (its DATABASE_URL by label).
 */
export async function setUp(root, cfg, name) {
  fs.mkdirSync(path.join(root, 'bench', 'out'), { recursive: true });
  const work = fs.mkdtempSync(path.join(root, 'bench', 'out', `${name}-`));
  const programs = await programsOf(root, work, cfg.compare);
  const env = serverEnvFactory(root);
  const databases = {};
  for (const program of programs) databases[program.label] = await demoDataset(program, cfg.db, name, env, work);
  return { work, programs, env, databases };
}

/** A demo dataset built by the program's own CLI (so in its own schema), in `work` (SQLite) or a scratch PostgreSQL database removed at exit; its DATABASE_URL. */
async function demoDataset(program, db, name, env, work) {
  const target = db === 'sqlite' ? path.join(work, `${program.label}.sqlite`) : `${pgServer()}/hackerspace_bench_${name}_${program.label}_${process.pid}`;
  const { dbUrl } = await scratchEmpty(target);
  const args = ['demo', '--users', String(DEMO.users), '--openings', String(DEMO.openings), '--replace'];
  const r = await run(process.execPath, [program.cli, ...args], { env: env({ DATABASE_URL: dbUrl }) });
  if (r.code !== 0) fail(`${program.label}: demo failed: ${r.stderr.trim()}`);
  log(`${program.label}: demo dataset (${DEMO.users} users, ${DEMO.openings} openings) in ${safeUrl(dbUrl)}`);
  return dbUrl;
}

/** GET url; resolves its status once the body has been read. */
const status = (url, agent) => new Promise((resolve, reject) => http.get(url, { agent }, (res) => res.resume().on('end', () => resolve(res.statusCode))).on('error', reject));

/** Sends n GETs over `concurrency` keep-alive connections, each sending its next request when its answer came; any answer but 200 or 304 fails the run. */
export async function sendRequests(url, n, concurrency) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  let left = n;
  const loop = async () => {
    while (left > 0) {
      left--;
      const code = await status(url, agent);
      if (code !== 200 && code !== 304) fail(`GET ${url} answered ${code}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  agent.destroy();
}
