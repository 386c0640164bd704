// GET /api/docs/ (issue 16 §2): the API reference, rendered by Redoc from the OpenAPI document,
// served entirely from this origin under the pages' CSP (src/web/api-docs.ts). Over HTTP: the
// page, its CSP, its assets (hashed names, immutable caching), the links to it; in Chromium
// (test/support/browser.ts): the operations rendered, a curl example and the Token header shown,
// no console error, no CSP violation, no request to another origin. Engine-independent: it runs
// the same on both engines (TEST_ENGINE).
//
// Requests go through fetch, not support/http.ts's `request`: that one checks every answer under
// /api/ against the OpenAPI document, and this page is not part of the API it documents.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchBrowser, watchedPage } from './support/browser.js';
import { sampleRecords, startServer, type TestServer } from './support/server.js';

function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...values]) => [name, values]),
  );
}

describe('GET /api/docs/', () => {
  let server: TestServer;
  let browser: Browser;

  before(async () => {
    server = await startServer({ records: sampleRecords() });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('is an HTML page whose CSP allows scripts from this origin only', async () => {
    const res = await fetch(`${server.base}/api/docs/`);
    assert.equal(res.status, 200);
    assert.match(String(res.headers.get('content-type')), /^text\/html; charset=utf-8$/);
    const csp = directives(String(res.headers.get('content-security-policy')));
    assert.deepEqual(csp.get('script-src'), ["'self'"]);
    assert.deepEqual(csp.get('default-src'), ["'self'"]);
    assert.deepEqual(csp.get('connect-src'), ["'self'"]);
    assert.deepEqual(csp.get('font-src'), ["'self'"]);
    assert.deepEqual(csp.get('object-src'), ["'none'"]);
    assert.equal(csp.has('worker-src'), false, 'workers fall back to script-src');
    for (const [name, values] of csp) {
      assert.ok(!values.includes("'unsafe-eval'"), `${name} without 'unsafe-eval'`);
      if (name !== 'style-src') assert.ok(!values.includes("'unsafe-inline'"), `${name} without 'unsafe-inline'`);
      assert.ok(!values.some((v) => /^(https?:|\*|data:|blob:)/.test(v)), `${name}: this origin only (${values.join(' ')})`);
    }
    const body = await res.text();
    assert.match(body, /<title>API reference · /);
    assert.doesNotMatch(body, /<script(?![^>]*\ssrc=)[^>]*>/, 'no inline script');
    assert.doesNotMatch(body, /(?:src|href)="(?:https?:)?\/\//, 'nothing from another origin');
    assert.match(body, /data-schema-url="\/api\/schema\/\?format=json"/);
    // Without its slash: the usual redirect.
    const bare = await fetch(`${server.base}/api/docs?x=1`, { redirect: 'manual' });
    assert.equal(bare.status, 301);
    assert.equal(bare.headers.get('location'), '/api/docs/?x=1');
    const post = await fetch(`${server.base}/api/docs/`, { method: 'POST' });
    assert.equal(post.status, 405);
  });

  it('serves its scripts and stylesheet under hashed names, cached for a year, compressed', async () => {
    const body = await (await fetch(`${server.base}/api/docs/`)).text();
    const assets = [...body.matchAll(/(?:href|src)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
    for (const name of ['redoc.standalone', 'api-docs']) {
      assert.ok(
        assets.some((a) => new RegExp(`^/assets/${name}\\.[0-9a-f]{12}\\.js$`).test(a)),
        `${name}.js in ${assets.join(', ')}`,
      );
    }
    assert.ok(assets.some((a) => /^\/assets\/api-docs\.[0-9a-f]{12}\.css$/.test(a)));
    for (const asset of assets) {
      const res = await fetch(server.base + asset, { headers: { 'accept-encoding': 'gzip' } });
      assert.equal(res.status, 200, asset);
      assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable', asset);
      await res.arrayBuffer();
    }
    const redoc = assets.find((a) => a.startsWith('/assets/redoc.standalone.'))!;
    const res = await fetch(server.base + redoc, { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(res.headers.get('content-encoding'), 'gzip');
    assert.match(String(res.headers.get('content-type')), /^text\/javascript/);
    await res.arrayBuffer();
  });

  it('is linked from the dashboard and from the browsable API', async () => {
    const dashboard = await (await fetch(`${server.base}/`)).text();
    assert.match(dashboard, /<a href="\/api\/docs\/">API reference<\/a>/);
    const browsable = await (await fetch(`${server.base}/api/users/`, { headers: { accept: 'text/html' } })).text();
    assert.match(browsable, /<p class="raw">.*<a href="\/api\/docs\/">API reference<\/a><\/p>/);
  });

  it('renders the operations in Chromium, with a curl example and the token, and nothing refused or fetched elsewhere', async () => {
    const watched = await watchedPage(browser, server.base);
    const { page } = watched;
    try {
      const schema = page.waitForResponse((r) => r.url() === `${server.base}/api/schema/?format=json`);
      const response = await page.goto(`${server.base}/api/docs/`);
      assert.equal(response?.status(), 200);
      assert.equal((await schema).status(), 200, 'the document, from this origin');
      // A known operation's summary (getUserList), rendered by Redoc.
      await page.getByText('User List: read', { exact: true }).first().waitFor({ state: 'attached', timeout: 60_000 }); // a safety timeout: Redoc parses a megabyte of script, slow on a loaded machine
      await page.getByText('User List: create a record', { exact: true }).first().waitFor({ state: 'attached' });
      const text = (await page.locator('#api-reference').textContent()) ?? '';
      // How to authenticate: the security scheme and the description's paragraph.
      assert.match(text, /Authorization: Token <secret>/);
      assert.match(text, /Authentication/);
      // Each operation has a curl example; a write's carries the token header and a JSON body.
      const samples = await page.evaluate<string[]>(`[...document.querySelectorAll('#api-reference pre')].map((p) => p.textContent).filter((t) => t.startsWith('curl'))`);
      assert.ok(
        samples.some((s) => /^curl 'http:\/\/127\.0\.0\.1:\d+\/api\/users\/'$/.test(s)),
        `a GET example (${samples.slice(0, 3).join(' / ')})`,
      );
      assert.ok(
        samples.some((s) => s.includes("-X POST 'http") && s.includes("/api/users/'") && s.includes("-H 'Authorization: Token <secret>'") && s.includes('--data')),
        'a POST example with the token and a body',
      );
      assert.equal(await page.locator('.api-docs-loading').count(), 0, 'the loading note was replaced');
      assert.deepEqual(watched.problems(), []);
    } finally {
      await watched.close();
    }
  });
});
