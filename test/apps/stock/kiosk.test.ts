/**
 * The kiosk by the fridge (ledger.md §4) over real HTTP on the engine under test: opening it on a
 * device with a kiosk token (good, revoked, of another scope, absent), purchases by a member's id,
 * by a product's barcode and by a member's card, opted-out and inactive members refused, the
 * same one-time key twice charged once, undo within 30 seconds and refused after, bad input never
 * a 500, and a kiosk token refused by the API's writes, the original's door route and member pages.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { buy } from '../../../src/apps/stock/ledger.js';
import { listAudit } from '../../../src/resources/audit.js';
import { createToken, revokeToken } from '../../../src/resources/tokens.js';
import { nowUs } from '../../support/clock.js';
import { request, type HttpResponse } from '../../support/http.js';
import { addMember, Browser, csrfOf } from '../../support/members.js';
import { startServer, type TestServer } from '../../support/server.js';

/** The catalogue's English words (what the kiosk says in English). */
const EN = JSON.parse(fs.readFileSync(new URL('../../../src/apps/stock/locale/en.json', import.meta.url), 'utf8')) as Record<string, string>;
const FR = JSON.parse(fs.readFileSync(new URL('../../../src/apps/stock/locale/fr.json', import.meta.url), 'utf8')) as Record<string, string>;

/** ledger.md §4: a kiosk purchase may be undone for 30 seconds. */
const UNDO_SECONDS = 30;
const CLUB_MATE_CENTS = 150;
const CHIPS_CENTS = 120;
const CLUB_MATE_BARCODE = '5449000000996';
const ALICE_CARD = '90000001';
const BOB_CARD = '90000002';

/** The one-time keys the page makes: a UUID each. */
function key(): string {
  return crypto.randomUUID();
}

/** The page's token for the script's requests (`data-csrf` of the opened kiosk). */
function pageCsrf(page: string): string {
  const m = /data-csrf="([^"]+)"/.exec(page);
  assert.ok(m, `an opened kiosk page: ${page.slice(0, 400)}`);
  return m[1];
}

