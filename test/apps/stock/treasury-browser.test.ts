// The treasury's page and a product's form in Chromium (ledger.md §1, §4): a payment with its
// receipt posted from the page (a real file input, multipart), and axe-core on the treasury's
// page and a product's form, light and dark, with nothing the page should not do (CSP, errors).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { axe, describeViolations, launchBrowser, watchedPage, type WatchedPage } from '../../support/browser.js';
import { addMember, TEST_ITERATIONS } from '../../support/members.js';
import { startServer, type TestServer } from '../../support/server.js';

const USERNAME = 'tresorier';
const PASSWORD = 'compiler 1952 cobol';

async function logIn(watched: WatchedPage): Promise<void> {
  const { page, origin } = watched;
  await page.goto(`${origin}/accounts/login/`);
  await page.fill('input[name="username"]', USERNAME);
  await page.fill('input[name="password"]', PASSWORD);
  await Promise.all([page.waitForURL((url) => !url.pathname.startsWith('/accounts/login/')), page.press('input[name="password"]', 'Enter')]);
}

describe('the treasury in a browser', () => {
  let server: TestServer;
  let browser: Browser;
  let productId: number;
  let dir: string;

  before(async () => {
    server = await startServer({ env: { PASSWORD_ITERATIONS: String(TEST_ITERATIONS) } });
    const db = server.database.db;
    const me = await addMember(db, { username: USERNAME, password: PASSWORD, superuser: true });
    const debtor = await addMember(db, { username: 'mia' });
    await db.updateTable('users').set({ balance_cents: -450 }).where('id', '=', debtor).execute();
    await db.insertInto('stock_fund_zones').values({ name: 'Caisse du bar', method: 'CASH' }).execute();
    const category = await db.insertInto('stock_categories').values({ name: 'Boissons' }).returning('id').executeTakeFirstOrThrow();
    productId = (
      await db
        .insertInto('stock_products')
        .values({ name: 'Club-Mate', price_cents: 150, category_id: category.id, active: 1, counts_stock: 1 })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
    await db
      .insertInto('stock_refunds')
      .values({ user_id: debtor, when_us: Date.now() * 1000, title: 'Pizzas', amount_cents: 1200, payment_id: null, receipt: null })
      .execute();
    void me;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'treasury-browser-'));
    fs.writeFileSync(path.join(dir, 'ticket.pdf'), '%PDF-1.4\n%%EOF\n');
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('records a payment with its receipt from the page, and the receipt opens', async () => {
    const watched = await watchedPage(browser, server.base);
    try {
      const { page } = watched;
      await logIn(watched);
      await page.goto(`${server.base}/stock/transactions`);
      await page.fill('#payment-amount', '3,20');
      await page.fill('#payment-comments', 'Filament');
      await page.setInputFiles('#payment-receipt', path.join(dir, 'ticket.pdf'));
      await Promise.all([page.waitForNavigation(), page.click('form[action="/stock/transactions/payments/"] button[type="submit"]')]);
      assert.equal(new URL(page.url()).pathname, '/stock/transactions');
      assert.equal(await page.textContent('#notice'), 'The payment was recorded.');
      const href = await page.getAttribute('table.payments a', 'href');
      assert.match(href ?? '', /^\/stock\/receipts\/souches\/[A-Za-z0-9_-]{22}\.pdf$/);
      const res = await page.request.get(`${server.base}${href}`);
      assert.equal(res.status(), 200);
      assert.equal(res.headers()['content-type'], 'application/pdf');
      assert.deepEqual(watched.problems(), []);
      // TREASURY_SCREENSHOT=<file.png>: the page as the treasurer sees it, for people to look at.
      if (process.env.TREASURY_SCREENSHOT) await page.screenshot({ path: process.env.TREASURY_SCREENSHOT, fullPage: true });
    } finally {
      await watched.close();
    }
  });

  for (const colorScheme of ['light', 'dark'] as const) {
    it(`axe-core finds no violation on the treasury's page and a product's form, ${colorScheme}`, async () => {
      const watched = await watchedPage(browser, server.base, { colorScheme });
      try {
        const { page } = watched;
        await logIn(watched);
        for (const address of ['/stock/transactions', `/stock/products/${productId}/`, '/stock/products/', '/accounts/debtmails/']) {
          await page.goto(`${server.base}${address}`);
          const violations = await axe(page, { openDetails: true });
          assert.deepEqual(violations, [], `${address}: ${describeViolations(violations)}`);
        }
        assert.deepEqual(watched.problems(), []);
      } finally {
        await watched.close();
      }
    });
  }
});
