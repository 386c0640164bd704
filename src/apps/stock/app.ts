import type { AppDeclaration } from '../../http/app-declaration.js';
import { ledgerCommand } from './cli/ledger.js';
import { CATEGORIES, PRODUCTS, URTIP } from './collections.js';
import { LEDGER_KEPT, STOCK_MODELS } from './interchange.js';
import { STOCK_MIGRATIONS } from './migrations.js';
import { KIOSK_ROUTES } from './routes/kiosk.js';
import { SLATE_ROUTES } from './routes/slate.js';
import { TREASURY_ROUTES } from './routes/treasury.js';
import { TREASURY_NOTICES } from './handlers/treasury.js';
import { STOCK_TABLES } from './tables.js';
import { STOCK_LOCALE } from './words.js';

/**
 * The slate and the shop (ledger.md): members pay for the fridge from their balance, kept in an
 * append-only ledger; the kiosk by the fridge; the treasurer's fund zones, payments and refunds;
 * `/api/stock/…` and `/api/streams/urtip/`. The original's `stock` app. Its declaration.
 */
export const stockApp: AppDeclaration = {
  name: 'stock',
  locale: STOCK_LOCALE,
  needs: ['users'],
  migrations: STOCK_MIGRATIONS,
  tables: STOCK_TABLES,
  models: STOCK_MODELS,
  // The original's transaction models, written into the ledger at an import's end.
  keptModels: LEDGER_KEPT,
  optional: true,
  collections: [CATEGORIES, PRODUCTS, URTIP],
  routes: [...SLATE_ROUTES, ...KIOSK_ROUTES, ...TREASURY_ROUTES],
  commands: [ledgerCommand],
  notices: TREASURY_NOTICES,
  nav: [{ href: '/accounts/balance', label: 'stock.nav', order: 30 }],
  // The slate's styles within the site's stylesheet; the kiosk's script and its own stylesheet (its document links kiosk.css: the tablet needs no other page's styles).
  assets: { dir: new URL('./assets/', import.meta.url), files: ['kiosk.js', 'kiosk.css'], style: 'stock.css' },
};
