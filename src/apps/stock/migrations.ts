import { sql, type ColumnDefinitionBuilder, type Kysely, type Migration } from 'kysely';
import { engineOf } from '../../db/connection.js';
import type { MigrationSet } from '../../db/migrations.js';
import { addTableCount, addTableVersion } from '../../db/table-version-triggers.js';

/**
 * The stock app's migrations, frozen: each names the tables it touches as they were then. Foreign
 * keys are deferred to commit, so that an import may insert records in any order.
 */
const deferred = sql`deferrable initially deferred`;

/**
 * The slate and the shop (ledger.md): the original's categories, products, fund zones, payments
 * and refunds; products' barcodes and restocking, members' kiosk choices; the append-only ledger,
 * whose one-time keys and reversals are unique so that a double charge or a double undo cannot
 * commit whatever the interleaving; receipts' files. Amounts are integers of cents.
 */
const initial: Migration = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a migration runs on the database as it was then.
  async up(db: Kysely<any>) {
    const engine = engineOf(db);
    const id = (c: ColumnDefinitionBuilder) => (engine === 'postgres' ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey());
    const text = engine === 'postgres' ? sql`text collate "C"` : 'text';
    const blob = engine === 'postgres' ? 'bytea' : 'blob';
    const user = (c: ColumnDefinitionBuilder) => c.references('users.id').onDelete('restrict').modifyEnd(deferred);
    await db.schema
      .createTable('stock_categories')
      .addColumn('id', 'integer', id)
      .addColumn('name', text, (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('stock_products')
      .addColumn('id', 'integer', id)
      .addColumn('name', text, (c) => c.notNull())
      .addColumn('price_cents', 'integer', (c) => c.notNull())
      .addColumn('category_id', 'integer', (c) => c.notNull().references('stock_categories.id').onDelete('restrict').modifyEnd(deferred))
      .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('counts_stock', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.createIndex('stock_products_category').on('stock_products').column('category_id').execute();
    await db.schema
      .createTable('stock_barcodes')
      .addColumn('code', text, (c) => c.primaryKey())
      .addColumn('product_id', 'integer', (c) => c.notNull().references('stock_products.id').onDelete('cascade').modifyEnd(deferred))
      .execute();
    await db.schema.createIndex('stock_barcodes_product').on('stock_barcodes').column('product_id').execute();
    await db.schema
      .createTable('stock_restocks')
      .addColumn('id', 'integer', id)
      .addColumn('product_id', 'integer', (c) => c.notNull().references('stock_products.id').onDelete('cascade').modifyEnd(deferred))
      .addColumn('quantity', 'integer', (c) => c.notNull())
      .addColumn('recorded_by', 'integer', user)
      .addColumn('created_us', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('stock_restocks_product').on('stock_restocks').column('product_id').execute();
    await db.schema
      .createTable('stock_members')
      .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade').modifyEnd(deferred))
      .addColumn('on_kiosk', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('member_code', text, (c) => c.unique())
      .execute();
    await db.schema
      .createTable('ledger_entries')
      .addColumn('id', 'integer', id)
      .addColumn('user_id', 'integer', (c) => user(c).notNull())
      .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('purchase', 'spend', 'topup', 'transfer', 'reversal', 'correction', 'opening')`))
      .addColumn('amount_cents', 'bigint', (c) => c.notNull())
      .addColumn('product_id', 'integer', (c) => c.references('stock_products.id').onDelete('restrict').modifyEnd(deferred))
      .addColumn('unit_price_cents', 'integer')
      .addColumn('quantity', 'integer')
      .addColumn('location', 'text')
      .addColumn('info', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('counterpart_id', 'integer', user)
      .addColumn('transfer_id', 'integer', (c) => c.references('ledger_entries.id').onDelete('restrict').modifyEnd(deferred))
      .addColumn('reverses_id', 'integer', (c) => c.references('ledger_entries.id').onDelete('restrict').modifyEnd(deferred))
      .addColumn('recorded_by', 'integer', user)
      .addColumn('channel', 'text', (c) => c.notNull())
      .addColumn('request_key', 'text')
      .addColumn('created_us', 'bigint', (c) => c.notNull())
      .addColumn('original_model', 'text')
      .addColumn('original_pk', 'integer')
      .addColumn('price_at_import', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.createIndex('ledger_entries_user').on('ledger_entries').columns(['user_id', 'id']).execute();
    await db.schema.createIndex('ledger_entries_product').on('ledger_entries').columns(['product_id', 'id']).execute();
    await db.schema.createIndex('ledger_entries_request_key').on('ledger_entries').columns(['user_id', 'request_key']).unique().execute();
    await db.schema.createIndex('ledger_entries_reverses').on('ledger_entries').column('reverses_id').unique().execute();
    await db.schema.createIndex('ledger_entries_original').on('ledger_entries').columns(['original_model', 'original_pk']).unique().execute();
    await db.schema.createIndex('ledger_entries_created').on('ledger_entries').column('created_us').execute();
    await addTableCount(db, 'stock_categories');
    await addTableCount(db, 'stock_products');
    await addTableVersion(db, 'stock_categories');
    await addTableVersion(db, 'stock_products');
    await addTableVersion(db, 'stock_barcodes');
    await addTableVersion(db, 'ledger_entries');
    await db.schema
      .createTable('stock_fund_zones')
      .addColumn('id', 'integer', id)
      .addColumn('name', text, (c) => c.notNull())
      .addColumn('method', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('stock_payments')
      .addColumn('id', 'integer', id)
      .addColumn('user_id', 'integer', (c) => user(c).notNull())
      .addColumn('when_us', 'bigint', (c) => c.notNull())
      .addColumn('amount_cents', 'bigint', (c) => c.notNull())
      .addColumn('way', 'text', (c) => c.notNull())
      .addColumn('receipt', 'text')
      .addColumn('zone_id', 'integer', (c) => c.references('stock_fund_zones.id').onDelete('restrict').modifyEnd(deferred))
      .addColumn('comments', 'text')
      .addColumn('payment_date', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('stock_payments_zone').on('stock_payments').columns(['zone_id', 'payment_date']).execute();
    await db.schema
      .createTable('stock_refunds')
      .addColumn('id', 'integer', id)
      .addColumn('user_id', 'integer', (c) => user(c).notNull())
      .addColumn('when_us', 'bigint', (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('amount_cents', 'bigint', (c) => c.notNull())
      .addColumn('payment_id', 'integer', (c) => c.references('stock_payments.id').onDelete('restrict').modifyEnd(deferred))
      .addColumn('receipt', 'text')
      .execute();
    await db.schema
      .createTable('stock_receipts')
      .addColumn('path', 'text', (c) => c.primaryKey())
      .addColumn('media_type', 'text', (c) => c.notNull())
      .addColumn('content', blob, (c) => c.notNull())
      .addColumn('size', 'integer', (c) => c.notNull())
      .addColumn('created_us', 'bigint', (c) => c.notNull())
      .execute();
  },
};

/**
 * Two repairs of 0001. The reversals' index holds only the entries that reverse another
 * (bench/ledger.js): nearly every entry has no `reverses_id`, and once SQLite's ANALYZE has counted
 * those NULLs as one value of a million rows, its planner scans the whole index for the slate's
 * "which of these 20 entries are undone" (`reverses_id in (…)`, about 100 ms at 1,000,000 entries)
 * instead of looking them up (0.02 ms); it stays unique, so a double undo still cannot commit.
 * And on SQLite, the highest deleted id of the counted tables (categories, products) is kept as
 * for every other collection (migration 0004), so that a deleted product's id, and its URL, never
 * come to mean another.
 */
const indexesAndIds: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.dropIndex('ledger_entries_reverses').execute();
    await db.schema.createIndex('ledger_entries_reverses').on('ledger_entries').column('reverses_id').unique().where(sql.ref('reverses_id'), 'is not', null).execute();
    if (engineOf(db) === 'postgres') return;
    for (const table of ['stock_categories', 'stock_products']) {
      await db.insertInto('deleted_id_high_water').values({ collection: table, id: 0 }).execute();
      await sql`create trigger ${sql.id(`${table}_deleted_id`)} after delete on ${sql.table(table)}
        begin
          update deleted_id_high_water set id = old.id where collection = ${sql.lit(table)} and id < old.id;
        end`.execute(db);
    }
  },
};

export const STOCK_MIGRATIONS: MigrationSet = {
  'stock.0001_initial': initial,
  'stock.0002_indexes_and_ids': indexesAndIds,
};
