/**
 * A real browser for the web face's tests (docs/web.md §6): playwright-core driving the
 * system's Chromium (Debian's `chromium` package; `.ci/run` installs it when missing). The pinned
 * playwright-core's bundled Chromium has the same major version as Debian's (see package.json).
 *
 * If Chromium is missing or cannot start, `launchBrowser` throws: the tests that need it fail,
 * they are never skipped.
 *
 * The test code is type-checked without the DOM library (tsconfig.json: the service is Node-only),
 * so what runs in the page is written as strings (`page.evaluate('…')`) or through Playwright's
 * locators.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';

const require = createRequire(import.meta.url);

/**
 * Flags for a quiet, self-contained headless run: no sandbox (CI runs as root in a container), no
 * GPU, and none of Chromium's own background traffic (updates, sync, QUIC probes), so that every
 * request a test sees comes from the page. Playwright gives each launch a fresh temporary profile
 * (its own --user-data-dir), removed when the browser closes.
 */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** `command -v chromium`, else /usr/bin/chromium. */
export function chromiumPath(): string {
  try {
    const found = execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim();
    if (found) return found;
  } catch {
    // not on PATH: try Debian's location
  }
  return '/usr/bin/chromium';
}

/** The Chromium version the pinned playwright-core was made for (its browsers.json), e.g. "156.0.8078.4". */
export function playwrightChromiumVersion(): string {
  const file = path.join(path.dirname(require.resolve('playwright-core/package.json')), 'browsers.json');
  const browsers = JSON.parse(fs.readFileSync(file, 'utf8')) as { browsers: { name: string; browserVersion?: string }[] };
  return browsers.browsers.find((b) => b.name === 'chromium')?.browserVersion ?? 'unknown';
}

/** Launches the system's Chromium headless. Throws (never skips) when it is missing or cannot start. */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (!fs.existsSync(executablePath)) {
    throw new Error(`no Chromium at ${executablePath}: the browser tests need Debian's chromium package (apt-get install chromium; .ci/run installs it)`);
  }
  let browser: Browser;
  try {
    browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
  } catch (err) {
    throw new Error(`Chromium (${executablePath}) did not start: ${(err as Error).message}`, { cause: err });
  }
  const major = (v: string) => v.split('.')[0];
  if (major(browser.version()) !== major(playwrightChromiumVersion())) {
    process.stderr.write(
      `warning: Chromium ${browser.version()} at ${executablePath}, but playwright-core was made for Chromium ${playwrightChromiumVersion()}: pin the playwright-core release of that major version\n`,
    );
  }
  return browser;
}

/** A page in a context of its own, recording everything that should not happen. */
export interface WatchedPage {
  context: BrowserContext;
  page: Page;
  /** The server's origin, `http://127.0.0.1:<port>`: any request elsewhere is recorded. */
  origin: string;
  /** False in a context made with `javaScriptEnabled: false`. */
  javaScriptEnabled: boolean;
  /** Console messages of type error (CSP refusals among them: Chromium logs each one). */
  consoleErrors: string[];
  /** Uncaught exceptions in the page. */
  pageErrors: string[];
  /** `securitypolicyviolation` events, as "directive: blocked URI". */
  cspViolations: string[];
  /** Every request whose origin is not the server's (data: URLs included). */
  foreignRequests: string[];
  /**
   * Subresources (stylesheet, script, stream, images) that failed or answered 400 or more: Chromium
   * does not report those as console messages to Playwright. Requests cancelled by leaving the page
   * (net::ERR_ABORTED, the stream's on every navigation) are not failures.
   */
  failedRequests: string[];
  /** alert/confirm/prompt/beforeunload dialogs that opened (each dismissed). */
  dialogs: string[];
  /** All of the above, one line each: `assert.deepEqual(watched.problems(), [])`. */
  problems(): string[];
  close(): Promise<void>;
}

/**
 * Reports CSP violations to the test. Init scripts are injected by the DevTools protocol, not by
 * the page, so the page's CSP does not apply to them; with JavaScript off they do not run (and
 * there is nothing to violate).
 */
const CSP_LISTENER = `document.addEventListener('securitypolicyviolation', (e) => {
  window.__reportCspViolation(e.violatedDirective + ': ' + (e.blockedURI || '(inline)') + ' at ' + e.sourceFile + ':' + e.lineNumber);
});`;

