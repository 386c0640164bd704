/**
 * The slate over real HTTP on the engine under test (ledger.md §1–§4): the page, its four forms
 * and undo with their rights, CSRF and Origin, bad values, one-time keys, the debt limit, the
 * kiosk choice, privacy (a balance is seen by its member only on every page and API answer), and
 * `/api/stock/ledger/` for a session, a personal token, another member, a visitor and an admin token.
 * Expected amounts are written out from the spec, not computed with the code under test.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createMemberToken } from '../../../src/apps/users/member-tokens.js';
import { grantRights } from '../../../src/apps/users/rights.js';
import { createToken } from '../../../src/resources/tokens.js';
import type { Db } from '../../../src/db/connection.js';
import { request } from '../../support/http.js';
import { addMember, Browser, csrfOf, logIn, noticeOf, TEST_ITERATIONS } from '../../support/members.js';
import { startServer, type TestServer } from '../../support/server.js';

const PASSWORD = 'correct horse battery';
const SLATE = '/accounts/balance';

/** The hidden one-time key of the first form that posts to `action` on the page. */
export function keyOf(page: string, action: string): string {
  const at = page.indexOf(`action="${action}"`);
  assert.ok(at >= 0, `a form posting to ${action}`);
  const m = /name="key" value="([A-Za-z0-9_-]+)"/.exec(page.slice(at));
  assert.ok(m, `a one-time key in the form posting to ${action}`);
  return m[1];
}

/** Gets the slate and posts one of its forms with the page's CSRF token and that form's one-time key. */
async function submit(browser: Browser, action: string, fields: Record<string, string>, options: { key?: string; headers?: Record<string, string> } = {}) {
  const page = await browser.get(SLATE);
  assert.equal(page.status, 200);
  const key = options.key ?? keyOf(page.body, action);
  return browser.post(action, { csrfmiddlewaretoken: csrfOf(page.body), key, ...fields }, options.headers ?? {});
}

async function balance(db: Db, id: number): Promise<number> {
  const row = await db.selectFrom('users').select('balance_cents').where('id', '=', id).executeTakeFirstOrThrow();
  return Number(row.balance_cents);
}

async function entries(db: Db, id: number) {
  return db.selectFrom('ledger_entries').selectAll().where('user_id', '=', id).orderBy('id').execute();
}

