/**
 * The shop's read API (ledger.md §1): `/api/stock/categories/`, `/api/stock/products/` and
 * `/api/streams/urtip/`, read only, exactly as the original's DRF answers them, under the rules
 * every collection follows (api-contract.md): the envelope and its links, ids in paths, 404
 * bodies, format and suffixes, the browsable page, OPTIONS, HEAD, conditional requests, 401, 403
 * and 405 for writes; the API root lists them in the original's order; APPS without `stock`
 * leaves them out. Over real HTTP on the engine under test; every answer is checked against the
 * OpenAPI document by test/support/http.ts. Expected records are written out from what the test
 * inserted, never computed with src/'s formatting.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createClient } from '../../../client/src/index.js';
import { buildApp } from '../../../src/app.js';
import { buy, undo, type LedgerRules } from '../../../src/apps/stock/ledger.js';
import { configFrom } from '../../../src/config.js';
import type { Db } from '../../../src/db/connection.js';
import { AnnouncedWrites } from '../../../src/live/writes.js';
import { createToken } from '../../../src/resources/tokens.js';
import { nowUs } from '../../support/clock.js';
import { assertSecurityHeaders, sample, varyTokens } from '../../support/contract.js';
import { request, type HttpResponse } from '../../support/http.js';
import { startServer, type TestServer } from '../../support/server.js';

/** The original's router order (incubator/apiurls.py), the shop's between projects and the openings. */
const ROOT_KEYS = ['events', 'meetings', 'users', 'projects', 'stock/categories', 'stock/products', 'streams/urtip', 'space/openings'];
const READ_ALLOW = 'GET, HEAD, OPTIONS';
const SHOP = ['stock/categories', 'stock/products', 'streams/urtip'] as const;
/** DRF's view names of the original's viewsets (CategoryViewSet, ProductViewSet, UrtipViewSet). */
const VIEW_NAMES: Record<(typeof SHOP)[number], string> = { 'stock/categories': 'Category', 'stock/products': 'Product', 'streams/urtip': 'Urtip' };
const RULES: LedgerRules = { maxAmountCents: 50_000, debtLimitCents: null, undoMinutes: 5 };
const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
const WRITES = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Two members of the sample fixture (active). */
const ALICE = { id: 4, username: 'Alice' };
const BOB = { id: 3, username: '42' };

interface Seeded {
  categories: Record<'drinks' | 'tips' | 'snacks', number>;
  products: Record<'mate' | 'tip' | 'smallTip' | 'chips', number>;
  /** The urtip purchases that stand, in the order they were bought, with their ids. */
  urtips: { id: number; username: string; price: string }[];
  /** Entries that are no urtip: a purchase of another category, an undone urtip purchase, its reversal. */
  notUrtips: number[];
}

/** A change through the service's own write transactions, so that its cache learns of it as for any write. */
function writesOf(server: TestServer): AnnouncedWrites {
  return new AnnouncedWrites(server.database, server.app.live.committed);
}

async function seed(server: TestServer): Promise<Seeded> {
  const db = server.database.db;
  const category = async (name: string) => (await db.insertInto('stock_categories').values({ name }).returning('id').executeTakeFirstOrThrow()).id;
  // The stream's category is named `urtip` in any case (the original's `name__iexact`).
  const categories = { drinks: await category('Boissons'), tips: await category('UrTip'), snacks: await category('Snacks & co') };
  const product = async (name: string, price_cents: number, category_id: number, active = 1) =>
    (await db.insertInto('stock_products').values({ name, price_cents, category_id, active }).returning('id').executeTakeFirstOrThrow()).id;
  const products = {
    mate: await product('Club-Mate', 150, categories.drinks),
    tip: await product('Pourboire', 200, categories.tips),
    smallTip: await product('Petit pourboire « ö »', 5, categories.tips),
    chips: await product('Chips', 1_080, categories.snacks, 0),
  };
  const writes = writesOf(server);
  const t0 = 1_700_000_000_000_000;
  const by = { userId: null, channel: 'cli' as const };
  const bought = (userId: number, productId: number, at: number, quantity?: number) =>
    writes.run((trx: Db) => buy(trx, RULES, { userId, productId, quantity, key: null, by, nowUs: at }));
  // Bought out of id order: the stream follows the time of purchase.
  const late = await bought(ALICE.id, products.tip, t0 + 3_000_000);
  const early = await bought(BOB.id, products.smallTip, t0 + 1_000_000);
  const mate = await bought(BOB.id, products.mate, t0 + 2_000_000);
  const two = await bought(BOB.id, products.tip, t0 + 4_000_000, 2);
  const undone = await bought(ALICE.id, products.smallTip, t0 + 5_000_000);
  const reversal = await writes.run((trx: Db) => undo(trx, RULES, { userId: ALICE.id, entryId: undone.entry.id, key: null, by, nowUs: t0 + 6_000_000 }));
  return {
    categories,
    products,
    urtips: [
      { id: early.entry.id, username: BOB.username, price: '0.05€' },
      { id: late.entry.id, username: ALICE.username, price: '2.00€' },
      // Two at 2.00 in one purchase: what was paid.
      { id: two.entry.id, username: BOB.username, price: '4.00€' },
    ],
    notUrtips: [mate.entry.id, undone.entry.id, reversal.entry.id],
  };
}

