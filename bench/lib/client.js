// The client of the per-request counts (instructions.js, gc.js): a small demo dataset per
// program, and plain node:http requests sent in a fixed way. Not a load generator (that is wrk's
// job in the timed benchmarks): what these scripts measure is the server's work per request,
// which does not depend on how fast the client asks.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pgServer, scratchEmpty } from './dataset.js';
import { fail, log, safeUrl } from './log.js';
import { engineName } from './options.js';
import { run } from './processes.js';
import { programs as programsOf, serverEnvFactory } from './program.js';
import { num } from './stats.js';
import { shuffled } from './wrk.js';

/**
 * The options of a per-request count (parseOptions' spec), the same in every script that uses this
 * client; `concurrency` and `requests` are the script's own defaults.
 */
export const clientOptions = ({ concurrency, requests }) => ({
  compare: { type: 'string', help: 'git ref: also measure the bundle of that commit ("before")' },
  db: { type: 'string', default: 'sqlite', choices: ['sqlite', 'postgres'], help: 'sqlite or postgres' },
  path: { type: 'string', default: '/api/users/', help: 'the URL path (and query) asked' },
  header: { type: 'string', multiple: true, help: "a request header, 'Name: value' (repeatable)" },
  'cache-off': { type: 'boolean', default: false, help: 'serve with RESPONSE_CACHE_MB=0 (every request builds its page)' },
  'time-zone': { type: 'string', help: 'serve with TIME_ZONE set to this IANA zone (default: none, so UTC)' },
  concurrency: { type: 'string', default: concurrency, integer: [1, 256], help: 'keep-alive connections kept busy' },
  warmup: { type: 'string', default: 20000, integer: [1, 10_000_000], help: 'requests before counting' },
  requests: { type: 'string', default: requests, integer: [1, 10_000_000], help: 'requests counted' },
  rounds: { type: 'string', default: 3, integer: [3, 50], help: 'rounds per program' },
  openings: { type: 'string', default: 10000, integer: [1, 10_000_000], help: 'openings in the demo dataset' },
  walk: { type: 'string', default: 0, integer: [0, 1_000_000], help: 'pages of --path asked once each before the warm-up' },
});

/**
 * What a count needs before its rounds: a work folder under bench/out/ (where the bundles copied
 * there find node_modules), the programs (with --compare, that commit's bundle too), the servers'
 * environment, the request headers, and each program's demo dataset (its DATABASE_URL by label).
 */
export async function setUp(root, cfg, name) {
  if (cfg.walk > 0 && cfg.path.includes('?')) fail('--walk appends ?page=k to --path: give a path without a query');
  fs.mkdirSync(path.join(root, 'bench', 'out'), { recursive: true });
  const work = fs.mkdtempSync(path.join(root, 'bench', 'out', `${name}-`));
  const programs = await programsOf(root, work, cfg.compare);
  const env = serverEnvFactory(root);
  const headers = Object.fromEntries((cfg.header ?? []).map(headerPair));
  const databases = {};
  for (const program of programs) databases[program.label] = await demoDataset(program, { ...cfg, name }, env, work);
  return { work, programs, env, headers, databases };
}

/** The server's settings from the options (its environment beyond the database and port), and the same in words. */
export function serverSettings(cfg) {
  const env = {};
  if (cfg['cache-off']) env.RESPONSE_CACHE_MB = '0';
  if (cfg['time-zone']) env.TIME_ZONE = cfg['time-zone'];
  return {
    env,
    text: Object.entries(env)
      .map(([name, value]) => `${name}=${value}, `)
      .join(''),
  };
}

/** The requests counted, in words, for the report: `GET /api/users/ with …, 32 connection(s), SQLite, 10000 openings`. */
export function describeRequests(cfg) {
  const headers = cfg.header?.length ? ` with ${cfg.header.join(', ')}` : '';
  const walked = cfg.walk > 0 ? `, after pages 1–${cfg.walk} of it were each asked once` : '';
  return `${serverSettings(cfg).text}GET ${cfg.path}${headers}, ${cfg.concurrency} connection(s), ${engineName(cfg.db)}, ${cfg.openings} openings${walked}`;
}

/** 'Name: value' → [name in lower case, value]; fails on anything else. */
function headerPair(text) {
  const colon = text.indexOf(':');
  if (colon <= 0) fail(`--header expects 'Name: value', got '${text}'`);
  return [text.slice(0, colon).trim().toLowerCase(), text.slice(colon + 1).trim()];
}

/**
 * A demo dataset (200 users, `openings` openings) built by the program's own CLI, so in its own
 * schema, in `work` (SQLite) or a scratch PostgreSQL database removed at exit; its DATABASE_URL.
 */
async function demoDataset(program, { db, openings, name }, env, work) {
  const target = db === 'sqlite' ? path.join(work, `${program.label}.sqlite`) : `${pgServer()}/hackerspace_bench_${name}_${program.label}_${process.pid}`;
  const { dbUrl } = await scratchEmpty(target);
  const r = await run(process.execPath, [program.cli, 'demo', '--users', '200', '--openings', String(openings), '--replace'], { env: env({ DATABASE_URL: dbUrl }) });
  if (r.code !== 0) fail(`${program.label}: demo failed: ${r.stderr.trim()}`);
  log(`${program.label}: demo dataset (200 users, ${num(openings)} openings) in ${safeUrl(dbUrl)}`);
  return dbUrl;
}

/** GET url; resolves its status once the body has been read. */
const status = (url, agent, headers) =>
  new Promise((resolve, reject) => http.get(url, { agent, headers }, (res) => res.resume().on('end', () => resolve(res.statusCode))).on('error', reject));

/** Pages 1 to n in a random order fixed by a seed: the same order for every program and round. */
export const walkOrder = (n) =>
  shuffled(
    Array.from({ length: n }, (_, i) => i + 1),
    1,
  );

/** Asks each page of `pages` of `url` (`?page=k`) once, in that order, over one connection. */
export async function walkPages(url, headers, pages) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  log(`walking ${pages.length} pages of ${url}`);
  for (const page of pages) {
    const code = await status(`${url}?page=${page}`, agent, headers);
    if (code !== 200) fail(`GET ${url}?page=${page} answered ${code}`);
  }
  agent.destroy();
}

/** Sends n GETs over `concurrency` keep-alive connections, each sending its next request when its answer came; any answer but 200 or 304 fails the run. */
export async function sendRequests(url, headers, n, concurrency) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  let left = n;
  const loop = async () => {
    while (left > 0) {
      left--;
      const code = await status(url, agent, headers);
      if (code !== 200 && code !== 304) fail(`GET ${url} answered ${code}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  agent.destroy();
}
