import type { Db } from '../../db/connection.js';
import { findToken, touchToken, type TokenInfo } from '../../resources/tokens.js';
import { buy, entryById, LedgerRefused, undo, type LedgerEntry, type LedgerRules, type Recorded } from './ledger.js';
import { activeProducts, productByBarcode, stockCounts, type ProductRow } from './products.js';

/**
 * The kiosk by the fridge (ledger.md §4), free of HTTP: who may appear on it, what it sells, and
 * the two changes it may make, a purchase and its undo within KIOSK_UNDO_SECONDS.
 *
 * Who records a kiosk purchase: the kiosk does not know who stands at it (anyone may tap any name
 * shown), so an entry it records says `channel: 'kiosk'` and `recorded_by: null`: it never claims
 * that the member logged in. The audit log names the kiosk's token.
 */

/** How long a kiosk purchase may be undone at the kiosk (ledger.md §4); the slate's LEDGER_UNDO_MINUTES still applies there. */
export const KIOSK_UNDO_SECONDS = 30;

/** The one-time keys the kiosk's page makes (crypto.randomUUID) or the server makes for its forms: 8 to 64 URL-safe characters. */
const KEY_PATTERN = /^[A-Za-z0-9_-]{8,64}$/;

/** A code as a scanner types it: 1 to 64 visible characters (EAN-13, member cards). */
const CODE_PATTERN = /^[\x21-\x7e]{1,64}$/;

export function isKioskKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

export function isScannedCode(code: string): boolean {
  return CODE_PATTERN.test(code);
}

/** A member as the kiosk shows them: their username, nothing else (never a balance). */
export interface KioskMember {
  readonly id: number;
  readonly name: string;
}

function kioskMembersQuery(db: Db) {
  return db
    .selectFrom('users')
    .innerJoin('stock_members', 'stock_members.user_id', 'users.id')
    .select(['users.id', 'users.username as name'])
    .where('users.is_active', '=', 1)
    .where('stock_members.on_kiosk', '=', 1);
}

/** The active members who chose to appear on the kiosk, by username. */
export function kioskMembers(db: Db): Promise<KioskMember[]> {
  return kioskMembersQuery(db).orderBy('users.username').orderBy('users.id').execute();
}

/** One of them by id; undefined for any other member (opted out, inactive, unknown). */
export function kioskMember(db: Db, id: number): Promise<KioskMember | undefined> {
  if (!Number.isSafeInteger(id) || id < 1 || id > 2 ** 31 - 1) return Promise.resolve(undefined);
  return kioskMembersQuery(db).where('users.id', '=', id).executeTakeFirst();
}

/** The member whose card this is, if they appear on the kiosk. */
export function kioskMemberByCode(db: Db, code: string): Promise<KioskMember | undefined> {
  return kioskMembersQuery(db).where('stock_members.member_code', '=', code.trim()).executeTakeFirst();
}

/** A product on the kiosk's shelves: sold out when its stock is counted and none is left (still sold: the fridge is the truth). */
export interface KioskProduct extends ProductRow {
  readonly soldOut: boolean;
}

/** The active products, by category, with their sold-out state. */
export async function kioskProducts(db: Db): Promise<KioskProduct[]> {
  const products = await activeProducts(db);
  const counted = products.filter((product) => product.counts_stock === 1).map((product) => product.id);
  const counts = await stockCounts(db, counted);
  return products.map((product) => ({ ...product, soldOut: product.counts_stock === 1 && (counts.get(product.id) ?? 0) <= 0 }));
}

/** The active product a barcode names, or undefined. */
export function kioskProductByBarcode(db: Db, code: string): Promise<ProductRow | undefined> {
  return productByBarcode(db, code);
}

/** The kiosk token whose secret this is (active, of scope `kiosk`), its use noted; otherwise why not. */
export async function kioskToken(db: Db, secret: string, nowUs: number): Promise<{ token: TokenInfo } | { refused: 'unknown' | 'scope' }> {
  if (secret === '' || secret.length > 200) return { refused: 'unknown' };
  const token = await findToken(db, secret);
  if (token === undefined) return { refused: 'unknown' };
  if (token.scope !== 'kiosk') return { refused: 'scope' };
  return { token: { ...token, lastUsedUs: await touchToken(db, token, nowUs) } };
}

/** What a kiosk purchase recorded, with the product's name for the member. */
export interface KioskPurchase extends Recorded {
  readonly productName: string;
}

/** A purchase at the kiosk by a member who appears on it, with the page's one-time key (the same key twice records once). */
export async function kioskBuy(trx: Db, rules: LedgerRules, change: { memberId: number; productId: number; key: string; nowUs: number }): Promise<KioskPurchase> {
  if ((await kioskMember(trx, change.memberId)) === undefined) throw new LedgerRefused('member-unknown', 'member');
  const recorded = await buy(trx, rules, {
    userId: change.memberId,
    productId: change.productId,
    key: change.key,
    by: { userId: null, channel: 'kiosk' },
    nowUs: change.nowUs,
  });
  return { ...recorded, productName: await productName(trx, recorded.entry) };
}

/** Why the kiosk refuses an undo beyond the ledger's own reasons: the entry is no kiosk purchase. */
export class KioskUndoRefused extends Error {
  override name = 'KioskUndoRefused';
}

/**
 * Undoes a kiosk purchase within KIOSK_UNDO_SECONDS of it (the ledger's undo, its window made
 * the kiosk's): only purchases the kiosk recorded; the same key twice answers as the first did.
 */
export async function kioskUndo(trx: Db, rules: LedgerRules, change: { entryId: number; key: string; nowUs: number }): Promise<KioskPurchase> {
  const entry = await entryById(trx, change.entryId);
  if (entry === undefined) throw new LedgerRefused('undo-unknown', 'entry');
  if (entry.kind !== 'purchase' || entry.channel !== 'kiosk') throw new KioskUndoRefused('only kiosk purchases are undone at the kiosk');
  const recorded = await undo(
    trx,
    { ...rules, undoMinutes: KIOSK_UNDO_SECONDS / 60 },
    { userId: entry.user_id, entryId: entry.id, key: change.key, by: { userId: null, channel: 'kiosk' }, nowUs: change.nowUs },
  );
  return { ...recorded, productName: await productName(trx, entry) };
}

/** When a kiosk purchase can no longer be undone, in microseconds. */
export function undoDeadlineUs(entry: Pick<LedgerEntry, 'created_us'>): number {
  return Number(entry.created_us) + KIOSK_UNDO_SECONDS * 1_000_000;
}

async function productName(db: Db, entry: LedgerEntry): Promise<string> {
  if (entry.product_id === null) return '';
  const row = await db.selectFrom('stock_products').select('name').where('id', '=', entry.product_id).executeTakeFirst();
  return row?.name ?? '';
}
