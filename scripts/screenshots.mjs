// `npm run screenshots`: PNGs of the web face for the README, as a newcomer sees them (docs/web.md §6).
//
// Runs `npm run demo` as the README says (it builds, replaces data/demo.sqlite with the demo,
// whose history ends now, and serves it) on a free port, with none of this shell's settings of
// the service (so in UTC, the default TIME_ZONE), and writes full-page screenshots taken with the
// system's Chromium (the same launch as test/support/browser.ts) to docs/screenshots/:
//   dashboard-390.png    `/` at 390 px wide (a phone)
//   dashboard-1280.png   `/` at 1280 px wide
//   project.png          a project's page at 1280 px
//   login.png            the login page at 1280 px, with single sign-on (an OpenID provider this
//                        script starts, `oidc-provider`, named "Spacekey") and passkeys
//   profile.png          a member's profile at 1280 px: a member made with `user create`, whose
//                        password is set through the link it prints, logged in with the keyboard,
//                        with a passkey added through a virtual authenticator (Chrome DevTools
//                        Protocol); the member's pages are opened on localhost, as passkeys need
//   project-edit.png     that member (granted `projects.change_project` with `user grant`)
//                        editing the project of project.png: a blank title and a blank short
//                        description sent with Enter, answered with the messages next to their fields
//   fr/, nl/             the dashboard, the project, the login page and the refused edit again,
//                        in a browser set to French (Belgium), then Dutch (Belgium)
// Then stops the demo (its whole process group). Any failure exits non-zero.
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Provider from 'oidc-provider';
import { chromium } from 'playwright-core';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = path.join(ROOT, 'docs', 'screenshots');
/** What a newcomer's shell has; the service's own variables (DATABASE_URL, TIME_ZONE, …) are left out. */
const NEWCOMER_VARIABLES = ['PATH', 'HOME', 'TMPDIR', 'LANG'];
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
/** `npm run demo` builds the bundle and loads the demo before it listens. */
const START_TIMEOUT_MS = 120_000;

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

