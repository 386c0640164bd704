// The slate in Chromium (ledger.md §1, §4): a purchase made with the keyboard alone (Tab, then
// Enter on the product's button), every button of the page at least 44 × 44 CSS px on a 390 px
// wide touch screen, and axe-core on the slate (with entries, an Undo button, a refused form) in
// the light and the dark colour scheme. With SLATE_SCREENSHOT=<file.png>, a full-page screenshot
// of the slate at 390 px is written there (and its dark twin, `-dark.png`).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { grantRights } from '../../../src/apps/users/rights.js';
import { axe, describeViolations, launchBrowser, watchedPage, type WatchedPage } from '../../support/browser.js';
import { addMember, TEST_ITERATIONS } from '../../support/members.js';
import { startServer, type TestServer } from '../../support/server.js';

const USERNAME = 'ada';
const PASSWORD = 'analytical engine 1843';
const SLATE = '/accounts/balance';
const PHONE = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true } as const;

async function logInWithKeyboard(watched: WatchedPage): Promise<void> {
  const { page, origin } = watched;
  const response = await page.goto(`${origin}/accounts/login/?next=${SLATE}`);
  assert.equal(response?.status(), 200);
  await page.focus('input[name="username"]');
  await page.keyboard.type(USERNAME);
  await page.keyboard.press('Tab');
  await page.keyboard.type(PASSWORD);
  await Promise.all([page.waitForURL((url) => url.pathname === SLATE), page.keyboard.press('Enter')]);
}

describe('the slate in a browser', () => {
  let server: TestServer;
  let browser: Browser;
  let adaId: number;
  let mateId: number;

  before(async () => {
    server = await startServer({ env: { PASSWORD_ITERATIONS: String(TEST_ITERATIONS) } });
    const db = server.database.db;
    adaId = await addMember(db, { username: USERNAME, password: PASSWORD, firstName: 'Ada' });
    await grantRights(db, adaId, ['users.change_balance']);
    for (const name of ['babbage', 'grace', 'linus']) await addMember(db, { username: name });
    const drinks = await db.insertInto('stock_categories').values({ name: 'Drinks' }).returning('id').executeTakeFirstOrThrow();
    const food = await db.insertInto('stock_categories').values({ name: 'Snacks' }).returning('id').executeTakeFirstOrThrow();
    const add = async (name: string, cents: number, category: number) =>
      (await db.insertInto('stock_products').values({ name, price_cents: cents, category_id: category, active: 1 }).returning('id').executeTakeFirstOrThrow()).id;
    mateId = await add('Club-Mate', 150, drinks.id);
    await add('Mate Cola (Granini, 33 cl)', 180, drinks.id);
    await add('Water', 50, drinks.id);
    await add('Chips', 120, food.id);
    await add('Chocolate bar', 100, food.id);
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('buys a product with the keyboard alone: Tab to its button, Enter, and the notice says so', async () => {
    const watched = await watchedPage(browser, server.base);
    try {
      const { page } = watched;
      await logInWithKeyboard(watched);
      const target = `buy-shelf-${mateId}`;
      let tabs = 0;
      while ((await page.evaluate<string>("document.activeElement?.id ?? ''")) !== target) {
        assert.ok(++tabs < 80, 'the button is reached with Tab');
        await page.keyboard.press('Tab');
      }
      await Promise.all([page.waitForURL((url) => url.pathname === SLATE), page.keyboard.press('Enter')]);
      await page.locator('#notice', { hasText: 'You bought Club-Mate for €1.50.' }).waitFor();
      assert.equal(await page.textContent('#balance-amount'), '-€1.50');
      const row = await server.database.db.selectFrom('users').select('balance_cents').where('id', '=', adaId).executeTakeFirstOrThrow();
      assert.equal(Number(row.balance_cents), -150);
      assert.deepEqual(watched.problems(), []);
    } finally {
      await watched.close();
    }
  });

  it('makes every button of the slate at least 44 × 44 CSS px on a 390 px wide touch screen, without sideways scrolling', async () => {
    const watched = await watchedPage(browser, server.base, PHONE);
    try {
      const { page } = watched;
      await logInWithKeyboard(watched);
      // A favourite and an Undo button are on the page too.
      await page.locator(`#buy-shelf-${mateId}`).click();
      await page.locator('#notice').waitFor();
      const small = await page.evaluate<
        string[]
      >(`[...document.querySelectorAll('main button, main select, main input:not([type="hidden"]):not([type="checkbox"])')].flatMap((element) => {
        const box = element.getBoundingClientRect();
        return box.width < 44 || box.height < 44 ? [element.outerHTML.slice(0, 80) + ': ' + box.width + ' × ' + box.height] : [];
      })`);
      assert.deepEqual(small, []);
      assert.ok((await page.locator('main button').count()) > 8);
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      assert.ok(overflow <= 0, `no sideways scroll (${overflow} px)`);
      const file = process.env.SLATE_SCREENSHOT;
      if (file) {
        await page.screenshot({ path: file, fullPage: true });
        await page.emulateMedia({ colorScheme: 'dark' });
        await page.screenshot({ path: file.replace(/\.png$/, '-dark.png'), fullPage: true });
      }
    } finally {
      await watched.close();
    }
  });

  for (const colorScheme of ['light', 'dark'] as const) {
    it(`axe-core finds no violation on the slate, with entries and a refused form, ${colorScheme} colour scheme`, async () => {
      const watched = await watchedPage(browser, server.base, { colorScheme });
      try {
        const { page } = watched;
        await logInWithKeyboard(watched);
        await page.locator(`#buy-shelf-${mateId}`).click();
        await page.locator('#notice').waitFor();
        let violations = await axe(page);
        assert.equal(violations.length, 0, describeViolations(violations));
        // A refused spend: the page again (422) with the message beside the form.
        await page.fill('#spend-name', 'Tape');
        await page.fill('#spend-value', '1.505');
        const [answer] = await Promise.all([page.waitForResponse((r) => r.url().endsWith(`${SLATE}/spend`)), page.locator('#spend-heading ~ p button').click()]);
        assert.equal(answer.status(), 422);
        await page.locator('#spend-error').waitFor();
        violations = await axe(page);
        assert.equal(violations.length, 0, describeViolations(violations));
        assert.deepEqual(
          watched.problems().filter((p) => !p.includes('422')),
          [],
        );
      } finally {
        await watched.close();
      }
    });
  }
});
