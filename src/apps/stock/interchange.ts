import { formatHundredths } from '../../interchange/export.js';
import { FieldError } from '../../interchange/import-error.js';
import type { FieldReader } from '../../interchange/field-reader.js';
import type { ModelDeclarations } from '../../interchange/models.js';
import { LEDGER_MODELS } from './ledger-interchange.js';
import { STOCK_TABLES } from './tables.js';

export { LEDGER_KEPT } from './ledger-interchange.js';

/**
 * The original's models the stock app imports and exports (ledger.md §5), each in its table; the
 * four transaction models share the ledger's table and are the ledger's own (ledger-interchange.ts).
 */
export const STOCK_MODELS: ModelDeclarations<typeof STOCK_TABLES> = {
  'stock.category': {
    fields: new Set(['name']),
    read: (f) => ({ values: [f.string('name')] }),
    page: async (db, after, limit, fit) => {
      const rows = await db.selectFrom('stock_categories').selectAll().where('id', '>', after).orderBy('id').limit(limit).execute();
      return rows.map((r) => ({ pk: r.id, fields: { name: fit.text(r.name, 100) } }));
    },
  },
  'stock.product': {
    fields: new Set(['name', 'price', 'category', 'active']),
    read: (f) => ({ values: [f.string('name'), f.decimal('price', 6, 2), f.reference('category'), f.boolean('active', true)] }),
    page: async (db, after, limit, fit) => {
      const rows = await db.selectFrom('stock_products').selectAll().where('id', '>', after).orderBy('id').limit(limit).execute();
      return rows.map((r) => ({
        pk: r.id,
        fields: { name: fit.text(r.name, 100), price: formatHundredths(Number(r.price_cents)), category: r.category_id, active: r.active === 1 },
      }));
    },
  },
  ...LEDGER_MODELS,
  'stock.fundzone': {
    fields: new Set(['name', 'method']),
    read: (f) => ({ values: [f.string('name', undefined, 50), f.choice('method', ['BANK', 'CASH'])] }),
    page: async (db, after, limit, fit) => {
      const rows = await db.selectFrom('stock_fund_zones').selectAll().where('id', '>', after).orderBy('id').limit(limit).execute();
      return rows.map((r) => ({ pk: r.id, fields: { name: fit.text(r.name, 50), method: r.method } }));
    },
  },
  'stock.paymenttransaction': {
    fields: new Set(['user', 'when', 'amount', 'way', 'receipt', 'zone', 'comments', 'payment_date']),
    // The receipt's path is kept as the original stored it ('' and null apart); its file is not in a fixture.
    read: (f, d) => ({
      values: [
        f.reference('user'),
        f.nullableTime('when') ?? d.nowUs,
        f.decimal('amount', 6, 2),
        f.has('way') ? f.choice('way', ['a', 'b']) : 'a',
        f.path('receipt', 100),
        f.nullableReference('zone'),
        f.nullableString('comments', null),
        day(f, 'payment_date', d.nowUs),
      ],
    }),
    page: async (db, after, limit, fit) => {
      const rows = await db.selectFrom('stock_payments').selectAll().where('id', '>', after).orderBy('id').limit(limit).execute();
      return rows.map((r) => ({
        pk: r.id,
        fields: {
          user: r.user_id,
          when: fit.times.format(Number(r.when_us)),
          amount: formatHundredths(Number(r.amount_cents)),
          way: r.way,
          receipt: r.receipt,
          zone: r.zone_id,
          comments: r.comments === null ? null : fit.text(r.comments, 200),
          payment_date: r.payment_date,
        },
      }));
    },
  },
  'stock.refundtransaction': {
    fields: new Set(['user', 'when', 'title', 'amount', 'payment', 'receipt']),
    read: (f, d) => ({
      values: [
        f.reference('user'),
        f.nullableTime('when') ?? d.nowUs,
        f.string('title', undefined, 200),
        f.decimal('amount', 6, 2),
        f.nullableReference('payment'),
        f.path('receipt', 100),
      ],
    }),
    page: async (db, after, limit, fit) => {
      const rows = await db.selectFrom('stock_refunds').selectAll().where('id', '>', after).orderBy('id').limit(limit).execute();
      return rows.map((r) => ({
        pk: r.id,
        fields: {
          user: r.user_id,
          when: fit.times.format(Number(r.when_us)),
          title: fit.text(r.title, 200),
          amount: formatHundredths(Number(r.amount_cents)),
          payment: r.payment_id,
          receipt: r.receipt,
        },
      }));
    },
  },
};

/** A DateField: `YYYY-MM-DD` (a real day); the day of `nowUs` (UTC) when missing, as the original's `default=timezone.now`. */
function day(f: FieldReader, name: string, nowUs: number): string {
  if (!f.has(name)) return new Date(nowUs / 1000).toISOString().slice(0, 10);
  const text = f.string(name);
  const date = /^\d{4}-\d{2}-\d{2}$/.test(text) ? new Date(`${text}T00:00:00Z`) : null;
  if (date === null || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== text)
    throw new FieldError(name, `must be a day as YYYY-MM-DD, got ${JSON.stringify(text)}`);
  return text;
}
