// What the test suite needs from the machine besides npm's packages, made ready before it runs
// (first step of `npm test`, through scripts/test.mjs):
//
//   node scripts/test-prerequisites.mjs [sqlite|postgres]...       (default: both)
//
// - Debian packages: Chromium (test/web-browser.test.ts), nginx (test/nginx.test.ts), Mosquitto
//   (test/mqtt.test.ts), Django with bcrypt and argon2 (test/apps/users/django-passwords.test.ts), and
//   requests when ORIGINAL_SOURCE is set (test/original-loaddata.test.ts). As root, the missing ones are installed with apt-get;
//   otherwise, or when apt-get fails, it exits 1 with the one command that installs them.
// - PostgreSQL, when the engines include postgres: the local cluster is started when it is down.
// - An MQTT broker on 127.0.0.1:1883 (unless MQTT_TEST_URL names another): Mosquitto is started
//   when nothing listens there.
// - Debian trixie's python3-django (4.2) and python3-djangorestframework (3.16), whose message
//   catalogues test/api-messages.test.ts compares the API's messages with: the current .deb of each,
//   found in trixie's package index, checked against its SHA256 and extracted into
//   $XDG_CACHE_HOME/hackerspace-api/debian-trixie/<package>/ (~/.cache without it); nothing is done
//   when they are there already. A failed download is said, not fatal: that test is then skipped.
//
// Test hooks (test/test-prerequisites.test.ts), for checking the package logic without changing
// the machine: TEST_PREREQ_ROOT prefixes every path looked for (so packages can be made "missing"),
// and TEST_PREREQ_NOT_ROOT=1 acts as a user other than root (so nothing is installed);
// TEST_PREREQ_DEBIAN_MIRROR replaces http://deb.debian.org/debian (so a download can fail).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const engines = process.argv.length > 2 ? process.argv.slice(2) : ['sqlite', 'postgres'];
const root = process.env.TEST_PREREQ_ROOT ?? '';
const isRoot = process.getuid?.() === 0 && process.env.TEST_PREREQ_NOT_ROOT !== '1';

/** Each Debian package the suite needs, by the executable it installs. */
const PACKAGES = [
  { name: 'chromium', path: '/usr/bin/chromium' },
  { name: 'nginx', path: '/usr/sbin/nginx' },
  { name: 'mosquitto', path: '/usr/sbin/mosquitto' },
];
const PYTHON = `${root}/usr/bin/python3`;

function say(line) {
  process.stderr.write(`test prerequisites: ${line}\n`);
}

function isExecutable(file) {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Runs a command with its output on stderr (stdout stays the suite's report); true when it exits 0. */
function run(command, args, env = process.env) {
  say(`running ${[command, ...args].join(' ')}`);
  const result = spawnSync(command, args, { stdio: ['ignore', process.stderr, process.stderr], env });
  return result.status === 0;
}

/** True when something accepts a TCP connection at host:port within a second. */
function accepts(host, port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 1000 });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}

/** Polls `ready` once a second, up to 30 times. */
async function waitFor(ready) {
  for (let attempt = 0; attempt < 30; attempt++) {
    if (await ready()) return true;
    await sleep(1000);
  }
  return false;
}

function missingPackages() {
  const missing = PACKAGES.filter((p) => !isExecutable(root + p.path)).map((p) => p.name);
  // test/apps/users/django-passwords.test.ts checks our hashes and rights with Django's own check_password
  // and has_perm, with the hashers the original may use (bcrypt, argon2).
  if (spawnSync(PYTHON, ['-c', 'import django, bcrypt, argon2'], { stdio: 'ignore' }).status !== 0) missing.push('python3-django', 'python3-bcrypt', 'python3-argon2');
  // test/original-loaddata.test.ts runs the original's loaddata only when ORIGINAL_SOURCE names its source.
  if (process.env.ORIGINAL_SOURCE) {
    const python = spawnSync(PYTHON, ['-c', 'import django, requests'], { stdio: 'ignore' });
    if (python.status !== 0) missing.push('python3-requests');
  }
  return [...new Set(missing)];
}