/** Every record of a collection, by one page as large as it. */
async function all(base: string, path: string): Promise<unknown[]> {
  const res = await request(base, `/api/${path}/?page_size=1000`);
  assert.equal(res.status, 200, `${path}: ${res.body}`);
  return res.json().results;
}

function assertRouteAnswer(res: HttpResponse, status: number, what: string): void {
  assert.equal(res.status, status, `${what}: ${res.status} ${res.body.slice(0, 200)}`);
  assert.equal(res.headers.allow, READ_ALLOW, `${what}: Allow`);
  assert.ok(varyTokens(res.headers).includes('accept'), `${what}: Vary ${res.headers.vary}`);
  assertSecurityHeaders(res.headers, what);
}

describe("the shop's read API", () => {
  let server: TestServer;
  let seeded: Seeded;
  let expected: Record<(typeof SHOP)[number], unknown[]>;
  let ids: Record<(typeof SHOP)[number], number[]>;
  let tokens: Record<'admin' | 'door', string>;

  before(async () => {
    server = await startServer({ records: sample(), env: { PAGE_SIZE: '2' } });
    seeded = await seed(server);
    const { categories: c, products: p } = seeded;
    ids = {
      'stock/categories': [c.drinks, c.tips, c.snacks],
      'stock/products': [p.mate, p.tip, p.smallTip, p.chips],
      'streams/urtip': seeded.urtips.map((u) => u.id),
    };
    expected = {
      'stock/categories': [{ name: 'Boissons' }, { name: 'UrTip' }, { name: 'Snacks & co' }],
      // Inactive ones included, as the original lists them.
      'stock/products': [
        { name: 'Club-Mate', price: '1.50', category: { name: 'Boissons' } },
        { name: 'Pourboire', price: '2.00', category: { name: 'UrTip' } },
        { name: 'Petit pourboire « ö »', price: '0.05', category: { name: 'UrTip' } },
        { name: 'Chips', price: '10.80', category: { name: 'Snacks & co' } },
      ],
      'streams/urtip': seeded.urtips.map(({ username, price }) => ({ username, price })),
    };
    const db = server.database.db;
    tokens = {
      admin: (await createToken(db, 'shop admin', 'admin', nowUs())).secret,
      door: (await createToken(db, 'shop door', 'door', nowUs())).secret,
    };
  });
  after(() => server?.close());

  it("the API root lists every collection in the original's order, the shop's among them", async () => {
    const base = server.base;
    const root = (await request(base, '/api/')).json();
    assert.deepEqual(Object.keys(root), ROOT_KEYS);
    for (const key of ROOT_KEYS) assert.equal(root[key], `${base}/api/${key}/`);
    assert.equal((await request(base, '/api/?format=json')).json()['stock/products'], `${base}/api/stock/products/?format=json`);
    assert.equal((await request(base, '/api/.json')).json()['streams/urtip'], `${base}/api/streams/urtip.json`);
  });

  it('answers the records as the original serializers give them: names, prices as "1.50", the urtip stream in purchase order, undone purchases left out', async () => {
    for (const path of SHOP) assert.deepEqual(await all(server.base, path), expected[path], path);
  });

  it('pages with the envelope and its links, page and page_size as every collection', async () => {
    const base = server.base;
    for (const path of SHOP) {
      const records = expected[path];
      const first = await request(base, `/api/${path}/`);
      assertRouteAnswer(first, 200, path);
      assert.equal(first.headers['content-type'], 'application/json');
      assert.deepEqual(Object.keys(first.json()), ['count', 'next', 'previous', 'results']);
      assert.deepEqual(first.json(), { count: records.length, next: `${base}/api/${path}/?page=2`, previous: null, results: records.slice(0, 2) });
      const last = (await request(base, `/api/${path}/?page=last`)).json();
      const lastPage = Math.ceil(records.length / 2);
      assert.deepEqual(last, {
        count: records.length,
        next: null,
        previous: lastPage === 2 ? `${base}/api/${path}/` : `${base}/api/${path}/?page=${lastPage - 1}`,
        results: records.slice((lastPage - 1) * 2),
      });
      const one = (await request(base, `/api/${path}/?zzz=1&page_size=%2B1&page=2&format=json`)).json();
      assert.deepEqual(one, {
        count: records.length,
        next: `${base}/api/${path}/?format=json&page=3&page_size=%2B1&zzz=1`,
        previous: `${base}/api/${path}/?format=json&page_size=%2B1&zzz=1`,
        results: [records[1]],
      });
      for (const page of ['0', '-1', 'abc', '1.5', 'LAST', '99']) {
        const res = await request(base, `/api/${path}/?page=${page}`);
        assertRouteAnswer(res, 404, `${path} page=${page}`);
        assert.deepEqual(res.json(), { detail: 'Invalid page.' });
      }
    }
  });

  it('answers each record at its id (spaces, + and leading zeros accepted), as in the list; any other id is 404 Not found.', async () => {
    const base = server.base;
    for (const path of SHOP) {
      for (const [i, id] of ids[path].entries()) {
        for (const written of [String(id), `+${id}`, `00${id}`, `%20${id}%20`]) {
          const res = await request(base, `/api/${path}/${written}/`);
          assertRouteAnswer(res, 200, `${path}/${written}`);
          assert.deepEqual(res.json(), expected[path][i], `${path}/${written}`);
        }
        assert.deepEqual((await request(base, `/api/${path}/${id}.json`)).json(), expected[path][i]);
      }
      for (const id of ['0', '-1', 'abc', '1e3', '99999', '2147483648', '99999999999999999999999']) {
        const res = await request(base, `/api/${path}/${id}/`);
        assertRouteAnswer(res, 404, `${path}/${id}`);
        assert.deepEqual(res.json(), { detail: 'Not found.' });
      }
    }
    // A purchase of another category, an undone urtip purchase and its reversal are no urtip.
    for (const id of seeded.notUrtips) assert.deepEqual((await request(base, `/api/streams/urtip/${id}/`)).json(), { detail: 'Not found.' }, `entry ${id}`);
  });

  it('format=json|api and the .json/.api suffixes give JSON to a program; a browser gets the browsable page; any other format is 404', async () => {
    const base = server.base;
    for (const path of SHOP) {
      const plain = await request(base, `/api/${path}/`);
      for (const variant of [`/api/${path}/?format=json`, `/api/${path}/?format=api`, `/api/${path}.json`, `/api/${path}.api`]) {
        const res = await request(base, variant);
        assertRouteAnswer(res, 200, variant);
        assert.equal(res.headers['content-type'], 'application/json', variant);
        assert.deepEqual(res.json().results, plain.json().results, variant);
      }
      const page = await request(base, `/api/${path}/?format=api`, { headers: HTML });
      assertRouteAnswer(page, 200, `${path} browsable`);
      assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
      assert.ok(page.body.includes(`<code>GET /api/${path}/?format=api</code>`), `${path}: the browsable page names the request`);
      assert.ok(page.body.includes(`Allow: ${READ_ALLOW}\n`), `${path}: the browsable page shows the Allow`);
      for (const variant of [`/api/${path}/?format=xml`, `/api/${path}/?format=JSON`, `/api/${path}.xml`, `/api/${path}/${ids[path][0]}.csv`]) {
        const res = await request(base, variant);
        assertRouteAnswer(res, 404, variant);
        assert.deepEqual(res.json(), { detail: 'Not found.' });
      }
      const redirect = await request(base, `/api/${path}?page=2`);
      assert.equal(redirect.status, 301);
      assert.equal(redirect.headers.location, `/api/${path}/?page=2`);
    }
  });

  it("OPTIONS names DRF's views and describes no action, even to an admin", async () => {
    const base = server.base;
    for (const path of SHOP) {
      for (const [route, kind] of [
        [`/api/${path}/`, 'List'],
        [`/api/${path}/${ids[path][0]}/`, 'Instance'],
      ]) {
        for (const headers of [{}, { authorization: `Token ${tokens.admin}` }] as Record<string, string>[]) {
          const res = await request(base, route, { method: 'OPTIONS', headers });
          assertRouteAnswer(res, 200, `OPTIONS ${route}`);
          assert.deepEqual(res.json(), {
            name: `${VIEW_NAMES[path]} ${kind}`,
            description: '',
            renders: ['application/json'],
            parses: ['application/json', 'application/x-www-form-urlencoded'],
          });
        }
      }
    }
  });

  it('HEAD gives the status and headers of GET without a body; If-None-Match gets 304 until the records change', async () => {
    const base = server.base;
    for (const path of SHOP) {
      for (const route of [`/api/${path}/`, `/api/${path}/${ids[path][0]}/`]) {
        const got = await request(base, route);
        const head = await request(base, route, { method: 'HEAD' });
        assertRouteAnswer(head, 200, `HEAD ${route}`);
        assert.equal(head.body, '');
        assert.equal(head.headers['content-length'], String(got.bytes.length));
        assert.equal(head.headers.etag, got.headers.etag);
        assert.ok(got.headers.etag, `${route}: an ETag`);
        const again = await request(base, route, { headers: { 'if-none-match': String(got.headers.etag) } });
        assert.equal(again.status, 304, route);
        assert.equal(again.body, '');
      }
    }
    // A new urtip purchase changes the stream (and nothing else it reads): the old tag no longer matches.
    const before = await request(base, '/api/streams/urtip/?page=last');
    const products = await request(base, '/api/stock/products/');
    await writesOf(server).run((trx: Db) =>
      buy(trx, RULES, { userId: ALICE.id, productId: seeded.products.tip, key: null, by: { userId: null, channel: 'cli' }, nowUs: 1_800_000_000_000_000 }),
    );
    const after_ = await request(base, '/api/streams/urtip/?page=last', { headers: { 'if-none-match': String(before.headers.etag) } });
    assert.equal(after_.status, 200);
    assert.equal(after_.json().count, seeded.urtips.length + 1);
    assert.deepEqual(after_.json().results.at(-1), { username: ALICE.username, price: '2.00€' });
    assert.equal((await request(base, '/api/stock/products/', { headers: { 'if-none-match': String(products.headers.etag) } })).status, 304, 'products did not change');
  });

  it("a purchase keeps the price it was paid: the stream does not follow a later change of the product's price", async () => {
    const base = server.base;
    const db = server.database.db;
    await writesOf(server).run((trx: Db) => trx.updateTable('stock_products').set({ price_cents: 350 }).where('id', '=', seeded.products.tip).execute());
    try {
      assert.deepEqual((await request(base, `/api/stock/products/${seeded.products.tip}/`)).json(), { name: 'Pourboire', price: '3.50', category: { name: 'UrTip' } });
      assert.deepEqual((await request(base, `/api/streams/urtip/${seeded.urtips[1].id}/`)).json(), { username: ALICE.username, price: '2.00€' });
    } finally {
      await writesOf(server).run((trx: Db) => trx.updateTable('stock_products').set({ price_cents: 200 }).where('id', '=', seeded.products.tip).execute());
    }
    assert.equal((await db.selectFrom('stock_products').select('price_cents').where('id', '=', seeded.products.tip).executeTakeFirstOrThrow()).price_cents, 200);
  });

  describe('writes: read only, as the original (its ReadOnlyPermission)', () => {
    const routes = () => SHOP.flatMap((path) => [`/api/${path}/`, `/api/${path}/${ids[path][0]}/`]);
    const body = JSON.stringify({ name: 'Nope', price: '0.10' });
    const json = { 'content-type': 'application/json' };

    /** What the shop holds, to see that nothing changed. */
    async function state(): Promise<unknown> {
      const db = server.database.db;
      return [
        await db.selectFrom('stock_categories').selectAll().orderBy('id').execute(),
        await db.selectFrom('stock_products').selectAll().orderBy('id').execute(),
        await db.selectFrom('ledger_entries').selectAll().orderBy('id').execute(),
      ];
    }

    it('without credentials: 401 with WWW-Authenticate: Token', async () => {
      const was = await state();
      for (const route of routes()) {
        for (const method of WRITES) {
          const res = await request(server.base, route, { method, headers: json, body });
          assertRouteAnswer(res, 401, `${method} ${route}`);
          assert.equal(res.headers['www-authenticate'], 'Token');
          assert.deepEqual(res.json(), { detail: 'Authentication credentials were not provided.' });
        }
      }
      assert.deepEqual(await state(), was);
    });

    it('with an unknown token: 401 Invalid token.', async () => {
      const res = await request(server.base, '/api/stock/products/', { method: 'POST', headers: { ...json, authorization: 'Token hs_nothing' }, body });
      assertRouteAnswer(res, 401, 'POST with an unknown token');
      assert.deepEqual(res.json(), { detail: 'Invalid token.' });
    });

    async function assertForbidden(secret: string, scope: string): Promise<void> {
      const was = await state();
      for (const route of routes()) {
        for (const method of WRITES) {
          const res = await request(server.base, route, { method, headers: { ...json, authorization: `Token ${secret}` }, body });
          assertRouteAnswer(res, 403, `${scope} ${method} ${route}`);
          assert.deepEqual(res.json(), { detail: 'You do not have permission to perform this action.' });
        }
      }
      assert.deepEqual(await state(), was);
    }

    it('with a door token: 403, which may write none of it', async () => {
      await assertForbidden(tokens.door, 'door');
    });

    // The kiosk's scope (ledger.md §4) records purchases through its own pages, never through the API.
    // Known bug of the foundation: api_tokens' CHECK (migration 0002_api_tokens: scope in ('door',
    // 'admin')) refuses a kiosk token on both engines until a migration widens it; then this passes.
    it('with a kiosk token: 403, which may write none of it', async () => {
      await assertForbidden((await createToken(server.database.db, 'shop kiosk', 'kiosk', nowUs())).secret, 'kiosk');
    });

    it('with an admin token: 405 Method "…" not allowed., Allow: GET, HEAD, OPTIONS', async () => {
      const was = await state();
      for (const route of routes()) {
        for (const method of WRITES) {
          const res = await request(server.base, route, { method, headers: { ...json, authorization: `Token ${tokens.admin}` }, body });
          assertRouteAnswer(res, 405, `admin ${method} ${route}`);
          assert.deepEqual(res.json(), { detail: `Method "${method}" not allowed.` });
        }
      }
      assert.deepEqual(await state(), was);
    });
  });

  it('the typed client reads them (list, every record, one by id), and offers no write', async () => {
    const api = createClient({ baseUrl: server.base });
    assert.deepEqual((await api.stockCategories.list()).results, expected['stock/categories'].slice(0, 2));
    const products = [];
    for await (const product of api.stockProducts.all({ pageSize: 3 })) products.push(product);
    assert.deepEqual(products, expected['stock/products']);
    assert.deepEqual(await api.urtip.get(seeded.urtips[0].id), expected['streams/urtip'][0]);
    assert.equal('create' in api.stockProducts, false);
  });
});

