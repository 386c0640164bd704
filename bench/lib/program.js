// The program under test: the bundle dist/hackerspace-api.mjs, copied when the run starts (so
// that a new build during the run changes nothing), and with --compare <git-ref> the bundle of
// that commit too, built in a temporary git worktree.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fail, log } from './log.js';
import { atExit, run, runOk } from './processes.js';
import { gitRev } from './machine.js';

const sha = (file) => execFileSync('sha256sum', [file], { encoding: 'utf8' }).slice(0, 12);

function newestUnder(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, fs.statSync(path.join(entry.parentPath ?? entry.path, entry.name)).mtimeMs);
  }
  return newest;
}

/**
 * The working tree's bundle: built first (`node scripts/build.mjs`, what `npm start` does) when
 * it is missing or older than a file under src/, then copied into the run's directory (under the
 * repository, so that node_modules is found) under a name that no `pkill -f dist/…` aimed at a
 * developer's server would match. Returns { label, cli, rev, description }.
 */
export async function currentProgram(root, work, label = 'after') {
  const bundle = path.join(root, 'dist/hackerspace-api.mjs');
  if (!fs.existsSync(bundle) || fs.statSync(bundle).mtimeMs < newestUnder(path.join(root, 'src'))) {
    log('dist/hackerspace-api.mjs is missing or older than src/: building it (node scripts/build.mjs)');
    await runOk(process.execPath, ['scripts/build.mjs'], 'the build', { cwd: root });
  }
  const cli = copyBundle(bundle, work, label);
  const rev = gitRev(root);
  return { label, cli, rev, description: `the working tree's dist/hackerspace-api.mjs at ${rev} (copy ${sha(cli)})` };
}

/**
 * Copies a bundle into `work/bench-<label>/` (under the repository, so that node_modules is
 * found), with the `assets/`, `chunks/` and `locale/` folders the build writes beside it when there are: since the web
 * face (src/web/assets.ts) the bundle reads its stylesheet and script from there (on first use), and
 * since the languages (src/i18n/catalogue.ts) its catalogues at start (without them `serve` fails with
 * ENOENT on locale/). One folder per program, so that before and after each find their own. Returns the copy.
 */
function copyBundle(bundle, work, label) {
  const dir = path.join(work, `bench-${label}`);
  fs.mkdirSync(dir, { recursive: true });
  const cli = path.join(dir, `bench-cli-${label}.mjs`);
  fs.copyFileSync(bundle, cli);
  // The assets, the chunks the bundle imports on demand (dist/chunks/, since the build splits them
  // off) and the catalogues it reads at start (dist/locale/, dist/drf-locale/).
  for (const folder of ['assets', 'chunks', 'locale', 'drf-locale']) {
    const from = path.join(path.dirname(bundle), folder);
    if (fs.existsSync(from)) fs.cpSync(from, path.join(dir, folder), { recursive: true });
  }
  return cli;
}