describe('the kiosk', () => {
  let server: TestServer;
  let base: string;
  let alice: number;
  let bob: number;
  let carol: number;
  let dave: number;
  let clubMate: number;
  let chips: number;
  let retired: number;
  let kioskSecret: string;
  let doorSecret: string;
  /** A device on which the kiosk is open, and its page's token. */
  let tablet: Browser;
  let csrf: string;

  async function balance(userId: number): Promise<number> {
    const row = await server.database.db.selectFrom('users').select('balance_cents').where('id', '=', userId).executeTakeFirstOrThrow();
    return Number(row.balance_cents);
  }

  async function entriesOf(userId: number) {
    return server.database.db.selectFrom('ledger_entries').selectAll().where('user_id', '=', userId).orderBy('id').execute();
  }

  /** The tablet's script's request: JSON, its cookie and the page's token. */
  function json(path: string, body: unknown, headers: Record<string, string> = {}): Promise<HttpResponse> {
    return tablet.send(path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrftoken': csrf, ...headers }, body: JSON.stringify(body) });
  }

  /** A program's request with the kiosk token in the Authorization header, no cookie. */
  function withToken(path: string, body: unknown, secret = kioskSecret): Promise<HttpResponse> {
    return request(base, path, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Token ${secret}` }, body: JSON.stringify(body) });
  }

  /** Opens the kiosk on a new device with this token: the form's answer and the device. */
  async function open(secret: string, browser = new Browser(base)): Promise<{ res: HttpResponse; browser: Browser }> {
    const form = await browser.get('/stock/kiosk/');
    assert.equal(form.status, 200);
    const res = await browser.post('/stock/kiosk/open', { csrfmiddlewaretoken: csrfOf(form.body), token: secret });
    return { res, browser };
  }

  before(async () => {
    server = await startServer();
    base = server.base;
    const db = server.database.db;
    alice = await addMember(db, { username: 'alice' });
    bob = await addMember(db, { username: 'bob' });
    carol = await addMember(db, { username: 'carol', active: false });
    dave = await addMember(db, { username: 'dave' });
    await db
      .insertInto('stock_members')
      .values([
        { user_id: alice, on_kiosk: 1, member_code: ALICE_CARD },
        { user_id: bob, on_kiosk: 0, member_code: BOB_CARD },
        { user_id: carol, on_kiosk: 1, member_code: null },
      ])
      .execute();
    const drinks = await db.insertInto('stock_categories').values({ name: 'Drinks' }).returning('id').executeTakeFirstOrThrow();
    const snacks = await db.insertInto('stock_categories').values({ name: 'Snacks' }).returning('id').executeTakeFirstOrThrow();
    clubMate = (
      await db.insertInto('stock_products').values({ name: 'Club-Mate', price_cents: CLUB_MATE_CENTS, category_id: drinks.id, active: 1 }).returning('id').executeTakeFirstOrThrow()
    ).id;
    chips = (
      await db
        .insertInto('stock_products')
        .values({ name: 'Chips', price_cents: CHIPS_CENTS, category_id: snacks.id, active: 1, counts_stock: 1 })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
    retired = (await db.insertInto('stock_products').values({ name: 'Tab', price_cents: 100, category_id: drinks.id, active: 0 }).returning('id').executeTakeFirstOrThrow()).id;
    await db.insertInto('stock_barcodes').values({ code: CLUB_MATE_BARCODE, product_id: clubMate }).execute();
    kioskSecret = (await createToken(db, 'fridge', 'kiosk', nowUs())).secret;
    doorSecret = (await createToken(db, 'door', 'door', nowUs())).secret;
    const opened = await open(kioskSecret);
    assert.equal(opened.res.status, 303);
    tablet = opened.browser;
    csrf = pageCsrf((await tablet.get('/stock/kiosk/')).body);
  });

  after(async () => {
    await server?.close();
  });

  describe('opening it on a device', () => {
    it('shows the opening form, and no member, to a device without a token', async () => {
      const res = await request(base, '/stock/kiosk/');
      assert.equal(res.status, 200);
      assert.equal(res.headers['cache-control'], 'private, no-store');
      assert.match(res.body, /<input type="password" name="token"/);
      assert.doesNotMatch(res.body, /alice|data-step/);
      assert.match(String(res.headers['content-security-policy']), /script-src 'self'/);
    });

    it('opens with a kiosk token: an HttpOnly, SameSite=Strict cookie, then the kiosk with the members who chose it', async () => {
      const { res, browser } = await open(kioskSecret);
      assert.equal(res.status, 303);
      assert.equal(res.headers.location, '/stock/kiosk/');
      const cookie = (res.headers['set-cookie'] ?? []).find((line) => line.startsWith('kiosk='));
      assert.ok(cookie, 'the kiosk cookie');
      assert.match(cookie, /; HttpOnly/);
      assert.match(cookie, /; SameSite=Strict/);
      assert.match(cookie, /; Path=\//);
      assert.doesNotMatch(cookie, /Secure/, 'no Secure on plain HTTP');
      const page = await browser.get('/stock/kiosk/');
      assert.equal(page.status, 200);
      assert.match(page.body, /data-step="members"/);
      assert.match(page.body, /data-member="\d+">alice</);
      for (const hidden of ['bob', 'carol', 'dave']) assert.doesNotMatch(page.body, new RegExp(`>${hidden}<`), `${hidden} is not on the kiosk`);
      assert.match(page.body, /Club-Mate/);
      assert.doesNotMatch(page.body, />Tab</, 'an inactive product is not on the shelves');
      // Chips' stock is counted and none came in: sold out, still a button.
      assert.match(page.body, /data-product="\d+" data-sold-out="true"><span class="kiosk-product-name">Chips/);
      assert.doesNotMatch(page.body, /balance|-1\.50/i, 'no balance on the kiosk page');
    });

    it('refuses a revoked token, a token of another scope, an unknown one and an empty one: no cookie', async () => {
      const db = server.database.db;
      const { secret: revoked } = await createToken(db, 'old fridge', 'kiosk', nowUs());
      await revokeToken(db, 'old fridge', nowUs());
      for (const [secret, status, words] of [
        [revoked, 403, EN['stock.kiosk.closed.unknown']],
        [doorSecret, 403, EN['stock.kiosk.closed.scope']],
        ['hs_not-a-token', 403, EN['stock.kiosk.closed.unknown']],
        ['', 422, EN['stock.kiosk.open.missing']],
      ] as const) {
        const { res, browser } = await open(secret);
        assert.equal(res.status, status, secret);
        assert.ok(res.body.includes(words.replace(/’/g, '’')), `${secret}: ${words}`);
        assert.equal(browser.cookies.get('kiosk'), undefined);
        assert.match((await browser.get('/stock/kiosk/')).body, /name="token"/);
      }
    });

    it('refuses the opening form without its token or from another origin', async () => {
      const browser = new Browser(base);
      await browser.get('/stock/kiosk/');
      assert.equal((await browser.post('/stock/kiosk/open', { token: kioskSecret })).status, 403);
      const form = await browser.get('/stock/kiosk/');
      const res = await browser.post('/stock/kiosk/open', { csrfmiddlewaretoken: csrfOf(form.body), token: kioskSecret }, { origin: 'https://evil.example' });
      assert.equal(res.status, 403);
      assert.equal(browser.cookies.get('kiosk'), undefined);
    });

    it('closes when its token is revoked: the page asks for a token again, the script gets 401', async () => {
      const db = server.database.db;
      const { secret } = await createToken(db, 'bar', 'kiosk', nowUs());
      const { browser } = await open(secret);
      const page = await browser.get('/stock/kiosk/');
      const token = pageCsrf(page.body);
      await revokeToken(db, 'bar', nowUs());
      const again = await browser.get('/stock/kiosk/');
      assert.match(again.body, /name="token"/);
      assert.ok(again.body.includes(EN['stock.kiosk.closed.unknown']));
      assert.equal(browser.cookies.get('kiosk'), undefined, 'the cookie is removed');
      browser.cookies.set('kiosk', secret);
      const res = await browser.send('/stock/kiosk/purchase', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrftoken': token },
        body: JSON.stringify({ member: alice, product: clubMate, key: key() }),
      });
      assert.equal(res.status, 401);
      assert.equal(res.json().detail, EN['stock.kiosk.closed.unknown']);
      assert.equal(
        await balance(alice),
        (await entriesOf(alice)).reduce((sum, e) => sum + Number(e.amount_cents), 0),
      );
      assert.equal((await withToken('/stock/kiosk/purchase', { member: alice, product: clubMate, key: key() }, secret)).status, 401);
    });

    it('names its cookie __Host-kiosk and makes it Secure on HTTPS', async () => {
      const https = await startServer({ env: { PUBLIC_URL: 'https://space.example' } });
      try {
        const { secret } = await createToken(https.database.db, 'fridge', 'kiosk', nowUs());
        const { res } = await open(secret, new Browser(https.base));
        assert.equal(res.status, 303);
        const cookie = (res.headers['set-cookie'] ?? []).find((line) => line.startsWith('__Host-kiosk='));
        assert.ok(cookie, String(res.headers['set-cookie']));
        assert.match(cookie, /; HttpOnly; SameSite=Strict; Path=\/; Secure/);
      } finally {
        await https.close();
      }
    });
  });

  describe('purchases', () => {
    it('records a purchase by member id: the new balance, the entry, the product, the undo deadline', async () => {
      const before = await balance(alice);
      const startedUs = nowUs();
      const res = await json('/stock/kiosk/purchase', { member: alice, product: clubMate, key: key() });
      assert.equal(res.status, 200, res.body);
      const body = res.json();
      const expected = before - CLUB_MATE_CENTS;
      assert.equal(body.balance, (expected / 100).toFixed(2));
      assert.equal(body.price, '1.50');
      assert.deepEqual(body.product, { id: clubMate, name: 'Club-Mate', sold_out: false });
      assert.deepEqual(body.member, { id: alice, name: 'alice' });
      assert.equal(body.repeated, false);
      assert.equal(body.below_zero, expected < 0);
      assert.ok(body.said.includes('Club-Mate'), body.said);
      const deadline = Date.parse(body.undo_until);
      assert.ok(deadline >= startedUs / 1000 + UNDO_SECONDS * 1000 && deadline <= Date.now() + UNDO_SECONDS * 1000, body.undo_until);
      const entry = (await entriesOf(alice)).at(-1)!;
      assert.equal(entry.id, body.entry);
      assert.equal(entry.kind, 'purchase');
      assert.equal(Number(entry.amount_cents), -CLUB_MATE_CENTS);
      assert.equal(entry.unit_price_cents, CLUB_MATE_CENTS);
      assert.equal(entry.quantity, 1);
      assert.equal(entry.channel, 'kiosk');
      assert.equal(entry.recorded_by, null, 'the kiosk does not claim the member logged in');
      assert.equal(await balance(alice), expected);
      const audit = (await listAudit(server.database.db, 10)).find((a) => a.recordId === body.entry && a.path === '/stock/kiosk/purchase');
      assert.ok(audit, 'an audit entry');
      assert.equal(audit.tokenName, 'fridge');
    });

    it('records a purchase by barcode, with the token in the Authorization header', async () => {
      const before = await balance(alice);
      const res = await withToken('/stock/kiosk/purchase', { member: alice, barcode: CLUB_MATE_BARCODE, key: key() });
      assert.equal(res.status, 200, res.body);
      assert.equal(res.json().product.name, 'Club-Mate');
      assert.equal(await balance(alice), before - CLUB_MATE_CENTS);
    });

    it('takes a member card: as the purchase’s member, and scanned (the card chooses, a barcode then buys)', async () => {
      const before = await balance(alice);
      const byCard = await json('/stock/kiosk/purchase', { member_code: ALICE_CARD, product: chips, key: key() });
      assert.equal(byCard.status, 200, byCard.body);
      assert.equal(byCard.json().member.id, alice);
      // Sold out (counted, none came in) and still sold: the fridge is the truth.
      assert.equal(byCard.json().product.sold_out, true);
      assert.equal(await balance(alice), before - CHIPS_CENTS);
      const card = await json('/stock/kiosk/scan', { code: ALICE_CARD, key: key() });
      assert.equal(card.status, 200, card.body);
      assert.deepEqual(card.json(), { member: { id: alice, name: 'alice' } });
      const scanned = await json('/stock/kiosk/scan', { code: CLUB_MATE_BARCODE, member: alice, key: key() });
      assert.equal(scanned.status, 200, scanned.body);
      assert.equal(scanned.json().purchase, true);
      assert.equal(await balance(alice), before - CHIPS_CENTS - CLUB_MATE_CENTS);
      const nobody = await json('/stock/kiosk/scan', { code: CLUB_MATE_BARCODE, key: key() });
      assert.equal(nobody.status, 422);
      assert.equal(nobody.json().detail, EN['stock.kiosk.refused.member-first']);
      const unknown = await json('/stock/kiosk/scan', { code: '0000000000', member: alice, key: key() });
      assert.equal(unknown.status, 422);
      assert.deepEqual(unknown.json(), { code: [EN['stock.kiosk.refused.code']] });
    });

    it('refuses members who did not choose the kiosk, inactive ones and unknown ones: nothing recorded', async () => {
      for (const [fields, field] of [
        [{ member: bob }, 'member'],
        [{ member: carol }, 'member'],
        [{ member: dave }, 'member'],
        [{ member: 987654 }, 'member'],
        [{ member_code: BOB_CARD }, 'member_code'],
      ] as const) {
        const res = await json('/stock/kiosk/purchase', { ...fields, product: clubMate, key: key() });
        assert.equal(res.status, 422, JSON.stringify(fields));
        assert.ok(Array.isArray(res.json()[field]), res.body);
      }
      const card = await json('/stock/kiosk/scan', { code: BOB_CARD, key: key() });
      assert.equal(card.status, 422, 'an opted-out member’s card chooses no one');
      for (const id of [bob, carol, dave]) assert.deepEqual(await entriesOf(id), []);
      const page = await tablet.get(`/stock/kiosk/?member=${bob}`);
      assert.equal(page.status, 404);
      assert.doesNotMatch(page.body, /data-step="products"/);
    });

    it('charges the same one-time key once, and answers the second time as the first', async () => {
      const before = await balance(alice);
      const count = (await entriesOf(alice)).length;
      const once = key();
      const first = await json('/stock/kiosk/purchase', { member: alice, product: clubMate, key: once });
      const second = await json('/stock/kiosk/purchase', { member: alice, product: clubMate, key: once });
      assert.equal(first.status, 200);
      assert.equal(second.status, 200);
      assert.equal(second.json().entry, first.json().entry);
      assert.equal(second.json().balance, first.json().balance);
      assert.equal(second.json().repeated, true);
      const byHeader = await withToken('/stock/kiosk/purchase', { member: alice, barcode: CLUB_MATE_BARCODE, key: once });
      assert.equal(byHeader.json().entry, first.json().entry);
      assert.equal((await entriesOf(alice)).length, count + 1);
      assert.equal(await balance(alice), before - CLUB_MATE_CENTS);
    });

    it('answers a plain form (the page without its script) with the page: the balance and the undo form', async () => {
      const page = await tablet.get(`/stock/kiosk/?member=${alice}`);
      assert.match(page.body, /data-step="products"/);
      const form = /<form method="post" action="\/stock\/kiosk\/purchase" class="kiosk-buy">([\s\S]*?)<\/form>/.exec(page.body)![1];
      const fields = Object.fromEntries([...form.matchAll(/name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1], m[2]]));
      assert.equal(fields.member, String(alice));
      const before = await balance(alice);
      const res = await tablet.post('/stock/kiosk/purchase', fields);
      assert.equal(res.status, 200);
      assert.match(res.body, /id="kiosk-said" class="kiosk-said" role="status"[^>]*>[^<]*Club-Mate/);
      assert.match(res.body, /id="kiosk-undo" class="kiosk-undo">/, 'the undo form is shown');
      const again = await tablet.post('/stock/kiosk/purchase', fields);
      assert.equal(again.status, 200, 'the form sent twice');
      assert.equal(await balance(alice), before - CLUB_MATE_CENTS, 'charged once');
      assert.equal((await tablet.post('/stock/kiosk/purchase', { ...fields, csrfmiddlewaretoken: 'forged' })).status, 403);
    });

    it('speaks the page’s language', async () => {
      const res = await json('/stock/kiosk/purchase', { member: bob, product: clubMate, key: key() }, { 'accept-language': 'fr-BE' });
      assert.deepEqual(res.json(), { member: [FR['stock.kiosk.refused.member']] });
    });
  });

  describe('undo', () => {
    it('undoes a kiosk purchase within 30 seconds, once; the same key answers again as the first time', async () => {
      const before = await balance(alice);
      const bought = (await json('/stock/kiosk/purchase', { member: alice, product: clubMate, key: key() })).json();
      const undoKey = key();
      const undone = await json('/stock/kiosk/undo', { entry: bought.entry, key: undoKey });
      assert.equal(undone.status, 200, undone.body);
      assert.equal(undone.json().balance, (before / 100).toFixed(2));
      assert.equal(undone.json().undone, bought.entry);
      assert.equal(await balance(alice), before);
      const reversal = (await entriesOf(alice)).at(-1)!;
      assert.equal(reversal.kind, 'reversal');
      assert.equal(reversal.reverses_id, bought.entry);
      assert.equal(reversal.channel, 'kiosk');
      const repeated = await json('/stock/kiosk/undo', { entry: bought.entry, key: undoKey });
      assert.equal(repeated.status, 200);
      assert.equal(repeated.json().entry, undone.json().entry);
      const twice = await json('/stock/kiosk/undo', { entry: bought.entry, key: key() });
      assert.equal(twice.status, 422);
      assert.equal(twice.json().detail, EN['stock.refused.undo-twice']);
      assert.equal(await balance(alice), before);
    });

    it('undoes a purchase made 29 seconds ago, and refuses one made 31 seconds ago', async () => {
      const db = server.database.db;
      const rules = server.config.ledger;
      const kiosk = { userId: null, channel: 'kiosk' } as const;
      const recent = await buy(db, rules, { userId: alice, productId: clubMate, key: null, by: kiosk, nowUs: nowUs() - (UNDO_SECONDS - 1) * 1_000_000 });
      const old = await buy(db, rules, { userId: alice, productId: clubMate, key: null, by: kiosk, nowUs: nowUs() - (UNDO_SECONDS + 1) * 1_000_000 });
      const before = await balance(alice);
      assert.equal((await json('/stock/kiosk/undo', { entry: recent.entry.id, key: key() })).status, 200);
      assert.equal(await balance(alice), before + CLUB_MATE_CENTS);
      const late = await json('/stock/kiosk/undo', { entry: old.entry.id, key: key() });
      assert.equal(late.status, 422);
      assert.equal(late.json().detail, EN['stock.kiosk.refused.undo-too-late'].replace('{seconds}', String(UNDO_SECONDS)));
      assert.equal(await balance(alice), before + CLUB_MATE_CENTS);
    });

    it('undoes only the kiosk’s purchases', async () => {
      const db = server.database.db;
      const web = await buy(db, server.config.ledger, { userId: alice, productId: clubMate, key: null, by: { userId: alice, channel: 'web' }, nowUs: nowUs() });
      const res = await json('/stock/kiosk/undo', { entry: web.entry.id, key: key() });
      assert.equal(res.status, 422);
      assert.equal(res.json().detail, EN['stock.kiosk.refused.undo-kind']);
      const unknown = await json('/stock/kiosk/undo', { entry: 99999999, key: key() });
      assert.equal(unknown.status, 422);
      assert.ok(Array.isArray(unknown.json().entry));
    });
  });

  describe('bad input', () => {
    it('never answers 500', async () => {
      const bodies: [string, string | Buffer, string][] = [
        ['/stock/kiosk/purchase', '{', 'application/json'],
        ['/stock/kiosk/purchase', '[1,2]', 'application/json'],
        ['/stock/kiosk/purchase', 'null', 'application/json'],
        ['/stock/kiosk/purchase', JSON.stringify({ member: 'abc', product: {}, key: key() }), 'application/json'],
        ['/stock/kiosk/purchase', JSON.stringify({ member: alice, product: 1e300, key: key() }), 'application/json'],
        ['/stock/kiosk/purchase', JSON.stringify({ member: alice, product: 99999999999, key: key() }), 'application/json'],
        ['/stock/kiosk/purchase', JSON.stringify({ member: alice, product: retired, key: key() }), 'application/json'],
        ['/stock/kiosk/purchase', JSON.stringify({ member: alice, product: clubMate }), 'application/json'],
        ['/stock/kiosk/purchase', JSON.stringify({ member: alice, product: clubMate, key: 'x'.repeat(65) }), 'application/json'],
        ['/stock/kiosk/purchase', JSON.stringify({ member: alice, barcode: '\u0000', key: key() }), 'application/json'],
        ['/stock/kiosk/purchase', JSON.stringify({ member: alice, barcode: 'x'.repeat(10_000), key: key() }), 'application/json'],
        ['/stock/kiosk/purchase', Buffer.from([0xff, 0xfe]), 'application/json'],
        ['/stock/kiosk/purchase', 'member=%ff', 'application/x-www-form-urlencoded'],
        ['/stock/kiosk/purchase', 'hello', 'text/plain'],
        ['/stock/kiosk/scan', JSON.stringify({ code: 42 }), 'application/json'],
        ['/stock/kiosk/scan', JSON.stringify({ code: ['1'] }), 'application/json'],
        ['/stock/kiosk/undo', JSON.stringify({ entry: -1, key: key() }), 'application/json'],
        ['/stock/kiosk/undo', JSON.stringify({ entry: 'x', key: key() }), 'application/json'],
        ['/stock/kiosk/undo', JSON.stringify({}), 'application/json'],
      ];
      const before = await balance(alice);
      for (const [path, body, type] of bodies) {
        for (const send of [
          () => tablet.send(path, { method: 'POST', headers: { 'content-type': type, 'x-csrftoken': csrf }, body }),
          () => request(base, path, { method: 'POST', headers: { 'content-type': type, authorization: `Token ${kioskSecret}` }, body }),
        ]) {
          const res = await send();
          assert.ok(res.status >= 400 && res.status < 500, `${path} ${String(body).slice(0, 40)}: ${res.status} ${res.body.slice(0, 200)}`);
        }
      }
      for (const method of ['GET', 'PUT', 'DELETE']) assert.equal((await request(base, '/stock/kiosk/purchase', { method })).status, 405);
      assert.equal((await request(base, '/stock/kiosk/purchase', { method: 'POST', headers: { authorization: 'Token' } })).status, 401);
      assert.equal((await tablet.get('/stock/kiosk/?member=abc')).status, 404);
      assert.equal(await balance(alice), before);
    });
  });

  describe('what a kiosk token may not do', () => {
    it('is refused by the API’s writes and the original’s door route', async () => {
      const headers = { 'content-type': 'application/json', authorization: `Token ${kioskSecret}` };
      const opening = await request(base, '/api/space/openings/', { method: 'POST', headers, body: JSON.stringify({ is_open: true }) });
      assert.equal(opening.status, 403, opening.body);
      const project = await request(base, '/api/projects/', { method: 'POST', headers, body: JSON.stringify({ title: 'x' }) });
      assert.equal(project.status, 403, project.body);
      const door = await request(base, '/space/change_status', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ secret: kioskSecret, open: '1' }).toString(),
      });
      assert.equal(door.status, 403, door.body);
      assert.equal(
        await server.database.db
          .selectFrom('openings')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
          .then((r) => Number(r.n)),
        0,
      );
    });

    it('opens no member page: the kiosk’s cookie and token are no session', async () => {
      for (const headers of [{}, { authorization: `Token ${kioskSecret}` }] as Record<string, string>[]) {
        const res = await tablet.get('/accounts/profile/', headers);
        assert.equal(res.status, 303);
        assert.match(String(res.headers.location), /^\/accounts\/login\//);
      }
    });
  });
});
