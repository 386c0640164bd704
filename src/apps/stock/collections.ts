import { collection, NO_WRITES } from '../../drf/collections.js';
import { STOCK_VIEWS } from './api-views.js';
import * as products from './products.js';
import { STOCK_TABLES } from './tables.js';

/*
 * The stock app's API collections, read only and exactly as the original's serializers give them
 * (ledger.md §1), between projects and the space's openings in the API root (the original's
 * router registered them in that order).
 */

/** `/api/stock/categories/`: `{"name"}`. */
export const CATEGORIES = collection(STOCK_TABLES, {
  viewName: 'Category',
  rootOrder: 5,
  table: 'stock_categories',
  reads: ['stock_categories'],
  record: products.CategoryRecord,
  fields: products.NoFields,
  count: products.countCategories,
  list: products.listCategories,
  find: products.findCategory,
  toRecord: products.categoryRecord,
  ...NO_WRITES,
});

/** `/api/stock/products/`: `{"name", "price": "1.50", "category": {"name"}}`, inactive ones included. */
export const PRODUCTS = collection(STOCK_TABLES, {
  viewName: 'Product',
  rootOrder: 6,
  table: 'stock_products',
  reads: ['stock_products', 'stock_categories'],
  record: products.ProductRecord,
  fields: products.NoFields,
  count: products.countProducts,
  list: products.listProducts,
  find: products.findProduct,
  toRecord: products.productRecord,
  ...NO_WRITES,
});

/** `/api/streams/urtip/`: the purchases in the category `urtip`, `{"username", "price": "1.50€"}`. */
export const URTIP = collection(STOCK_TABLES, {
  viewName: 'Urtip',
  rootOrder: 7,
  table: 'ledger_entries',
  reads: ['ledger_entries', 'stock_products', 'stock_categories', 'users'],
  record: products.UrtipRecord,
  fields: products.NoFields,
  count: products.countUrtips,
  list: products.listUrtips,
  find: products.findUrtip,
  toRecord: products.urtipRecord,
  ...NO_WRITES,
  // `/api/stock/ledger/`: a member's own entries (the slate's), never cached, not in the root.
  views: STOCK_VIEWS,
});
