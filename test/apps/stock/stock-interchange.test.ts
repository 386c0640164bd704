import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { buy, transfer } from '../../../src/apps/stock/ledger.js';
import type { Db } from '../../../src/db/connection.js';
import { importRecords } from '../../../src/installed-apps.js';
import { parseIsoMicros } from '../../../src/time.js';
import { getJson } from '../../support/http.js';
import { exportText } from '../../support/interchange.js';
import { freshDatabase, startServer, type FreshDatabase, type TestServer } from '../../support/server.js';

/*
 * The original's stock records (the shared dumpdata's stock models and its members, their groups
 * left out) through our import and export, on the engine under test, without Django
 * (stock-loaddata.test.ts has Django's word). Every expected value is computed here from the
 * fixture, as the original's models and serializers give it (ledger.md §5).
 */

const FIXTURE = path.resolve(import.meta.dirname, '../../fixtures/original-stock.json');

interface Rec {
  model: string;
  pk: number;
  fields: Record<string, unknown>;
}

const records = (): Rec[] => JSON.parse(fs.readFileSync(FIXTURE, 'utf8')) as Rec[];
const FIXTURE_RECORDS = records();
const of = (model: string, from: readonly Rec[] = FIXTURE_RECORDS) => from.filter((r) => r.model === model);
const cents = (decimal: unknown) => Math.round(Number(decimal) * 100);

/** Each member's balance in the original (the truth of an import), and as its transaction rows add up (the original's views' moves). */
function originalBalances(): { kept: Map<number, number>; rows: Map<number, number> } {
  const kept = new Map(of('users.user').map((u) => [u.pk, cents(u.fields.balance)]));
  const rows = new Map(of('users.user').map((u) => [u.pk, 0]));
  const add = (user: unknown, amount: number) => rows.set(user as number, rows.get(user as number)! + amount);
  const price = new Map(of('stock.product').map((p) => [p.pk, cents(p.fields.price)]));
  for (const t of of('stock.topuptransaction')) add(t.fields.user, cents(t.fields.amount));
  for (const t of of('stock.producttransaction')) add(t.fields.user, -price.get(t.fields.product as number)!);
  for (const t of of('stock.misctransaction')) add(t.fields.user, -cents(t.fields.amount));
  for (const t of of('stock.transfertransaction')) {
    add(t.fields.user, -cents(t.fields.amount));
    add(t.fields.receiver, cents(t.fields.amount));
  }
  return { kept, rows };
}

/** A record with its instants as microseconds: our export writes them to the microsecond, Django to the millisecond. */
function comparable(r: Rec): Rec {
  const fields = Object.fromEntries(Object.entries(r.fields).map(([k, v]) => [k, k === 'when' && typeof v === 'string' ? parseIsoMicros(v) : v]));
  return { model: r.model, pk: r.pk, fields };
}

async function entrySums(db: Db): Promise<Map<number, number>> {
  const rows = await db
    .selectFrom('ledger_entries')
    .select(['user_id', sql<number>`cast(sum(amount_cents) as bigint)`.as('total')])
    .groupBy('user_id')
    .execute();
  return new Map(rows.map((r) => [r.user_id, Number(r.total)]));
}

