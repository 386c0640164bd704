import type { FastifyReply } from 'fastify';
import type { Db } from '../../../db/connection.js';
import type { MessageKey } from '../../../i18n/words.js';
import { seeOther, sendPage } from '../../../http/reply.js';
import { setNotice } from '../../../handlers/notice.js';
import { messagePage } from '../../../web/message-page.js';
import type { FieldMessages } from '../../../web/form-parts.js';
import { notFound, webWrite, type MemberExchange } from '../../users/index.js';
import { stockCounts } from '../products.js';
import {
  addCategory,
  addProduct,
  allCategories,
  changeProduct,
  deleteCategory,
  deleteProduct,
  managedProduct,
  managedProducts,
  readBarcodes,
  readPrice,
  renameCategory,
  restock,
  shopRightsOf,
  ShopRefused,
  type ShopRefusal,
  type ShopRight,
} from '../shop.js';
import { categoryPage, productPage, shopPage } from '../web/shop.js';

/**
 * The shop's management (ledger.md §1, §4): each form needs its Django model right
 * (`stock.add_product`, …; superusers hold them all), else a 403 page and nothing changed.
 */

type M<P = unknown> = MemberExchange<P>;

const SHOP_REFUSAL_WORDS: Readonly<Record<ShopRefusal, MessageKey>> = {
  name: 'stock.shop.refused.name',
  price: 'stock.shop.refused.price',
  'price-too-large': 'stock.shop.refused.price-too-large',
  'category-unknown': 'stock.shop.refused.category-unknown',
  'barcode-invalid': 'stock.shop.refused.barcode-invalid',
  'barcode-taken': 'stock.shop.refused.barcode-taken',
  quantity: 'stock.shop.refused.quantity',
  'category-has-products': 'stock.shop.refused.category-has-products',
  'product-has-entries': 'stock.shop.refused.product-has-entries',
  'product-unknown': 'stock.shop.refused.product-unknown',
};

function db(m: M): Db {
  return m.ex.services.database.db;
}

/** The shop's rights of the viewer, or a 403 page when they lack `needed` (any of the shop's when null). */
async function rightsFor(m: M, needed: ShopRight | null): Promise<{ rights: ReadonlySet<ShopRight> } | { denied: FastifyReply }> {
  const rights = await shopRightsOf(db(m), m.viewer!.member.id);
  if (needed === null ? rights.size > 0 : rights.has(needed)) return { rights };
  const w = m.site.words;
  return { denied: sendPage(m.ex.reply, 403, messagePage(m.site, { title: w.t('stock.shop.not-allowed-title'), message: w.t('stock.shop.not-allowed') })) };
}

function refusalMessage(m: M, error: ShopRefused): FieldMessages {
  const w = m.site.words;
  return { [error.field]: [w.t(SHOP_REFUSAL_WORDS[error.refusal], { max: w.money(m.ex.services.config.ledger.maxAmountCents / 100), code: '', product: '', ...error.values })] };
}

function shopWrite<T>(m: M, collection: string, recordId: number | null, work: (trx: Db) => Promise<T>): Promise<T> {
  return webWrite(m, async (trx, audit) => {
    const result = await work(trx);
    await audit({ collection, recordId: typeof result === 'number' ? result : recordId, status: 303 });
    return result;
  });
}

async function renderList(m: M, rights: ReadonlySet<ShopRight>, status: number, errors: FieldMessages | null): Promise<FastifyReply> {
  const [categories, products] = await Promise.all([allCategories(db(m)), managedProducts(db(m))]);
  const counts = await stockCounts(
    db(m),
    products.filter((p) => p.counts_stock === 1).map((p) => p.id),
  );
  return sendPage(
    m.ex.reply,
    status,
    shopPage(m.site, {
      csrf: m.csrf,
      rights,
      categories: categories.map((c) => ({ ...c, products: products.filter((p) => p.category_id === c.id).length })),
      products,
      counts,
      errors,
      values: errors === null ? {} : { name: m.form.get('name') ?? '' },
    }),
  );
}

/** `GET /stock/products/`: every category and product, for anyone holding one of the shop's rights. */
export async function showShop(m: M): Promise<FastifyReply> {
  const got = await rightsFor(m, null);
  if ('denied' in got) return got.denied;
  const { rights } = got;
  return renderList(m, rights, 200, null);
}

