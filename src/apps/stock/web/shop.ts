import type { Words } from '../../../i18n/words.js';
import { html, type Html } from '../../../web/html.js';
import { layout, type Site } from '../../../web/layout.js';
import { csrfInput, described, fieldError, type FieldMessages } from '../../../web/form-parts.js';
import { MAX_CATEGORY_NAME, MAX_PRODUCT_NAME, MAX_RESTOCK, type ManagedProduct, type ShopRight } from '../shop.js';

/**
 * The shop's management pages (ledger.md §1, §4): `/stock/products/` (every category and product,
 * with barcodes and stock counts), a product's form (new or edit, restock, delete) and a
 * category's. Each form is shown only to those with its right; the handlers check it again.
 */

function money(w: Words, cents: number): string {
  return w.money(cents / 100);
}

function problemAlert(w: Words, errors: FieldMessages | null): Html | string {
  return errors === null ? '' : html`<p class="form-error" role="alert" id="shop-problem">${w.t('stock.shop.form-problem')}</p>`;
}

export interface ShopListView {
  csrf: string;
  rights: ReadonlySet<ShopRight>;
  categories: { id: number; name: string; products: number }[];
  products: ManagedProduct[];
  counts: ReadonlyMap<number, number>;
  /** A refused deletion or new category, with its message. */
  errors: FieldMessages | null;
  values: Readonly<Record<string, string>>;
}

export function shopPage(site: Site, view: ShopListView): Buffer {
  const w = site.words;
  const errors = view.errors ?? {};
  const productRows = view.products.map(
    (p) => html`<tr>
<th scope="row">${view.rights.has('stock.change_product') ? html`<a href="/stock/products/${p.id}/">${p.name}</a>` : p.name}</th>
<td>${p.category_name}</td><td>${money(w, p.price_cents)}</td>
<td>${w.t(p.active === 1 ? 'stock.shop.yes' : 'stock.shop.no')}</td>
<td>${p.counts_stock === 1 ? w.number(view.counts.get(p.id) ?? 0) : w.t('stock.shop.not-counted')}</td>
<td>${p.barcodes.join(', ')}</td>
</tr>`,
  );
  const categoryRows = view.categories.map(
    (c) => html`<tr>
<th scope="row">${view.rights.has('stock.change_category') ? html`<a href="/stock/categories/${c.id}/">${c.name}</a>` : c.name}</th>
<td>${w.number(c.products)}</td>
<td>${
      view.rights.has('stock.delete_category')
        ? html`<form method="post" action="/stock/categories/${c.id}/delete/" class="inline">${csrfInput(view.csrf)}<button type="submit" class="secondary">${w.t('stock.shop.delete')}<span class="visually-hidden"> ${c.name}</span></button></form>`
        : ''
    }</td>
</tr>`,
  );
  const main = html`<section aria-labelledby="shop-heading">
<h1 id="shop-heading">${w.t('stock.shop.title')}</h1>
${problemAlert(w, view.errors)}${fieldError('category', errors)}
${view.rights.has('stock.add_product') ? html`<p><a href="/stock/products/new/">${w.t('stock.shop.new-product')}</a></p>` : ''}
<h2>${w.t('stock.shop.products')}</h2>
${
  productRows.length === 0
    ? html`<p>${w.t('stock.shop.no-products')}</p>`
    : html`<div class="table-scroll"><table id="products">
<caption>${w.t('stock.shop.products')}</caption>
<thead><tr><th scope="col">${w.t('stock.shop.name')}</th><th scope="col">${w.t('stock.shop.category')}</th><th scope="col">${w.t('stock.shop.price')}</th><th scope="col">${w.t('stock.shop.active')}</th><th scope="col">${w.t('stock.shop.count')}</th><th scope="col">${w.t('stock.shop.barcodes')}</th></tr></thead>
<tbody>${productRows}</tbody></table></div>`
}
<h2>${w.t('stock.shop.categories')}</h2>
${
  categoryRows.length === 0
    ? html`<p>${w.t('stock.shop.no-categories')}</p>`
    : html`<div class="table-scroll"><table id="categories">
<caption>${w.t('stock.shop.categories')}</caption>
<thead><tr><th scope="col">${w.t('stock.shop.name')}</th><th scope="col">${w.t('stock.shop.products')}</th><th scope="col">${w.t('stock.shop.delete')}</th></tr></thead>
<tbody>${categoryRows}</tbody></table></div>`
}
${
  view.rights.has('stock.add_category')
    ? html`<h2 id="new-category-heading">${w.t('stock.shop.new-category')}</h2>
<form method="post" action="/stock/categories/new/" class="stacked" aria-labelledby="new-category-heading">${csrfInput(view.csrf)}
<label for="category-name">${w.t('stock.shop.name')}</label>
<input id="category-name" name="name" required maxlength="${MAX_CATEGORY_NAME}" value="${view.values.name ?? ''}"${described('name', errors)}>${fieldError('name', errors)}
<button type="submit">${w.t('stock.shop.add-category')}</button>
</form>`
    : ''
}
</section>`;
  return layout(site, { title: w.t('stock.shop.title'), main });
}

