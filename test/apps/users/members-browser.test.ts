// The members' pages in Chromium (members.md §2, §4): logging in and out with the keyboard, the
// navigation's member element, the profile, script typed into the text fields of the profile,
// the personal tokens and the admin pages staying inert, and axe-core on the login, logout,
// profile and password pages in the light and the dark colour scheme.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axe, describeViolations, launchBrowser, watchedPage, type WatchedPage } from '../../support/browser.js';
import { addMember, TEST_ITERATIONS } from '../../support/members.js';
import { startServer, type TestServer } from '../../support/server.js';

const USERNAME = 'ada';
const PASSWORD = 'analytical engine 1843';
/** A superuser of the site, with the same password. */
const SUPERUSER = 'root';
/** What a script typed into a text field would run: out of an attribute, a script element, an image's handler. */
const HOSTILE = '"><script>window.pwned = 1</script><img src="x" onerror="window.pwned = 1">';

/** Types the member's name and password into the login form and presses Enter, as a keyboard user does. */
async function logInWithKeyboard(watched: WatchedPage, next = '', username = USERNAME): Promise<void> {
  const { page, origin } = watched;
  const response = await page.goto(`${origin}/accounts/login/${next}`);
  assert.equal(response?.status(), 200);
  await page.focus('input[name="username"]');
  await page.keyboard.type(username);
  await page.keyboard.press('Tab');
  await page.keyboard.type(PASSWORD);
  await Promise.all([page.waitForURL((url) => !url.pathname.startsWith('/accounts/login/')), page.keyboard.press('Enter')]);
}

/** The page shown ran nothing of HOSTILE (no element, no handler, no marker) and shows the script as text. */
async function assertInert(page: Page, where: string): Promise<void> {
  assert.equal(await page.evaluate('window.pwned'), undefined, `nothing ran on ${where}`);
  assert.equal(await page.locator('main script, main img[onerror], main a[href^="javascript:"]').count(), 0, where);
  assert.match((await page.textContent('main')) ?? '', /<script>window\.pwned = 1<\/script>/, `the script shown as text on ${where}`);
}

/** Goes to `path` (a 200) and asserts that it is inert. */
async function visitInert(watched: WatchedPage, path: string): Promise<void> {
  const response = await watched.page.goto(watched.origin + path);
  assert.equal(response?.status(), 200, path);
  await assertInert(watched.page, path);
}

describe('the members’ pages in a browser', () => {
  let server: TestServer;
  let browser: Browser;

  before(async () => {
    server = await startServer({ env: { PASSWORD_ITERATIONS: String(TEST_ITERATIONS) } });
    await addMember(server.database.db, { username: USERNAME, password: PASSWORD, firstName: 'Ada' });
    await addMember(server.database.db, { username: SUPERUSER, password: PASSWORD, superuser: true });
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
    const watched = await watchedPage(browser, server.base);
    try {
      const { page } = watched;
      await logInWithKeyboard(watched, '?next=/accounts/profile/');
      for (const field of ['first_name', 'last_name']) await page.fill(`input[name="${field}"]`, `Ada ${HOSTILE}`.slice(0, 150));
      await page.fill('textarea[name="description"]', `Hello ${HOSTILE} [x](javascript:window.pwned=1)`);
      await page.check('input[name="show_name"]');
      await page.click('button[value="save"]');
      // The same address again, known by its notice.
      await page.locator('#notice', { hasText: 'Your profile is saved.' }).waitFor();
      const id = await server.database.db.selectFrom('users').select('id').where('username', '=', USERNAME).executeTakeFirstOrThrow();
      for (const path of ['/accounts/profile/', `/members/${id.id}/`]) await visitInert(watched, path);
      assert.deepEqual(watched.problems(), []);
    } finally {
      await watched.close();
    }
  });

  it("script typed into a personal token's name stays inert on the token-created page and the profile's list", async () => {
    const watched = await watchedPage(browser, server.base);
    try {
      const { page } = watched;
      await logInWithKeyboard(watched, '?next=/accounts/profile/');
      await page.fill('input[name="token_name"]', `laptop ${HOSTILE}`);
      const [created] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/accounts/profile/tokens/')), page.click('button:text("Create a token")')]);
      assert.equal(created.status(), 200);
      await page.waitForLoadState();
      await assertInert(page, 'the token-created page');
      await visitInert(watched, '/accounts/profile/');
      assert.deepEqual(watched.problems(), []);
    } finally {
      await watched.close();
    }
  });

  it('script typed into the admin pages’ text fields, and in names shown there, stays inert on every admin page', async () => {
    const db = server.database.db;
    const hostileId = await addMember(db, { username: `x${HOSTILE}`, email: 'x@example.org' });
    const ada = await db.selectFrom('users').select('id').where('username', '=', USERNAME).executeTakeFirstOrThrow();
    const watched = await watchedPage(browser, server.base);
    try {
      const { page } = watched;
      await logInWithKeyboard(watched, '?next=/accounts/admin/', SUPERUSER);
      // A group, named on the groups page, given to ada on her page.
      await page.goto(`${server.base}/accounts/admin/groups/`);
      await page.fill('#group-name', `committee ${HOSTILE}`);
      await Promise.all([page.waitForURL((url) => /^\/accounts\/admin\/groups\/\d+\/$/.test(url.pathname)), page.click('button:text("Create group")')]);
      assert.equal(await page.textContent('#notice'), 'The group is created.');
      await assertInert(page, 'the new group’s page');
      await page.goto(`${server.base}/accounts/admin/members/${ada.id}/`);
      await page.locator('fieldset', { hasText: 'Groups' }).locator('input[type="checkbox"]').check();
      await page.click('button:text("Save")');
      // The same address again, known by its notice.
      await page.locator('#notice', { hasText: 'The member is saved.' }).waitFor();
      // An operator token named on the tokens page: its secret is shown with its name.
      await page.goto(`${server.base}/accounts/admin/tokens/`);
      await page.fill('#token-name', `door ${HOSTILE}`);
      await Promise.all([page.waitForResponse((r) => r.url().endsWith('/accounts/admin/tokens/') && r.request().method() === 'POST'), page.click('button:text("Create token")')]);
      await page.waitForLoadState();
      await assertInert(page, 'the token-created notice');
      // The members' search, with the script as the query: the caption repeats it, the member whose name holds it is found.
      await page.goto(`${server.base}/accounts/admin/members/`);
      await page.fill('#member-search', HOSTILE);
      await Promise.all([page.waitForURL((url) => url.search.includes('q=')), page.press('#member-search', 'Enter')]);
      await assertInert(page, 'the search results');
      assert.equal(await page.locator(`#members a[href="/accounts/admin/members/${hostileId}/"]`).count(), 1, 'the member is found');
      for (const path of [
        '/accounts/admin/members/',
        `/accounts/admin/members/${ada.id}/`,
        `/accounts/admin/members/${hostileId}/`,
        '/accounts/admin/groups/',
        '/accounts/admin/tokens/',
      ]) {
        await visitInert(watched, path);
      }
      assert.deepEqual(watched.problems(), []);
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