async function entryCount(db: Db): Promise<number> {
  return Number(
    (
      await db
        .selectFrom('ledger_entries')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
}

const importInto = (db: Db, given: unknown[]) => db.transaction().execute((trx) => importRecords(trx, given));

describe("the original's stock records through import and export", () => {
  let fresh: FreshDatabase;
  let notes: string[];
  before(async () => {
    fresh = await freshDatabase();
    ({ notes } = await importInto(fresh.handle.db, records()));
  });
  after(() => fresh.cleanup());

  it("gives every member the original's balance, and the ledger adds up to it (one opening entry where the rows do not)", async () => {
    const { db } = fresh.handle;
    const { kept, rows } = originalBalances();
    const balances = await db.selectFrom('users').select(['id', 'balance_cents']).execute();
    assert.deepEqual(new Map(balances.map((b) => [b.id, Number(b.balance_cents)])), kept);
    const sums = await entrySums(db);
    for (const [user, balance] of kept) assert.equal(sums.get(user) ?? 0, balance, `member ${user}`);
    const openings = await db.selectFrom('ledger_entries').select(['user_id', 'amount_cents', 'channel', 'recorded_by']).where('kind', '=', 'opening').orderBy('user_id').execute();
    const differing = [...kept].filter(([user, balance]) => rows.get(user) !== balance).map(([user, balance]) => ({ user_id: user, amount_cents: balance - rows.get(user)! }));
    assert.deepEqual(
      openings.map((o) => ({ user_id: o.user_id, amount_cents: Number(o.amount_cents) })),
      differing,
    );
    // The original's rows add up to its balances here: the import's report has nothing to say of openings.
    assert.equal(differing.length, 0);
    assert.deepEqual(notes, []);
    const transactions = ['stock.transfertransaction', 'stock.topuptransaction', 'stock.producttransaction', 'stock.misctransaction'];
    const expectedEntries = transactions.reduce((n, model) => n + of(model).length * (model === 'stock.transfertransaction' ? 2 : 1), 0) + differing.length;
    assert.equal(await entryCount(db), expectedEntries);
    const channels = await db
      .selectFrom('ledger_entries')
      .select('channel')
      .where((eb) => eb.or([eb('channel', '!=', 'import'), eb('recorded_by', 'is not', null)]))
      .execute();
    assert.deepEqual(channels, []);
  });

  it("keeps a purchase at the product's price at import, marked so, and a transfer as two linked entries", async () => {
    const { db } = fresh.handle;
    const price = new Map(of('stock.product').map((p) => [p.pk, cents(p.fields.price)]));
    const purchase = of('stock.producttransaction')[0];
    const entry = await db
      .selectFrom('ledger_entries')
      .selectAll()
      .where('original_model', '=', 'stock.producttransaction')
      .where('original_pk', '=', purchase.pk)
      .executeTakeFirstOrThrow();
    assert.equal(entry.kind, 'purchase');
    assert.equal(entry.user_id, purchase.fields.user);
    assert.equal(entry.product_id, purchase.fields.product);
    assert.equal(entry.quantity, 1);
    assert.equal(entry.unit_price_cents, price.get(purchase.fields.product as number));
    assert.equal(Number(entry.amount_cents), -price.get(purchase.fields.product as number)!);
    assert.equal(entry.price_at_import, 1);
    assert.equal(Number(entry.created_us), parseIsoMicros(purchase.fields.when as string));

    const transfer = of('stock.transfertransaction')[0];
    const sender = await db
      .selectFrom('ledger_entries')
      .selectAll()
      .where('original_model', '=', 'stock.transfertransaction')
      .where('original_pk', '=', transfer.pk)
      .executeTakeFirstOrThrow();
    const halves = await db.selectFrom('ledger_entries').selectAll().where('transfer_id', '=', sender.id).orderBy('id').execute();
    assert.deepEqual(
      halves.map((h) => [h.user_id, Number(h.amount_cents), h.counterpart_id, h.original_pk]),
      [
        [transfer.fields.user, -cents(transfer.fields.amount), transfer.fields.receiver, transfer.pk],
        [transfer.fields.receiver, cents(transfer.fields.amount), transfer.fields.user, null],
      ],
    );
  });

  it("exports every stock record as the original has it, and every member's balance", async () => {
    const exported = JSON.parse(await exportText(fresh.handle.db)) as Rec[];
    const stock = exported.filter((r) => r.model.startsWith('stock.'));
    const { kept, rows } = originalBalances();
    const openings = [...kept].filter(([user, balance]) => rows.get(user) !== balance);
    const original = FIXTURE_RECORDS.filter((r) => r.model.startsWith('stock.'));
    // The openings come as misc transactions after the original's.
    assert.deepEqual(stock.filter((r) => !original.some((o) => o.model === r.model && o.pk === r.pk)).length, openings.length);
    assert.deepEqual(original.map(comparable), stock.filter((r) => original.some((o) => o.model === r.model && o.pk === r.pk)).map(comparable));
    // In Django's model order.
    const order = [...new Set(original.map((r) => r.model))];
    assert.deepEqual([...new Set(stock.map((r) => r.model))], order);
    assert.deepEqual(new Map(of('users.user', exported).map((u) => [u.pk, cents(u.fields.balance)])), kept);
  });

  it('imports the same file again without a new entry, and exports the same', async () => {
    const { db } = fresh.handle;
    const before = await entryCount(db);
    const exported = await exportText(db);
    await importInto(db, records());
    assert.equal(await entryCount(db), before);
    assert.equal(await exportText(db), exported);
  });

  it('refuses a record imported before with other values (the ledger edits no entry), and changes nothing', async () => {
    const { db } = fresh.handle;
    const before = await exportText(db);
    const changed = records().map((r) => (r.model === 'stock.misctransaction' && r.pk === 1 ? { ...r, fields: { ...r.fields, amount: '1.00' } } : r));
    await assert.rejects(importInto(db, changed), /stock\.misctransaction pk 1: was imported before with other values/);
    assert.equal(await exportText(db), before);
  });

  it('exports, imports into a fresh database and exports the same again', async () => {
    const text = await exportText(fresh.handle.db);
    const other = await freshDatabase();
    try {
      await importInto(other.handle.db, JSON.parse(text) as unknown[]);
      assert.equal(await exportText(other.handle.db), text);
    } finally {
      await other.cleanup();
    }
  });
});

describe('importing again after the balances moved: the ledger appends, never edits', () => {
  it("a balance edited in the original, then put back: each import adds one opening where it must, and the balance is the file's", async () => {
    const fresh = await freshDatabase();
    try {
      const { db } = fresh.handle;
      await importInto(db, records());
      const member = of('users.user')[0];
      const edited = records().map((r) => (r.model === 'users.user' && r.pk === member.pk ? { ...r, fields: { ...r.fields, balance: '12.34' } } : r));
      const entriesBefore = await db.selectFrom('ledger_entries').select(['id', 'amount_cents']).orderBy('id').execute();

      const report = await importInto(db, edited);
      // The operator is told how many balances were made up, never an amount.
      assert.deepEqual(report.notes, ["the ledger: 1 opening entry made members' balances equal the file's (`hackerspace-api ledger check` agrees)"]);
      const added = await db.selectFrom('ledger_entries').select(['user_id', 'kind', 'amount_cents']).where('id', '>', entriesBefore.at(-1)!.id).execute();
      assert.deepEqual(
        added.map((e) => [e.user_id, e.kind, Number(e.amount_cents)]),
        [[member.pk, 'opening', 1234 - cents(member.fields.balance)]],
      );
      // Nothing before was edited or deleted.
      assert.deepEqual(await db.selectFrom('ledger_entries').select(['id', 'amount_cents']).where('id', '<=', entriesBefore.at(-1)!.id).orderBy('id').execute(), entriesBefore);
      const sums = await entrySums(db);
      assert.equal(sums.get(member.pk), 1234);

      // Back to the first file: one more opening returns the balance to the original's.
      await importInto(db, records());
      const balance = await db.selectFrom('users').select('balance_cents').where('id', '=', member.pk).executeTakeFirstOrThrow();
      assert.equal(Number(balance.balance_cents), cents(member.fields.balance));
      assert.equal((await entrySums(db)).get(member.pk), cents(member.fields.balance));
      const openings = await db.selectFrom('ledger_entries').select('amount_cents').where('kind', '=', 'opening').where('user_id', '=', member.pk).orderBy('id').execute();
      assert.deepEqual(
        openings.map((o) => Number(o.amount_cents)),
        [1234 - cents(member.fields.balance), cents(member.fields.balance) - 1234],
      );
    } finally {
      await fresh.cleanup();
    }
  });

  it('our export loaded back into the database it came from adds nothing, entries made here included', async () => {
    const fresh = await freshDatabase();
    try {
      const { db } = fresh.handle;
      await importInto(db, records());
      const [alice, bob] = of('users.user');
      const product = of('stock.product').find((p) => p.fields.active === true)!;
      const by = { userId: null, channel: 'cli' as const };
      const rules = { maxAmountCents: 50_000, debtLimitCents: null, undoMinutes: 5 };
      await db.transaction().execute(async (trx) => {
        await buy(trx, rules, { userId: alice.pk, key: 'a', by, nowUs: 1_700_000_000_000_001, productId: product.pk });
        await buy(trx, rules, { userId: alice.pk, key: 'b', by, nowUs: 1_700_000_000_000_002, productId: product.pk, quantity: 3 });
        await transfer(trx, rules, { userId: bob.pk, key: 'c', by, nowUs: 1_700_000_000_000_003, recipientId: alice.pk, amountCents: 99 });
      });
      const count = await entryCount(db);
      const text = await exportText(db);
      await importInto(db, JSON.parse(text) as unknown[]);
      assert.equal(await entryCount(db), count);
      assert.equal(await exportText(db), text);
    } finally {
      await fresh.cleanup();
    }
  });
});

describe("the stock API after an import gives the original's serializers' records", () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ records: records() });
  });
  after(() => server.close());

  const all = async (address: string): Promise<unknown[]> => {
    const res = await getJson(server.base, address);
    assert.equal(res.status, 200);
    const body = res.data as { results?: unknown[] } | unknown[];
    return Array.isArray(body) ? body : body.results!;
  };

  it('/api/stock/products/: every product, inactive ones too, as ProductSerializer', async () => {
    const category = new Map(of('stock.category').map((c) => [c.pk, c.fields.name]));
    const expected = of('stock.product')
      .sort((a, b) => a.pk - b.pk)
      .map((p) => ({ name: p.fields.name, price: p.fields.price, category: { name: category.get(p.fields.category as number) } }));
    assert.deepEqual(await all('/api/stock/products/?page_size=1000'), expected);
  });

  it('/api/streams/urtip/: the purchases in a category named urtip (any case), by when, as UrtipSerializer', async () => {
    const category = new Map(of('stock.category').map((c) => [c.pk, String(c.fields.name)]));
    const product = new Map(of('stock.product').map((p) => [p.pk, p.fields]));
    const username = new Map(of('users.user').map((u) => [u.pk, u.fields.username]));
    const expected = of('stock.producttransaction')
      .filter((t) => category.get(product.get(t.fields.product as number)!.category as number)!.toLowerCase() === 'urtip')
      .sort((a, b) => parseIsoMicros(a.fields.when as string)! - parseIsoMicros(b.fields.when as string)! || a.pk - b.pk)
      .map((t) => ({ username: username.get(t.fields.user as number), price: `${product.get(t.fields.product as number)!.price as string}€` }));
    assert.ok(expected.length > 0);
    assert.deepEqual(await all('/api/streams/urtip/?page_size=1000'), expected);
  });
});
