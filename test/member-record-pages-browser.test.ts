// Members on the records' pages in Chromium (members.md §4, §6): joining and leaving a project and
// saying one is interested in an event with the keyboard; axe-core on the lists and on record
// pages seen by a member, in the light and the dark colour scheme; script in every text field of
// a record inert on the lists, the record pages and the dashboard, for a visitor and a member.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { importRecords } from '../src/installed-apps.js';
import { axe, describeViolations, launchBrowser, watchedPage, type WatchedPage } from './support/browser.js';
import { event, meeting, project } from './support/contract.js';
import { addMember, TEST_ITERATIONS } from './support/members.js';
import { startServer, type TestServer } from './support/server.js';

const USERNAME = 'ada';
const PASSWORD = 'analytical engine 1843';
const HOSTILE = '<script>window.pwned = 1</script><img src="x" onerror="window.pwned = 1">';
const DAY_MS = 86_400_000;

async function logInWithKeyboard(watched: WatchedPage, next: string): Promise<void> {
  const { page, origin } = watched;
  await page.goto(`${origin}/accounts/login/?next=${encodeURIComponent(next)}`);
  await page.focus('input[name="username"]');
  await page.keyboard.type(USERNAME);
  await page.keyboard.press('Tab');
  await page.keyboard.type(PASSWORD);
  await Promise.all([page.waitForURL((url) => !url.pathname.startsWith('/accounts/login/')), page.keyboard.press('Enter')]);
}

/**
 * Focuses the button named `label` and presses Enter, as a keyboard user does; waits for the
 * page it leads to (the same address), known by its notice.
 */
async function pressButton(watched: WatchedPage, label: string, notice: string): Promise<void> {
  const { page } = watched;
  await page.getByRole('button', { name: label, exact: true }).focus();
  await page.keyboard.press('Enter');
  await page.locator('#notice', { hasText: new RegExp(`^${notice.replaceAll('.', '\\.')}$`) }).waitFor();
}

describe('members on the records’ pages in a browser', () => {
  let server: TestServer;
  let browser: Browser;

  before(async () => {
    server = await startServer({ env: { PASSWORD_ITERATIONS: String(TEST_ITERATIONS) } });
    const db = server.database.db;
    const ada = await addMember(db, { username: USERNAME, password: PASSWORD });
    const soon = (days: number) => new Date(Date.now() + days * DAY_MS).toISOString();
    await db
      .transaction()
      .execute((trx) =>
        importRecords(trx, [
          project(1, ada, { title: `Robot ${HOSTILE}`, short_description: `Short ${HOSTILE}`, content: `Content ${HOSTILE} [x](javascript:window.pwned=1)`, status: 'i' }),
          project(2, ada, { title: 'Bike repair' }),
          event(1, soon(2), soon(2.1), { title: `Talk ${HOSTILE}`, place: `Room ${HOSTILE}`, description: `About ${HOSTILE}`, organizer: ada, is_talk: true }),
          event(2, soon(-3), soon(-2.9), { title: `Assembly ${HOSTILE}`, organizer: ada }),
          meeting(1, 2, { OJ: `Agenda ${HOSTILE}`, PV: `Minutes ${HOSTILE}` }),
        ]),
      );
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('joins and leaves a project and says they are interested in an event, with the keyboard', async () => {
    const watched = await watchedPage(browser, server.base);
    try {
      const { page } = watched;
      await logInWithKeyboard(watched, '/projects/2/');
      assert.equal(new URL(page.url()).pathname, '/projects/2/');
      await pressButton(watched, 'Join the project', 'You take part in this project.');
      assert.equal(await page.textContent('#notice'), 'You take part in this project.');
      assert.match((await page.textContent('.facts')) ?? '', new RegExp(`Participants${USERNAME}`));
      await pressButton(watched, 'Leave the project', 'You no longer take part in this project.');
      assert.equal(await page.textContent('#notice'), 'You no longer take part in this project.');
      await page.goto(`${server.base}/events/1/`);
      await pressButton(watched, 'I am interested', 'You are interested in this event.');
      assert.equal(await page.textContent('#notice'), 'You are interested in this event.');
      await pressButton(watched, 'I am no longer interested', 'You are no longer interested in this event.');
      assert.equal(await page.textContent('#notice'), 'You are no longer interested in this event.');
      assert.deepEqual(watched.problems(), []);
    } finally {
      await watched.close();
    }
  });

  const LISTS = ['/projects/', '/events/', '/events/talks/'];
  const RECORDS = ['/projects/1/', '/events/1/', '/meetings/1/'];

  for (const colorScheme of ['light', 'dark'] as const) {
    it(`axe-core finds no violation on the lists and the record pages a member sees, ${colorScheme} colour scheme`, async () => {
      const failures: string[] = [];
      const watched = await watchedPage(browser, server.base, { colorScheme });
      try {
        await logInWithKeyboard(watched, '/');
        for (const path of [...LISTS, ...RECORDS, '/']) {
          const response = await watched.page.goto(server.base + path);
          assert.equal(response?.status(), 200, path);
          const violations = await axe(watched.page, { openDetails: true });
          if (violations.length > 0) failures.push(`${path}:\n${describeViolations(violations)}`);
        }
        assert.equal(failures.join('\n\n'), '');
      } finally {
        await watched.close();
      }
    });
  }

  it('script in every text field of a record stays inert on the lists, the record pages and the dashboard, for a visitor and a member', async () => {
    for (const member of [false, true]) {
      const watched = await watchedPage(browser, server.base);
      try {
        const { page } = watched;
        if (member) await logInWithKeyboard(watched, '/');
        for (const path of [...LISTS, ...RECORDS, '/']) {
          const response = await page.goto(server.base + path);
          assert.equal(response?.status(), 200, path);
          assert.equal(await page.evaluate('window.pwned'), undefined, `nothing ran on ${path}`);
          assert.equal(await page.locator('main script, main img[onerror], main a[href^="javascript:"]').count(), 0, path);
          assert.match((await page.textContent('main')) ?? '', /<script>window\.pwned = 1<\/script>/, `the script shown as text on ${path}`);
        }
        assert.deepEqual(watched.problems(), [], member ? 'as a member' : 'as a visitor');
      } finally {
        await watched.close();
      }
    }
  });
});
