import { Type, type Static } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';
import { countRecords } from '../../resources/counts.js';
import type { PageWindow } from '../../resources/record-context.js';
import { formatCents } from './money.js';

/**
 * The shop's categories and products (ledger.md §1), their API records exactly as the original's
 * serializers give them, and the urtip stream (`/api/streams/urtip/`: purchases in the category
 * named `urtip`, any case). Free of HTTP.
 */

export const CategoryRecord = Type.Object({ name: Type.String() });
export type CategoryRecord = Static<typeof CategoryRecord>;

export const ProductRecord = Type.Object({
  name: Type.String(),
  /** The original's DecimalField: `"1.50"`. */
  price: Type.String({ pattern: '^-?[0-9]+\\.[0-9]{2}$' }),
  category: CategoryRecord,
});
export type ProductRecord = Static<typeof ProductRecord>;

export const UrtipRecord = Type.Object({
  username: Type.String(),
  /** The purchase's price with the euro sign, as the original's serializer writes it: `"1.50€"`. */
  price: Type.String({ pattern: '^-?[0-9]+\\.[0-9]{2}€$' }),
});
export type UrtipRecord = Static<typeof UrtipRecord>;

/** Nothing is written through the API (the original's ReadOnlyPermission). */
export const NoFields = Type.Object({});

interface CategoryRow {
  id: number;
  name: string;
}

export function countCategories(db: Db): Promise<number> {
  return countRecords(db, 'stock_categories');
}

/** In id order, as the original's unordered queryset comes from its database. */
export function listCategories(db: Db, window: PageWindow): Promise<CategoryRow[]> {
  return db.selectFrom('stock_categories').select(['id', 'name']).orderBy('id').limit(window.limit).offset(window.offset).execute();
}

export function findCategory(db: Db, id: number): Promise<CategoryRow | undefined> {
  return db.selectFrom('stock_categories').select(['id', 'name']).where('id', '=', id).executeTakeFirst();
}

export function categoryRecord(row: CategoryRow): CategoryRecord {
  return { name: row.name };
}

export interface ProductRow {
  id: number;
  name: string;
  price_cents: number;
  category_id: number;
  category_name: string;
  active: number;
  counts_stock: number;
}

function products(db: Db) {
  return db
    .selectFrom('stock_products')
    .innerJoin('stock_categories', 'stock_categories.id', 'stock_products.category_id')
    .select([
      'stock_products.id',
      'stock_products.name',
      'stock_products.price_cents',
      'stock_products.category_id',
      'stock_categories.name as category_name',
      'stock_products.active',
      'stock_products.counts_stock',
    ]);
}

export function countProducts(db: Db): Promise<number> {
  return countRecords(db, 'stock_products');
}

/** Every product, inactive ones included (as the original's API lists them), in id order. */
export function listProducts(db: Db, window: PageWindow): Promise<ProductRow[]> {
  return products(db).orderBy('stock_products.id').limit(window.limit).offset(window.offset).execute();
}

export function findProduct(db: Db, id: number): Promise<ProductRow | undefined> {
  return products(db).where('stock_products.id', '=', id).executeTakeFirst();
}

export function productRecord(row: ProductRow): ProductRecord {
  return { name: row.name, price: formatCents(row.price_cents), category: { name: row.category_name } };
}

/** The active products, by category then name (the slate's and the kiosk's shelves). */
export function activeProducts(db: Db): Promise<ProductRow[]> {
  return products(db)
    .where('stock_products.active', '=', 1)
    .orderBy('stock_products.category_id')
    .orderBy(sql`stock_products.name`)
    .orderBy('stock_products.id')
    .execute();
}

/** The product a barcode names, if it is active. */
export async function productByBarcode(db: Db, code: string): Promise<ProductRow | undefined> {
  return products(db)
    .innerJoin('stock_barcodes', 'stock_barcodes.product_id', 'stock_products.id')
    .where('stock_barcodes.code', '=', code.trim())
    .where('stock_products.active', '=', 1)
    .executeTakeFirst();
}

/**
 * How many of each counted product are left: restocked less sold (purchases' quantities, less
 * those reversed). A product sold out is still sold (the fridge is the truth: ledger.md §4).
 */
export async function stockCounts(db: Db, productIds: readonly number[]): Promise<ReadonlyMap<number, number>> {
  const counts = new Map<number, number>();
  if (productIds.length === 0) return counts;
  const ids = [...productIds];
  const [restocked, sold] = await Promise.all([
    db
      .selectFrom('stock_restocks')
      .select(['product_id', sql<number>`cast(sum(quantity) as bigint)`.as('n')])
      .where('product_id', 'in', ids)
      .groupBy('product_id')
      .execute(),
    db
      .selectFrom('ledger_entries')
      .select([
        'product_id',
        sql<number>`cast(sum(case when kind = 'purchase' then quantity else -coalesce((select p.quantity from ledger_entries p where p.id = ledger_entries.reverses_id), 0) end) as bigint)`.as(
          'n',
        ),
      ])
      .where('product_id', 'in', ids)
      .groupBy('product_id')
      .execute(),
  ]);
  for (const id of ids) counts.set(id, 0);
  for (const row of restocked) counts.set(row.product_id, Number(row.n));
  for (const row of sold) counts.set(row.product_id!, (counts.get(row.product_id!) ?? 0) - Number(row.n));
  return counts;
}

interface UrtipRow {
  id: number;
  username: string;
  unit_price_cents: number | null;
  quantity: number | null;
}

/** Purchases in the category named `urtip` (any case) that were not undone. */
function urtips(db: Db) {
  return db
    .selectFrom('ledger_entries as e')
    .innerJoin('stock_products as p', 'p.id', 'e.product_id')
    .innerJoin('stock_categories as c', 'c.id', 'p.category_id')
    .innerJoin('users as u', 'u.id', 'e.user_id')
    .where('e.kind', '=', 'purchase')
    .where(sql<boolean>`lower(c.name) = 'urtip'`)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('ledger_entries as r').select('r.id').whereRef('r.reverses_id', '=', 'e.id'))));
}

export async function countUrtips(db: Db): Promise<number> {
  const row = await urtips(db)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** In the order they were bought (the original's `order_by("when")`). */
export function listUrtips(db: Db, window: PageWindow): Promise<UrtipRow[]> {
  return urtips(db).select(['e.id', 'u.username', 'e.unit_price_cents', 'e.quantity']).orderBy('e.created_us').orderBy('e.id').limit(window.limit).offset(window.offset).execute();
}

export function findUrtip(db: Db, id: number): Promise<UrtipRow | undefined> {
  return urtips(db).select(['e.id', 'u.username', 'e.unit_price_cents', 'e.quantity']).where('e.id', '=', id).executeTakeFirst();
}

export function urtipRecord(row: UrtipRow): UrtipRecord {
  return { username: row.username, price: `${formatCents((row.unit_price_cents ?? 0) * (row.quantity ?? 1))}€` };
}
