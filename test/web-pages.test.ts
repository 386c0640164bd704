/**
 * The web face over real HTTP on the engine under test (docs/web.md §1–§5, without the
 * browser: test/web-browser.test.ts drives Chromium): negotiation between JSON and HTML, the
 * browsable API, the dashboard's content and hooks, detail pages, not-found pages, assets, the
 * calendar feed, and that pages go through the response cache and end with the writes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { preferredMedia } from '../src/drf/negotiation.js';
import { createToken } from '../src/resources/tokens.js';
import { event, meeting, opening, project, user, varyTokens } from './support/contract.js';
import { request, type HttpResponse } from './support/http.js';
import { startServer, type TestServer } from './support/server.js';
import { nowUs } from './support/clock.js';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const HTML = { accept: BROWSER };

describe('preferredMedia (web.md §1)', () => {
  const cases: [string | undefined, 'json' | 'html' | null][] = [
    [undefined, 'json'],
    ['', 'json'],
    ['*/*', 'json'],
    ['application/json', 'json'],
    ['application/json, text/html', 'json'],
    [BROWSER, 'html'],
    ['text/html', 'html'],
    ['text/html, application/json', 'html'],
    // Highest q first.
    ['application/json;q=0.5, text/html', 'html'],
    ['text/html;q=0.5, application/json', 'json'],
    ['text/html;q=0.9, */*', 'json'],
    // Equal q: the more specific match.
    ['*/*, text/html', 'html'],
    ['text/*, application/json', 'json'],
    ['text/*', 'html'],
    ['TEXT/HTML', 'html'],
    // Neither admitted.
    ['application/xml', null],
    ['text/plain', null],
    ['text/html;q=0', null],
    ['image/png, text/csv', null],
  ];
  for (const [accept, expected] of cases) {
    it(`${JSON.stringify(accept)} → ${expected}`, () => assert.equal(preferredMedia(accept), expected));
  }
});

const HOSTILE = [
  '# Plan',
  '<script>window.__pwned=1</script>',
  '<img src=x onerror="window.__pwned=2">',
  '[x](javascript:window.__pwned=3)',
  '![z](data:image/png;base64,AAAA)',
  '**Bold** and [a link](https://example.org/docs).',
].join('\r\n\r\n');

const RECORDS = [
  user(1, 'alice', 'alice@example.org', true),
  user(2, 'bob', 'bob@example.org', false),
  user(3, 'carol', 'carol@example.org', true),
  project(1, 1, { title: 'Laser cutter', status: 'i', progress: 40, short_description: 'Cut things', content: HOSTILE, participants: [2] }),
  project(2, 2, { title: 'Door bot', status: 'f', progress: 100, short_description: 'Done' }),
  event(1, '2099-05-01T18:00:00Z', '2099-05-01T21:00:00Z', { title: 'Future talk', place: 'Main room', description: 'Talk; with, commas' }),
  event(2, '2001-01-01T18:00:00Z', '2001-01-01T20:00:00Z', { title: 'Old party' }),
  event(3, '2099-06-01T18:00:00Z', null, { title: 'Incubating idea', status: 'i' }),
  meeting(1, 2, { OJ: '1. Budget\r\n2. *Door*', PV: '## Decisions\r\n\r\n#### Budget\r\n\r\nAgreed.\r\n\r\n# Next' }),
  opening(1, '2021-03-27T20:00:00Z', true),
];

function assertHtml(res: HttpResponse, status: number, what = '') {
  assert.equal(res.status, status, `${what} ${res.body.slice(0, 200)}`);
  assert.equal(res.headers['content-type'], 'text/html; charset=utf-8', what);
  const csp = String(res.headers['content-security-policy']);
  assert.match(csp, /default-src 'self'/, what);
  assert.match(csp, /script-src 'self'(;|$)/, what);
  assert.doesNotMatch(csp, /unsafe-(inline|eval)/, what);
  assert.match(csp, /frame-ancestors 'none'/, what);
  assert.equal(res.headers['x-content-type-options'], 'nosniff', what);
  assert.ok(res.body.startsWith('<!doctype html>'), what);
}