async function renderProduct(m: M, rights: ReadonlySet<ShopRight>, productId: number | null, status: number, errors: FieldMessages | null): Promise<FastifyReply> {
  const product = productId === null ? null : ((await managedProduct(db(m), productId)) ?? null);
  if (productId !== null && product === null) return notFound(m);
  const categories = await allCategories(db(m));
  const count = product !== null && product.counts_stock === 1 ? ((await stockCounts(db(m), [product.id])).get(product.id) ?? 0) : null;
  const posted = errors !== null && m.ex.facts.method === 'POST' && m.form.has('name');
  const values: Record<string, string> = posted
    ? { name: m.form.get('name') ?? '', price: m.form.get('price') ?? '', category: m.form.get('category') ?? '', barcodes: m.form.get('barcodes') ?? '' }
    : product === null
      ? { category: String(categories[0]?.id ?? '') }
      : { name: product.name, price: (product.price_cents / 100).toFixed(2), category: String(product.category_id), barcodes: product.barcodes.join('\n') };
  const checks = posted
    ? { active: m.form.get('active') === 'on', countsStock: m.form.get('counts_stock') === 'on' }
    : { active: product === null || product.active === 1, countsStock: product !== null && product.counts_stock === 1 };
  return sendPage(m.ex.reply, status, productPage(m.site, { csrf: m.csrf, rights, product, count, categories, errors, values, checks }));
}

function productInput(m: M) {
  return {
    name: m.form.get('name') ?? '',
    priceCents: readPrice(m.form.get('price') ?? '', m.ex.services.config.ledger.maxAmountCents),
    categoryId: Number(/^[0-9]{1,9}$/.test(m.form.get('category') ?? '') ? m.form.get('category') : 0),
    active: m.form.get('active') === 'on',
    countsStock: m.form.get('counts_stock') === 'on',
    barcodes: readBarcodes(m.form.get('barcodes') ?? ''),
  };
}

/** `/stock/products/new/`: GET the form, POST a new product (`stock.add_product`). */
export async function newProduct(m: M): Promise<FastifyReply> {
  const got = await rightsFor(m, 'stock.add_product');
  if ('denied' in got) return got.denied;
  const { rights } = got;
  if (m.ex.facts.method !== 'POST') return renderProduct(m, rights, null, 200, null);
  let id: number;
  try {
    id = await shopWrite(m, 'stock/products', null, (trx) => addProduct(trx, productInput(m)));
  } catch (error) {
    if (error instanceof ShopRefused) return renderProduct(m, rights, null, 422, refusalMessage(m, error));
    throw error;
  }
  setNotice(m.ex.reply, m.ex.facts, 'stock-product-added');
  return seeOther(m.ex.reply, `/stock/products/${id}/`);
}

/** `/stock/products/<id>/`: GET the form, POST the changes (`stock.change_product`). */
export async function editProduct(m: M<number>): Promise<FastifyReply> {
  const got = await rightsFor(m, 'stock.change_product');
  if ('denied' in got) return got.denied;
  const { rights } = got;
  if (m.ex.facts.method !== 'POST') return renderProduct(m, rights, m.ex.params, 200, null);
  if ((await managedProduct(db(m), m.ex.params)) === undefined) return notFound(m);
  try {
    await shopWrite(m, 'stock/products', m.ex.params, (trx) => changeProduct(trx, m.ex.params, productInput(m)));
  } catch (error) {
    if (error instanceof ShopRefused) return renderProduct(m, rights, m.ex.params, 422, refusalMessage(m, error));
    throw error;
  }
  setNotice(m.ex.reply, m.ex.facts, 'stock-product-saved');
  return seeOther(m.ex.reply, `/stock/products/${m.ex.params}/`);
}