async function entryCount(db: Db): Promise<number> {
  const row = await db
    .selectFrom('ledger_entries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The text of the form error in the page's main part, or null. */
function formError(page: string): string | null {
  return /<p class="form-error" role="alert" id="[a-z]+-error">([^<]*)<\/p>/.exec(page)?.[1] ?? null;
}

interface Shop {
  mate: number;
  chips: number;
  gone: number;
}

async function stockShop(db: Db): Promise<Shop> {
  const drinks = await db.insertInto('stock_categories').values({ name: 'Drinks' }).returning('id').executeTakeFirstOrThrow();
  const food = await db.insertInto('stock_categories').values({ name: 'Food' }).returning('id').executeTakeFirstOrThrow();
  const add = async (name: string, price: number, category: number, active = 1) =>
    (await db.insertInto('stock_products').values({ name, price_cents: price, category_id: category, active }).returning('id').executeTakeFirstOrThrow()).id;
  return { mate: await add('Club-Mate', 150, drinks.id), gone: await add('Old Cola', 200, drinks.id, 0), chips: await add('Chips', 120, food.id) };
}

describe('the slate', () => {
  let server: TestServer;
  let base: string;
  let db: Db;
  let shop: Shop;
  const ids: Record<string, number> = {};
  const browsers: Record<string, Browser> = {};

  before(async () => {
    server = await startServer({ env: { PASSWORD_ITERATIONS: String(TEST_ITERATIONS) } });
    base = server.base;
    db = server.database.db;
    shop = await stockShop(db);
    for (const name of ['alice', 'bob', 'carol', 'treasurer', 'root']) ids[name] = await addMember(db, { username: name, password: PASSWORD, superuser: name === 'root' });
    ids.dave = await addMember(db, { username: 'dave', password: PASSWORD, active: false });
    for (const name of ['alice', 'bob', 'treasurer']) await grantRights(db, ids[name], ['users.change_balance']);
    await grantRights(db, ids.treasurer, ['stock.view_paymenttransaction']);
    for (const name of ['alice', 'bob', 'carol', 'treasurer', 'root']) browsers[name] = await logIn(base, name, PASSWORD);
  });

  after(async () => {
    await server?.close();
  });

  it('sends a visitor to the login page, at either address, and records nothing a visitor posts', async () => {
    for (const path of [SLATE, `${SLATE}/`]) {
      const res = await new Browser(base).get(path);
      assert.equal(res.status, 303, path);
      assert.equal(res.headers.location, `/accounts/login/?next=${encodeURIComponent(path)}`);
    }
    const before = await entryCount(db);
    const res = await new Browser(base).post(`${SLATE}/product`, { product: String(shop.mate), key: 'visitor-key' });
    assert.ok([303, 403].includes(res.status), `a visitor's post: ${res.status}`);
    assert.equal(await entryCount(db), before);
  });

  it('shows the balance, the active products by category, the forms and the active members but oneself', async () => {
    const res = await browsers.alice.get(SLATE);
    assert.equal(res.status, 200);
    assert.equal(res.headers['cache-control'], 'private, no-store');
    const page = res.body;
    assert.match(page, /<h3 id="category-0">Drinks<\/h3>/);
    assert.match(page, /<h3 id="category-1">Food<\/h3>/);
    assert.ok(page.includes('Club-Mate') && page.includes('Chips'));
    assert.ok(!page.includes('Old Cola'), 'no inactive product');
    for (const action of ['product', 'spend', 'top', 'transfer']) assert.ok(page.includes(`action="${SLATE}/${action}"`), action);
    const recipients = /<select id="transfer-recipient"[\s\S]*?<\/select>/.exec(page)![0];
    assert.ok(recipients.includes('>bob<') && recipients.includes('>carol<'));
    assert.ok(!recipients.includes('>alice<'), 'not oneself');
    assert.ok(!recipients.includes('>dave<'), 'no inactive member');
    assert.match(page, /id="balance-amount">€0\.00</);
    assert.match(page, /Your balance is low/);
    // Keys are random and differ between forms.
    assert.notEqual(keyOf(page, `${SLATE}/spend`), keyOf(page, `${SLATE}/top`));
  });

  it('buys in one click: 303 back with the notice, the price taken from the product and kept in the entry', async () => {
    const res = await submit(browsers.alice, `${SLATE}/product`, { product: String(shop.mate) });
    assert.equal(res.status, 303, res.body.slice(0, 500));
    assert.equal(res.headers.location, SLATE);
    const page = await browsers.alice.get(SLATE);
    assert.equal(noticeOf(page.body), 'You bought Club-Mate for €1.50.');
    assert.equal(noticeOf((await browsers.alice.get(SLATE)).body), null, 'the notice is shown once');
    assert.equal(await balance(db, ids.alice), -150);
    const [entry] = await entries(db, ids.alice);
    assert.equal(entry.kind, 'purchase');
    assert.equal(Number(entry.amount_cents), -150);
    assert.equal(Number(entry.unit_price_cents), 150);
    assert.equal(Number(entry.quantity), 1);
    assert.equal(entry.channel, 'web');
    assert.match(page.body, /id="balance-amount">-€1\.50</);
    assert.match(page.body, /below zero/);
  });

  it('spends, tops up and transfers, each with its notice in the member’s language', async () => {
    const before = await balance(db, ids.bob);
    let res = await submit(browsers.bob, `${SLATE}/top`, { location: 'CASH', value: '20' });
    assert.equal(res.status, 303);
    assert.equal(noticeOf((await browsers.bob.get(SLATE)).body), 'You topped up €20.00.');
    res = await submit(browsers.bob, `${SLATE}/spend`, { name: 'Tape', value: '1,50' });
    assert.equal(res.status, 303);
    assert.equal(noticeOf((await browsers.bob.get(SLATE)).body), 'You spent €1.50 (Tape).');
    res = await submit(browsers.bob, `${SLATE}/transfer`, { recipient: String(ids.carol), value: '2.25' });
    assert.equal(res.status, 303);
    assert.equal(noticeOf((await browsers.bob.get(SLATE)).body), 'You sent €2.25 to carol.');
    assert.equal(await balance(db, ids.bob), before + 2000 - 150 - 225);
    assert.equal(await balance(db, ids.carol), 225);
    const bobs = await entries(db, ids.bob);
    assert.deepEqual(
      bobs.map((e) => [e.kind, Number(e.amount_cents), e.location, e.info]),
      [
        ['topup', 2000, 'CASH', ''],
        ['spend', -150, null, 'Tape'],
        ['transfer', -225, null, ''],
      ],
    );
    // In French, as the member's language is set.
    await db.updateTable('users').set({ language: 'fr' }).where('id', '=', ids.bob).execute();
    res = await submit(browsers.bob, `${SLATE}/spend`, { name: 'Colle', value: '0.5' });
    assert.equal(res.status, 303);
    const notice = noticeOf((await browsers.bob.get(SLATE)).body)!;
    assert.ok(notice.startsWith('Vous avez dépensé') && notice.includes('0,50') && notice.includes('Colle'), notice);
    await db.updateTable('users').set({ language: '' }).where('id', '=', ids.bob).execute();
  });

  it('refuses bad values with 422 and the form’s message, recording nothing; accepts 1,50', async () => {
    for (const [action, fields] of [
      ['spend', { name: 'Glue' }],
      ['top', { location: 'BANK' }],
      ['transfer', { recipient: String(ids.bob) }],
    ] as const) {
      for (const value of ['0', '-1', '1.505', 'abc', '501', '']) {
        const before = await entryCount(db);
        const res = await submit(browsers.alice, `${SLATE}/${action}`, { ...fields, value });
        assert.equal(res.status, 422, `${action} ${value}`);
        assert.ok(formError(res.body), `${action} ${value}: a message`);
        assert.match(res.body, new RegExp(`id="${action}-value"[^>]*aria-invalid="true"`));
        assert.equal(await entryCount(db), before, `${action} ${value}: nothing recorded`);
      }
    }
    const res = await submit(browsers.alice, `${SLATE}/top`, { location: 'BANK', value: '500' });
    assert.equal(res.status, 303, 'the maximum itself is accepted');
    const before = await balance(db, ids.alice);
    assert.equal((await submit(browsers.alice, `${SLATE}/top`, { location: 'BANK', value: '1,50' })).status, 303);
    assert.equal(await balance(db, ids.alice), before + 150);
    // A spend's name: blank or over 100 characters.
    for (const name of ['', ' ', 'x'.repeat(101)]) {
      const res = await submit(browsers.alice, `${SLATE}/spend`, { name, value: '1' });
      assert.equal(res.status, 422, `name ${name.length}`);
    }
    assert.equal((await submit(browsers.alice, `${SLATE}/top`, { location: 'SAFE', value: '1' })).status, 422);
  });

  it('refuses a transfer to oneself or to an inactive or unknown member, and an unknown or inactive product', async () => {
    const before = await entryCount(db);
    for (const recipient of [String(ids.alice), String(ids.dave), '999999', 'x', '']) {
      const res = await submit(browsers.alice, `${SLATE}/transfer`, { recipient, value: '1' });
      assert.equal(res.status, 422, `recipient ${recipient}`);
      assert.equal(formError(res.body), recipient === String(ids.alice) ? 'You cannot send money to yourself.' : 'Choose an active member.');
    }
    for (const product of [String(shop.gone), '999999', 'abc', '']) {
      const res = await submit(browsers.alice, `${SLATE}/product`, { product });
      assert.equal(res.status, 422, `product ${product}`);
      assert.equal(formError(res.body), 'Choose a product that is on sale.');
    }
    assert.equal(await entryCount(db), before);
  });

  it('refuses every form without the right users.change_balance (403, nothing recorded), and the page says so', async () => {
    const page = await browsers.carol.get(SLATE);
    assert.equal(page.status, 200);
    assert.match(page.body, /id="no-right"/);
    const before = await entryCount(db);
    for (const [action, fields] of [
      ['product', { product: String(shop.mate) }],
      ['spend', { name: 'x', value: '1' }],
      ['top', { location: 'BANK', value: '1' }],
      ['transfer', { recipient: String(ids.bob), value: '1' }],
      ['spend', { name: 'x', value: 'abc' }],
    ] as const) {
      const res = await browsers.carol.post(`${SLATE}/${action}`, { csrfmiddlewaretoken: csrfOf(page.body), key: `carol-${action}`, ...fields });
      assert.equal(res.status, 403, action);
    }
    const [transfer] = (await entries(db, ids.carol)).filter((e) => e.kind === 'transfer');
    const undo = await browsers.carol.post(`${SLATE}/undo/${transfer.id}`, { csrfmiddlewaretoken: csrfOf(page.body), key: 'carol-undo' });
    assert.equal(undo.status, 403);
    assert.equal(await entryCount(db), before);
  });

  it('refuses a form without its CSRF token or from another origin (403, nothing recorded)', async () => {
    const before = await entryCount(db);
    const page = await browsers.alice.get(SLATE);
    const key = keyOf(page.body, `${SLATE}/product`);
    let res = await browsers.alice.post(`${SLATE}/product`, { key, product: String(shop.mate) });
    assert.equal(res.status, 403);
    res = await browsers.alice.post(`${SLATE}/product`, { csrfmiddlewaretoken: 'x'.repeat(64), key, product: String(shop.mate) });
    assert.equal(res.status, 403);
    res = await browsers.alice.post(`${SLATE}/product`, { csrfmiddlewaretoken: csrfOf(page.body), key, product: String(shop.mate) }, { origin: 'https://evil.example' });
    assert.equal(res.status, 403);
    // Another member's token.
    const bobs = await browsers.bob.get(SLATE);
    res = await browsers.alice.post(`${SLATE}/product`, { csrfmiddlewaretoken: csrfOf(bobs.body), key, product: String(shop.mate) });
    assert.equal(res.status, 403);
    assert.equal(await entryCount(db), before);
  });

  it('records the same one-time key once and answers the second as the first (303, same notice)', async () => {
    const before = await balance(db, ids.alice);
    const count = await entryCount(db);
    const page = await browsers.alice.get(SLATE);
    const key = keyOf(page.body, `${SLATE}/product`);
    const fields = { csrfmiddlewaretoken: csrfOf(page.body), key, product: String(shop.chips) };
    const first = await browsers.alice.post(`${SLATE}/product`, fields);
    const firstNotice = noticeOf((await browsers.alice.get(SLATE)).body);
    const second = await browsers.alice.post(`${SLATE}/product`, fields);
    const secondNotice = noticeOf((await browsers.alice.get(SLATE)).body);
    assert.equal(first.status, 303);
    assert.equal(second.status, 303);
    assert.equal(second.headers.location, first.headers.location);
    assert.equal(firstNotice, 'You bought Chips for €1.20.');
    assert.equal(secondNotice, firstNotice);
    assert.equal(await balance(db, ids.alice), before - 120);
    assert.equal(await entryCount(db), count + 1);
    // Sent at once, twice (a double click): still once.
    const page2 = await browsers.alice.get(SLATE);
    const twice = { csrfmiddlewaretoken: csrfOf(page2.body), key: keyOf(page2.body, `${SLATE}/spend`), name: 'Double', value: '3' };
    const answers = await Promise.all([browsers.alice.post(`${SLATE}/spend`, twice), browsers.alice.post(`${SLATE}/spend`, twice)]);
    assert.deepEqual(
      answers.map((a) => a.status),
      [303, 303],
    );
    assert.equal(await balance(db, ids.alice), before - 120 - 300);
    assert.equal(await entryCount(db), count + 2);
    // Another member's same key is theirs.
    const bobBefore = await balance(db, ids.bob);
    const bobPage = await browsers.bob.get(SLATE);
    assert.equal((await browsers.bob.post(`${SLATE}/product`, { csrfmiddlewaretoken: csrfOf(bobPage.body), key, product: String(shop.chips) })).status, 303);
    assert.equal(await balance(db, ids.bob), bobBefore - 120);
  });

  it('undoes one’s own recent purchase, spend or transfer once; refuses twice and someone else’s', async () => {
    assert.equal((await submit(browsers.alice, `${SLATE}/product`, { product: String(shop.mate) })).status, 303);
    const before = await balance(db, ids.alice);
    const bought = (await entries(db, ids.alice)).at(-1)!;
    const page = await browsers.alice.get(SLATE);
    assert.ok(page.body.includes(`action="${SLATE}/undo/${bought.id}"`), 'an Undo button beside the entry');
    let res = await submit(browsers.alice, `${SLATE}/undo/${bought.id}`, {});
    assert.equal(res.status, 303);
    assert.equal(noticeOf((await browsers.alice.get(SLATE)).body), 'Undone: €1.50 is back on your balance.');
    assert.equal(await balance(db, ids.alice), before + 150);
    const reversal = (await entries(db, ids.alice)).at(-1)!;
    assert.equal(reversal.kind, 'reversal');
    assert.equal(Number(reversal.reverses_id), bought.id);
    const after = await browsers.alice.get(SLATE);
    assert.ok(!after.body.includes(`action="${SLATE}/undo/${bought.id}"`), 'no Undo button once undone');
    res = await browsers.alice.post(`${SLATE}/undo/${bought.id}`, { csrfmiddlewaretoken: csrfOf(after.body), key: 'again-1' });
    assert.equal(res.status, 422);
    assert.equal(formError(res.body), 'This entry has already been undone.');
    // Bob's purchase, undone by Alice: refused.
    assert.equal((await submit(browsers.bob, `${SLATE}/product`, { product: String(shop.mate) })).status, 303);
    const bobs = (await entries(db, ids.bob)).at(-1)!;
    const count = await entryCount(db);
    res = await browsers.alice.post(`${SLATE}/undo/${bobs.id}`, { csrfmiddlewaretoken: csrfOf(after.body), key: 'not-mine' });
    assert.equal(res.status, 422);
    assert.equal(formError(res.body), 'You can only undo your own purchases, spendings and transfers.');
    // A top-up is no undoable kind; an unknown entry neither.
    const topup = (await entries(db, ids.alice)).find((e) => e.kind === 'topup')!;
    assert.equal((await browsers.alice.post(`${SLATE}/undo/${topup.id}`, { csrfmiddlewaretoken: csrfOf(after.body), key: 'topup' })).status, 422);
    assert.equal((await browsers.alice.post(`${SLATE}/undo/99999999`, { csrfmiddlewaretoken: csrfOf(after.body), key: 'unknown' })).status, 422);
    assert.equal(await entryCount(db), count);
    // A transfer undone: both sides come back.
    const carolBefore = await balance(db, ids.carol);
    const aliceBefore = await balance(db, ids.alice);
    assert.equal((await submit(browsers.alice, `${SLATE}/transfer`, { recipient: String(ids.carol), value: '4' })).status, 303);
    const sent = (await entries(db, ids.alice)).at(-1)!;
    assert.equal((await submit(browsers.alice, `${SLATE}/undo/${sent.id}`, {})).status, 303);
    assert.equal(await balance(db, ids.alice), aliceBefore);
    assert.equal(await balance(db, ids.carol), carolBefore);
    // The receiving side cannot undo it.
    const received = (await entries(db, ids.carol)).filter((e) => e.kind === 'transfer' && Number(e.amount_cents) > 0).at(-1)!;
    assert.ok(received);
  });

  it('refuses to undo an entry older than LEDGER_UNDO_MINUTES (5 by default)', async () => {
    const old = Date.now() * 1000 - 6 * 60_000_000;
    const row = await db
      .insertInto('ledger_entries')
      .values({ user_id: ids.alice, kind: 'spend', amount_cents: -100, info: 'Old', channel: 'web', created_us: old, recorded_by: ids.alice })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .updateTable('users')
      .set((eb) => ({ balance_cents: eb('balance_cents', '-', 100) }))
      .where('id', '=', ids.alice)
      .execute();
    const page = await browsers.alice.get(SLATE);
    assert.ok(!page.body.includes(`action="${SLATE}/undo/${row.id}"`), 'no Undo button');
    const res = await browsers.alice.post(`${SLATE}/undo/${row.id}`, { csrfmiddlewaretoken: csrfOf(page.body), key: 'too-late' });
    assert.equal(res.status, 422);
    assert.equal(formError(res.body), 'This entry is older than 5 minutes: ask the treasury to correct it.');
  });

  it('shows the five most bought products first, and pages the entries 20 at a time', async () => {
    let page = await browsers.alice.get(SLATE);
    const favourites = /<section class="slate-favourites"[\s\S]*?<\/section>/.exec(page.body)![0];
    // Alice kept purchases of both products.
    assert.ok(favourites.includes('Chips') && favourites.includes('Club-Mate'));
    for (let i = (await entries(db, ids.alice)).length; i <= 24; i++) assert.equal((await submit(browsers.alice, `${SLATE}/top`, { location: 'CASH', value: '1' })).status, 303);
    const total = (await entries(db, ids.alice)).length;
    assert.ok(total > 20, `${total} entries`);
    page = await browsers.alice.get(SLATE);
    assert.equal((page.body.match(/<tr id="entry-/g) ?? []).length, 20);
    const second = await browsers.alice.get(`${SLATE}?page=2`);
    assert.equal((second.body.match(/<tr id="entry-/g) ?? []).length, total - 20);
    assert.match(second.body, /rel="prev"/);
    // Newest first.
    const shown = [...page.body.matchAll(/<tr id="entry-([0-9]+)"/g)].map((m) => Number(m[1]));
    assert.deepEqual(
      shown,
      [...shown].sort((a, b) => b - a),
    );
  });

  it('keeps the member’s choice about the kiosk', async () => {
    const page = await browsers.alice.get(SLATE);
    assert.ok(!/id="on-kiosk" checked/.test(page.body));
    let res = await browsers.alice.post(`${SLATE}/kiosk`, { csrfmiddlewaretoken: csrfOf(page.body), on_kiosk: 'on' });
    assert.equal(res.status, 303);
    const shown = await browsers.alice.get(SLATE);
    assert.equal(noticeOf(shown.body), 'Your name is shown on the kiosk.');
    assert.match(shown.body, /id="on-kiosk" checked/);
    let row = await db.selectFrom('stock_members').select('on_kiosk').where('user_id', '=', ids.alice).executeTakeFirstOrThrow();
    assert.equal(Number(row.on_kiosk), 1);
    res = await browsers.alice.post(`${SLATE}/kiosk`, { csrfmiddlewaretoken: csrfOf(page.body) });
    assert.equal(res.status, 303);
    row = await db.selectFrom('stock_members').select('on_kiosk').where('user_id', '=', ids.alice).executeTakeFirstOrThrow();
    assert.equal(Number(row.on_kiosk), 0);
    assert.equal((await browsers.alice.post(`${SLATE}/kiosk`, { on_kiosk: 'on' })).status, 403, 'without CSRF');
  });

  it('never shows a balance to anyone but its member: member pages, profile, users API, as a member, another member, a visitor, a treasurer, a superuser', async () => {
    await db.updateTable('users').set({ balance_cents: 12345 }).where('id', '=', ids.bob).execute();
    const secret = /12345|123\.45|123,45/;
    const own = await browsers.bob.get(SLATE);
    assert.match(own.body, /€123\.45/, 'the member sees their own');
    const viewers: [string, Browser][] = [
      ['visitor', new Browser(base)],
      ['alice', browsers.alice],
      ['treasurer', browsers.treasurer],
      ['root', browsers.root],
      ['bob', browsers.bob],
    ];
    for (const [who, browser] of viewers) {
      for (const path of [`/members/${ids.bob}/`, '/members/', '/accounts/bob', `/api/users/${ids.bob}/`, '/api/users/', '/accounts/profile/', '/']) {
        const res = await browser.get(path);
        assert.ok(!secret.test(res.body), `${who} on ${path} (${res.status}) sees no balance`);
      }
      for (const path of [`/api/users/${ids.bob}/`, '/api/users/']) {
        const res = await browser.get(path, { accept: 'application/json' });
        assert.ok(!secret.test(res.body) && !res.body.includes('balance'), `${who} on ${path}`);
      }
      // The slate is always the viewer's own.
      if (who !== 'visitor' && who !== 'bob') assert.ok(!secret.test((await browser.get(SLATE)).body), `${who}'s slate`);
    }
  });
});

describe('/api/stock/ledger/', () => {
  let server: TestServer;
  let base: string;
  let db: Db;
  const ids: Record<string, number> = {};

  before(async () => {
    server = await startServer({ env: { PASSWORD_ITERATIONS: String(TEST_ITERATIONS), PAGE_SIZE: '100' } });
    base = server.base;
    db = server.database.db;
    const shop = await stockShop(db);
    for (const name of ['alice', 'bob']) {
      ids[name] = await addMember(db, { username: name, password: PASSWORD });
      await grantRights(db, ids[name], ['users.change_balance']);
    }
    const alice = await logIn(base, 'alice', PASSWORD);
    assert.equal((await submit(alice, `${SLATE}/top`, { location: 'BANK', value: '10' })).status, 303);
    assert.equal((await submit(alice, `${SLATE}/product`, { product: String(shop.mate) })).status, 303);
    assert.equal((await submit(alice, `${SLATE}/transfer`, { recipient: String(ids.bob), value: '2' })).status, 303);
    const bought = (await entries(db, ids.alice)).find((e) => e.kind === 'purchase')!;
    assert.equal((await submit(alice, `${SLATE}/undo/${bought.id}`, {})).status, 303);
  });

  after(async () => {
    await server?.close();
  });

  it('gives a member their own entries, newest first, paginated as every collection, never cached', async () => {
    const alice = await logIn(base, 'alice', PASSWORD);
    const res = await alice.get('/api/stock/ledger/', { accept: 'application/json' });
    assert.equal(res.status, 200, res.body);
    assert.equal(res.headers['cache-control'], 'private, no-store');
    const body = JSON.parse(res.body);
    assert.equal(body.count, 4);
    assert.equal(body.next, null);
    assert.equal(body.previous, null);
    assert.deepEqual(
      body.results.map((r: { kind: string; amount: string; balance_effect: string }) => [r.kind, r.amount, r.balance_effect]),
      [
        ['reversal', '1.50', 'credit'],
        ['transfer', '-2.00', 'debit'],
        ['purchase', '-1.50', 'debit'],
        ['topup', '10.00', 'credit'],
      ],
    );
    const [reversal, transfer, purchase, topup] = body.results;
    assert.deepEqual(Object.keys(purchase).sort(), [
      'amount',
      'balance_effect',
      'channel',
      'counterpart',
      'created',
      'id',
      'info',
      'kind',
      'location',
      'product',
      'quantity',
      'reversed',
      'reverses',
      'unit_price',
    ]);
    assert.equal(purchase.product, 'Club-Mate');
    assert.equal(purchase.unit_price, '1.50');
    assert.equal(purchase.quantity, 1);
    assert.equal(purchase.reversed, true);
    assert.equal(reversal.reverses, purchase.id);
    assert.equal(reversal.reversed, false);
    assert.equal(transfer.counterpart, 'bob');
    assert.equal(topup.location, 'BANK');
    assert.equal(topup.channel, 'web');
    assert.match(topup.created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);
    // Pages of 2: next and previous as the collections have them.
    const first = JSON.parse((await alice.get('/api/stock/ledger/?page_size=2', { accept: 'application/json' })).body);
    assert.equal(first.results.length, 2);
    assert.equal(first.next, `${base}/api/stock/ledger/?page=2&page_size=2`);
    const second = JSON.parse((await alice.get('/api/stock/ledger/?page=2&page_size=2', { accept: 'application/json' })).body);
    assert.equal(second.previous, `${base}/api/stock/ledger/?page_size=2`);
    assert.deepEqual(
      [...first.results, ...second.results].map((r: { id: number }) => r.id),
      body.results.map((r: { id: number }) => r.id),
    );
    assert.equal((await alice.get('/api/stock/ledger/?page=9', { accept: 'application/json' })).status, 404);
    // A person's browser gets the browsable page of the same body; HEAD and OPTIONS answer too.
    const browsable = await alice.get('/api/stock/ledger/', { accept: 'text/html' });
    assert.equal(browsable.status, 200);
    assert.match(browsable.headers['content-type'] as string, /^text\/html/);
    assert.equal(browsable.headers['cache-control'], 'private, no-store');
    assert.ok(browsable.body.includes('Club-Mate'));
    const head = await alice.send('/api/stock/ledger/', { method: 'HEAD', headers: { accept: 'application/json' } });
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
    const options = await alice.send('/api/stock/ledger/', { method: 'OPTIONS', headers: { accept: 'application/json' } });
    assert.equal(options.status, 200);
    assert.equal(JSON.parse(options.body).name, 'Ledger');
    assert.equal((await alice.post('/api/stock/ledger/', {}, { accept: 'application/json' })).status, 401, 'no writes (no token: 401 as DRF)');
  });

  it('gives another member theirs only, a personal token its owner’s, a visitor 401 and an admin token 403', async () => {
    const bob = await logIn(base, 'bob', PASSWORD);
    const bobs = JSON.parse((await bob.get('/api/stock/ledger/', { accept: 'application/json' })).body);
    assert.deepEqual(
      bobs.results.map((r: { kind: string; amount: string; counterpart: string }) => [r.kind, r.amount, r.counterpart]),
      [['transfer', '2.00', 'alice']],
    );
    const { secret } = await createMemberToken(db, ids.alice, 'phone', Date.now() * 1000);
    const viaToken = await request(base, '/api/stock/ledger/', { headers: { authorization: `Token ${secret}`, accept: 'application/json' } });
    assert.equal(viaToken.status, 200);
    assert.equal(viaToken.headers['cache-control'], 'private, no-store');
    assert.equal(JSON.parse(viaToken.body).count, 4);
    const anonymous = await request(base, '/api/stock/ledger/', { headers: { accept: 'application/json' } });
    assert.equal(anonymous.status, 401);
    assert.deepEqual(JSON.parse(anonymous.body), { detail: 'Authentication credentials were not provided.' });
    const admin = await createToken(db, 'admin', 'admin', Date.now() * 1000);
    const asAdmin = await request(base, '/api/stock/ledger/', { headers: { authorization: `Token ${admin.secret}`, accept: 'application/json' } });
    assert.equal(asAdmin.status, 403);
    // Not in the API root; in the OpenAPI document.
    const root = JSON.parse((await request(base, '/api/', { headers: { accept: 'application/json' } })).body);
    assert.ok(!Object.keys(root).some((key) => key.includes('ledger')));
    const schema = JSON.parse((await request(base, '/api/schema/', { headers: { accept: 'application/json' } })).body);
    assert.ok(schema.paths['/api/stock/ledger/']?.get, 'an OpenAPI path item');
    // A visitor's answer after a member's is still 401 (nothing cached across callers).
    assert.equal((await request(base, '/api/stock/ledger/', { headers: { accept: 'application/json' } })).status, 401);
  });
});

describe('the slate with LEDGER_DEBT_LIMIT and LEDGER_UNDO_MINUTES=0', () => {
  let server: TestServer;
  let db: Db;
  let shop: Shop;
  let alice: Browser;
  let aliceId: number;

  before(async () => {
    server = await startServer({ env: { PASSWORD_ITERATIONS: String(TEST_ITERATIONS), LEDGER_DEBT_LIMIT: '-2.00', LEDGER_UNDO_MINUTES: '0' } });
    db = server.database.db;
    shop = await stockShop(db);
    aliceId = await addMember(db, { username: 'alice', password: PASSWORD });
    await grantRights(db, aliceId, ['users.change_balance']);
    alice = await logIn(server.base, 'alice', PASSWORD);
  });

  after(async () => {
    await server?.close();
  });

  it('refuses what would take the balance below the limit, 422, nothing recorded', async () => {
    assert.equal((await submit(alice, `${SLATE}/product`, { product: String(shop.mate) })).status, 303, '-1.50 is above -2.00');
    const count = await entryCount(db);
    const res = await submit(alice, `${SLATE}/product`, { product: String(shop.mate) });
    assert.equal(res.status, 422);
    assert.equal(formError(res.body), 'This would take your balance below -€2.00: top up first.');
    assert.equal((await submit(alice, `${SLATE}/spend`, { name: 'x', value: '0.51' })).status, 422);
    assert.equal((await submit(alice, `${SLATE}/spend`, { name: 'x', value: '0.50' })).status, 303, 'exactly the limit is allowed');
    assert.equal(await balance(db, aliceId), -200);
    assert.equal(await entryCount(db), count + 1);
  });

  it('refuses every undo when the window is 0 minutes', async () => {
    const last = (await entries(db, aliceId)).at(-1)!;
    const page = await alice.get(SLATE);
    assert.ok(!page.body.includes(`${SLATE}/undo/`), 'no Undo button');
    const res = await alice.post(`${SLATE}/undo/${last.id}`, { csrfmiddlewaretoken: csrfOf(page.body), key: 'late' });
    assert.equal(res.status, 422);
    assert.match(formError(res.body)!, /older than 0 minutes/);
  });
});