describe('the browsable API', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ records: RECORDS, env: { PAGE_SIZE: '1' } });
  });
  after(() => server.close());

  it('gives a browser the page, with the status, headers and JSON a program would get', async () => {
    const res = await request(server.base, '/api/users/?page=2', { headers: HTML });
    assertHtml(res, 200);
    assert.deepEqual(varyTokens(res.headers), ['accept', 'accept-encoding']);
    // The list's Allow (docs/contract.md §6): writes are allowed with a token.
    assert.equal(res.headers.allow, 'GET, POST, HEAD, OPTIONS');
    const program = (await request(server.base, '/api/users/?page=2')).json();
    assert.match(res.body, /<code>GET \/api\/users\/\?page=2<\/code>/);
    assert.match(res.body, /HTTP 200 OK\nAllow: GET, POST, HEAD, OPTIONS\nContent-Type: application\/json\nVary: Accept, Accept-Encoding\n/);
    assert.match(
      res.body,
      /<nav class="breadcrumbs" aria-label="Breadcrumbs"><ol><li><a href="\/api\/"><code>api<\/code><\/a><\/li><li><a href="\/api\/users\/" aria-current="page"><code>users<\/code><\/a><\/li><\/ol><\/nav>/,
    );
    // Every URL of this service in the body is a link that stays in the browsable view.
    assert.ok(res.body.includes(`&quot;next&quot;: &quot;<a href="/api/users/?page=3">${server.base}/api/users/?page=3</a>&quot;`), 'next is a link');
    assert.match(res.body, /<a rel="prev" href="\/api\/users\/">Previous page<\/a>/);
    assert.match(res.body, /<a rel="next" href="\/api\/users\/\?page=3">Next page<\/a>/);
    assert.match(res.body, /<a href="\/api\/users\/\?page=2&amp;format=json">Raw JSON<\/a>/);
    assert.ok(res.body.includes(`value="curl -H &#39;Accept: application/json&#39; &#39;${server.base}/api/users/?page=2&#39;"`), 'curl command');
    assert.equal(program.results[0].username, 'bob');
    assert.match(res.body, /&quot;username&quot;|"username": "bob"/);
    assert.doesNotMatch(res.body, /@example\.org/, 'no e-mail address');
  });

  it('escapes what the JSON holds', async () => {
    const res = await request(server.base, '/api/projects/1/', { headers: HTML });
    assertHtml(res, 200);
    assert.ok(!res.body.includes('<script>window'), 'raw markup in a string is escaped');
    assert.ok(res.body.includes('&lt;script&gt;window.__pwned=1&lt;/script&gt;'));
  });

  it('keeps JSON for format=json and .json; format=api follows Accept; OPTIONS stays JSON', async () => {
    const json = await request(server.base, '/api/users/', { headers: { ...HTML } });
    for (const path of ['/api/users/?format=json', '/api/users.json']) {
      const res = await request(server.base, path, { headers: HTML });
      assert.equal(res.status, 200, path);
      assert.equal(res.headers['content-type'], 'application/json', path);
    }
    for (const path of ['/api/users/?format=api', '/api/users.api']) {
      assertHtml(await request(server.base, path, { headers: HTML }), 200, path);
      const program = await request(server.base, path);
      assert.equal(program.headers['content-type'], 'application/json', path);
    }
    const options = await request(server.base, '/api/users/', { method: 'OPTIONS', headers: HTML });
    assert.equal(options.headers['content-type'], 'application/json');
    assert.equal(json.headers['content-type'], 'text/html; charset=utf-8');
  });

  it('gives the HTML variant an entity tag of its own, answers its If-None-Match with 304, and HEAD', async () => {
    const page = await request(server.base, '/api/projects/', { headers: HTML });
    const json = await request(server.base, '/api/projects/');
    assert.ok(page.headers.etag && json.headers.etag);
    assert.notEqual(page.headers.etag, json.headers.etag);
    const again = await request(server.base, '/api/projects/', { headers: { ...HTML, 'if-none-match': String(page.headers.etag) } });
    assert.equal(again.status, 304);
    const jsonAgain = await request(server.base, '/api/projects/', { headers: { 'if-none-match': String(page.headers.etag) } });
    assert.equal(jsonAgain.status, 200, 'the HTML tag does not validate the JSON');
    const head = await request(server.base, '/api/projects/', { method: 'HEAD', headers: HTML });
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
    assert.equal(head.headers['content-length'], String(page.bytes.length));
    assert.equal(head.headers['content-type'], 'text/html; charset=utf-8');
  });

  it('answers errors with the same status, as a page', async () => {
    const missing = await request(server.base, '/api/users/999/', { headers: HTML });
    assertHtml(missing, 404);
    assert.match(missing.body, /<main id="main" class="not-found">/);
    const unauthenticated = await request(server.base, '/api/users/', { method: 'POST', headers: HTML, body: '{}' });
    assertHtml(unauthenticated, 401);
    assert.match(unauthenticated.body, /HTTP 401 Unauthorized/);
    assert.match(unauthenticated.body, /Authentication credentials were not provided\./);
    const unacceptable = await request(server.base, '/api/users/', { headers: { accept: 'application/xml' } });
    assert.equal(unacceptable.status, 406);
    assert.equal(unacceptable.headers['content-type'], 'application/json');
  });

  it('answers unknown paths with a page for a browser and JSON for a program, both with Vary: Accept', async () => {
    const page = await request(server.base, '/no/such/thing', { headers: HTML });
    assertHtml(page, 404);
    assert.ok(varyTokens(page.headers).includes('accept'));
    const json = await request(server.base, '/no/such/thing');
    assert.equal(json.status, 404);
    assert.deepEqual(json.json(), { detail: 'Not found.' });
    assert.ok(varyTokens(json.headers).includes('accept'));
  });
});

