// The kiosk in Chromium (ledger.md §4), on a tablet (800 × 1280, touch): opened with its token by
// the operator's form, a member picked by touch, a product tapped, the new balance shown and the
// purchase undone; a keyboard-wedge scanner (digits then Enter within milliseconds, with a
// product's button focused) read twice in a row charged once, and a real second scan charged
// again; a member's card scanned; back to the start when left alone (its idle time shortened
// through `data-idle-ms`, the test waiting for the page to go back, not for time); every target at
// least 44 px; axe-core in the light and the dark scheme. With KIOSK_SCREENSHOTS=<dir>, it writes
// kiosk.png (a purchase just made), kiosk-members.png and kiosk-dark.png there.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createToken } from '../../../src/resources/tokens.js';
import { axe, describeViolations, launchBrowser, watchedPage, type WatchedPage } from '../../support/browser.js';
import { nowUs } from '../../support/clock.js';
import { addMember } from '../../support/members.js';
import { startServer, type TestServer } from '../../support/server.js';

const TABLET = { width: 800, height: 1280 };
const CLUB_MATE_BARCODE = '5449000000996';
const ALICE_CARD = '90000001';
const CLUB_MATE_CENTS = 150;
/** WCAG 2.5.5's target size, in CSS pixels. */
const MIN_TARGET = 44;
const SHOTS = process.env.KIOSK_SCREENSHOTS;