describe('APPS without stock', () => {
  let server: TestServer;
  let off: { base: string; app: FastifyInstance };
  let productId: number;

  before(async () => {
    server = await startServer({ records: sample() });
    const db = server.database.db;
    const category = (await db.insertInto('stock_categories').values({ name: 'urtip' }).returning('id').executeTakeFirstOrThrow()).id;
    productId = (await db.insertInto('stock_products').values({ name: 'Tip', price_cents: 100, category_id: category, active: 1 }).returning('id').executeTakeFirstOrThrow()).id;
    const app = await buildApp(configFrom({ DATABASE_URL: server.url, LOG_LEVEL: 'silent', APPS: 'users,space,projects,events' }), { database: server.database, logger: false });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    off = { base: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, app };
  });
  after(async () => {
    await off?.app.close();
    await server?.close();
  });

  it('the three paths answer 404 Not found. and the root leaves them out; with stock on they answer', async () => {
    for (const path of ['/api/stock/categories/', '/api/stock/products/', `/api/stock/products/${productId}/`, '/api/streams/urtip/', '/api/stock/products.json']) {
      const res = await request(off.base, path);
      assert.equal(res.status, 404, path);
      assert.deepEqual(res.json(), { detail: 'Not found.' }, path);
      assert.equal(res.headers.allow, undefined, `${path}: no route, no Allow`);
      assert.equal((await request(server.base, path)).status, 200, `${path} with every app on`);
    }
    assert.deepEqual(
      Object.keys((await request(off.base, '/api/')).json()),
      ROOT_KEYS.filter((key) => !key.startsWith('stock/') && !key.startsWith('streams/')),
    );
    const document = (await request(off.base, '/api/schema/')).json() as { paths: Record<string, unknown>; components: { schemas: Record<string, unknown> } };
    assert.deepEqual(
      Object.keys(document.paths).filter((path) => /stock|streams/.test(path)),
      [],
    );
    assert.equal(document.components.schemas.Product, undefined);
  });
});
