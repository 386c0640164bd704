// The web face in a real browser (docs/web.md §6): playwright-core driving the system's
// Chromium (test/support/browser.ts; a Chromium that cannot start fails these tests, never skips
// them) against an in-process server on the sample data plus a few records of our own (hostile
// Markdown, upcoming events). Both engines (TEST_ENGINE).
//
//   (a) the state on `/` follows door posts within 2 s, with no reload, and the title with it;
//   (b) with JavaScript off, `/` is complete;
//   (c) no horizontal overflow at 390 and 1280 px;
//   (d) no request leaves the origin; (e) no console error, page error or CSP violation;
//   (f) axe-core finds no violation, in the light and the dark colour scheme;
//   (g) hostile Markdown stays inert.
//
// Waits are for events (a response, an element in a state, a title); the 2 s of (a) is the
// spec's bound, the rest are Playwright's safety timeouts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createToken } from '../src/resources/tokens.js';
import { axe, describeViolations, launchBrowser, watchedPage, type WatchedPage } from './support/browser.js';
import { request } from './support/http.js';
import { sampleRecords, startServer, type TestServer } from './support/server.js';

/** Ids of the records this file adds to the sample data. */
const HOSTILE = 900;
const FUTURE_EVENT = 901;
/** A project of the sample data with Markdown content, and one with a very long one. */
const PROJECT = 4;
const LONG_PROJECT = 9;

/** Everything the spec says must stay inert, plus a few classics; CRLF line breaks, as the data has them. */
const HOSTILE_MARKDOWN = [
  '# Hostile content',
  '',
  '<script>window.__pwned=1</script>',
  '',
  '<img src=x onerror="window.__pwned=2">',
  '',
  '[x](javascript:window.__pwned=3)',
  '',
  '[y](JaVaScRiPt:alert(1))',
  '',
  '![z](data:image/png;base64,AAAA)',
  '',
  '<a href="javascript:alert(1)">a</a>',
  '',
  '[v](vbscript:msgbox(1)) [d](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==) [e](&#106;avascript:alert(1)) <javascript:alert(2)>',
  '',
  '[reference][evil]',
  '',
  '[evil]: javascript:window.__pwned=4',
  '',
  '<svg onload="window.__pwned=5"></svg><iframe src="javascript:alert(3)"></iframe>',
  '',
  '* [fine](https://example.org/fine) and [mail](mailto:someone@example.org)',
  '* ![a picture](https://example.org/picture.png)',
].join('\r\n');

const HOSTILE_TITLE = 'Hostile <script>window.__pwned=6</script> title';

function testRecords(): unknown[] {
  const far = '2099-06-01T18:00:00Z';
  const farEnd = '2099-06-01T22:00:00Z';
  return [
    ...sampleRecords(),
    {
      model: 'projects.project',
      pk: HOSTILE,
      fields: {
        title: HOSTILE_TITLE,
        maintainer: 3,
        participants: [3, 5],
        created: '2024-01-01T10:00:00Z',
        modified: '2024-01-02T10:00:00Z',
        status: 'p',
        progress: 42,
        dependencies: [],
        picture: '',
        short_description: '<b onmouseover="window.__pwned=7">bold</b>',
        content: HOSTILE_MARKDOWN,
      },
    },
    {
      model: 'events.event',
      pk: HOSTILE,
      fields: {
        title: HOSTILE_TITLE,
        place: '<img src=x onerror="window.__pwned=8">',
        start: far,
        stop: farEnd,
        status: 'r',
        organizer: 3,
        description: HOSTILE_MARKDOWN,
        picture: '',
        interested: [],
        is_talk: false,
      },
    },
    {
      model: 'events.event',
      pk: FUTURE_EVENT,
      fields: {
        title: 'Soldering workshop',
        place: 'Main room',
        start: '2099-07-01T18:00:00Z',
        stop: '2099-07-01T21:00:00Z',
        status: 'r',
        organizer: 5,
        description: 'Bring your own **board**.\r\n',
        picture: '',
        interested: [],
        is_talk: false,
      },
    },
    {
      model: 'events.meeting',
      pk: HOSTILE,
      fields: { event: HOSTILE, OJ: HOSTILE_MARKDOWN, PV: HOSTILE_MARKDOWN, members: [3], pad: '', ongoing: false },
    },
  ];
}