describe('the kiosk in a browser', () => {
  let server: TestServer;
  let browser: Browser;
  let secret: string;
  let alice: number;
  let clubMate: number;
  let cola: number;

  async function balance(userId: number): Promise<number> {
    const row = await server.database.db.selectFrom('users').select('balance_cents').where('id', '=', userId).executeTakeFirstOrThrow();
    return Number(row.balance_cents);
  }

  async function purchasesOf(userId: number, productId: number): Promise<number> {
    const rows = await server.database.db
      .selectFrom('ledger_entries')
      .select('id')
      .where('user_id', '=', userId)
      .where('product_id', '=', productId)
      .where('kind', '=', 'purchase')
      .execute();
    return rows.length;
  }

  /** A tablet on which the operator opened the kiosk with its token, through the form. */
  async function openTablet(options: { colorScheme?: 'light' | 'dark' } = {}): Promise<WatchedPage> {
    const watched = await watchedPage(browser, server.base, { viewport: TABLET, hasTouch: true, colorScheme: options.colorScheme ?? 'light' });
    const { page } = watched;
    await page.goto(`${server.base}/stock/kiosk/`);
    await page.fill('#kiosk-token', secret);
    await Promise.all([page.waitForSelector('main.kiosk[data-step="members"]'), page.click('.kiosk-opening button[type="submit"]')]);
    // Counts the purchases and undos the page was told of, on #kiosk for selectors to wait for (a predicate evaluated in the page would break its CSP).
    await page.evaluate(`(() => {
      const kiosk = document.querySelector('main.kiosk');
      let bought = 0;
      kiosk.addEventListener('kiosk:purchased', () => kiosk.setAttribute('data-test-bought', String(++bought)));
      kiosk.addEventListener('kiosk:undone', () => kiosk.setAttribute('data-test-undone', 'true'));
    })()`);
    return watched;
  }

  /** The page settled: no request in flight, no double-read window open. */
  async function settled(page: Page): Promise<void> {
    await page.waitForSelector('main.kiosk:not([aria-busy]):not([data-repeat-window])', { state: 'attached' });
  }

  async function assertTargetsLargeEnough(page: Page, where: string): Promise<void> {
    const small = await page.evaluate<string[]>(`[...document.querySelectorAll('main.kiosk a, main.kiosk button')]
      .filter((e) => e.offsetParent !== null)
      .map((e) => ({ text: e.textContent.trim(), box: e.getBoundingClientRect() }))
      .filter(({ box }) => box.width < ${MIN_TARGET} || box.height < ${MIN_TARGET})
      .map(({ text, box }) => text + ': ' + Math.round(box.width) + '×' + Math.round(box.height))`);
    assert.deepEqual(small, [], `targets under ${MIN_TARGET} px on ${where}`);
  }

  async function assertAxe(page: Page, where: string): Promise<void> {
    const violations = await axe(page);
    assert.deepEqual(violations, [], `${where}:\n${describeViolations(violations)}`);
  }

  before(async () => {
    server = await startServer();
    const db = server.database.db;
    alice = await addMember(db, { username: 'alice' });
    const members = [alice];
    for (const name of ['bernadette', 'chris', 'dominique', 'eve', 'fatou']) members.push(await addMember(db, { username: name }));
    await db
      .insertInto('stock_members')
      .values(members.map((id) => ({ user_id: id, on_kiosk: 1, member_code: id === alice ? ALICE_CARD : null })))
      .execute();
    const drinks = await db.insertInto('stock_categories').values({ name: 'Drinks' }).returning('id').executeTakeFirstOrThrow();
    const snacks = await db.insertInto('stock_categories').values({ name: 'Snacks' }).returning('id').executeTakeFirstOrThrow();
    const product = async (name: string, cents: number, category: number, countsStock = 0) =>
      (
        await db
          .insertInto('stock_products')
          .values({ name, price_cents: cents, category_id: category, active: 1, counts_stock: countsStock })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
    clubMate = await product('Club-Mate', CLUB_MATE_CENTS, drinks.id);
    cola = await product('Cola', 120, drinks.id);
    await product('Water', 80, drinks.id);
    await product('Chips', 120, snacks.id, 1);
    await product('Chocolate', 100, snacks.id);
    await db.insertInto('stock_barcodes').values({ code: CLUB_MATE_BARCODE, product_id: clubMate }).execute();
    secret = (await createToken(db, 'fridge', 'kiosk', nowUs())).secret;
    browser = await launchBrowser();
    if (SHOTS) fs.mkdirSync(SHOTS, { recursive: true });
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('picks a member by touch, buys a product by touch, shows the new balance, and undoes it', async () => {
    const watched = await openTablet();
    try {
      const { page } = watched;
      await assertTargetsLargeEnough(page, 'the members');
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'kiosk-members.png'), fullPage: true });
      const before = await balance(alice);
      await page.tap('a.kiosk-member:text-is("alice")');
      await page.waitForSelector('main.kiosk[data-step="products"]');
      assert.match((await page.textContent('#kiosk-products-heading')) ?? '', /alice/);
      assert.equal(await page.isVisible('#kiosk-members'), false);
      await page.tap(`button[data-product="${clubMate}"]`);
      await page.waitForSelector('main.kiosk[data-test-bought="1"]', { state: 'attached' });
      assert.equal(await balance(alice), before - CLUB_MATE_CENTS);
      const said = (await page.textContent('#kiosk-said')) ?? '';
      assert.match(said, /Club-Mate/);
      // The balance as the page's language writes money: −€1.50 from 0 (ledger.md: a purchase takes its price).
      assert.ok(said.includes('€1.50'), said);
      assert.equal(await page.isVisible('#kiosk-undo button'), true);
      await assertTargetsLargeEnough(page, 'the products');
      await settled(page);
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'kiosk.png'), fullPage: true });
      await page.tap('#kiosk-undo button');
      await page.waitForSelector('main.kiosk[data-test-undone]', { state: 'attached' });
      assert.equal(await page.isVisible('#kiosk-undo'), false);
      assert.match((await page.textContent('#kiosk-said')) ?? '', /Club-Mate/);
      await settled(page);
      assert.equal(await balance(alice), before);
      assert.deepEqual(watched.problems(), []);
    } finally {
      await watched.close();
    }
  });

  it('charges a scanner’s double read once, with a product’s button focused, and a real second scan again', async () => {
    const watched = await openTablet();
    try {
      const { page } = watched;
      // The card chooses the member: digits and Enter, as a scanner types them.
      await page.keyboard.type(ALICE_CARD, { delay: 0 });
      await page.keyboard.press('Enter');
      await page.waitForSelector('main.kiosk[data-step="products"]');
      assert.match((await page.textContent('#kiosk-products-heading')) ?? '', /alice/);
      await settled(page);
      const clubMates = await purchasesOf(alice, clubMate);
      const colas = await purchasesOf(alice, cola);
      // Cola's button has the focus: a scan's Enter must not press it.
      await page.focus(`button[data-product="${cola}"]`);
      for (let read = 0; read < 2; read++) {
        await page.keyboard.type(CLUB_MATE_BARCODE, { delay: 0 });
        await page.keyboard.press('Enter');
      }
      // A scanner's extra Enter after its read.
      await page.keyboard.press('Enter');
      await page.waitForSelector('main.kiosk[data-test-bought="1"]', { state: 'attached' });
      await settled(page);
      assert.equal(await purchasesOf(alice, clubMate), clubMates + 1, 'one purchase for a double read');
      assert.equal(await purchasesOf(alice, cola), colas, 'the focused button was not pressed');
      // The window is over: the member really scans again.
      await page.keyboard.type(CLUB_MATE_BARCODE, { delay: 0 });
      await page.keyboard.press('Enter');
      await page.waitForSelector('main.kiosk[data-test-bought="2"]', { state: 'attached' });
      await settled(page);
      assert.equal(await purchasesOf(alice, clubMate), clubMates + 2);
      assert.equal(await purchasesOf(alice, cola), colas);
      assert.deepEqual(watched.problems(), []);
    } finally {
      await watched.close();
    }
  });

  it('goes back to the start, forgetting the member and the balance, when left alone', async () => {
    const watched = await openTablet();
    try {
      const { page } = watched;
      await page.tap('a.kiosk-member:text-is("alice")');
      await page.tap(`button[data-product="${cola}"]`);
      await page.waitForSelector('main.kiosk[data-test-bought="1"]', { state: 'attached' });
      await settled(page);
      assert.equal(await page.isVisible('#kiosk-said'), true);
      // Its idle time shortened; a key (touching nothing) starts it again.
      await page.evaluate(`document.querySelector('main.kiosk').setAttribute('data-idle-ms', '300')`);
      await page.keyboard.press('Shift');
      await page.waitForSelector('main.kiosk[data-step="members"]', { state: 'attached' });
      assert.equal(await page.isVisible('#kiosk-products'), false);
      assert.equal((await page.textContent('#kiosk-said'))?.trim(), '', 'the balance is gone');
      assert.equal(await page.isVisible('#kiosk-undo'), false);
      assert.equal(await page.getAttribute('main.kiosk', 'data-member'), null);
      assert.deepEqual(watched.problems(), []);
    } finally {
      await watched.close();
    }
  });

  for (const colorScheme of ['light', 'dark'] as const) {
    it(`passes axe in the ${colorScheme} scheme: the opening form, the members, the products with a purchase`, async () => {
      const watched = await watchedPage(browser, server.base, { viewport: TABLET, hasTouch: true, colorScheme });
      try {
        const { page } = watched;
        await page.goto(`${server.base}/stock/kiosk/`);
        await assertAxe(page, 'the opening form');
      } finally {
        await watched.close();
      }
      const opened = await openTablet({ colorScheme });
      try {
        const { page } = opened;
        await assertAxe(page, 'the members');
        await page.tap('a.kiosk-member:text-is("alice")');
        await page.tap(`button[data-product="${cola}"]`);
        await page.waitForSelector('main.kiosk[data-test-bought="1"]', { state: 'attached' });
        await settled(page);
        await assertAxe(page, 'the products, a purchase just made');
        if (SHOTS && colorScheme === 'dark') await page.screenshot({ path: path.join(SHOTS, 'kiosk-dark.png'), fullPage: true });
        assert.deepEqual(opened.problems(), []);
      } finally {
        await opened.close();
      }
    });
  }
});