export interface ProductFormView {
  csrf: string;
  rights: ReadonlySet<ShopRight>;
  /** null for a new product. */
  product: ManagedProduct | null;
  count: number | null;
  categories: { id: number; name: string }[];
  errors: FieldMessages | null;
  values: Readonly<Record<string, string>>;
  /** Checkboxes as typed (a refused form keeps them). */
  checks: { active: boolean; countsStock: boolean };
}

export function productPage(site: Site, view: ProductFormView): Buffer {
  const w = site.words;
  const errors = view.errors ?? {};
  const p = view.product;
  const title = p === null ? w.t('stock.shop.new-product') : w.t('stock.shop.edit-product', { name: p.name });
  const action = p === null ? '/stock/products/new/' : `/stock/products/${p.id}/`;
  const check = (name: string, id: string, label: string, on: boolean) =>
    html`<p class="check"><input type="checkbox" id="${id}" name="${name}" value="on"${on ? html` checked` : ''}> <label for="${id}">${label}</label></p>`;
  const main = html`<section aria-labelledby="product-heading">
<p><a href="/stock/products/">${w.t('stock.shop.back')}</a></p>
<h1 id="product-heading">${title}</h1>
${problemAlert(w, view.errors)}${fieldError('product', errors)}
<form method="post" action="${action}" class="stacked" aria-labelledby="product-heading">${csrfInput(view.csrf)}
<label for="product-name">${w.t('stock.shop.name')}</label>
<input id="product-name" name="name" required maxlength="${MAX_PRODUCT_NAME}" value="${view.values.name ?? ''}"${described('name', errors)}>${fieldError('name', errors)}
<label for="product-price">${w.t('stock.shop.price')}</label>
<input id="product-price" name="price" inputmode="decimal" required value="${view.values.price ?? ''}"${described('price', errors)}>${fieldError('price', errors)}
<label for="product-category">${w.t('stock.shop.category')}</label>
<select id="product-category" name="category"${described('category', errors)}>${view.categories.map((c) => html`<option value="${c.id}"${String(c.id) === view.values.category ? html` selected` : ''}>${c.name}</option>`)}</select>${fieldError('category', errors)}
${check('active', 'product-active', w.t('stock.shop.active'), view.checks.active)}
${check('counts_stock', 'product-counts', w.t('stock.shop.counts-stock'), view.checks.countsStock)}
<label for="product-barcodes">${w.t('stock.shop.barcodes')}</label>
<textarea id="product-barcodes" name="barcodes" rows="3" aria-describedby="barcodes-help${errors.barcodes?.length ? ' barcodes-error' : ''}"${errors.barcodes?.length ? html` aria-invalid="true"` : ''}>${view.values.barcodes ?? ''}</textarea>
<span class="help" id="barcodes-help">${w.t('stock.shop.barcodes-help')}</span>${fieldError('barcodes', errors)}
<button type="submit">${w.t(p === null ? 'stock.shop.add-product' : 'stock.shop.save')}</button>
</form>
${
  p !== null && view.rights.has('stock.change_product')
    ? html`<h2 id="restock-heading">${w.t('stock.shop.restock')}</h2>
<p id="stock-count">${p.counts_stock === 1 ? w.t('stock.shop.count-now', { count: view.count ?? 0 }) : w.t('stock.shop.not-counted')}</p>
<form method="post" action="/stock/products/${p.id}/restock/" class="stacked" aria-labelledby="restock-heading">${csrfInput(view.csrf)}
<label for="restock-quantity">${w.t('stock.shop.quantity')}</label>
<input id="restock-quantity" name="quantity" type="number" min="1" max="${MAX_RESTOCK}" required${described('quantity', errors)}>${fieldError('quantity', errors)}
<button type="submit">${w.t('stock.shop.restock-button')}</button>
</form>`
    : ''
}
${
  p !== null && view.rights.has('stock.delete_product')
    ? html`<h2 id="delete-heading">${w.t('stock.shop.delete')}</h2>
<p>${w.t('stock.shop.delete-help')}</p>
<form method="post" action="/stock/products/${p.id}/delete/" class="inline">${csrfInput(view.csrf)}<button type="submit" class="secondary">${w.t('stock.shop.delete')}<span class="visually-hidden"> ${p.name}</span></button></form>`
    : ''
}
</section>`;
  return layout(site, { title, main });
}

export function categoryPage(
  site: Site,
  view: { csrf: string; category: { id: number; name: string }; errors: FieldMessages | null; values: Readonly<Record<string, string>> },
): Buffer {
  const w = site.words;
  const errors = view.errors ?? {};
  const title = w.t('stock.shop.edit-category', { name: view.category.name });
  const main = html`<section aria-labelledby="category-heading">
<p><a href="/stock/products/">${w.t('stock.shop.back')}</a></p>
<h1 id="category-heading">${title}</h1>
${problemAlert(w, view.errors)}
<form method="post" action="/stock/categories/${view.category.id}/" class="stacked" aria-labelledby="category-heading">${csrfInput(view.csrf)}
<label for="category-name">${w.t('stock.shop.name')}</label>
<input id="category-name" name="name" required maxlength="${MAX_CATEGORY_NAME}" value="${view.values.name ?? view.category.name}"${described('name', errors)}>${fieldError('name', errors)}
<button type="submit">${w.t('stock.shop.save')}</button>
</form>
</section>`;
  return layout(site, { title, main });
}