describe('the dashboard and the pages', () => {
  let server: TestServer;
  let door: string;
  let admin: string;
  before(async () => {
    server = await startServer({ records: RECORDS, env: { SPACE_NAME: 'UrLab', TIME_ZONE: 'Europe/Brussels' } });
    door = (await createToken(server.database.db, 'door', 'door', nowUs())).secret;
    admin = (await createToken(server.database.db, 'admin', 'admin', nowUs())).secret;
  });
  after(() => server.close());

  it('is always HTML, complete without JavaScript, with the monitoring hooks', async () => {
    const res = await request(server.base, '/', { headers: { accept: 'application/json' } });
    assertHtml(res, 200);
    assert.equal(res.headers.allow, 'GET, HEAD');
    assert.match(res.body, /<title>Open · UrLab<\/title>/);
    assert.match(res.body, /<section id="space-state" class="state" data-open="true" data-time-zone="Europe\/Brussels"/);
    assert.match(res.body, /<h1 id="state-heading" class="state-word" aria-live="polite">Open<\/h1>/);
    // 2021-03-27T20:00:00Z is 21:00 in Brussels (CET, before that night's change to summer time).
    assert.match(res.body, /<time datetime="2021-03-27T21:00:00\+01:00" class="state-relative">/);
    // Words.dateTime in English (dateStyle medium, timeStyle short), in Brussels.
    assert.match(res.body, /<span class="state-absolute">Mar 27, 2021, 9:00\sPM<\/span>/);
    const days = Math.floor((Date.now() - Date.parse('2021-03-27T20:00:00Z')) / 86_400_000);
    assert.match(res.body, new RegExp(`No change for (${days}|${days + 1}) days\\.`));
    const svg = /<svg id="opening-hours"[\s\S]*?<\/svg>/.exec(res.body)?.[0] ?? '';
    assert.equal((svg.match(/<rect class="cell"/g) ?? []).length, 168);
    assert.equal((svg.match(/<rect class="cell"[^>]*><title>[A-Z][a-z]+day \d\d:00–\d\d:00: open \d+% of the time<\/title><\/rect>/g) ?? []).length, 168);
    assert.match(svg, /<title>Tuesday 19:00–20:00: open 100% of the time<\/title>/, 'open all along: every hour 100 %');
    // Upcoming: ready and in the future; neither the old party nor the incubating idea.
    assert.match(res.body, /<a href="\/events\/1\/">Future talk<\/a>/);
    const events = /<section class="events"[\s\S]*?<\/section>/.exec(res.body)?.[0] ?? '';
    assert.doesNotMatch(events, /Old party|Incubating idea/);
    assert.match(res.body, /<a href="\/events.ics">/);
    assert.match(res.body, /<h3>In progress <span class="count">\(1\)<\/span><\/h3>/);
    assert.match(res.body, /<h3>Finished <span class="count">\(1\)<\/span><\/h3>/);
    assert.match(res.body, /<a href="\/projects\/1\/">Laser cutter<\/a>\n<progress max="100" value="40"/);
    assert.match(res.body, /by <a href="\/members\/1\/">alice<\/a>/);
    assert.match(res.body, /<a href="\/meetings\/1\/">Old party<\/a>/);
    assert.match(res.body, /3 members, 2 of whom hold a key\./);
    assert.doesNotMatch(res.body, /@example\.org/);
    assert.match(res.body, /<script src="\/assets\/live\.[0-9a-f]{12}\.js" defer><\/script>/);
    assert.doesNotMatch(res.body, /<script>|<style|style="| on[a-z]+="/, 'nothing inline for the CSP to refuse');
  });

  it('is served from the response cache and ends with the write that changes it', async () => {
    const first = await request(server.base, '/');
    const second = await request(server.base, '/');
    assert.equal(second.headers.etag, first.headers.etag);
    assert.equal((await request(server.base, '/', { headers: { 'if-none-match': String(first.headers.etag) } })).status, 304);
    const post = await request(server.base, '/api/space/openings/', {
      method: 'POST',
      headers: { authorization: `Token ${door}`, 'content-type': 'application/json' },
      body: '{"is_open": false}',
    });
    assert.equal(post.status, 201);
    const after = await request(server.base, '/');
    assert.notEqual(after.headers.etag, first.headers.etag);
    assert.match(after.body, /data-open="false"/);
    assert.match(after.body, /<title>Closed · UrLab<\/title>/);
    // (The live script's template of the note, data-stale-text, is on the section.)
    assert.doesNotMatch(after.body, />No change for/);
  });

  it('renders detail pages with safe Markdown, and never an e-mail address', async () => {
    const page = await request(server.base, '/projects/1/');
    assertHtml(page, 200);
    assert.match(page.body, /<h1>Laser cutter<\/h1>/);
    // The Markdown's own headings sit under the page's h1 and the section's h2.
    assert.match(page.body, /<h2>About the project<\/h2><div class="markdown"><h3>Plan<\/h3>/);
    assert.match(page.body, /<strong>Bold<\/strong> and <a href="https:\/\/example.org\/docs" rel="nofollow noopener">a link<\/a>/);
    // Raw HTML shows as text; links and images of other schemes stay text; no element carries a handler.
    assert.doesNotMatch(page.body, /<script>window|<img|href="(javascript|data):|<[^>]+\son[a-z]+=/i);
    assert.match(page.body, /<p>&lt;script&gt;window.__pwned=1&lt;\/script&gt;<\/p>/);
    assert.match(page.body, /<p>\[x\]\(javascript:window.__pwned=3\)<\/p>/);
    assert.match(page.body, /Participants<\/dt><dd><a href="\/members\/2\/">bob<\/a>/);
    const member = await request(server.base, '/members/1/');
    assertHtml(member, 200);
    assert.match(member.body, /<h1>alice<\/h1>/);
    assert.match(member.body, /Key holder<\/dt><dd>Yes/);
    assert.match(member.body, /<a href="\/projects\/1\/">Laser cutter<\/a>/);
    assert.doesNotMatch(member.body, /@example\.org|gravatar|<img/);
    const meetingPage = await request(server.base, '/meetings/1/');
    assertHtml(meetingPage, 200);
    assert.match(meetingPage.body, /<li>Budget<\/li>\s*<li><em>Door<\/em><\/li>/);
    // Headings only ever go one level deeper (axe's heading-order): ## then #### become h3 and h4; # after them h3 again.
    assert.match(meetingPage.body, /<h2>Minutes<\/h2><div class="markdown"><h3>Decisions<\/h3>\n<h4>Budget<\/h4>\n<p>Agreed\.<\/p>\n<h3>Next<\/h3>/);
    const eventPage = await request(server.base, '/events/1/');
    assertHtml(eventPage, 200);
    assert.match(eventPage.body, /Main room/);
    assert.match(eventPage.body, /Friday, May 1, 2099 at 8:00 PM – Friday, May 1, 2099 at 11:00 PM/, 'in Brussels time (CEST)');
  });

  it('answers 404 pages for unknown or malformed ids, and 301 to the slash', async () => {
    for (const path of ['/projects/999/', '/projects/abc/', '/projects/0/', '/projects/%ZZ/', '/members/99999999999999999999/', '/events/-1/', '/meetings/1.5/']) {
      const res = await request(server.base, path);
      assertHtml(res, 404, path);
    }
    const redirect = await request(server.base, '/projects/1?x=1');
    assert.equal(redirect.status, 301);
    assert.equal(redirect.headers.location, '/projects/1/?x=1');
    assert.equal((await request(server.base, '/', { method: 'POST', body: '' })).status, 405);
  });

  it('serves its assets under content-hashed names, kept for a year', async () => {
    const page = await request(server.base, '/');
    const href = /<link rel="stylesheet" href="(\/assets\/style\.[0-9a-f]{12}\.css)">/.exec(page.body)?.[1];
    assert.ok(href);
    const css = await request(server.base, href);
    assert.equal(css.status, 200);
    assert.equal(css.headers['content-type'], 'text/css; charset=utf-8');
    assert.equal(css.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal((await request(server.base, href, { headers: { 'if-none-match': String(css.headers.etag) } })).status, 304);
    // web.md §6: all of `/` (HTML, CSS, JS) at most 100 KB compressed.
    const hrefs = [...page.body.matchAll(/(?:href|src)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
    assert.equal(hrefs.length, 3, 'stylesheet, icon and script');
    let compressed = 0;
    for (const path of ['/', ...hrefs]) {
      const res = await request(server.base, path, { headers: { 'accept-encoding': 'gzip' } });
      assert.equal(res.status, 200, path);
      compressed += res.bytes.length;
    }
    assert.ok(compressed <= 100 * 1024, `${compressed} bytes compressed`);
    assert.equal((await request(server.base, '/assets/style.css')).status, 404);
    assert.equal((await request(server.base, '/assets/style.000000000000.css')).status, 404);
  });

  it('serves the calendar feed at /events.ics and the original path, conditional, ended by event writes', async () => {
    const feed = await request(server.base, '/events.ics');
    assert.equal(feed.status, 200);
    assert.equal(feed.headers['content-type'], 'text/calendar; charset=utf-8');
    assert.match(feed.body, /^BEGIN:VCALENDAR\r\n/);
    assert.match(feed.body, /BEGIN:VEVENT\r\n/);
    assert.match(feed.body, /SUMMARY:Future talk\r\n/);
    assert.match(feed.body, /DTSTART:20990501T180000Z\r\n/);
    assert.match(feed.body, /DTEND:20990501T210000Z\r\n/);
    assert.match(feed.body, /DESCRIPTION:Talk\\; with\\, commas\r\n/);
    assert.ok(feed.body.includes(`URL:${server.base}/events/1/\r\n`));
    assert.doesNotMatch(feed.body, /Old party/, 'older than 180 days');
    const original = await request(server.base, '/events/urlab.ics');
    assert.equal(original.body, feed.body);
    assert.equal((await request(server.base, '/events.ics', { headers: { 'if-none-match': String(feed.headers.etag) } })).status, 304);
    const created = await request(server.base, '/api/events/', {
      method: 'POST',
      headers: { authorization: `Token ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'New workshop', place: 'Lab', start: '2099-07-01T18:00:00Z', stop: '2099-07-01T20:00:00Z', status: 'r', description: '' }),
    });
    assert.equal(created.status, 201, created.body);
    const changed = await request(server.base, '/events.ics');
    assert.notEqual(changed.headers.etag, feed.headers.etag);
    assert.match(changed.body, /SUMMARY:New workshop\r\n/);
  });
});

describe('the dashboard before the first opening', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  it('says that nothing is recorded, and leaves data-open out', async () => {
    const res = await request(server.base, '/');
    assertHtml(res, 200);
    assert.match(res.body, /<title>Unknown · Hackerspace<\/title>/);
    assert.match(res.body, /<section id="space-state" class="state" data-time-zone="UTC"/);
    assert.match(res.body, /Nothing has been recorded yet/);
    assert.match(res.body, /No upcoming event\./);
    assert.match(res.body, /0 members, 0 of whom hold a key\./);
    const svg = /<svg id="opening-hours"[\s\S]*?<\/svg>/.exec(res.body)?.[0] ?? '';
    assert.equal((svg.match(/: open 0% of the time<\/title>/g) ?? []).length, 168);
  });
});
