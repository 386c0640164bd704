import { fixedPaths, idPath, type Route, type RoutePath } from '../../../http/route.js';
import { memberPage, notFound } from '../../users/index.js';
import { editCategory, editProduct, newCategory, newProduct, removeCategory, removeProduct, restockProduct, showShop } from '../handlers/shop.js';
import {
  debtMails,
  ledgerCsv,
  serveReceipt,
  showTreasury,
  submitCompleteRefund,
  submitCorrection,
  submitPayment,
  submitRefund,
  submitZone,
  withUploads,
} from '../handlers/treasury.js';

const RECEIPT_PATH = /^\/stock\/receipts\/(souches\/[A-Za-z0-9_-]{1,64}\.[a-z]{1,4})$/;

function receiptPath({ raw }: RoutePath): string | null {
  return RECEIPT_PATH.exec(raw)?.[1] ?? null;
}

/**
 * The treasury's routes (ledger.md §1, §4), in the order the router tries them: the treasurer's
 * page at the original's `/stock/transactions` and its forms, receipts (the treasury only: a 404
 * for anyone else, visitors included), the ledger as CSV, the shop's management under
 * `/stock/products/` and `/stock/categories/`, and the debt reminders at the original's
 * `/accounts/debtmails/`.
 */
export const TREASURY_ROUTES: readonly Route[] = [
  memberPage({
    name: 'treasury',
    template: '/stock/transactions',
    match: fixedPaths('/stock/transactions', '/stock/transactions/'),
    methods: ['GET'],
    requires: 'member',
    handle: showTreasury,
  }),
  memberPage({
    name: 'treasury zone',
    template: '/stock/transactions/zones/',
    match: fixedPaths('/stock/transactions/zones/'),
    methods: ['POST'],
    requires: 'member',
    handle: submitZone,
  }),
  withUploads(
    memberPage({
      name: 'treasury payment',
      template: '/stock/transactions/payments/',
      match: fixedPaths('/stock/transactions/payments/'),
      methods: ['POST'],
      requires: 'member',
      handle: submitPayment,
    }),
  ),
  withUploads(
    memberPage({
      name: 'treasury refund',
      template: '/stock/transactions/refunds/',
      match: fixedPaths('/stock/transactions/refunds/'),
      methods: ['POST'],
      requires: 'member',
      handle: submitRefund,
    }),
  ),
  memberPage({
    name: 'treasury refund completed',
    template: '/stock/transactions/refunds/{id}/complete/',
    match: idPath(/^\/stock\/transactions\/refunds\/([0-9]{1,18})\/complete\/$/),
    methods: ['POST'],
    requires: 'member',
    handle: submitCompleteRefund,
  }),
  memberPage({
    name: 'treasury correction',
    template: '/stock/transactions/corrections/',
    match: fixedPaths('/stock/transactions/corrections/'),
    methods: ['POST'],
    requires: 'member',
    handle: submitCorrection,
  }),
  memberPage({
    name: 'treasury ledger csv',
    template: '/stock/transactions/ledger.csv',
    match: fixedPaths('/stock/transactions/ledger.csv'),
    methods: ['GET'],
    requires: 'member',
    handle: ledgerCsv,
  }),
  memberPage({
    name: 'receipt',
    template: '/stock/receipts/{path}',
    match: receiptPath,
    methods: ['GET'],
    requires: 'member',
    // A receipt is not there for a visitor: no login page that would say it exists.
    visitor: async (m) => notFound(m),
    handle: serveReceipt,
  }),
  memberPage({ name: 'shop', template: '/stock/products/', match: fixedPaths('/stock/products/'), methods: ['GET'], requires: 'member', handle: showShop }),
  memberPage({
    name: 'new product',
    template: '/stock/products/new/',
    match: fixedPaths('/stock/products/new/'),
    methods: ['GET', 'POST'],
    requires: 'member',
    handle: newProduct,
  }),
  memberPage({
    name: 'product',
    template: '/stock/products/{id}/',
    match: idPath(/^\/stock\/products\/([0-9]{1,18})\/$/),
    methods: ['GET', 'POST'],
    requires: 'member',
    handle: editProduct,
  }),
  memberPage({
    name: 'product restock',
    template: '/stock/products/{id}/restock/',
    match: idPath(/^\/stock\/products\/([0-9]{1,18})\/restock\/$/),
    methods: ['POST'],
    requires: 'member',
    handle: restockProduct,
  }),
  memberPage({
    name: 'product delete',
    template: '/stock/products/{id}/delete/',
    match: idPath(/^\/stock\/products\/([0-9]{1,18})\/delete\/$/),
    methods: ['POST'],
    requires: 'member',
    handle: removeProduct,
  }),
  memberPage({ name: 'new category', template: '/stock/categories/new/', match: fixedPaths('/stock/categories/new/'), methods: ['POST'], requires: 'member', handle: newCategory }),
  memberPage({
    name: 'category',
    template: '/stock/categories/{id}/',
    match: idPath(/^\/stock\/categories\/([0-9]{1,18})\/$/),
    methods: ['GET', 'POST'],
    requires: 'member',
    handle: editCategory,
  }),
  memberPage({
    name: 'category delete',
    template: '/stock/categories/{id}/delete/',
    match: idPath(/^\/stock\/categories\/([0-9]{1,18})\/delete\/$/),
    methods: ['POST'],
    requires: 'member',
    handle: removeCategory,
  }),
  memberPage({
    name: 'debt mails',
    template: '/accounts/debtmails/',
    match: fixedPaths('/accounts/debtmails/'),
    methods: ['GET', 'POST'],
    requires: 'superuser',
    handle: debtMails,
  }),
];