/** What the API says the state is now. */
async function spaceStatus(server: TestServer): Promise<{ is_open: boolean | null; since: string | null }> {
  const res = await request(server.base, '/api/space/status/');
  assert.equal(res.status, 200, res.body);
  return res.json() as { is_open: boolean | null; since: string | null };
}

/** Loads `path` and checks the status code; on `/` with JavaScript on, also waits until the page's stream is connected. */
async function visit(watched: WatchedPage, path: string, status = 200): Promise<void> {
  const { page, origin } = watched;
  const stream = path === '/' && watched.javaScriptEnabled ? page.waitForResponse((r) => r.url() === `${origin}/api/space/stream/`) : null;
  const response = await page.goto(origin + path);
  assert.ok(response, `a response for ${path}`);
  assert.equal(response.status(), status, `status of ${path}`);
  assert.match(String(response.headers()['content-type']), /^text\/html/, `content type of ${path}`);
  if (stream) assert.equal((await stream).status(), 200, 'the stream answered 200');
}

function evaluate<T>(page: Page, expression: string): Promise<T> {
  return page.evaluate<T>(expression);
}

describe('the web face in a browser', () => {
  let server: TestServer;
  let browser: Browser;

  before(async () => {
    server = await startServer({ records: testRecords(), env: { TIME_ZONE: 'Europe/Brussels' } });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('(a) flips the state on / within 2 s of a door post, without a reload, and the title follows', async () => {
    const secret = (await createToken(server.database.db, 'browser door', 'door', Date.now() * 1000)).secret;
    const watched = await watchedPage(browser, server.base);
    const fresh = await watchedPage(browser, server.base, { javaScriptEnabled: false });
    const { page } = watched;
    /** The state section as a person reads it; `load` first loads `/` afresh. */
    const stateAsShown = async (on: Page, load = false) => {
      if (load) await visit(fresh, '/');
      const section = on.locator('#space-state');
      const text = async (selector: string) => ((await section.locator(selector).textContent()) ?? '').trim();
      return {
        open: await section.getAttribute('data-open'),
        word: await text('.state-word'),
        datetime: await section.locator('.state-since time').getAttribute('datetime'),
        relative: await text('.state-since time'),
        absolute: await text('.state-absolute'),
        staleShown: await section.locator('.state-stale').isVisible(),
        title: await on.title(),
      };
    };
    try {
      let navigations = 0;
      page.on('framenavigated', (frame) => {
        if (frame === page.mainFrame()) navigations++;
      });
      await visit(watched, '/');
      const initial = await spaceStatus(server);
      assert.equal(typeof initial.is_open, 'boolean', 'the sample data has a state');
      assert.equal(await page.locator('#space-state').getAttribute('data-open'), String(initial.is_open), 'the server rendered the current state');
      // The sample data's last report is far in the past: the page says it is stale.
      assert.match((await page.locator('#space-state .state-stale').textContent()) ?? '', /^No change for \d+ days\.$/);
      assert.equal(await page.locator('#space-state .state-stale').isVisible(), true, 'the stale note is shown');
      await page.locator('#space-state[data-live="connected"]').waitFor({ state: 'attached' });
      await evaluate(page, 'window.__sameDocument = true');
      const siteName = ((await page.locator('.site-name').textContent()) ?? '').trim();
      assert.notEqual(siteName, '', 'the site has a name');

      for (const isOpen of [!initial.is_open, initial.is_open as boolean]) {
        const word = isOpen ? 'Open' : 'Closed';
        // Waiting starts before the post: the 2 s run from the report, not from its answer.
        // (An error is kept as a value until awaited, so that an early timeout is not an unhandled rejection.)
        const flipped = page
          .locator(`#space-state[data-open="${isOpen}"]`)
          .waitFor({ state: 'attached', timeout: 2000 })
          .then(
            () => null,
            (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
          );
        const res = await request(server.base, '/api/space/openings/', {
          method: 'POST',
          headers: { authorization: `Token ${secret}`, 'content-type': 'application/json' },
          body: JSON.stringify({ is_open: isOpen }),
        });
        assert.equal(res.status, 201, res.body);
        const late = await flipped;
        if (late) throw late;
        // The script sets the title in the same turn as data-open.
        assert.equal(await page.title(), `${word} · ${siteName}`, 'the title follows');

        const now = await spaceStatus(server);
        assert.equal(now.is_open, isOpen);
        assert.equal(((await page.locator('#space-state .state-word').textContent()) ?? '').trim(), word);
        assert.equal(await page.locator('#space-state .state-since time').getAttribute('datetime'), now.since, 'the <time> holds the new since');
        assert.equal(((await page.locator('#space-state .state-since time').textContent()) ?? '').trim(), 'just now');
        assert.equal(await page.locator('#space-state .state-stale').isVisible(), false, 'a fresh state is not stale');
        // The live page now reads as a fresh load would (the server's own rendering, without script).
        assert.deepEqual(await stateAsShown(page), await stateAsShown(fresh.page, true), 'the live update matches a fresh load');
      }
      assert.equal(await evaluate(page, 'window.__sameDocument'), true, 'the page was not reloaded');
      assert.equal(navigations, 1, 'one navigation: the first load');
      assert.deepEqual(watched.problems(), []);
      assert.deepEqual(fresh.problems(), []);
    } finally {
      await watched.close();
      await fresh.close();
    }
  });

  it('(b) / is complete with JavaScript off: state, heatmap, events, projects, meetings, members', async () => {
    const watched = await watchedPage(browser, server.base, { javaScriptEnabled: false });
    const { page } = watched;
    try {
      await visit(watched, '/');
      const status = await spaceStatus(server);
      const state = page.locator('#space-state');
      assert.equal(await state.getAttribute('data-open'), String(status.is_open));
      assert.equal(((await state.locator('.state-word').textContent()) ?? '').trim(), status.is_open ? 'Open' : 'Closed');
      assert.equal(await state.locator('.state-since time').getAttribute('datetime'), status.since);
      assert.match(((await state.locator('.state-since time').textContent()) ?? '').trim(), /\S/, 'a relative time');
      assert.match((await state.locator('.state-absolute').textContent()) ?? '', /\d{4}/, 'an absolute time');

      const heatmap = page.locator('svg#opening-hours');
      assert.equal(await heatmap.locator('rect').count(), 168, '7 × 24 cells');
      const titles = await heatmap.locator('rect').evaluateAll((rects) => rects.map((rect) => rect.querySelector('title')?.textContent ?? ''));
      const day = '(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
      for (const title of titles) assert.match(title, new RegExp(`^${day} \\d\\d:00–\\d\\d:00: open \\d{1,3}% of the time$`));
      assert.equal(new Set(titles.map((t) => t.split(':')[0])).size, 168, 'each cell names its own day and hour');
      const levels = await heatmap.locator('rect').evaluateAll((rects) => rects.map((rect) => rect.getAttribute('data-level')));
      assert.ok(
        levels.every((level) => level !== null && /^[0-4]$/.test(level)),
        `every cell has a data-level 0..4: ${levels.join(',')}`,
      );
      assert.ok((await page.locator('.hours .legend li').count()) >= 2, 'a legend');
      assert.match(((await page.locator('.hours .hours-summary').textContent()) ?? '').trim(), /\S/, 'a summary in words');
      assert.equal(await page.locator('.hours details.hours-table table').count(), 1, 'the table alternative');

      assert.equal(await page.locator(`.events a[href="/events/${FUTURE_EVENT}/"]`).count(), 1, 'the upcoming event links to its page');
      assert.ok((await page.locator('a[href="/events.ics"]').count()) >= 1, 'a link to the calendar feed');

      const cards = page.locator('.projects .cards .card');
      assert.equal(await cards.count(), 16, 'every project (15 of the sample and ours)');
      assert.equal(await page.locator('.projects .card progress').count(), 16, 'a progress bar each');
      assert.equal(await page.locator('.projects .card .maintainer').count(), 16, 'a maintainer each');
      assert.equal(await page.locator('.projects .card a[href^="/projects/"]').count(), 16, 'a link to each page');
      const groups = (await page.locator('.projects h3').allTextContents()).map((t) => t.trim());
      assert.ok(groups.length >= 2, `status groups: ${groups.join(' | ')}`);
      for (const group of groups) assert.match(group, /^[A-Z][a-z]+/, `a status shown as a word: ${group}`);

      assert.ok((await page.locator('.meetings a[href^="/meetings/"]').count()) >= 1, 'recent meetings link to their pages');
      assert.match(((await page.locator('.members .members-count').textContent()) ?? '').trim(), /\d+.*\d+/s, 'how many members, how many key holders');
      assert.deepEqual(watched.problems(), []);
    } finally {
      await watched.close();
    }
  });

  /** Pages that every check below visits. */
  const PAGES = ['/', `/projects/${PROJECT}/`, `/projects/${LONG_PROJECT}/`, '/api/users/', '/api/projects/', '/api/', `/events/${FUTURE_EVENT}/`, '/meetings/1/', '/members/3/'];

  for (const width of [390, 1280]) {
    it(`(c) has no horizontal overflow at ${width} px`, async () => {
      const watched = await watchedPage(browser, server.base, { viewport: { width, height: 900 } });
      const { page } = watched;
      try {
        for (const path of [...PAGES, `/projects/${HOSTILE}/`]) {
          await visit(watched, path);
          // Open every <details> (the hours table is the widest thing on /): it must scroll inside, not widen the page.
          await evaluate(page, `document.querySelectorAll('details').forEach((d) => { d.open = true; })`);
          const { scrollWidth, innerWidth } = await evaluate<{ scrollWidth: number; innerWidth: number }>(
            page,
            '({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth })',
          );
          assert.equal(innerWidth, width);
          assert.ok(scrollWidth <= innerWidth, `${path} at ${width} px: the document is ${scrollWidth} px wide`);
        }
        await visit(watched, '/no-such-page/', 404);
        assert.ok(await evaluate<boolean>(page, 'document.documentElement.scrollWidth <= window.innerWidth'), 'the not-found page fits');
      } finally {
        await watched.close();
      }
    });
  }

  it('(d, e) no request leaves the origin; no console error, page error or CSP violation', async () => {
    for (const path of PAGES) {
      const watched = await watchedPage(browser, server.base);
      try {
        await visit(watched, path);
        if (path === '/') {
          // The script has run and applied the stream's first event before we look.
          await watched.page.locator('#space-state[data-live="connected"]').waitFor({ state: 'attached' });
        }
        assert.deepEqual(watched.problems(), [], `on ${path}`);
        // The page's own assets came from the origin and loaded.
        const assets = await evaluate<string[]>(watched.page, `[...document.querySelectorAll('link[rel=stylesheet], script[src]')].map((e) => e.href || e.src)`);
        assert.ok(assets.length >= 1, `${path} has a stylesheet`);
        for (const asset of assets) assert.match(asset, new RegExp(`^${server.base}/assets/[\\w-]+\\.[0-9a-f]+\\.(css|js)$`), `${path}: ${asset}`);
      } finally {
        await watched.close();
      }
    }
  });

  /** Pages for axe, with their status: those web.md §6 names, and the others. */
  const AXE_PAGES: [string, [string, number][]][] = [
    [
      '/, a project page and a browsable API page (web.md §6)',
      [
        ['/', 200],
        [`/projects/${PROJECT}/`, 200],
        ['/api/projects/', 200],
      ],
    ],
    [
      'the other pages (event, meeting, member, hostile project, API users, not found)',
      [
        [`/events/${FUTURE_EVENT}/`, 200],
        ['/meetings/1/', 200],
        ['/members/3/', 200],
        [`/projects/${HOSTILE}/`, 200],
        ['/api/users/', 200],
        ['/no-such-page/', 404],
      ],
    ],
  ];

  for (const colorScheme of ['light', 'dark'] as const) {
    for (const [what, pages] of AXE_PAGES) {
      it(`(f) axe-core finds no violation on ${what}, ${colorScheme} colour scheme`, async () => {
        const failures: string[] = [];
        const watched = await watchedPage(browser, server.base, { colorScheme });
        try {
          for (const [path, status] of pages) {
            await visit(watched, path, status);
            assert.equal(await evaluate(watched.page, `matchMedia('(prefers-color-scheme: ${colorScheme})').matches`), true);
            // Every <details> opened, so that their content is checked too (the hours table).
            const violations = await axe(watched.page, { openDetails: true });
            if (violations.length > 0) failures.push(`${path}:\n${describeViolations(violations)}`);
          }
          assert.equal(failures.join('\n\n'), '');
        } finally {
          await watched.close();
        }
      });
    }
  }

  it('(g) hostile Markdown and titles stay inert: nothing runs, no javascript: link, no foreign image', async () => {
    const watched = await watchedPage(browser, server.base);
    const { page } = watched;
    try {
      const pages = ['/', `/projects/${HOSTILE}/`, `/events/${HOSTILE}/`, `/meetings/${HOSTILE}/`, `/api/projects/${HOSTILE}/`, `/api/events/${HOSTILE}/`];
      for (const path of pages) {
        await visit(watched, path);
        // The hostile records are on this page (so the checks below are about them).
        assert.ok(((await page.locator('main').textContent()) ?? '').includes('<script>window.__pwned=6</script>'), `${path} shows the hostile title as text`);

        // Every link that is not http(s) or mailto (relative ones resolve to http): there must be none; click any anyway.
        const oddLinks = await evaluate<{ index: number; href: string }[]>(
          page,
          `[...document.querySelectorAll('a[href]')].map((a, index) => ({ index, href: a.getAttribute('href'), protocol: a.protocol }))
             .filter((a) => !['http:', 'https:', 'mailto:'].includes(a.protocol))`,
        );
        for (const link of oddLinks)
          await page
            .locator('a[href]')
            .nth(link.index)
            .click({ timeout: 2000 })
            .catch(() => {});
        assert.equal(await evaluate(page, `document.querySelectorAll('a[href^="javascript:" i]').length`), 0, `${path}: javascript: links`);
        assert.deepEqual(
          oddLinks.map((l) => l.href),
          [],
          `${path}: links that are not http(s) or mailto`,
        );
        assert.equal(await evaluate(page, 'typeof window.__pwned'), 'undefined', `${path}: something ran`);

        // Raw HTML was not interpreted: no handler attributes, no script but the site's own, no frame, no foreign image.
        const handlers = await evaluate<string[]>(
          page,
          `[...document.querySelectorAll('*')].flatMap((e) => [...e.attributes].filter((a) => /^on/i.test(a.name)).map((a) => e.tagName + ' ' + a.name))`,
        );
        assert.deepEqual(handlers, [], `${path}: event handler attributes`);
        const scripts = await evaluate<string[]>(page, `[...document.scripts].map((s) => s.getAttribute('src') || 'inline: ' + s.textContent.slice(0, 80))`);
        for (const script of scripts) assert.match(script, /^\/assets\/live\.[0-9a-f]+\.js$/, `${path}: a script`);
        assert.equal(await evaluate(page, `document.querySelectorAll('iframe, object, embed, main svg:not(#opening-hours)').length`), 0, `${path}: embedded content`);
        const images = await evaluate<string[]>(page, `[...document.images].map((i) => i.src).filter((src) => new URL(src).origin !== location.origin)`);
        assert.deepEqual(images, [], `${path}: images from elsewhere`);
      }

      // On the project's page the Markdown was rendered, safely (web.md §4).
      await visit(watched, `/projects/${HOSTILE}/`);
      const markdown = page.locator('.markdown').first();
      const text = (await markdown.textContent()) ?? '';
      for (const raw of ['<script>window.__pwned=1</script>', '<img src=x onerror="window.__pwned=2">', '<a href="javascript:alert(1)">a</a>']) {
        assert.ok(text.includes(raw), `raw HTML shown as text: ${raw}`);
      }
      assert.equal((await markdown.locator('h1, h2, h3').count()) >= 1, true, 'Markdown headings are rendered');
      const fine = markdown.locator('a[href="https://example.org/fine"]');
      assert.equal(await fine.count(), 1, 'an https link stays a link');
      assert.deepEqual(((await fine.getAttribute('rel')) ?? '').split(/\s+/).sort(), ['noopener', 'nofollow'].sort(), 'rel="nofollow noopener"');
      assert.equal(await markdown.locator('a[href="mailto:someone@example.org"]').count(), 1, 'a mailto link stays a link');
      assert.equal(await markdown.locator('a[href="https://example.org/picture.png"]').count(), 1, 'an image from elsewhere is shown as a link');
      assert.equal(await markdown.locator('img').count(), 0, 'no image from the Markdown is loaded');

      assert.deepEqual(watched.problems(), [], 'no dialog, no CSP violation, no request elsewhere, no error');
    } finally {
      await watched.close();
    }
  });
});
