// The pseudo-language run (languages.md, "Quality"): the server offers `qps-ploc`, in which every
// message and formatted value comes wrapped (⟦…⟧) and stretched; Chromium, 390 px wide, walks every
// page a visitor, a member and a superuser can reach by following links (one page of each shape),
// plus forms shown with their errors, and finds no visible text outside the wraps but what members
// wrote, and no page wider than the screen. The same walk in English must find unwrapped text: the
// check can fail.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createPasswordLink, setPasswordPath } from '../src/apps/users/links.js';
import { launchBrowser, watchedPage, type WatchedPage } from './support/browser.js';
import { addMember, SPEC_RIGHTS, TEST_ITERATIONS } from './support/members.js';
import { grantRights } from '../src/apps/users/rights.js';
import { sampleRecords, startServer, type TestServer } from './support/server.js';

const PSEUDO = 'qps-ploc';
const WIDTH = 390;
const PASSWORD = 'pseudo language 2026';
/** The language switch names each language in itself, so that anyone finds theirs: not catalogue words. */
const LANGUAGE_NAMES = ['English', 'Français', 'Nederlands', 'Deutsch'];
/** Not ours to translate: the API reference is Redoc's own interface; the rest are no pages. */
const NOT_WALKED = [/^\/api\/docs\//, /^\/api\/schema\//, /^\/accounts\/logout\//, /\.ics$/, /^\/spaceapi\.json$/, /^\/assets\//, /^\/media\//, /[?&]format=/, /^\/healthz$/];

/** What a page shows: its text in document order, the texts of its attributes people read, its title and width. */
interface Shown {
  body: string;
  attributes: string[];
  title: string;
  width: number;
  links: string[];
}

const READ_PAGE = `(() => {
  let body = '';
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    // Code is no one's language: paths, JSON, commands.
    if (node.parentElement.closest('script, style, template, noscript, code, pre')) continue;
    body += node.data + '\\n';
  }
  const attributes = [];
  for (const element of document.querySelectorAll('[title], [alt], [aria-label], [placeholder], input[type=submit], input[type=button]')) {
    if (element.closest('code, pre')) continue;
    for (const name of ['title', 'alt', 'aria-label', 'placeholder']) if (element.hasAttribute(name)) attributes.push(element.getAttribute(name));
    if (element.matches('input[type=submit], input[type=button]')) attributes.push(element.value);
  }
  const links = [...document.querySelectorAll('a[href]')].map((a) => a.href);
  return { body, attributes, title: document.title, width: document.documentElement.scrollWidth, links };
})()`;

/** The text left once every wrapped message is taken out (wraps nest: a value inside a message). */
function unwrapped(text: string): string {
  let rest = text;
  for (let previous = ''; previous !== rest;) {
    previous = rest;
    rest = rest.replace(/⟦[^⟦⟧]*⟧/g, ' ');
  }
  return rest;
}

/** The words of `text` outside the wraps that are no one's data: what did not come through the catalogue. */
function strayWords(text: string, data: string): string[] {
  return unwrapped(text)
    .split(/\s+/)
    .filter((word) => /\p{L}/u.test(word) && !data.includes(word.replace(/^[\p{P}\p{S}]+|[\p{P}\p{S}]+$/gu, '')));
}

/** A path's shape: ids and tokens made alike, so that one page of each kind is walked. */
function shapeOf(url: URL): string {
  return url.pathname.replace(/\/\d+\//g, '/N/').replace(/\/[A-Za-z0-9_-]{30,}\//g, '/T/') + (url.search === '' ? '' : '?' + [...url.searchParams.keys()].sort().join('&'));
}

/** Every string of the API's records: what members wrote (titles, names, descriptions). */
async function membersWords(base: string): Promise<string> {
  const strings: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') strings.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value !== null && typeof value === 'object') Object.values(value).forEach(walk);
  };
  for (const collection of ['users', 'projects', 'events', 'meetings', 'space/openings']) {
    const response = await fetch(`${base}/api/${collection}/?page_size=1000`);
    walk(await response.json());
  }
  return strings.join('\n');
}

interface Finding {
  path: string;
  problem: string;
}

/** Walks the site from `starts` as the context's viewer, one page per shape; each page's stray words and width. */
async function walkSite(watched: WatchedPage, starts: readonly string[], data: string, limit = 80): Promise<{ walked: string[]; findings: Finding[] }> {
  const { page, origin } = watched;
  const queue = [...starts];
  const seen = new Set<string>();
  const walked: string[] = [];
  const findings: Finding[] = [];
  while (queue.length > 0 && walked.length < limit) {
    const path = queue.shift()!;
    const url = new URL(path, origin);
    if (url.origin !== origin || NOT_WALKED.some((pattern) => pattern.test(url.pathname + url.search))) continue;
    const shape = shapeOf(url);
    if (seen.has(shape)) continue;
    seen.add(shape);
    await page.goto(url.href);
    walked.push(url.pathname + url.search);
    findings.push(...(await findingsOf(page, url.pathname + url.search, data)));
    const shown = await page.evaluate<Shown>(READ_PAGE);
    for (const link of shown.links) queue.push(link);
  }
  return { walked, findings };
}

async function findingsOf(page: Page, path: string, data: string): Promise<Finding[]> {
  const shown = await page.evaluate<Shown>(READ_PAGE);
  const findings: Finding[] = [];
  for (const [where, text] of [['text', shown.body], ['title', shown.title], ...shown.attributes.map((a) => ['attribute', a])] as [string, string][]) {
    const stray = strayWords(text, data);
    if (stray.length > 0) findings.push({ path, problem: `${where}: ${stray.slice(0, 8).join(' ')}` });
  }
  if (shown.width > WIDTH) findings.push({ path, problem: `${shown.width} px wide at ${WIDTH} px` });
  return findings;
}

/** Submits a page's form with what it holds (or nothing typed) to see its errors. */
async function formErrors(page: Page, origin: string, path: string, button: string, data: string, fill: Record<string, string> = {}): Promise<Finding[]> {
  await page.goto(origin + path);
  for (const [selector, value] of Object.entries(fill)) await page.fill(selector, value);
  // The server's own messages are the point: the browser's checks of required fields are put aside.
  await page.evaluate("document.querySelectorAll('form').forEach((form) => { form.noValidate = true; })");
  await Promise.all([page.waitForNavigation(), page.click(button)]);
  return findingsOf(page, `${path} (posted)`, data);
}

describe('the pseudo-language: every visible word through the catalogue', () => {
  let server: TestServer;
  let browser: Browser;
  let data: string;
  let invitation: string;

  before(async () => {
    server = await startServer({
      records: sampleRecords(),
      env: { PASSWORD_ITERATIONS: String(TEST_ITERATIONS), TIME_ZONE: 'Europe/Brussels', LANGUAGES: `en,fr,nl,de,${PSEUDO}` },
    });
    const db = server.database.db;
    await addMember(db, { username: 'pseudo-admin', password: PASSWORD, superuser: true });
    // A member with the nine rights: every form and button a member can have.
    await grantRights(db, await addMember(db, { username: 'pseudo-member', password: PASSWORD }), SPEC_RIGHTS);
    const invited = await addMember(db, { username: 'pseudo-invited' });
    invitation = setPasswordPath(await createPasswordLink(db, invited, 'invitation', Date.now() * 1000));
    data = [await membersWords(server.base), 'hackerspace-api', ...LANGUAGE_NAMES].join('\n');
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  /** A browser 390 px wide whose language cookie asks for `language`, logged in as `username` when given. */
  async function viewer(language: string, username?: string): Promise<WatchedPage> {
    const watched = await watchedPage(browser, server.base, { viewport: { width: WIDTH, height: 800 } });
    await watched.context.addCookies([{ name: 'django_language', value: language, url: server.base }]);
    if (username !== undefined) {
      const { page } = watched;
      await page.goto(`${server.base}/accounts/login/`);
      await page.fill('input[name="username"]', username);
      await page.fill('input[name="password"]', PASSWORD);
      await Promise.all([page.waitForURL((url) => !url.pathname.startsWith('/accounts/login/')), page.click('form[action="/accounts/login/"] button[type="submit"]')]);
    }
    return watched;
  }

  const visitorStarts = () => [
    '/',
    '/accounts/login/',
    '/accounts/password/reset/',
    '/accounts/password/reset/done/',
    invitation,
    '/no-such-page/',
    '/api/',
    '/api/projects/',
    '/api/users/1/',
  ];
  const memberStarts = ['/', '/accounts/profile/', '/accounts/profile/tokens/', '/accounts/password/', '/projects/new/', '/events/new/'];
  const adminStarts = ['/', '/accounts/admin/', '/accounts/admin/members/', '/accounts/admin/groups/', '/accounts/admin/tokens/'];

  it('a visitor sees only wrapped words and members’ own, on pages that fit 390 px', async () => {
    const watched = await viewer(PSEUDO);
    try {
      const { walked, findings } = await walkSite(watched, visitorStarts(), data);
      findings.push(
        ...(await formErrors(watched.page, server.base, '/accounts/login/', 'form[action="/accounts/login/"] button[type="submit"]', data, {
          'input[name="username"]': 'nobody',
          'input[name="password"]': 'wrong',
        })),
      );
      assert.ok(walked.length >= 10, `walked only ${walked.join(', ')}`);
      assert.deepEqual(findings, [], `walked ${walked.length} pages: ${walked.join(' ')}`);
      // The 404 and 422 pages walked on purpose are the only resources that may fail to load.
      assert.deepEqual(
        watched.problems().filter((problem) => !/^console error: Failed to load resource: the server responded with a status of (404|422) /.test(problem)),
        [],
      );
    } finally {
      await watched.close();
    }
  });

  it('a member sees only wrapped words and members’ own, forms with errors included', async () => {
    const watched = await viewer(PSEUDO, 'pseudo-member');
    try {
      const { walked, findings } = await walkSite(watched, memberStarts, data);
      findings.push(...(await formErrors(watched.page, server.base, '/projects/new/', '.buttons button[value="save"]', data)));
      findings.push(...(await formErrors(watched.page, server.base, '/events/new/', '.buttons button[value="save"]', data, { '#start': '2026-03-29T02:30' })));
      assert.ok(walked.length >= 10, `walked only ${walked.join(', ')}`);
      assert.deepEqual(findings, [], `walked ${walked.length} pages: ${walked.join(' ')}`);
    } finally {
      await watched.close();
    }
  });

  it('a superuser sees only wrapped words and members’ own, the admin pages included', async () => {
    const watched = await viewer(PSEUDO, 'pseudo-admin');
    try {
      const { walked, findings } = await walkSite(watched, adminStarts, data, 120);
      assert.ok(
        walked.some((path) => path.startsWith('/accounts/admin/members/')),
        walked.join(' '),
      );
      assert.deepEqual(findings, [], `walked ${walked.length} pages: ${walked.join(' ')}`);
    } finally {
      await watched.close();
    }
  });

  it('the same walk in English finds words outside the catalogue’s wraps: the check can fail', async () => {
    const watched = await viewer('en');
    try {
      const { findings } = await walkSite(watched, ['/', '/accounts/login/'], data, 2);
      assert.ok(findings.length >= 2, JSON.stringify(findings));
    } finally {
      await watched.close();
    }
  });
});
