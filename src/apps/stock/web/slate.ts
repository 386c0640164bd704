import type { MessageKey, Words } from '../../../i18n/words.js';
import type { TimeFormatter } from '../../../time.js';
import { csrfInput } from '../../../web/form-parts.js';
import { html, type Html } from '../../../web/html.js';
import { layout, type Site } from '../../../web/layout.js';
import { MAX_NAME_LENGTH } from '../ledger.js';
import type { ProductRow } from '../products.js';
import type { Shelf, ShownEntry } from '../slate.js';

/**
 * The slate (ledger.md §1, §4): the member's balance, one-click buttons for the products (their
 * favourites first), the spend, top-up and transfer forms, the kiosk choice, and their own
 * entries, newest first, each recent one with its Undo button. Every form carries its CSRF token
 * and a one-time key of its own; a refused form's message is beside it, its typed values kept.
 */

export const SLATE_PATH = '/accounts/balance';

/** The slate's forms, as their addresses name them. */
export type SlateForm = 'product' | 'spend' | 'top' | 'transfer' | 'undo' | 'kiosk';

/** What a refused form said: its message, and the field it is about (null: the form as a whole). */
export interface SlateRefusal {
  readonly form: SlateForm;
  readonly field: string | null;
  readonly message: string;
}

/** The values typed in the forms, given back after a refusal. */
export interface SlateTyped {
  readonly name: string;
  readonly spendValue: string;
  readonly location: string;
  readonly topValue: string;
  readonly recipient: string;
  readonly transferValue: string;
}

export const NOTHING_TYPED: SlateTyped = { name: '', spendValue: '', location: '', topValue: '', recipient: '', transferValue: '' };

export interface SlateView {
  readonly csrf: string;
  /** A new one-time key for each form of the page. */
  readonly key: () => string;
  readonly zone: TimeFormatter;
  readonly balanceCents: number;
  /** Whether the member holds `users.change_balance` (else the forms are not shown). */
  readonly mayChange: boolean;
  readonly favourites: readonly ProductRow[];
  readonly shelves: readonly Shelf[];
  readonly recipients: readonly { id: number; username: string }[];
  readonly onKiosk: boolean;
  readonly entries: readonly ShownEntry[];
  /** The entries that may still be undone, by id. */
  readonly undoable: ReadonlySet<number>;
  readonly page: number;
  readonly pages: number;
  /** What the last form did, in words (shown once after its 303). */
  readonly notice: string | null;
  readonly refused: SlateRefusal | null;
  readonly typed: SlateTyped;
}

/** Below this, the page says the balance is low (the original's warning under 5). */
export const LOW_BALANCE_CENTS = 500;

const money = (w: Words, cents: number): string => w.money(cents / 100);

function refusalFor(view: SlateView, form: SlateForm): Html {
  const refused = view.refused;
  if (refused === null || refused.form !== form) return html``;
  return html`<p class="form-error" role="alert" id="${form}-error">${refused.message}</p>`;
}

/** aria attributes of a field whose form was refused about it. */
function invalid(view: SlateView, form: SlateForm, field: string): Html {
  const refused = view.refused;
  return refused !== null && refused.form === form && (refused.field === field || refused.field === null) ? html` aria-invalid="true" aria-describedby="${form}-error"` : html``;
}

function hidden(view: SlateView): Html {
  return html`${csrfInput(view.csrf)}<input type="hidden" name="key" value="${view.key()}">`;
}

function balanceSection(w: Words, view: SlateView): Html {
  const cents = view.balanceCents;
  const state = cents < 0 ? 'debt' : cents < LOW_BALANCE_CENTS ? 'low' : 'fine';
  const warning: MessageKey | null = state === 'debt' ? 'stock.slate.balance-debt' : state === 'low' ? 'stock.slate.balance-low' : null;
  return html`<div class="slate-balance ${state}" id="slate-balance">
<p>${w.t('stock.slate.balance')} <strong id="balance-amount">${money(w, cents)}</strong></p>
${warning === null ? '' : html`<p class="slate-warning" id="balance-warning">${w.t(warning)}</p>`}
</div>`;
}

function buyButton(w: Words, view: SlateView, product: ProductRow, where: string): Html {
  return html`<li><form method="post" action="${SLATE_PATH}/product" class="buy">${hidden(view)}<input type="hidden" name="product" value="${product.id}"><button type="submit" id="buy-${where}-${product.id}"><span class="product-name">${product.name}</span> <span class="product-price">${money(w, product.price_cents)}</span></button></form></li>`;
}