/** The lockfile's packages that are not dev-only, and package.json's dependencies: what the bundle is built from. */
function productionDependencies(dir) {
  const lock = JSON.parse(fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8'));
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const packages = Object.entries(lock.packages ?? {})
    .filter(([name, entry]) => name !== '' && !entry.dev)
    .map(([name, entry]) => `${name}@${entry.version}:${entry.integrity ?? ''}`)
    .sort();
  return JSON.stringify({ dependencies: pkg.dependencies ?? {}, packages });
}

/** The version of a package that a lockfile pins. */
function pinned(dir, name) {
  const lock = JSON.parse(fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8'));
  return lock.packages?.[`node_modules/${name}`]?.version ?? 'none';
}

/**
 * The bundle of another commit: `git worktree add --detach` in a temporary folder, its
 * dependencies (the repository's node_modules through a symlink when both lockfiles pin the same
 * non-dev packages, else `npm ci --ignore-scripts` there: the build needs no install script),
 * `node scripts/build.mjs`, the bundle copied into the run's folder and the worktree removed. The
 * bundle's one external package, the native better-sqlite3, is then loaded from the repository's
 * node_modules, like the working tree's bundle (the description says when the versions differ).
 */
export async function programOfRef(root, work, ref, label = 'before') {
  const commit = (await runOk('git', ['-C', root, 'rev-parse', '--verify', `${ref}^{commit}`], `git rev-parse ${ref}`)).trim();
  const short = commit.slice(0, 7);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `hackerspace-bench-${short}-`));
  fs.rmdirSync(dir);
  log(`--compare ${ref}: a worktree of ${short} in ${dir}`);
  await runOk('git', ['-C', root, 'worktree', 'add', '--detach', dir, commit], 'git worktree add');
  let removed = false;
  const remove = async () => {
    if (removed) return;
    removed = true;
    await run('git', ['-C', root, 'worktree', 'remove', '--force', dir]);
    fs.rmSync(dir, { recursive: true, force: true });
    await run('git', ['-C', root, 'worktree', 'prune']);
    log(`removed the worktree ${dir}`);
  };
  atExit(remove);
  let deps;
  if (productionDependencies(dir) === productionDependencies(root) && fs.existsSync(path.join(root, 'node_modules'))) {
    fs.symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    deps = "the repository's node_modules (both lockfiles pin the same non-dev packages)";
  } else {
    log(`--compare ${ref}: its lockfile pins other packages than this one: npm ci --ignore-scripts in the worktree`);
    await runOk('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], 'npm ci in the worktree', { cwd: dir });
    deps = 'its own node_modules (`npm ci --ignore-scripts`: its lockfile pins other packages)';
  }
  const sqliteThen = pinned(dir, 'better-sqlite3');
  const sqliteNow = pinned(root, 'better-sqlite3');
  await runOk(process.execPath, ['scripts/build.mjs'], `the build of ${short}`, { cwd: dir });
  const bundle = path.join(dir, 'dist/hackerspace-api.mjs');
  if (!fs.existsSync(bundle)) fail(`the build of ${short} wrote no dist/hackerspace-api.mjs`);
  const cli = copyBundle(bundle, work, label);
  await remove();
  const addon = sqliteThen === sqliteNow ? '' : `; **better-sqlite3 ${sqliteNow} at run time where that commit pins ${sqliteThen}**`;
  return { label, cli, rev: short, description: `commit ${short} (\`${ref}\`), built in a temporary worktree with ${deps} (copy ${sha(cli)})${addon}` };
}

/**
 * The order in which round `round` (from 1) measures the programs: before then after in odd
 * rounds, after then before in even ones, so that neither always has the place of the first.
 */
export const inTurn = (programs, round) => (round % 2 ? programs : [...programs].reverse());

/** The programs of a run: [after], or [before, after] with --compare. */
export async function programs(root, work, compareRef) {
  const after = await currentProgram(root, work, 'after');
  if (!compareRef) return [after];
  return [await programOfRef(root, work, compareRef, 'before'), after];
}

// The configuration variables the server reads, other than the ones a driver sets, are removed
// from its environment so that a developer's (PAGE_SIZE, PUBLIC_URL, WEBHOOK_URLS…) cannot change
// what is measured: the ones the sources read today, and the ones they read when this was written.
const KNOWN = [
  'PUBLIC_URL',
  'TRUST_PROXY',
  'TIME_ZONE',
  'SPACE_NAME',
  'PAGE_SIZE',
  'MAX_PAGE_SIZE',
  'AVATAR_FIELD',
  'AVATAR_HASH',
  'AVATAR_DEFAULT',
  'RESPONSE_CACHE_MB',
  'CACHE_CONTROL',
  'COMPRESS_MIN_BYTES',
  'DATABASE_POOL_SIZE',
  'DATABASE_STATEMENT_TIMEOUT_MS',
  'WEBHOOK_URLS',
  'WEBHOOK_SECRET',
  'WEBHOOK_TIMEOUT_MS',
  'WEBHOOK_FIRST_RETRY_MS',
  'WEBHOOK_GIVE_UP_S',
  'STREAM_HEARTBEAT_MS',
  'STREAM_POLL_MS',
  'SPACEAPI_CONFIG',
  'MQTT_URL',
  'MQTT_TOPIC_PREFIX',
  'MQTT_DOOR_TOPIC',
  'MQTT_HOMEASSISTANT',
];
const SET_BY_DRIVERS = new Set(['DATABASE_URL', 'HOST', 'PORT', 'LOG_LEVEL']);

/** Every variable name read as env.NAME or env, 'NAME' anywhere under src/. */
function variablesReadBy(src) {
  const names = new Set();
  if (!fs.existsSync(src)) return names;
  for (const entry of fs.readdirSync(src, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const text = fs.readFileSync(path.join(entry.parentPath ?? entry.path, entry.name), 'utf8');
    for (const m of text.matchAll(/env\.([A-Z][A-Z0-9_]+)|env, '([A-Z][A-Z0-9_]+)'/g)) names.add(m[1] ?? m[2]);
  }
  return names;
}

/** An environment for the CLI: this process's, less the server's configuration, plus `set`. */
export function serverEnvFactory(root) {
  const unset = new Set([...KNOWN, ...variablesReadBy(path.join(root, 'src'))].filter((v) => !SET_BY_DRIVERS.has(v)));
  return (set = {}) => {
    const env = { ...process.env };
    for (const name of unset) delete env[name];
    return { ...env, LOG_LEVEL: 'warn', ...set };
  };
}

/** Whether the sources read a variable (e.g. RESPONSE_CACHE_MB, which C2 needs). */
export const sourcesRead = (root, name) => variablesReadBy(path.join(root, 'src')).has(name);

/**
 * A door token created by the program's own CLI on `dbUrl` (so the database is in its schema);
 * its secret, kept only in memory and in the environment of the clients that post with it.
 */
export async function doorToken(program, dbUrl, env, name) {
  const token = await run(process.execPath, [program.cli, 'token', 'create', '--name', name, '--scope', 'door'], { env: env({ DATABASE_URL: dbUrl }) });
  const secret = token.stdout.trim();
  if (token.code !== 0 || !/^\S+$/.test(secret)) fail(`${program.label}: token create failed: ${token.stderr.trim()}`);
  return secret;
}
