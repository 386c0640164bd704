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
    // Only the entries that reverse another: once SQLite's ANALYZE counts a million NULLs as one value, a full index would be scanned for "which of these are undone".
    await db.schema.createIndex('ledger_entries_reverses').on('ledger_entries').column('reverses_id').unique().where(sql.ref('reverses_id'), 'is not', null).execute();
    await db.schema.createIndex('ledger_entries_original').on('ledger_entries').columns(['original_model', 'original_pk']).unique().execute();
    await db.schema.createIndex('ledger_entries_created').on('ledger_entries').column('created_us').execute();
    await addTableCount(db, 'stock_categories');
    await addTableCount(db, 'stock_products');
    await addTableVersion(db, 'stock_categories');
    await addTableVersion(db, 'stock_products');
    await addTableVersion(db, 'stock_barcodes');
    await addTableVersion(db, 'ledger_entries');
    // SQLite: a deleted category's or product's id, and its URL, never comes to mean another (as migration 0004 keeps for every collection).
    if (engine === 'sqlite') {
      for (const table of ['stock_categories', 'stock_products']) {
        await db.insertInto('deleted_id_high_water').values({ collection: table, id: 0 }).execute();
        await sql`create trigger ${sql.id(`${table}_deleted_id`)} after delete on ${sql.table(table)}
          begin
            update deleted_id_high_water set id = old.id where collection = ${sql.lit(table)} and id < old.id;
          end`.execute(db);
      }
    }
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
 * The kiosk (ledger.md §4): API tokens may have the scope `kiosk` (resources/tokens.ts). The
 * founding migration checks `scope in ('door', 'admin')`; PostgreSQL replaces the check, SQLite,
 * which cannot alter one, rebuilds the table as it is (columns, rows, index, version triggers),
 * with foreign keys off for the rebuild only (audit_log refers to it by name) and checked after.
 */
const kiosk: Migration = {
  async up(db: Kysely<any>) {
    const scopes = sql`scope in ('door', 'admin', 'kiosk')`;
    if (engineOf(db) === 'postgres') {
      const checks = await sql<{ conname: string }>`select conname from pg_constraint
        where conrelid = 'api_tokens'::regclass and contype = 'c' and pg_get_constraintdef(oid) like '%scope%'`.execute(db);
      for (const { conname } of checks.rows) await sql`alter table api_tokens drop constraint ${sql.id(conname)}`.execute(db);
      await sql`alter table api_tokens add constraint api_tokens_scope_check check (${scopes})`.execute(db);
      return;
    }
    await sql`pragma foreign_keys = off`.execute(db);
    try {
      await db.transaction().execute(async (trx) => {
        await trx.schema
          .createTable('api_tokens_with_kiosk')
          .addColumn('id', 'integer', (c) => c.primaryKey())
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('scope', 'text', (c) => c.notNull().check(scopes))
          .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
          .addColumn('created_us', 'bigint', (c) => c.notNull())
          .addColumn('last_used_us', 'bigint')
          .addColumn('revoked_us', 'bigint')
          .execute();
        await sql`insert into api_tokens_with_kiosk (id, name, scope, secret_hash, created_us, last_used_us, revoked_us)
          select id, name, scope, secret_hash, created_us, last_used_us, revoked_us from api_tokens`.execute(trx);
        await sql`drop table api_tokens`.execute(trx);
        await sql`alter table api_tokens_with_kiosk rename to api_tokens`.execute(trx);
        await sql`create unique index api_tokens_active_name on api_tokens (name) where revoked_us is null`.execute(trx);
        const bump = sql`update table_versions set version = version + 1,
      changed_us = cast(unixepoch('subsec') * 1000000 as integer) where name = 'api_tokens';`;
        await sql`create trigger api_tokens_version_update after update of revoked_us, secret_hash on api_tokens begin ${bump} end`.execute(trx);
        await sql`create trigger api_tokens_version_delete after delete on api_tokens begin ${bump} end`.execute(trx);
        const broken = await sql`pragma foreign_key_check`.execute(trx);
        if (broken.rows.length > 0) throw new Error(`rebuilding api_tokens broke ${broken.rows.length} foreign keys`);
      });
    } finally {
      await sql`pragma foreign_keys = on`.execute(db);
    }
  },
};

export const STOCK_MIGRATIONS: MigrationSet = {
  'stock.0001_initial': initial,
  'stock.0002_kiosk': kiosk,
};
