/**
 * The ledger's records and rules (ledger.md §3), called as the slate, the kiosk and the command
 * line call them: inside a write transaction, on the engine under test. Amounts in the
 * expectations are written out from the spec's examples, not computed with src/'s formulas.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { writeTransaction } from '../../../src/db/write-transaction.js';
import type { Db } from '../../../src/db/connection.js';
import { buy, checkLedger, correct, LedgerRefused, spend, topUp, transfer, undo, type LedgerRules, type Recorder } from '../../../src/apps/stock/ledger.js';
import { formatCents, readAmount } from '../../../src/apps/stock/money.js';
import { freshDatabase, type FreshDatabase } from '../../support/server.js';

const WEB: Recorder = { userId: null, channel: 'web' };
const RULES: LedgerRules = { maxAmountCents: 50_000, debtLimitCents: null, undoMinutes: 5 };
const MINUTE_US = 60_000_000;
const T0 = Date.UTC(2026, 0, 10, 12) * 1000;

describe('money as members type it', () => {
  it('reads a point or a comma, two decimals at most, more than 0 and at most the maximum', () => {
    const cents = (text: string) => {
      const read = readAmount(text, 50_000);
      return 'cents' in read ? read.cents : read.problem;
    };
    assert.equal(cents('1,50'), 150);
    assert.equal(cents('1.5'), 150);
    assert.equal(cents(' 12 '), 1200);
    assert.equal(cents('0.07'), 7);
    assert.equal(cents(',5'), 50);
    assert.equal(cents('500'), 50_000);
    assert.equal(cents('500.01'), 'amount-too-large');
    assert.equal(cents('0'), 'amount-not-positive');
    assert.equal(cents('0,00'), 'amount-not-positive');
    for (const bad of ['', ' ', '-1', '1.505', 'abc', '1e3', '1,5,0', '1 000', '0x10', '١٢', 'NaN', 'Infinity', '1.2.3'])
      assert.equal(cents(bad), 'amount-invalid', JSON.stringify(bad));
  });

  it("writes cents as the original's decimals", () => {
    assert.equal(formatCents(150), '1.50');
    assert.equal(formatCents(-6), '-0.06');
    assert.equal(formatCents(0), '0.00');
    assert.equal(formatCents(123456), '1234.56');
  });
});

describe('the ledger', () => {
  let fresh: FreshDatabase;
  let db: Db;
  const run = <T>(work: (trx: Db) => Promise<T>) => writeTransaction(db, work);
  const balance = async (id: number) => Number((await db.selectFrom('users').select('balance_cents').where('id', '=', id).executeTakeFirstOrThrow()).balance_cents);
  const entries = async (id: number) => db.selectFrom('ledger_entries').selectAll().where('user_id', '=', id).orderBy('id').execute();
  const refused = async (work: Promise<unknown>, refusal: string) => {
    await assert.rejects(work, (error: unknown) => error instanceof LedgerRefused && error.refusal === refusal);
  };

  before(async () => {
    fresh = await freshDatabase();
    db = fresh.handle.db;
    await db
      .insertInto('users')
      .values(
        [1, 2, 3, 4].map((id) => ({ id, username: `m${id}`, email: `m${id}@example.org`, password: '!', has_key: 0, is_active: id === 4 ? 0 : 1, created_us: T0, edited_us: T0 })),
      )
      .execute();
    await db.insertInto('stock_categories').values({ id: 1, name: 'Boissons' }).execute();
    await db
      .insertInto('stock_products')
      .values([
        { id: 1, name: 'Club-Mate', price_cents: 150, category_id: 1, active: 1 },
        { id: 2, name: 'Old', price_cents: 100, category_id: 1, active: 0 },
      ])
      .execute();
  });
  after(() => fresh.cleanup());

  it('buys at the price of the moment, keeps it, and moves the balance in the same transaction', async () => {
    const bought = await run((trx) => buy(trx, RULES, { userId: 1, productId: 1, key: 'k1', by: WEB, nowUs: T0 }));
    assert.equal(bought.balanceCents, -150);
    assert.equal(bought.repeated, false);
    await db.updateTable('stock_products').set({ price_cents: 200 }).where('id', '=', 1).execute();
    const [entry] = await entries(1);
    assert.equal(entry.kind, 'purchase');
    assert.equal(Number(entry.amount_cents), -150);
    assert.equal(entry.unit_price_cents, 150);
    assert.equal(entry.quantity, 1);
    assert.equal(entry.channel, 'web');
    assert.equal(await balance(1), -150);
    await db.updateTable('stock_products').set({ price_cents: 150 }).where('id', '=', 1).execute();
  });

  it('records a one-time key once and answers as the first time', async () => {
    const again = await run((trx) => buy(trx, RULES, { userId: 1, productId: 1, key: 'k1', by: WEB, nowUs: T0 + 1 }));
    assert.equal(again.repeated, true);
    assert.equal(again.balanceCents, -150);
    assert.equal((await entries(1)).length, 1);
    // The same key is another member's own.
    const other = await run((trx) => buy(trx, RULES, { userId: 2, productId: 1, key: 'k1', by: WEB, nowUs: T0 }));
    assert.equal(other.repeated, false);
    assert.equal(await balance(2), -150);
  });

  it('refuses an inactive or unknown product, a bad name or location, and records nothing', async () => {
    await refused(
      run((trx) => buy(trx, RULES, { userId: 1, productId: 2, key: null, by: WEB, nowUs: T0 })),
      'product-unknown',
    );
    await refused(
      run((trx) => buy(trx, RULES, { userId: 1, productId: 999, key: null, by: WEB, nowUs: T0 })),
      'product-unknown',
    );
    await refused(
      run((trx) => spend(trx, RULES, { userId: 1, name: '  ', amountCents: 100, key: null, by: WEB, nowUs: T0 })),
      'name-invalid',
    );
    await refused(
      run((trx) => spend(trx, RULES, { userId: 1, name: 'x'.repeat(101), amountCents: 100, key: null, by: WEB, nowUs: T0 })),
      'name-invalid',
    );
    await refused(
      run((trx) => topUp(trx, RULES, { userId: 1, location: 'PAYPAL', amountCents: 100, key: null, by: WEB, nowUs: T0 })),
      'location-invalid',
    );
    assert.equal((await entries(1)).length, 1);
    assert.equal(await balance(1), -150);
  });

  it('transfers as two entries, refuses oneself and inactive members', async () => {
    await refused(
      run((trx) => transfer(trx, RULES, { userId: 1, recipientId: 1, amountCents: 100, key: null, by: WEB, nowUs: T0 })),
      'recipient-self',
    );
    await refused(
      run((trx) => transfer(trx, RULES, { userId: 1, recipientId: 4, amountCents: 100, key: null, by: WEB, nowUs: T0 })),
      'recipient-unknown',
    );
    await run((trx) => topUp(trx, RULES, { userId: 1, location: 'CASH', amountCents: 2000, key: null, by: WEB, nowUs: T0 }));
    const sent = await run((trx) => transfer(trx, RULES, { userId: 1, recipientId: 3, amountCents: 575, key: 't1', by: WEB, nowUs: T0 }));
    assert.equal(sent.balanceCents, -150 + 2000 - 575);
    assert.equal(await balance(3), 575);
    const [received] = await entries(3);
    assert.equal(received.counterpart_id, 1);
    assert.equal(received.transfer_id, sent.entry.id);
    assert.equal(sent.entry.counterpart_id, 3);
  });

  it('undoes within the window by a reversing entry, once, only one’s own', async () => {
    const bought = await run((trx) => buy(trx, RULES, { userId: 1, productId: 1, key: null, by: WEB, nowUs: T0 }));
    const before = await balance(1);
    await refused(
      run((trx) => undo(trx, RULES, { userId: 2, entryId: bought.entry.id, key: null, by: WEB, nowUs: T0 + MINUTE_US })),
      'undo-not-yours',
    );
    await refused(
      run((trx) => undo(trx, RULES, { userId: 1, entryId: bought.entry.id, key: null, by: WEB, nowUs: T0 + 5 * MINUTE_US + 1 })),
      'undo-too-late',
    );
    const undone = await run((trx) => undo(trx, RULES, { userId: 1, entryId: bought.entry.id, key: 'u1', by: WEB, nowUs: T0 + 5 * MINUTE_US }));
    assert.equal(undone.balanceCents, before + 150);
    assert.equal(undone.entry.reverses_id, bought.entry.id);
    assert.equal(undone.entry.kind, 'reversal');
    // The same form sent again answers as before; another try is refused.
    assert.equal((await run((trx) => undo(trx, RULES, { userId: 1, entryId: bought.entry.id, key: 'u1', by: WEB, nowUs: T0 + MINUTE_US }))).repeated, true);
    await refused(
      run((trx) => undo(trx, RULES, { userId: 1, entryId: bought.entry.id, key: null, by: WEB, nowUs: T0 + MINUTE_US })),
      'undo-twice',
    );
    await refused(
      run((trx) => undo(trx, RULES, { userId: 1, entryId: undone.entry.id, key: null, by: WEB, nowUs: T0 + MINUTE_US })),
      'undo-kind',
    );
    await refused(
      run((trx) => undo(trx, RULES, { userId: 1, entryId: 10 ** 12, key: null, by: WEB, nowUs: T0 })),
      'undo-unknown',
    );
  });

  it("undoes a transfer on both sides, but not from the recipient's side", async () => {
    const sent = await run((trx) => transfer(trx, RULES, { userId: 1, recipientId: 3, amountCents: 100, key: null, by: WEB, nowUs: T0 }));
    const received = (await entries(3)).at(-1)!;
    await refused(
      run((trx) => undo(trx, RULES, { userId: 3, entryId: received.id, key: null, by: WEB, nowUs: T0 })),
      'undo-not-yours',
    );
    const [b1, b3] = [await balance(1), await balance(3)];
    await run((trx) => undo(trx, RULES, { userId: 1, entryId: sent.entry.id, key: null, by: WEB, nowUs: T0 }));
    assert.deepEqual([await balance(1), await balance(3)], [b1 + 100, b3 - 100]);
  });

  it('lets the treasury correct any entry with a reason, at any time', async () => {
    const spent = await run((trx) => spend(trx, RULES, { userId: 2, name: 'Fer à souder', amountCents: 1999, key: null, by: WEB, nowUs: T0 }));
    await refused(
      run((trx) => correct(trx, { entryId: spent.entry.id, reason: ' ', by: { userId: 3, channel: 'web' }, nowUs: T0 })),
      'reason-invalid',
    );
    const before = await balance(2);
    const corrected = await run((trx) => correct(trx, { entryId: spent.entry.id, reason: 'paid by the space', by: { userId: 3, channel: 'web' }, nowUs: T0 + 1000 * MINUTE_US }));
    assert.equal(corrected.entry.kind, 'correction');
    assert.equal(corrected.entry.recorded_by, 3);
    assert.equal(corrected.entry.info, 'paid by the space');
    assert.equal(await balance(2), before + 1999);
    await refused(
      run((trx) => correct(trx, { entryId: spent.entry.id, reason: 'again', by: WEB, nowUs: T0 })),
      'undo-twice',
    );
  });

  it('refuses what would take a balance below LEDGER_DEBT_LIMIT, and nothing is recorded', async () => {
    const limited = { ...RULES, debtLimitCents: -500 };
    await run((trx) => topUp(trx, limited, { userId: 3, location: 'BANK', amountCents: 10_000, key: null, by: WEB, nowUs: T0 }));
    const start = await balance(3);
    const count = (await entries(3)).length;
    await refused(
      run((trx) => spend(trx, limited, { userId: 3, name: 'big', amountCents: start + 501, key: null, by: WEB, nowUs: T0 })),
      'debt-limit',
    );
    assert.equal(await balance(3), start);
    assert.equal((await entries(3)).length, count);
    const exact = await run((trx) => spend(trx, limited, { userId: 3, name: 'just', amountCents: start + 500, key: null, by: WEB, nowUs: T0 }));
    assert.equal(exact.balanceCents, -500);
  });

  it('finds every balance equal to the sum of its entries, and names the one that is not (`ledger check`)', async () => {
    const check = () =>
      spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'ledger', 'check'], { env: { ...process.env, DATABASE_URL: fresh.url }, encoding: 'utf8' });
    assert.deepEqual(await checkLedger(db), []);
    const agreeing = check();
    assert.equal(agreeing.status, 0, agreeing.stderr);
    assert.match(agreeing.stdout, /every balance is the sum of its entries/);
    await db.updateTable('users').set({ balance_cents: 4242 }).where('id', '=', 2).execute();
    const found = await checkLedger(db);
    assert.equal(found.length, 1);
    assert.equal(found[0].userId, 2);
    assert.equal(found[0].username, 'm2');
    assert.equal(found[0].keptCents, 4242);
    const differing = check();
    assert.equal(differing.status, 1);
    assert.match(differing.stdout, /^member 2 "m2": kept 42\.42, entries /m);
  });

  it('refuses to delete entries or members with a history', async () => {
    await assert.rejects(db.deleteFrom('users').where('id', '=', 1).execute());
  });
});