function installPackages(missing) {
  const command = `sudo apt-get install -y ${missing.join(' ')}`;
  if (!isRoot) {
    say(`missing Debian packages: ${missing.join(', ')}. Install them with:\n\n  ${command}\n`);
    process.exit(1);
  }
  say(`missing Debian packages: ${missing.join(', ')}: installing them`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if (!run('apt-get', ['update'], env) || !run('apt-get', ['install', '-y', ...missing], env)) {
    say(`apt-get failed. Install the packages with:\n\n  ${command}\n`);
    process.exit(1);
  }
}

async function startPostgres() {
  const admin = new URL(process.env.TEST_POSTGRES_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  const host = admin.hostname || '127.0.0.1';
  const port = admin.port || '5432';
  const isReady = () => spawnSync('pg_isready', ['-h', host, '-p', port, '-q']).status === 0;
  if (isReady()) return;
  // Only a local server can be started here; scripts/test.mjs reports any other that is unreachable.
  if (!['127.0.0.1', 'localhost'].includes(host)) return;
  let versions = [];
  try {
    versions = readdirSync('/etc/postgresql');
  } catch {
    // No Debian cluster: scripts/test.mjs says PostgreSQL is unreachable and how to go on.
  }
  if (versions.length !== 1) return;
  say('PostgreSQL is down: starting it');
  run('pg_ctlcluster', ['--skip-systemctl-redirect', versions[0], 'main', 'start']);
  if (!(await waitFor(isReady))) say(`PostgreSQL did not become ready on ${host}:${port}`);
}

async function startMosquitto() {
  if (process.env.MQTT_TEST_URL) return;
  if (await accepts('127.0.0.1', 1883)) return;
  say('no MQTT broker on 127.0.0.1:1883: starting Mosquitto');
  run(`${root}/usr/sbin/mosquitto`, ['-d', '-p', '1883']);
  if (!(await waitFor(() => accepts('127.0.0.1', 1883)))) {
    say('Mosquitto did not start listening on 127.0.0.1:1883');
    process.exit(1);
  }
}

const DEBIAN_MIRROR = process.env.TEST_PREREQ_DEBIAN_MIRROR ?? 'http://deb.debian.org/debian';
/** The packages whose catalogues are Django's and DRF's words (test/support/debian-catalogues.ts reads them from the same place). */
const DEBIAN_PACKAGES = ['python3-django', 'python3-djangorestframework'];
const debianCache = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'hackerspace-api', 'debian-trixie');

/** Filename and SHA256 of each package in trixie's index (a security update changes the file, so it is never written down). */
async function debianIndex() {
  const response = await fetch(`${DEBIAN_MIRROR}/dists/trixie/main/binary-all/Packages.xz`);
  if (!response.ok) throw new Error(`the package index answered ${response.status}`);
  const xz = spawnSync('xz', ['-dc'], { input: Buffer.from(await response.arrayBuffer()), maxBuffer: 1 << 30, encoding: 'utf8' });
  if (xz.status !== 0) throw new Error(`xz could not read the package index: ${xz.stderr || xz.error}`);
  const found = new Map();
  for (const stanza of xz.stdout.split('\n\n')) {
    const field = (name) => new RegExp(`^${name}: (.+)$`, 'm').exec(stanza)?.[1].trim();
    const name = field('Package');
    if (DEBIAN_PACKAGES.includes(name)) found.set(name, { filename: field('Filename'), sha256: field('SHA256') });
  }
  return found;
}

/** Each package extracted into the cache, downloaded and checked when it is not there yet. */
async function fetchDebianCatalogues() {
  const missing = DEBIAN_PACKAGES.filter((name) => !existsSync(path.join(debianCache, name, '.complete')));
  if (missing.length === 0) return;
  say(`downloading Debian trixie's ${missing.join(' and ')} (their message catalogues) into ${debianCache}`);
  try {
    const index = await debianIndex();
    for (const name of missing) {
      const entry = index.get(name);
      if (!entry?.filename || !entry.sha256) throw new Error(`${name} is not in trixie's index`);
      const response = await fetch(`${DEBIAN_MIRROR}/${entry.filename}`);
      if (!response.ok) throw new Error(`${entry.filename} answered ${response.status}`);
      const deb = Buffer.from(await response.arrayBuffer());
      const sha256 = createHash('sha256').update(deb).digest('hex');
      if (sha256 !== entry.sha256) throw new Error(`${entry.filename} has SHA256 ${sha256}, the index says ${entry.sha256}`);
      // Extracted beside its final place, then renamed: an interrupted run leaves no half tree behind.
      const target = path.join(debianCache, name);
      const partial = `${target}.partial`;
      rmSync(partial, { recursive: true, force: true });
      mkdirSync(partial, { recursive: true });
      const file = path.join(partial, path.basename(entry.filename));
      writeFileSync(file, deb);
      if (!run('dpkg-deb', ['-x', file, partial])) throw new Error(`dpkg-deb could not extract ${entry.filename}`);
      rmSync(file);
      writeFileSync(path.join(partial, '.complete'), `${entry.filename}\n`);
      rmSync(target, { recursive: true, force: true });
      renameSync(partial, target);
    }
  } catch (error) {
    say(`could not get Debian's catalogues (${error.message}): test/api-messages.test.ts will be skipped`);
  }
}

const missing = missingPackages();
if (missing.length > 0) installPackages(missing);
if (engines.includes('postgres')) await startPostgres();
await startMosquitto();
await fetchDebianCatalogues();
