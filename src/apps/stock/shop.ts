import { nextId } from '../../resources/write-schema.js';
import type { Db } from '../../db/connection.js';
import { hasRight } from '../users/index.js';
import { readAmount } from './money.js';

/**
 * The shop's management (ledger.md §1, §4): categories and products, their barcodes and restocks,
 * for members with Django's model rights on them (`stock.add_product`, `stock.change_category`,
 * …) or superusers. Free of HTTP; changes run in a write transaction the caller owns.
 *
 * A product's price may be 0.00 (the original's DecimalField allows it: a free product still
 * counts its stock); it is otherwise read as every amount is (readAmount: point or comma, two
 * decimals, at most LEDGER_MAX_AMOUNT). Nothing is deleted that the ledger or a product names:
 * a category with products, or a product with ledger entries, is refused (deactivate it instead).
 */

export type ShopRight = 'stock.add_category' | 'stock.change_category' | 'stock.delete_category' | 'stock.add_product' | 'stock.change_product' | 'stock.delete_product';

const SHOP_RIGHTS: readonly ShopRight[] = [
  'stock.add_category',
  'stock.change_category',
  'stock.delete_category',
  'stock.add_product',
  'stock.change_product',
  'stock.delete_product',
];

/** The shop's rights a member holds (superusers hold them all). */
export async function shopRightsOf(db: Db, userId: number): Promise<ReadonlySet<ShopRight>> {
  const held = await Promise.all(SHOP_RIGHTS.map(async (right) => ((await hasRight(db, userId, right)) ? right : null)));
  return new Set(held.filter((right): right is ShopRight => right !== null));
}

export const MAX_PRODUCT_NAME = 100;
export const MAX_CATEGORY_NAME = 100;
export const MAX_RESTOCK = 10_000;
/** A barcode: letters and digits (EAN, UPC, Code 128 of ours), 1 to 64. */
const BARCODE = /^[A-Za-z0-9]{1,64}$/;

/** Why the shop refuses a change: each is a message of the catalogue (`stock.shop.refused.<code>`). */
export type ShopRefusal =
  | 'name'
  | 'price'
  | 'price-too-large'
  | 'category-unknown'
  | 'barcode-invalid'
  | 'barcode-taken'
  | 'quantity'
  | 'category-has-products'
  | 'product-has-entries'
  | 'product-unknown';

export class ShopRefused extends Error {
  override name = 'ShopRefused';
  constructor(
    readonly refusal: ShopRefusal,
    readonly field: string,
    /** What the message names (the product that holds a barcode). */
    readonly values: Readonly<Record<string, string>> = {},
  ) {
    super(refusal);
  }
}

/** A price as typed: 0 (any way of writing it), or an amount as readAmount reads it; cents, or the refusal. */
export function readPrice(text: string, maxCents: number): number {
  if (/^\s*\+?0*(?:[.,]0{0,2})?\s*$/.test(text) && /\d/.test(text)) return 0;
  const read = readAmount(text, maxCents);
  if ('cents' in read) return read.cents;
  throw new ShopRefused(read.problem === 'amount-too-large' ? 'price-too-large' : 'price', 'price');
}

/** Barcodes as typed in one field: separated by spaces, commas or new lines; each checked, repeats dropped. */
export function readBarcodes(text: string): string[] {
  const codes = [...new Set(text.split(/[\s,;]+/).filter((code) => code !== ''))];
  const bad = codes.find((code) => !BARCODE.test(code));
  if (bad !== undefined) throw new ShopRefused('barcode-invalid', 'barcodes', { code: bad });
  return codes;
}

function checkedName(text: string, max: number): string {
  const name = text.trim();
  if (name === '' || [...name].length > max) throw new ShopRefused('name', 'name');
  return name;
}

export interface ProductInput {
  name: string;
  priceCents: number;
  categoryId: number;
  active: boolean;
  countsStock: boolean;
  barcodes: readonly string[];
}

export interface ManagedProduct {
  id: number;
  name: string;
  price_cents: number;
  category_id: number;
  category_name: string;
  active: number;
  counts_stock: number;
  barcodes: string[];
}

export function allCategories(db: Db): Promise<{ id: number; name: string }[]> {
  return db.selectFrom('stock_categories').select(['id', 'name']).orderBy('name').orderBy('id').execute();
}

/** Every product, by category then name, with its barcodes. */
export async function managedProducts(db: Db): Promise<ManagedProduct[]> {
  const [rows, codes] = await Promise.all([
    db
      .selectFrom('stock_products as p')
      .innerJoin('stock_categories as c', 'c.id', 'p.category_id')
      .select(['p.id', 'p.name', 'p.price_cents', 'p.category_id', 'c.name as category_name', 'p.active', 'p.counts_stock'])
      .orderBy('c.name')
      .orderBy('p.name')
      .orderBy('p.id')
      .execute(),
    db.selectFrom('stock_barcodes').select(['code', 'product_id']).orderBy('code').execute(),
  ]);
  return rows.map((row) => ({ ...row, barcodes: codes.filter((c) => c.product_id === row.id).map((c) => c.code) }));
}

