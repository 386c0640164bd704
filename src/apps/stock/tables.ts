import type { Database } from '../../db/schema.js';
import type { TableDeclaration } from '../../db/table-declaration.js';

/** The stock app's tables, declared once (db/table-declaration.ts); in Django's dependency order. */
export const STOCK_TABLES = {
  stock_categories: {
    columns: ['id', 'name'],
    counted: true,
    versioned: true,
    collection: 'stock/categories',
    model: 'stock.category',
  },
  stock_products: {
    columns: ['id', 'name', 'price_cents', 'category_id', 'active', 'counts_stock'],
    counted: true,
    versioned: true,
    collection: 'stock/products',
    model: 'stock.product',
    localColumns: ['counts_stock'],
    foreignKeys: [{ column: 'category_id', references: 'stock_categories', onDelete: 'restrict' }],
    indexes: ['stock_products_category'],
  },
  stock_barcodes: {
    columns: ['code', 'product_id'],
    versioned: true,
    foreignKeys: [{ column: 'product_id', references: 'stock_products', onDelete: 'cascade' }],
    indexes: ['stock_barcodes_product'],
  },
  stock_restocks: {
    columns: ['id', 'product_id', 'quantity', 'recorded_by', 'created_us'],
    foreignKeys: [
      { column: 'product_id', references: 'stock_products', onDelete: 'cascade' },
      { column: 'recorded_by', references: 'users', onDelete: 'restrict' },
    ],
    indexes: ['stock_restocks_product'],
  },
  stock_members: {
    columns: ['user_id', 'on_kiosk', 'member_code'],
    foreignKeys: [{ column: 'user_id', references: 'users', onDelete: 'cascade' }],
  },
  // The urtip stream's purchases are read from here (`/api/streams/urtip/`).
  ledger_entries: {
    columns: [
      'id',
      'user_id',
      'kind',
      'amount_cents',
      'product_id',
      'unit_price_cents',
      'quantity',
      'location',
      'info',
      'counterpart_id',
      'transfer_id',
      'reverses_id',
      'recorded_by',
      'channel',
      'request_key',
      'created_us',
      'original_model',
      'original_pk',
      'price_at_import',
    ],
    versioned: true,
    collection: 'streams/urtip',
    // The original's four transaction models (their order is Django's), each row found by original_model and original_pk (interchange.ts).
    models: ['stock.transfertransaction', 'stock.topuptransaction', 'stock.producttransaction', 'stock.misctransaction'],
    foreignKeys: [
      { column: 'user_id', references: 'users', onDelete: 'restrict' },
      { column: 'product_id', references: 'stock_products', onDelete: 'restrict' },
      { column: 'counterpart_id', references: 'users', onDelete: 'restrict' },
      { column: 'transfer_id', references: 'ledger_entries', onDelete: 'restrict' },
      { column: 'reverses_id', references: 'ledger_entries', onDelete: 'restrict' },
      { column: 'recorded_by', references: 'users', onDelete: 'restrict' },
    ],
    indexes: ['ledger_entries_user', 'ledger_entries_product', 'ledger_entries_request_key', 'ledger_entries_reverses', 'ledger_entries_original', 'ledger_entries_created'],
  },
  stock_fund_zones: {
    columns: ['id', 'name', 'method'],
    model: 'stock.fundzone',
  },
  stock_payments: {
    columns: ['id', 'user_id', 'when_us', 'amount_cents', 'way', 'receipt', 'zone_id', 'comments', 'payment_date'],
    model: 'stock.paymenttransaction',
    foreignKeys: [
      { column: 'user_id', references: 'users', onDelete: 'restrict' },
      { column: 'zone_id', references: 'stock_fund_zones', onDelete: 'restrict' },
    ],
    indexes: ['stock_payments_zone'],
  },
  stock_refunds: {
    columns: ['id', 'user_id', 'when_us', 'title', 'amount_cents', 'payment_id', 'receipt'],
    model: 'stock.refundtransaction',
    foreignKeys: [
      { column: 'user_id', references: 'users', onDelete: 'restrict' },
      { column: 'payment_id', references: 'stock_payments', onDelete: 'restrict' },
    ],
  },
  stock_receipts: {
    columns: ['path', 'media_type', 'content', 'size', 'created_us'],
  },
} as const satisfies {
  readonly [
    T in
      | 'stock_categories'
      | 'stock_products'
      | 'stock_barcodes'
      | 'stock_restocks'
      | 'stock_members'
      | 'ledger_entries'
      | 'stock_fund_zones'
      | 'stock_payments'
      | 'stock_refunds'
      | 'stock_receipts'
  ]: TableDeclaration<Database[T]>;
};

/** The stock app's tables, added to every table's declaration (db/tables.ts). */
declare module '../../db/tables.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the declaration merges StockTables's members into Tables.
  interface Tables extends StockTables {}
}
type StockTables = typeof STOCK_TABLES;
