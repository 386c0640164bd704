// `npm run screenshots`: PNGs of the web face for the README (docs/web.md §6).
//
// Builds the bundle, loads the demo data into a temporary SQLite database, serves it on a free
// port of 127.0.0.1, and writes full-page screenshots taken with the system's Chromium (the same
// launch as test/support/browser.ts) to docs/screenshots/:
//   dashboard-390.png    `/` at 390 px wide (a phone)
//   dashboard-1280.png   `/` at 1280 px wide
//   project.png          a project's page at 1280 px
// Then stops the server and removes the database. Any failure exits non-zero.
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { chromium } from 'playwright-core';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = path.join(ROOT, 'docs', 'screenshots');
const BUNDLE = path.join(ROOT, 'dist', 'hackerspace-api.mjs');
const DEMO_ARGS = ['--users', '40', '--openings', '20000', '--projects', '20', '--events', '30', '--meetings', '20', '--seed', '1'];
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const START_TIMEOUT_MS = 30_000;

function run(command, args, env) {
  const result = spawnSync(command, args, { cwd: ROOT, env, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.error?.message ?? result.signal ?? `exit code ${result.status}`})`);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

function chromiumPath() {
  try {
    const found = execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim();
    if (found) return found;
  } catch {
    // not on PATH
  }
  return '/usr/bin/chromium';
}

/** Starts `serve`; resolves once /healthz answers 200, rejects if it exits or does not answer in time. */
async function startServer(env) {
  const child = spawn(process.execPath, [BUNDLE, 'serve'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  let exited = null;
  const exit = new Promise((resolve) => child.on('exit', (code, signal) => resolve((exited = { code, signal }))));
  const base = `http://127.0.0.1:${env.PORT}`;
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (exited) throw new Error(`serve exited (${JSON.stringify(exited)}) before answering:\n${output}`);
    try {
      const res = await fetch(`${base}/healthz`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`serve did not answer /healthz within ${START_TIMEOUT_MS / 1000} s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    base,
    async stop() {
      if (exited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exit;
      clearTimeout(timer);
    },
  };
}

/** A project of the demo data worth showing: the first with some Markdown content, but not pages of it. */
async function projectPath(base) {
  const res = await fetch(`${base}/api/projects/?format=json`);
  if (!res.ok) throw new Error(`GET /api/projects/ answered ${res.status}`);
  const body = await res.json();
  const projects = Array.isArray(body) ? body : body.results;
  if (!projects?.length) throw new Error('the demo data has no project');
  const project = projects.find((p) => typeof p.content === 'string' && p.content.length > 300 && p.content.length < 3000) ?? projects[0];
  if (!Number.isInteger(project.id)) throw new Error(`a project without an id: ${JSON.stringify(project).slice(0, 200)}`);
  return `/projects/${project.id}/`;
}

async function shoot(browser, url, file, width) {
  const context = await browser.newContext({ viewport: { width, height: width < 600 ? 844 : 800 }, colorScheme: 'light', reducedMotion: 'reduce' });
  try {
    const page = await context.newPage();
    const response = await page.goto(url, { waitUntil: 'load' });
    if (!response?.ok()) throw new Error(`${url} answered ${response?.status()}`);
    await page.evaluate('document.fonts.ready.then(() => true)');
    await page.screenshot({ path: file, fullPage: true });
    console.log(`wrote ${path.relative(ROOT, file)}`);
  } finally {
    await context.close();
  }
}

/**
 * The demo's door history ends on a fixed day (it is reproducible); moved to end an hour ago, it
 * fills the dashboard's heatmap of the last 12 weeks as a space in use would.
 */
function moveHistoryToNow(file) {
  const db = new Database(file);
  try {
    const { last } = db.prepare('select max(time_us) as last from openings').get();
    const shift = Date.now() * 1000 - 3_600_000_000 - Number(last);
    // Whole weeks, so that weekdays and hours keep the demo's pattern.
    const weekUs = 7 * 86_400_000_000;
    db.prepare('update openings set time_us = time_us + ?').run(Math.floor(shift / weekUs) * weekUs);
  } finally {
    db.close();
  }
}

async function main() {
  run(process.execPath, ['scripts/build.mjs'], process.env);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hackerspace-api-screenshots-'));
  let server;
  let browser;
  try {
    const env = { ...process.env, DATABASE_URL: `sqlite:${path.join(dir, 'demo.sqlite')}`, TIME_ZONE: 'Europe/Brussels', HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
    run(process.execPath, [BUNDLE, 'demo', ...DEMO_ARGS], env);
    moveHistoryToNow(path.join(dir, 'demo.sqlite'));
    server = await startServer({ ...env, PORT: String(await freePort()) });
    const executablePath = chromiumPath();
    browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
    fs.mkdirSync(OUT, { recursive: true });
    await shoot(browser, `${server.base}/`, path.join(OUT, 'dashboard-390.png'), 390);
    await shoot(browser, `${server.base}/`, path.join(OUT, 'dashboard-1280.png'), 1280);
    await shoot(browser, `${server.base}${await projectPath(server.base)}`, path.join(OUT, 'project.png'), 1280);
  } finally {
    await browser?.close();
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(`screenshots failed: ${err.stack ?? err}`);
  process.exit(1);
});