/** `POST /stock/products/<id>/restock/` (`stock.change_product`). */
export async function restockProduct(m: M<number>): Promise<FastifyReply> {
  const got = await rightsFor(m, 'stock.change_product');
  if ('denied' in got) return got.denied;
  const { rights } = got;
  if ((await managedProduct(db(m), m.ex.params)) === undefined) return notFound(m);
  const text = (m.form.get('quantity') ?? '').trim();
  try {
    await shopWrite(m, 'stock/restocks', m.ex.params, (trx) =>
      restock(trx, { productId: m.ex.params, quantity: /^[0-9]{1,9}$/.test(text) ? Number(text) : 0, byUserId: m.viewer!.member.id, nowUs: m.nowUs }),
    );
  } catch (error) {
    if (error instanceof ShopRefused) return renderProduct(m, rights, m.ex.params, 422, refusalMessage(m, error));
    throw error;
  }
  setNotice(m.ex.reply, m.ex.facts, 'stock-restocked');
  return seeOther(m.ex.reply, `/stock/products/${m.ex.params}/`);
}

/** `POST /stock/products/<id>/delete/` (`stock.delete_product`): refused for a product the ledger names. */
export async function removeProduct(m: M<number>): Promise<FastifyReply> {
  const got = await rightsFor(m, 'stock.delete_product');
  if ('denied' in got) return got.denied;
  const { rights } = got;
  if ((await managedProduct(db(m), m.ex.params)) === undefined) return notFound(m);
  try {
    await shopWrite(m, 'stock/products', m.ex.params, (trx) => deleteProduct(trx, m.ex.params));
  } catch (error) {
    if (error instanceof ShopRefused) return renderProduct(m, rights, m.ex.params, 422, refusalMessage(m, error));
    throw error;
  }
  setNotice(m.ex.reply, m.ex.facts, 'stock-product-deleted');
  return seeOther(m.ex.reply, '/stock/products/');
}

/** `POST /stock/categories/new/` (`stock.add_category`). */
export async function newCategory(m: M): Promise<FastifyReply> {
  const got = await rightsFor(m, 'stock.add_category');
  if ('denied' in got) return got.denied;
  const { rights } = got;
  try {
    await shopWrite(m, 'stock/categories', null, (trx) => addCategory(trx, m.form.get('name') ?? ''));
  } catch (error) {
    if (error instanceof ShopRefused) return renderList(m, rights, 422, refusalMessage(m, error));
    throw error;
  }
  setNotice(m.ex.reply, m.ex.facts, 'stock-category-added');
  return seeOther(m.ex.reply, '/stock/products/');
}

/** `/stock/categories/<id>/`: GET the form, POST its new name (`stock.change_category`). */
export async function editCategory(m: M<number>): Promise<FastifyReply> {
  const got = await rightsFor(m, 'stock.change_category');
  if ('denied' in got) return got.denied;
  const category = (await allCategories(db(m))).find((c) => c.id === m.ex.params);
  if (category === undefined) return notFound(m);
  if (m.ex.facts.method !== 'POST') return sendPage(m.ex.reply, 200, categoryPage(m.site, { csrf: m.csrf, category, errors: null, values: {} }));
  try {
    await shopWrite(m, 'stock/categories', category.id, (trx) => renameCategory(trx, category.id, m.form.get('name') ?? ''));
  } catch (error) {
    if (error instanceof ShopRefused)
      return sendPage(m.ex.reply, 422, categoryPage(m.site, { csrf: m.csrf, category, errors: refusalMessage(m, error), values: { name: m.form.get('name') ?? '' } }));
    throw error;
  }
  setNotice(m.ex.reply, m.ex.facts, 'stock-category-saved');
  return seeOther(m.ex.reply, '/stock/products/');
}

/** `POST /stock/categories/<id>/delete/` (`stock.delete_category`): refused for a category with products. */
export async function removeCategory(m: M<number>): Promise<FastifyReply> {
  const got = await rightsFor(m, 'stock.delete_category');
  if ('denied' in got) return got.denied;
  const { rights } = got;
  const category = (await allCategories(db(m))).find((c) => c.id === m.ex.params);
  if (category === undefined) return notFound(m);
  try {
    await shopWrite(m, 'stock/categories', category.id, (trx) => deleteCategory(trx, category.id));
  } catch (error) {
    if (error instanceof ShopRefused) return renderList(m, rights, 422, refusalMessage(m, error));
    throw error;
  }
  setNotice(m.ex.reply, m.ex.facts, 'stock-category-deleted');
  return seeOther(m.ex.reply, '/stock/products/');
}