/** Starts `npm run demo` in a process group of its own; resolves once /healthz answers 200, rejects if it exits or does not answer in time. */
async function startDemo(env) {
  const child = spawn('npm', ['run', 'demo'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  // npm runs the service in a shell below it: signals go to the whole group.
  const signalGroup = (name) => {
    try {
      process.kill(-child.pid, name);
    } catch {
      // the group is gone already
    }
  };
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  let exited = null;
  const exit = new Promise((resolve) => child.on('exit', (code, signal) => resolve((exited = { code, signal }))));
  const base = `http://127.0.0.1:${env.PORT}`;
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (exited) throw new Error(`npm run demo exited (${JSON.stringify(exited)}) before answering:\n${output}`);
    try {
      const res = await fetch(`${base}/healthz`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      signalGroup('SIGKILL');
      throw new Error(`npm run demo did not answer /healthz within ${START_TIMEOUT_MS / 1000} s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    base,
    async stop() {
      signalGroup('SIGTERM');
      if (exited) return;
      const timer = setTimeout(() => signalGroup('SIGKILL'), 10_000);
      await exit;
      clearTimeout(timer);
    },
  };
}

/** An OpenID provider on this machine, so that the login page offers single sign-on: the demo's OIDC_* variables. */
async function startProvider() {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const client = { client_id: 'hackerspace-api', client_secret: 'a secret of the screenshots', redirect_uris: ['http://localhost/accounts/oidc/callback/'] };
  const provider = new Provider(issuer, { clients: [client], cookies: { keys: ['screenshots'] } });
  const server = await new Promise((resolve, reject) => {
    const listening = provider.listen(port, '127.0.0.1', () => resolve(listening));
    listening.once('error', reject);
  });
  return {
    env: { OIDC_ISSUER: issuer, OIDC_CLIENT_ID: client.client_id, OIDC_CLIENT_SECRET: client.client_secret, OIDC_NAME: 'Spacekey' },
    stop: () => new Promise((resolve) => server.close(() => resolve())),
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

/** The service's CLI on the demo's database, as the README shows it: what it printed. */
function cli(env, ...args) {
  return execFileSync(process.execPath, [path.join(ROOT, 'dist', 'hackerspace-api.mjs'), ...args], {
    cwd: ROOT,
    env: { ...env, DATABASE_URL: 'sqlite:data/demo.sqlite' },
    encoding: 'utf8',
  });
}

/** A new member through the CLI, as the README says (`user create` prints a set-password link), who may edit projects: the link's path. */
function createMember(env) {
  const out = cli(env, 'user', 'create', 'ada', '--email', 'ada@example.org');
  cli(env, 'user', 'grant', 'ada', 'projects.change_project');
  const link = /\/accounts\/set-password\/[^/\s]+\//.exec(out);
  if (!link) throw new Error(`user create printed no link: ${out}`);
  return link[0];
}

/** The project's edit form sent with a blank title and short description (Enter), answered 422 with its messages. */
async function refuseEdit(page, base, project) {
  await page.goto(`${base}${project}edit/`);
  await page.fill('input[name="title"]', ' ');
  await page.fill('[name="short_description"]', ' ');
  const [refused] = await Promise.all([page.waitForResponse((res) => res.request().method() === 'POST'), page.press('input[name="title"]', 'Enter')]);
  if (refused.status() !== 422) throw new Error(`the refused edit answered ${refused.status()}, not 422`);
  await page.waitForLoadState('load');
}

/**
 * Sets the member's password through the link, shoots the login page, logs in with the keyboard,
 * adds a passkey, shoots the profile and a project's edit form refused. On localhost: browsers
 * refuse an IP address as a passkey's relying party.
 */
async function shootMember(browser, base, linkPath, project) {
  const password = 'analytical engine 1843';
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'light', reducedMotion: 'reduce' });
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });
    await page.goto(base + linkPath);
    await page.fill('input[name="new_password1"]', password);
    await page.fill('input[name="new_password2"]', password);
    await Promise.all([page.waitForURL((url) => !url.pathname.startsWith(linkPath)), page.keyboard.press('Enter')]);
    await page.goto(`${base}/accounts/login/?next=/accounts/profile/`);
    await page.locator('#passkey-login').waitFor();
    await page.evaluate('document.fonts.ready.then(() => true)');
    await page.screenshot({ path: path.join(OUT, 'login.png'), fullPage: true });
    console.log('wrote docs/screenshots/login.png');
    await page.fill('input[name="username"]', 'ada');
    await page.fill('input[name="password"]', password);
    await Promise.all([page.waitForURL((url) => url.pathname === '/accounts/profile/'), page.keyboard.press('Enter')]);
    await page.fill('input[name="first_name"]', 'Ada');
    await page.fill('input[name="last_name"]', 'Lovelace');
    await page.fill('textarea[name="description"]', 'Works on the **analytical engine**. Ask me about punched cards.');
    await page.click('button[value="save"]');
    await page.locator('#notice', { hasText: 'Your profile is saved.' }).waitFor();
    await page.fill('input[name="passkey_name"]', 'Laptop');
    await page.click('#passkey-add');
    const added = page.locator('#notice', { hasText: 'Your passkey is added' });
    await added.waitFor({ timeout: 10_000 }).catch(async () => {
      throw new Error(`no passkey added: ${await page.locator('.passkey-status, .form-error').allTextContents()} on ${page.url()}`);
    });
    await page.evaluate('document.fonts.ready.then(() => true)');
    await page.screenshot({ path: path.join(OUT, 'profile.png'), fullPage: true });
    console.log('wrote docs/screenshots/profile.png');
    await refuseEdit(page, base, project);
    await page.evaluate('document.fonts.ready.then(() => true)');
    await page.screenshot({ path: path.join(OUT, 'project-edit.png'), fullPage: true });
    console.log('wrote docs/screenshots/project-edit.png');
  } finally {
    await context.close();
  }
}

/**
 * The same pages in another language (languages.md), as a browser set to it asks for them
 * (`Accept-Language`): the dashboard, the project, the login page and, logged in as the member,
 * the project's edit form refused; in docs/screenshots/<language>/.
 */
async function shootLanguage(browser, base, project, language, locale) {
  const password = 'analytical engine 1843';
  const dir = path.join(OUT, language);
  fs.mkdirSync(dir, { recursive: true });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'light', reducedMotion: 'reduce', locale });
  const shot = async (page, name) => {
    await page.evaluate('document.fonts.ready.then(() => true)');
    await page.screenshot({ path: path.join(dir, name), fullPage: true });
    console.log(`wrote ${path.relative(ROOT, path.join(dir, name))}`);
  };
  try {
    const page = await context.newPage();
    for (const [address, name] of [
      ['/', 'dashboard.png'],
      [project, 'project.png'],
      ['/accounts/login/', 'login.png'],
    ]) {
      const response = await page.goto(base + address, { waitUntil: 'load' });
      if (!response?.ok()) throw new Error(`${address} answered ${response?.status()}`);
      const lang = await page.getAttribute('html', 'lang');
      if (lang !== language) throw new Error(`${address} is in ${lang}, not ${language}`);
      await shot(page, name);
    }
    await page.fill('input[name="username"]', 'ada');
    await page.fill('input[name="password"]', password);
    await Promise.all([page.waitForURL((url) => !url.pathname.startsWith('/accounts/login/')), page.keyboard.press('Enter')]);
    await refuseEdit(page, base, project);
    await shot(page, 'project-edit.png');
  } finally {
    await context.close();
  }
}

async function main() {
  let server;
  let browser;
  let provider;
  try {
    const env = Object.fromEntries(NEWCOMER_VARIABLES.filter((name) => process.env[name] !== undefined).map((name) => [name, process.env[name]]));
    provider = await startProvider();
    server = await startDemo({ ...env, ...provider.env, PORT: String(await freePort()) });
    const executablePath = chromiumPath();
    browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
    fs.mkdirSync(OUT, { recursive: true });
    await shoot(browser, `${server.base}/`, path.join(OUT, 'dashboard-390.png'), 390);
    await shoot(browser, `${server.base}/`, path.join(OUT, 'dashboard-1280.png'), 1280);
    const project = await projectPath(server.base);
    await shoot(browser, `${server.base}${project}`, path.join(OUT, 'project.png'), 1280);
    await shootMember(browser, server.base.replace('127.0.0.1', 'localhost'), createMember(env), project);
    await shootLanguage(browser, server.base, project, 'fr', 'fr-BE');
    await shootLanguage(browser, server.base, project, 'nl', 'nl-BE');
  } finally {
    await browser?.close();
    await server?.stop();
    await provider?.stop();
  }
}

main().catch((err) => {
  console.error(`screenshots failed: ${err.stack ?? err}`);
  process.exit(1);
});