export async function managedProduct(db: Db, id: number): Promise<ManagedProduct | undefined> {
  return (await managedProducts(db)).find((p) => p.id === id);
}

async function checkedProduct(trx: Db, input: ProductInput, productId: number | null): Promise<void> {
  const category = await trx.selectFrom('stock_categories').select('id').where('id', '=', input.categoryId).executeTakeFirst();
  if (category === undefined) throw new ShopRefused('category-unknown', 'category');
  if (input.barcodes.length === 0) return;
  const taken = await trx
    .selectFrom('stock_barcodes as b')
    .innerJoin('stock_products as p', 'p.id', 'b.product_id')
    .select(['b.code', 'p.name'])
    .where('b.code', 'in', [...input.barcodes])
    .where('b.product_id', '!=', productId ?? 0)
    .executeTakeFirst();
  if (taken !== undefined) throw new ShopRefused('barcode-taken', 'barcodes', { code: taken.code, product: taken.name });
}

export async function addProduct(trx: Db, fields: Omit<ProductInput, 'name'> & { name: string }): Promise<number> {
  const input = { ...fields, name: checkedName(fields.name, MAX_PRODUCT_NAME) };
  await checkedProduct(trx, input, null);
  const row = await trx
    .insertInto('stock_products')
    // SQLite: past every id ever given, so that a deleted product's URL never names another.
    .values({
      id: await nextId(trx, 'stock_products'),
      name: input.name,
      price_cents: input.priceCents,
      category_id: input.categoryId,
      active: input.active ? 1 : 0,
      counts_stock: input.countsStock ? 1 : 0,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (input.barcodes.length > 0)
    await trx
      .insertInto('stock_barcodes')
      .values(input.barcodes.map((code) => ({ code, product_id: row.id })))
      .execute();
  return row.id;
}

export async function changeProduct(trx: Db, id: number, fields: ProductInput): Promise<void> {
  const input = { ...fields, name: checkedName(fields.name, MAX_PRODUCT_NAME) };
  await checkedProduct(trx, input, id);
  const done = await trx
    .updateTable('stock_products')
    .set({ name: input.name, price_cents: input.priceCents, category_id: input.categoryId, active: input.active ? 1 : 0, counts_stock: input.countsStock ? 1 : 0 })
    .where('id', '=', id)
    .executeTakeFirst();
  if (Number(done.numUpdatedRows) !== 1) throw new ShopRefused('product-unknown', 'name');
  await trx.deleteFrom('stock_barcodes').where('product_id', '=', id).execute();
  if (input.barcodes.length > 0)
    await trx
      .insertInto('stock_barcodes')
      .values(input.barcodes.map((code) => ({ code, product_id: id })))
      .execute();
}

/** Deletes a product the ledger never named (its barcodes and restocks go with it); one with entries is refused. */
export async function deleteProduct(trx: Db, id: number): Promise<void> {
  const entry = await trx.selectFrom('ledger_entries').select('id').where('product_id', '=', id).limit(1).executeTakeFirst();
  if (entry !== undefined) throw new ShopRefused('product-has-entries', 'product');
  await trx.deleteFrom('stock_barcodes').where('product_id', '=', id).execute();
  await trx.deleteFrom('stock_restocks').where('product_id', '=', id).execute();
  await trx.deleteFrom('stock_products').where('id', '=', id).execute();
}

/** Adds `quantity` to a counted product's stock. */
export async function restock(trx: Db, change: { productId: number; quantity: number; byUserId: number; nowUs: number }): Promise<void> {
  if (!Number.isSafeInteger(change.quantity) || change.quantity < 1 || change.quantity > MAX_RESTOCK) throw new ShopRefused('quantity', 'quantity');
  const product = await trx.selectFrom('stock_products').select('id').where('id', '=', change.productId).executeTakeFirst();
  if (product === undefined) throw new ShopRefused('product-unknown', 'quantity');
  await trx.insertInto('stock_restocks').values({ product_id: product.id, quantity: change.quantity, recorded_by: change.byUserId, created_us: change.nowUs }).execute();
}

export async function addCategory(trx: Db, name: string): Promise<number> {
  const row = await trx
    .insertInto('stock_categories')
    .values({ id: await nextId(trx, 'stock_categories'), name: checkedName(name, MAX_CATEGORY_NAME) })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function renameCategory(trx: Db, id: number, name: string): Promise<void> {
  await trx
    .updateTable('stock_categories')
    .set({ name: checkedName(name, MAX_CATEGORY_NAME) })
    .where('id', '=', id)
    .execute();
}

/** Deletes a category without products; one with products is refused. */
export async function deleteCategory(trx: Db, id: number): Promise<void> {
  const product = await trx.selectFrom('stock_products').select('id').where('category_id', '=', id).limit(1).executeTakeFirst();
  if (product !== undefined) throw new ShopRefused('category-has-products', 'category');
  await trx.deleteFrom('stock_categories').where('id', '=', id).execute();
}
