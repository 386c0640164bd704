import { formatHundredths } from '../../interchange/export.js';
import type { ModelDeclarations } from '../../interchange/models.js';
import { STOCK_TABLES } from './tables.js';

/** The original's models the stock app imports and exports (ledger.md §5), each in its table. */
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
        fields: { name: fit.text(r.name, 100), price: formatHundredths(r.price_cents), category: r.category_id, active: r.active === 1 },
      }));
    },
  },
};
