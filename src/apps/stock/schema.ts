import type { Generated } from 'kysely';

/** Amounts are integers of cents; booleans are 0/1 integers; instants are integer microseconds since the epoch (time.ts). */

/** The original's `stock.category`. */
export interface StockCategoriesTable {
  id: Generated<number>;
  name: string;
}

/** The original's `stock.product`; `counts_stock` (ours) says whether its stock is counted (ledger.md §4). */
export interface StockProductsTable {
  id: Generated<number>;
  name: string;
  price_cents: number;
  category_id: number;
  active: number;
  counts_stock: Generated<number>;
}

/** A product's barcodes (ours): any number each, one product per code. */
export interface StockBarcodesTable {
  code: string;
  product_id: number;
}

/** Restocking of a product whose stock is counted (ours): the count is what came in less what was sold. */
export interface StockRestocksTable {
  id: Generated<number>;
  product_id: number;
  quantity: number;
  recorded_by: number | null;
  created_us: number;
}

/** What a member chose about the slate (ours): shown on the kiosk, and the member code it scans. */
export interface StockMembersTable {
  user_id: number;
  on_kiosk: number;
  member_code: string | null;
}

/**
 * The ledger (ledger.md §3): one row per change of one member's balance, never edited or deleted.
 * `amount_cents` is the change (negative spends). A purchase has its product, unit price and
 * quantity; a transfer is two rows, each naming the other member as `counterpart_id` and the
 * sender's row as `transfer_id`; a reversal names the entry it reverses (once: unique).
 */
export interface LedgerEntriesTable {
  id: Generated<number>;
  user_id: number;
  kind: LedgerKind;
  amount_cents: number;
  product_id: number | null;
  unit_price_cents: number | null;
  quantity: number | null;
  /** A top-up's way in: `BANK` or `CASH`. */
  location: string | null;
  /** A spend's name, a reversal's or correction's reason, an opening's note. */
  info: string;
  counterpart_id: number | null;
  transfer_id: number | null;
  reverses_id: number | null;
  /** Who recorded it (the member, a treasurer), null for the command line and imports. */
  recorded_by: number | null;
  /** Through what: `web`, `kiosk`, `cli`, `import`. */
  channel: string;
  /** The one-time key of the form that recorded it, unique per member. */
  request_key: string | null;
  created_us: number;
  /** The original's model and primary key of an imported row (export writes it back as it was). */
  original_model: string | null;
  original_pk: number | null;
  /** An imported purchase whose price the original did not keep: it took the product's price at import. */
  price_at_import: Generated<number>;
}

export type LedgerKind = 'purchase' | 'spend' | 'topup' | 'transfer' | 'reversal' | 'correction' | 'opening';

/** The original's `stock.fundzone`: a cash box or a bank account. */
export interface StockFundZonesTable {
  id: Generated<number>;
  name: string;
  method: string;
}

/** The original's `stock.paymenttransaction`: money out of (`a`) or into (`b`) a fund zone. */
export interface StockPaymentsTable {
  id: Generated<number>;
  user_id: number;
  when_us: number;
  amount_cents: number;
  way: string;
  /** The original's stored path (`souches/…`), '' or null for none. */
  receipt: string | null;
  zone_id: number | null;
  comments: string | null;
  /** The day, `YYYY-MM-DD`. */
  payment_date: string;
}

/** The original's `stock.refundtransaction`: what the space owes a member, completed by a payment. */
export interface StockRefundsTable {
  id: Generated<number>;
  user_id: number;
  when_us: number;
  title: string;
  amount_cents: number;
  payment_id: number | null;
  receipt: string | null;
}

/** Receipts' files (ours), in the database so that every process serves them and backups hold them. */
export interface StockReceiptsTable {
  path: string;
  media_type: string;
  content: Uint8Array;
  size: number;
  created_us: number;
}

/** The stock app's tables, added to the Database type every query is checked against (db/schema.ts). */
declare module '../../db/schema.js' {
  interface Database {
    stock_categories: StockCategoriesTable;
    stock_products: StockProductsTable;
    stock_barcodes: StockBarcodesTable;
    stock_restocks: StockRestocksTable;
    stock_members: StockMembersTable;
    ledger_entries: LedgerEntriesTable;
    stock_fund_zones: StockFundZonesTable;
    stock_payments: StockPaymentsTable;
    stock_refunds: StockRefundsTable;
    stock_receipts: StockReceiptsTable;
  }
}