/** A fresh context (cookies, cache) and page, watched from the first request on. */
export async function watchedPage(browser: Browser, origin: string, options: BrowserContextOptions = {}): Promise<WatchedPage> {
  const context = await browser.newContext(options);
  const watched: WatchedPage = {
    context,
    page: undefined as unknown as Page,
    origin,
    javaScriptEnabled: options.javaScriptEnabled !== false,
    consoleErrors: [],
    pageErrors: [],
    cspViolations: [],
    foreignRequests: [],
    failedRequests: [],
    dialogs: [],
    problems() {
      return [
        ...watched.consoleErrors.map((m) => `console error: ${m}`),
        ...watched.pageErrors.map((m) => `page error: ${m}`),
        ...watched.cspViolations.map((m) => `CSP violation: ${m}`),
        ...watched.foreignRequests.map((m) => `request to another origin: ${m}`),
        ...watched.failedRequests.map((m) => `failed request: ${m}`),
        ...watched.dialogs.map((m) => `dialog: ${m}`),
      ];
    },
    close: () => context.close(),
  };
  await context.exposeBinding('__reportCspViolation', (_source, text: string) => {
    watched.cspViolations.push(text);
  });
  await context.addInitScript({ content: CSP_LISTENER });
  context.on('request', (request) => {
    const url = request.url();
    let requestOrigin: string;
    try {
      requestOrigin = new URL(url).origin;
    } catch {
      requestOrigin = 'null';
    }
    if (requestOrigin !== origin) watched.foreignRequests.push(`${request.method()} ${url.slice(0, 200)}`);
  });
  context.on('requestfailed', (request) => {
    const error = request.failure()?.errorText ?? 'failed';
    if (error !== 'net::ERR_ABORTED') watched.failedRequests.push(`${request.method()} ${request.url().slice(0, 200)}: ${error}`);
  });
  context.on('response', (response) => {
    const request = response.request();
    if (response.status() >= 400 && request.resourceType() !== 'document') {
      watched.failedRequests.push(`${request.method()} ${response.url().slice(0, 200)}: ${response.status()}`);
    }
  });
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') watched.consoleErrors.push(`${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => watched.pageErrors.push(error.stack ?? error.message));
  page.on('dialog', (dialog) => {
    watched.dialogs.push(`${dialog.type()}: ${dialog.message()} on ${page.url()}`);
    dialog.dismiss().catch(() => {});
  });
  watched.page = page;
  return watched;
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; html: string; failureSummary?: string }[];
}

let axeSource: string | undefined;

/**
 * Runs axe-core (every rule it enables by default: WCAG A/AA and best practices) on the page as it
 * is now and returns the violations.
 *
 * Injecting axe: the pages' CSP (`script-src 'self'`) forbids inline scripts, so a
 * `page.addScriptTag({content})` would be refused (and would itself be a CSP violation). Instead
 * the source is evaluated through the DevTools protocol (`page.evaluate(source)`, which the
 * page's CSP does not govern), without `bypassCSP`: the page keeps its real policy while axe runs.
 * With `openDetails`, every `<details>` is opened first so that their content is checked too.
 */
export async function axe(page: Page, options: { openDetails?: boolean } = {}): Promise<AxeViolation[]> {
  axeSource ??= fs.readFileSync(path.join(path.dirname(require.resolve('axe-core')), 'axe.min.js'), 'utf8');
  if (!(await page.evaluate('typeof window.axe === "object"'))) {
    await page.evaluate(axeSource);
    if (!(await page.evaluate('typeof window.axe === "object"'))) throw new Error('axe-core did not load into the page');
  }
  if (options.openDetails) await page.evaluate(`document.querySelectorAll('details').forEach((d) => { d.open = true; })`);
  const violations = await page.evaluate<AxeViolation[]>(`window.axe.run(document, { resultTypes: ['violations'] }).then((results) =>
    results.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target, html: n.html, failureSummary: n.failureSummary })),
    })))`);
  return violations;
}

/** Violations as readable lines for an assertion message. */
export function describeViolations(violations: AxeViolation[]): string {
  return violations
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help}\n${v.nodes.map((n) => `    ${JSON.stringify(n.target)} ${n.html.slice(0, 160)}\n      ${(n.failureSummary ?? '').replace(/\n/g, ' ')}`).join('\n')}`,
    )
    .join('\n');
}
