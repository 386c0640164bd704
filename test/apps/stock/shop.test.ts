/**
 * The shop's management over real HTTP on the engine under test (ledger.md §1, §4): every form
 * needs its Django model right (or a superuser), barcodes are unique across products, restocks
 * add to the count that sales take from, and nothing the ledger names is deleted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { grantRights } from '../../../src/apps/users/rights.js';
import { addMember, Browser, csrfOf, logIn, noticeOf, TEST_ITERATIONS } from '../../support/members.js';
import { startServer, type TestServer } from '../../support/server.js';

const PASSWORD = 'correct horse battery';

describe('the shop’s management', () => {
  let server: TestServer;
  let base: string;
  let visitor: Browser;
  let member: Browser;
  let clerk: Browser;
  let adder: Browser;
  let superuser: Browser;
  let memberId: number;
  let categoryId: number;

  before(async () => {
    server = await startServer({ env: { PASSWORD_ITERATIONS: String(TEST_ITERATIONS) } });
    base = server.base;
    const db = server.database.db;
    memberId = await addMember(db, { username: 'mia', password: PASSWORD });
    const clerkId = await addMember(db, { username: 'clerk', password: PASSWORD });
    const adderId = await addMember(db, { username: 'adder', password: PASSWORD });
    await addMember(db, { username: 'root', password: PASSWORD, superuser: true });
    // The clerk may change and restock products, nothing else; the adder may only add products and categories.
    await grantRights(db, clerkId, ['stock.change_product']);
    await grantRights(db, adderId, ['stock.add_product', 'stock.add_category']);
    categoryId = (await db.insertInto('stock_categories').values({ name: 'Boissons' }).returning('id').executeTakeFirstOrThrow()).id;
    visitor = new Browser(base);
    member = await logIn(base, 'mia', PASSWORD);
    clerk = await logIn(base, 'clerk', PASSWORD);
    adder = await logIn(base, 'adder', PASSWORD);
    superuser = await logIn(base, 'root', PASSWORD);
  });

  after(async () => {
    await server?.close();
  });

  async function csrf(browser: Browser): Promise<string> {
    return csrfOf((await browser.get('/accounts/profile/')).body);
  }

  async function post(browser: Browser, path: string, fields: Record<string, string>) {
    return browser.post(path, { csrfmiddlewaretoken: await csrf(browser), ...fields });
  }

  async function products() {
    return server.database.db.selectFrom('stock_products').selectAll().orderBy('id').execute();
  }

  it('lists the shop for members holding one of its rights; a visitor logs in, another member is refused', async () => {
    assert.equal((await visitor.get('/stock/products/')).status, 303);
    assert.equal((await member.get('/stock/products/')).status, 403);
    for (const b of [clerk, adder, superuser]) assert.equal((await b.get('/stock/products/')).status, 200);
    assert.match((await adder.get('/stock/products/')).body, /href="\/stock\/products\/new\/"/);
    assert.doesNotMatch((await clerk.get('/stock/products/')).body, /href="\/stock\/products\/new\/"/);
  });

  it('adds a product only with stock.add_product, with its barcodes; refuses bad fields with 422', async () => {
    const fields = { name: 'Club-Mate', price: '1,50', category: String(categoryId), active: 'on', counts_stock: 'on', barcodes: '4029764001807\n42' };
    assert.equal((await post(member, '/stock/products/new/', fields)).status, 403);
    assert.equal((await post(clerk, '/stock/products/new/', fields)).status, 403);
    assert.equal((await products()).length, 0);
    const added = await post(adder, '/stock/products/new/', fields);
    assert.equal(added.status, 303);
    assert.match(added.headers.location as string, /^\/stock\/products\/\d+\/$/);
    const [p] = await products();
    assert.deepEqual([p.name, p.price_cents, p.category_id, p.active, p.counts_stock], ['Club-Mate', 150, categoryId, 1, 1]);
    const codes = await server.database.db.selectFrom('stock_barcodes').select('code').where('product_id', '=', p.id).orderBy('code').execute();
    assert.deepEqual(
      codes.map((c) => c.code),
      ['4029764001807', '42'],
    );
    for (const [change, field] of [
      [{ name: '' }, 'name'],
      [{ name: 'x'.repeat(101) }, 'name'],
      [{ price: 'abc' }, 'price'],
      [{ price: '1.555' }, 'price'],
      [{ price: '-1' }, 'price'],
      [{ price: '99999' }, 'price'],
      [{ category: '999999' }, 'category'],
      [{ barcodes: 'abc-123' }, 'barcodes'],
    ] as const) {
      const res = await post(adder, '/stock/products/new/', { ...fields, barcodes: '', ...change });
      assert.equal(res.status, 422, JSON.stringify(change));
      assert.match(res.body, new RegExp(`id="${field}-error"`), JSON.stringify(change));
    }
    // A price of 0 is allowed (the original's DecimalField allows it).
    const free = await post(superuser, '/stock/products/new/', { ...fields, name: 'Eau', price: '0', barcodes: '' });
    assert.equal(free.status, 303);
    assert.equal((await products()).length, 2);
    assert.equal((await products())[1].price_cents, 0);
  });

  it('keeps a barcode on one product only', async () => {
    const [mate, eau] = await products();
    const taken = await post(superuser, `/stock/products/${eau.id}/`, { name: 'Eau', price: '0', category: String(categoryId), active: 'on', barcodes: '42' });
    assert.equal(taken.status, 422);
    assert.match(taken.body, /The barcode 42 already belongs to Club-Mate\./);
    const dup = await post(superuser, '/stock/products/new/', { name: 'Autre', price: '1', category: String(categoryId), barcodes: '4029764001807' });
    assert.equal(dup.status, 422);
    // The product that holds it may keep it when saved again, and drop one.
    const kept = await post(superuser, `/stock/products/${mate.id}/`, {
      name: 'Club-Mate',
      price: '1.60',
      category: String(categoryId),
      active: 'on',
      counts_stock: 'on',
      barcodes: '42',
    });
    assert.equal(kept.status, 303);
    const codes = await server.database.db.selectFrom('stock_barcodes').selectAll().orderBy('code').execute();
    assert.deepEqual(
      codes.map((c) => [c.code, c.product_id]),
      [['42', mate.id]],
    );
  });

  it('changes a product only with stock.change_product, and deactivates it', async () => {
    const [mate] = await products();
    const fields = { name: 'Club-Mate 0,5 l', price: '1.60', category: String(categoryId), counts_stock: 'on', barcodes: '42' };
    assert.equal((await post(adder, `/stock/products/${mate.id}/`, fields)).status, 403);
    assert.equal((await post(member, `/stock/products/${mate.id}/`, fields)).status, 403);
    const res = await post(clerk, `/stock/products/${mate.id}/`, fields);
    assert.equal(res.status, 303);
    const page = await clerk.get(`/stock/products/${mate.id}/`);
    assert.equal(noticeOf(page.body), 'The product was saved.');
    const [after] = await products();
    assert.deepEqual([after.name, after.active], ['Club-Mate 0,5 l', 0]);
    assert.equal((await clerk.get('/stock/products/999999/')).status, 404);
  });

  it('restocks with stock.change_product; the count is restocked less sold, sales undone given back', async () => {
    const [mate] = await products();
    assert.equal((await post(adder, `/stock/products/${mate.id}/restock/`, { quantity: '5' })).status, 403);
    assert.equal((await post(clerk, `/stock/products/${mate.id}/restock/`, { quantity: '24' })).status, 303);
    assert.equal((await post(clerk, `/stock/products/${mate.id}/restock/`, { quantity: '0' })).status, 422);
    assert.equal((await post(clerk, `/stock/products/${mate.id}/restock/`, { quantity: 'ten' })).status, 422);
    const db = server.database.db;
    // Three sold (one purchase of 2, one of 1), and the one of 1 undone: 24 − 2 = 22.
    const now = Date.now() * 1000;
    await db
      .insertInto('ledger_entries')
      .values({ user_id: memberId, kind: 'purchase', amount_cents: -320, product_id: mate.id, unit_price_cents: 160, quantity: 2, info: '', channel: 'web', created_us: now })
      .execute();
    const one = await db
      .insertInto('ledger_entries')
      .values({ user_id: memberId, kind: 'purchase', amount_cents: -160, product_id: mate.id, unit_price_cents: 160, quantity: 1, info: '', channel: 'web', created_us: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('ledger_entries')
      .values({ user_id: memberId, kind: 'reversal', amount_cents: 160, product_id: mate.id, reverses_id: one.id, info: '', channel: 'web', created_us: now })
      .execute();
    const page = await clerk.get(`/stock/products/${mate.id}/`);
    assert.match(page.body, /<p id="stock-count">In stock now: 22<\/p>/);
  });

  it('deletes only what nothing names: a sold product or a category with products is refused (deactivate instead)', async () => {
    const [mate, eau] = await products();
    assert.equal((await post(clerk, `/stock/products/${eau.id}/delete/`, {})).status, 403);
    const sold = await post(superuser, `/stock/products/${mate.id}/delete/`, {});
    assert.equal(sold.status, 422);
    assert.match(sold.body, /This product was sold: it cannot be deleted\. Take it off sale instead\./);
    const withProducts = await post(superuser, `/stock/categories/${categoryId}/delete/`, {});
    assert.equal(withProducts.status, 422);
    assert.match(withProducts.body, /This category still has products/);
    assert.equal((await post(superuser, `/stock/products/${eau.id}/delete/`, {})).status, 303);
    assert.equal((await products()).length, 1);
  });

  it('adds, renames and deletes categories with their rights only', async () => {
    assert.equal((await post(clerk, '/stock/categories/new/', { name: 'Snacks' })).status, 403);
    assert.equal((await post(adder, '/stock/categories/new/', { name: '' })).status, 422);
    assert.equal((await post(adder, '/stock/categories/new/', { name: 'Snacks' })).status, 303);
    const snacks = await server.database.db.selectFrom('stock_categories').selectAll().where('name', '=', 'Snacks').executeTakeFirstOrThrow();
    assert.equal((await post(adder, `/stock/categories/${snacks.id}/`, { name: 'Chips' })).status, 403);
    assert.equal((await post(superuser, `/stock/categories/${snacks.id}/`, { name: 'Chips' })).status, 303);
    assert.equal((await adder.get(`/stock/categories/${snacks.id}/`)).status, 403);
    assert.equal((await post(adder, `/stock/categories/${snacks.id}/delete/`, {})).status, 403);
    assert.equal((await post(superuser, `/stock/categories/${snacks.id}/delete/`, {})).status, 303);
    assert.equal(await server.database.db.selectFrom('stock_categories').select('id').where('id', '=', snacks.id).executeTakeFirst(), undefined);
  });
});
