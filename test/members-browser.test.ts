// The members' pages in Chromium (members.md §2, §4): logging in and out with the keyboard, the
// navigation's member element, the profile, and axe-core on the login, logout, profile and
// password pages in the light and the dark colour scheme.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { axe, describeViolations, launchBrowser, watchedPage, type WatchedPage } from './support/browser.js';
import { addMember, TEST_ITERATIONS } from './support/members.js';
import { startServer, type TestServer } from './support/server.js';

const USERNAME = 'ada';
const PASSWORD = 'analytical engine 1843';

/** Types the member's name and password into the login form and presses Enter, as a keyboard user does. */
async function logInWithKeyboard(watched: WatchedPage, next = ''): Promise<void> {
  const { page, origin } = watched;
  const response = await page.goto(`${origin}/accounts/login/${next}`);
  assert.equal(response?.status(), 200);
  await page.focus('input[name="username"]');
  await page.keyboard.type(USERNAME);
  await page.keyboard.press('Tab');
  await page.keyboard.type(PASSWORD);
  await Promise.all([page.waitForURL((url) => !url.pathname.startsWith('/accounts/login/')), page.keyboard.press('Enter')]);
}

describe('the members’ pages in a browser', () => {
  let server: TestServer;
  let browser: Browser;

  before(async () => {
    server = await startServer({ env: { PASSWORD_ITERATIONS: String(TEST_ITERATIONS) } });
    await addMember(server.database.db, { username: USERNAME, password: PASSWORD, firstName: 'Ada' });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('logs in with the keyboard, lands on next with the name in the navigation, and logs out with the button', async () => {
    const watched = await watchedPage(browser, server.base);
    try {
      const { page } = watched;
      await logInWithKeyboard(watched, '?next=/accounts/profile/');
      assert.equal(new URL(page.url()).pathname, '/accounts/profile/');
      assert.match((await page.textContent('#member')) ?? '', new RegExp(USERNAME));
      assert.equal(await page.locator('#login').count(), 0);
      // The navigation's log-out button posts its form (with its CSRF token).
      await Promise.all([page.waitForURL((url) => url.pathname === '/'), page.locator('header form button').click()]);
      assert.equal(await page.locator('#member').count(), 0);
      assert.equal(await page.locator('#login').count(), 1);
      const again = await page.goto(`${server.base}/accounts/profile/`);
      assert.equal(new URL(page.url()).pathname, '/accounts/login/', 'a visitor is sent to the login page');
      assert.equal(again?.status(), 200);
    } finally {
      await watched.close();
    }
  });

  it('script typed into every text field of the profile stays inert on the profile and the public page', async () => {
    const hostile = '<script>window.pwned = 1</script><img src="x" onerror="window.pwned = 1">';
    const watched = await watchedPage(browser, server.base);
    try {
      const { page } = watched;
      await logInWithKeyboard(watched, '?next=/accounts/profile/');
      for (const field of ['first_name', 'last_name']) await page.fill(`input[name="${field}"]`, `Ada ${hostile}`.slice(0, 150));
      await page.fill('textarea[name="description"]', `Hello ${hostile} [x](javascript:window.pwned=1)`);
      await page.check('input[name="show_name"]');
      await Promise.all([page.waitForURL((url) => url.search.includes('saved')), page.click('button[value="save"]')]);
      const id = await server.database.db.selectFrom('users').select('id').where('username', '=', USERNAME).executeTakeFirstOrThrow();
      for (const path of ['/accounts/profile/', `/members/${id.id}/`]) {
        const response = await page.goto(server.base + path);
        assert.equal(response?.status(), 200, path);
        assert.equal(await page.evaluate('window.pwned'), undefined, `nothing ran on ${path}`);
        assert.equal(await page.locator('main script, main img[onerror], main a[href^="javascript:"]').count(), 0, path);
        assert.match((await page.textContent('main')) ?? '', /<script>window\.pwned = 1<\/script>/, `the script shown as text on ${path}`);
      }
    } finally {
      await watched.close();
    }
  });

  for (const colorScheme of ['light', 'dark'] as const) {
    it(`axe-core finds no violation on the login, logout, profile and password pages, ${colorScheme} colour scheme`, async () => {
      const failures: string[] = [];
      const watched = await watchedPage(browser, server.base, { colorScheme });
      try {
        const check = async (path: string) => {
          const response = await watched.page.goto(server.base + path);
          assert.equal(response?.status(), 200, path);
          const violations = await axe(watched.page, { openDetails: true });
          if (violations.length > 0) failures.push(`${path}:\n${describeViolations(violations)}`);
        };
        await check('/accounts/login/');
        await logInWithKeyboard(watched);
        for (const path of ['/accounts/profile/', '/accounts/password/', '/accounts/logout/', '/']) await check(path);
        assert.equal(failures.join('\n\n'), '');
      } finally {
        await watched.close();
      }
    });
  }
});
