import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';
import { countEntriesOf, entriesOf, reversedAmong, type LedgerEntry } from './ledger.js';
import { activeProducts, type ProductRow } from './products.js';

/**
 * What the slate (ledger.md §1, §4) shows a member of their own: their favourite products, their
 * entries with the names they refer to, the members they may send money to, and whether they
 * appear on the kiosk. Free of HTTP; every query names the member it is about.
 */

/** How many favourites the slate shows (the original's five most bought). */
export const FAVOURITES = 5;

/** A one-time key for a form (ledger.md §2): 16 random bytes, base64url (22 characters). */
export function newFormKey(): string {
  return randomBytes(16).toString('base64url');
}

/** A member's most bought active products, most bought first (purchases undone not counted). */
export async function favouritesOf(db: Db, userId: number, shelves: readonly ProductRow[]): Promise<ProductRow[]> {
  const rows = await db
    .selectFrom('ledger_entries as e')
    .innerJoin('stock_products as p', 'p.id', 'e.product_id')
    .select(['e.product_id', sql<number>`cast(sum(e.quantity) as bigint)`.as('n'), sql<number>`max(e.id)`.as('latest')])
    .where('e.user_id', '=', userId)
    .where('e.kind', '=', 'purchase')
    .where('p.active', '=', 1)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('ledger_entries as r').select('r.id').whereRef('r.reverses_id', '=', 'e.id'))))
    .groupBy('e.product_id')
    .orderBy(sql`cast(sum(e.quantity) as bigint)`, 'desc')
    .orderBy(sql`max(e.id)`, 'desc')
    .limit(FAVOURITES)
    .execute();
  const byId = new Map(shelves.map((product) => [product.id, product]));
  return rows.flatMap((row) => {
    const product = byId.get(row.product_id!);
    return product === undefined ? [] : [product];
  });
}

/** The active products by category, in the shelves' order. */
export interface Shelf {
  readonly category: string;
  readonly products: readonly ProductRow[];
}

export async function shelves(db: Db): Promise<{ all: ProductRow[]; byCategory: Shelf[] }> {
  const all = await activeProducts(db);
  const byCategory: { categoryId: number; category: string; products: ProductRow[] }[] = [];
  for (const product of all) {
    const last = byCategory.at(-1);
    if (last !== undefined && last.categoryId === product.category_id) last.products.push(product);
    else byCategory.push({ categoryId: product.category_id, category: product.category_name, products: [product] });
  }
  return { all, byCategory };
}

/** An entry as the member's own list shows it: the names it refers to, and whether it was reversed. */
export interface ShownEntry extends LedgerEntry {
  readonly productName: string | null;
  readonly counterpartName: string | null;
  readonly reversed: boolean;
}

/** A page of a member's own entries, newest first, with the names they refer to. */
export async function ownEntries(db: Db, userId: number, window: { offset: number; limit: number }): Promise<ShownEntry[]> {
  const entries = await entriesOf(db, userId, window);
  return describeEntries(db, entries);
}

export async function describeEntries(db: Db, entries: readonly LedgerEntry[]): Promise<ShownEntry[]> {
  const productIds = [...new Set(entries.flatMap((entry) => (entry.product_id === null ? [] : [entry.product_id])))];
  const userIds = [...new Set(entries.flatMap((entry) => (entry.counterpart_id === null ? [] : [entry.counterpart_id])))];
  const [products, users, reversed] = await Promise.all([
    productIds.length === 0 ? [] : db.selectFrom('stock_products').select(['id', 'name']).where('id', 'in', productIds).execute(),
    userIds.length === 0 ? [] : db.selectFrom('users').select(['id', 'username']).where('id', 'in', userIds).execute(),
    reversedAmong(
      db,
      entries.map((entry) => entry.id),
    ),
  ]);
  const productNames = new Map(products.map((row) => [row.id, row.name]));
  const usernames = new Map(users.map((row) => [row.id, row.username]));
  return entries.map((entry) => ({
    ...entry,
    productName: entry.product_id === null ? null : (productNames.get(entry.product_id) ?? null),
    counterpartName: entry.counterpart_id === null ? null : (usernames.get(entry.counterpart_id) ?? null),
    reversed: reversed.has(entry.id),
  }));
}

export { countEntriesOf };

/** The members one may send money to: the active ones but oneself, by username. */
export function recipients(db: Db, userId: number): Promise<{ id: number; username: string }[]> {
  return db.selectFrom('users').select(['id', 'username']).where('is_active', '=', 1).where('id', '!=', userId).orderBy('username').orderBy('id').execute();
}

/** Whether a member chose to appear on the kiosk (ledger.md §4); no choice is no. */
export async function onKiosk(db: Db, userId: number): Promise<boolean> {
  const row = await db.selectFrom('stock_members').select('on_kiosk').where('user_id', '=', userId).executeTakeFirst();
  return row?.on_kiosk === 1;
}

/** Keeps a member's choice about the kiosk. */
export async function chooseKiosk(db: Db, userId: number, shown: boolean): Promise<void> {
  await db
    .insertInto('stock_members')
    .values({ user_id: userId, on_kiosk: shown ? 1 : 0, member_code: null })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ on_kiosk: shown ? 1 : 0 }))
    .execute();
}

/** Whether an entry may still be undone by its member now (ledger.md §3): the slate shows its button. */
export function undoable(entry: ShownEntry, nowUs: number, undoMinutes: number): boolean {
  if (entry.reversed || !['purchase', 'spend', 'transfer'].includes(entry.kind)) return false;
  if (entry.kind === 'transfer' && entry.amount_cents > 0) return false;
  return nowUs - entry.created_us <= undoMinutes * 60_000_000;
}