function shopSection(w: Words, view: SlateView): Html {
  const favourites =
    view.favourites.length === 0
      ? ''
      : html`<section class="slate-favourites" aria-labelledby="favourites-heading">
<h2 id="favourites-heading">${w.t('stock.slate.favourites')}</h2>
<ul class="products">${view.favourites.map((product) => buyButton(w, view, product, 'favourite'))}</ul>
</section>`;
  const shelves =
    view.shelves.length === 0
      ? html`<p>${w.t('stock.slate.no-products')}</p>`
      : view.shelves.map(
          (shelf, i) => html`<h3 id="category-${i}">${shelf.category}</h3>
<ul class="products" aria-labelledby="category-${i}">${shelf.products.map((product) => buyButton(w, view, product, 'shelf'))}</ul>`,
        );
  return html`${favourites}<section class="slate-shop" aria-labelledby="shop-heading">
<h2 id="shop-heading">${w.t('stock.slate.products')}</h2>
${refusalFor(view, 'product')}${shelves}
</section>`;
}

function valueInput(w: Words, view: SlateView, form: SlateForm, value: string): Html {
  return html`<p><label for="${form}-value">${w.t('stock.slate.value')}</label>
<span class="hint" id="${form}-value-hint">${w.t('stock.slate.value-hint')}</span><input id="${form}-value" name="value" inputmode="decimal" autocomplete="off" required value="${value}"${invalid(view, form, 'value')}></p>`;
}

function formsSection(w: Words, view: SlateView): Html {
  const { typed } = view;
  const location = (value: string, label: MessageKey) => html`<option value="${value}"${typed.location === value ? html` selected` : ''}>${w.t(label)}</option>`;
  return html`<section class="slate-forms" aria-labelledby="forms-heading">
<h2 id="forms-heading" class="visually-hidden">${w.t('stock.slate.other-forms')}</h2>
<form method="post" action="${SLATE_PATH}/spend" class="stacked" aria-labelledby="spend-heading">
<h3 id="spend-heading">${w.t('stock.slate.spend')}</h3>
${refusalFor(view, 'spend')}${hidden(view)}
<p><label for="spend-name">${w.t('stock.slate.spend-name')}</label><input id="spend-name" name="name" required maxlength="${MAX_NAME_LENGTH}" value="${typed.name}"${invalid(view, 'spend', 'name')}></p>
${valueInput(w, view, 'spend', typed.spendValue)}
<p><button type="submit">${w.t('stock.slate.spend-button')}</button></p>
</form>
<form method="post" action="${SLATE_PATH}/top" class="stacked" aria-labelledby="top-heading">
<h3 id="top-heading">${w.t('stock.slate.top')}</h3>
${refusalFor(view, 'top')}${hidden(view)}
<p><label for="top-location">${w.t('stock.slate.location')}</label><select id="top-location" name="location"${invalid(view, 'top', 'location')}>${location('BANK', 'stock.slate.location-bank')}${location('CASH', 'stock.slate.location-cash')}</select></p>
${valueInput(w, view, 'top', typed.topValue)}
<p><button type="submit">${w.t('stock.slate.top-button')}</button></p>
</form>
<form method="post" action="${SLATE_PATH}/transfer" class="stacked" aria-labelledby="transfer-heading">
<h3 id="transfer-heading">${w.t('stock.slate.transfer')}</h3>
${refusalFor(view, 'transfer')}${hidden(view)}
<p><label for="transfer-recipient">${w.t('stock.slate.recipient')}</label><select id="transfer-recipient" name="recipient" required${invalid(view, 'transfer', 'recipient')}><option value="">${w.t('stock.slate.recipient-choose')}</option>${view.recipients.map(
    (member) => html`<option value="${member.id}"${typed.recipient === String(member.id) ? html` selected` : ''}>${member.username}</option>`,
  )}</select></p>
${valueInput(w, view, 'transfer', typed.transferValue)}
<p><button type="submit">${w.t('stock.slate.transfer-button')}</button></p>
</form>
</section>`;
}

function kioskSection(w: Words, view: SlateView): Html {
  return html`<section class="slate-kiosk" aria-labelledby="kiosk-heading">
<h2 id="kiosk-heading">${w.t('stock.slate.kiosk')}</h2>
<form method="post" action="${SLATE_PATH}/kiosk" class="stacked">
${csrfInput(view.csrf)}
<p class="check"><label><input type="checkbox" name="on_kiosk" value="on" id="on-kiosk"${view.onKiosk ? html` checked` : ''}> ${w.t('stock.slate.kiosk-choice')}</label></p>
<p><button type="submit" class="secondary">${w.t('stock.slate.kiosk-save')}</button></p>
</form>
</section>`;
}

/** What an entry was, in words. */
function described(w: Words, entry: ShownEntry): string {
  const product = entry.productName ?? '?';
  const member = entry.counterpartName ?? '?';
  switch (entry.kind) {
    case 'purchase':
      return (entry.quantity ?? 1) > 1 ? w.t('stock.slate.entry.purchase-many', { product, quantity: entry.quantity ?? 1 }) : w.t('stock.slate.entry.purchase', { product });
    case 'spend':
      return w.t('stock.slate.entry.spend', { name: entry.info });
    case 'topup':
      return w.t(entry.location === 'CASH' ? 'stock.slate.entry.topup-cash' : 'stock.slate.entry.topup-bank');
    case 'transfer':
      return entry.amount_cents < 0 ? w.t('stock.slate.entry.transfer-sent', { member }) : w.t('stock.slate.entry.transfer-received', { member });
    case 'reversal':
      return w.t('stock.slate.entry.reversal', { id: entry.reverses_id ?? 0 });
    case 'correction':
      return w.t('stock.slate.entry.correction', { id: entry.reverses_id ?? 0, reason: entry.info });
    case 'opening':
      return w.t('stock.slate.entry.opening');
  }
}

function entriesSection(w: Words, view: SlateView): Html {
  const rows = view.entries.map(
    (entry) => html`<tr id="entry-${entry.id}"><td><time datetime="${view.zone.format(entry.created_us)}">${w.dateTime(entry.created_us)}</time></td>
<td>${described(w, entry)}${entry.reversed ? html` <span class="undone">${w.t('stock.slate.entry.undone')}</span>` : ''}</td>
<td class="amount ${entry.amount_cents < 0 ? 'debit' : 'credit'}">${entry.amount_cents > 0 ? '+' : ''}${money(w, entry.amount_cents)}</td>
<td class="actions">${
      view.mayChange && view.undoable.has(entry.id)
        ? html`<form method="post" action="${SLATE_PATH}/undo/${entry.id}" class="undo">${hidden(view)}<button type="submit" class="secondary">${w.t('stock.slate.undo')}<span class="visually-hidden"> ${described(w, entry)}</span></button></form>`
        : ''
    }</td></tr>`,
  );
  const pages =
    view.pages <= 1
      ? ''
      : html`<nav class="slate-pages" aria-label="${w.t('stock.slate.pages')}"><p>${view.page > 1 ? html`<a href="${SLATE_PATH}?page=${view.page - 1}" rel="prev">${w.t('stock.slate.newer')}</a> ` : ''}<span>${w.t('stock.slate.page', { page: view.page, pages: view.pages })}</span>${
          view.page < view.pages ? html` <a href="${SLATE_PATH}?page=${view.page + 1}" rel="next">${w.t('stock.slate.older')}</a>` : ''
        }</p></nav>`;
  return html`<section class="slate-entries" aria-labelledby="entries-heading">
<h2 id="entries-heading">${w.t('stock.slate.entries')}</h2>
${refusalFor(view, 'undo')}${
    rows.length === 0
      ? html`<p>${w.t('stock.slate.no-entries')}</p>`
      : html`<div class="table-scroll"><table><thead><tr><th scope="col">${w.t('stock.slate.when')}</th><th scope="col">${w.t('stock.slate.what')}</th><th scope="col" class="amount">${w.t('stock.slate.amount')}</th><th scope="col"><span class="visually-hidden">${w.t('stock.slate.undo')}</span></th></tr></thead><tbody>${rows}</tbody></table></div>`
  }
${pages}
</section>`;
}

/** `/accounts/balance`: the slate. */
export function slatePage(site: Site, view: SlateView): Buffer {
  const w = site.words;
  const main = html`<div class="slate">
<h1>${w.t('stock.slate.title')}</h1>
${view.notice === null ? '' : html`<p class="notice" role="status" id="notice">${view.notice}</p>`}
${balanceSection(w, view)}
${view.mayChange ? html`${shopSection(w, view)}${formsSection(w, view)}` : html`<p class="notice" id="no-right">${w.t('stock.slate.no-right')}</p>`}
${entriesSection(w, view)}
${kioskSection(w, view)}
</div>`;
  return layout(site, { title: w.t('stock.slate.title'), main });
}
