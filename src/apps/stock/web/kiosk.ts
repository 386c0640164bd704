import type { Words } from '../../../i18n/words.js';
import { CSRF_FIELD } from '../../../request/csrf.js';
import type { Assets } from '../../../web/assets.js';
import { html, type Html } from '../../../web/html.js';
import type { KioskMember, KioskProduct } from '../kiosk.js';

/**
 * The kiosk's pages (ledger.md §4): a document of its own, without the site's navigation and
 * footer (a public tablet offers no way to log in or wander off), with the site's stylesheet and
 * the kiosk's (assets/kiosk.css) and script (assets/kiosk.js). Every word comes from the
 * catalogue; the script's words come through the `data-say-…` attributes of `#kiosk`.
 *
 * Markup for the script:
 *   <main id="main" class="kiosk" data-step="members|products" data-member="ID" data-csrf data-idle-ms
 *         data-undo-seconds data-repeat-ms data-scan-gap-ms data-reload-ms data-say-…>
 *     <p id="kiosk-said" role="status">  what happened (a purchase and the balance, an undo)
 *     <form id="kiosk-undo"> (hidden unless a purchase may be undone) <progress id="kiosk-undo-left">
 *     <p id="kiosk-error" role="alert">  what was refused
 *     <section id="kiosk-members"> <a class="kiosk-member" data-member="ID">  step 1
 *     <section id="kiosk-products"> <form class="kiosk-buy"><button data-product="ID">  step 2
 */

export const KIOSK_PATH = '/stock/kiosk/';
export const KIOSK_OPEN_PATH = '/stock/kiosk/open';
export const KIOSK_PURCHASE_PATH = '/stock/kiosk/purchase';
export const KIOSK_UNDO_PATH = '/stock/kiosk/undo';
export const KIOSK_SCAN_PATH = '/stock/kiosk/scan';

/** How long the kiosk waits untouched before it goes back to its first step (ledger.md §4). */
export const IDLE_MS = 30_000;
/** The same code read again within this is a scanner's double read, and the same product tapped again a double tap: ignored. */
export const REPEAT_MS = 1_000;
/** Keys typed at most this far apart are a keyboard-wedge scanner's, not a person's. */
export const SCAN_GAP_MS = 100;
/** Back at its first step and untouched, the page is loaded again after this long (new members, sold-out states, a revoked token). */
export const RELOAD_MS = 10 * 60_000;

/** What every kiosk page is built with. */
export interface KioskSite {
  readonly name: string;
  readonly assets: Assets;
  readonly words: Words;
}

/** A whole kiosk document. */
function kioskDocument(site: KioskSite, title: string, main: Html, script: boolean): Buffer {
  const { words } = site;
  const page = html`<!doctype html>
<html lang="${words.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="robots" content="noindex">
<title>${title} · ${site.name}</title>
<link rel="stylesheet" href="${site.assets.url('style.css')}">
<link rel="stylesheet" href="${site.assets.url('kiosk.css')}">
<link rel="icon" type="image/svg+xml" href="${site.assets.url('icon.svg')}">
${script ? html`<script src="${site.assets.url('kiosk.js')}" defer></script>` : ''}
</head>
<body class="kiosk-body">
<header class="kiosk-header"><span class="site-name">${site.name}</span> <span class="kiosk-name">${words.t('stock.kiosk.title')}</span></header>
${main}
</body>
</html>
`;
  return Buffer.from(page.text);
}

/** The page of a kiosk not opened on this device: the operator pastes a kiosk token once. */
export function openingPage(site: KioskSite, options: { csrf: string; error: string | null }): Buffer {
  const { words } = site;
  const main = html`<main id="main" class="kiosk-opening">
<section class="account-form" aria-labelledby="kiosk-open-heading">
<h1 id="kiosk-open-heading">${words.t('stock.kiosk.open.title')}</h1>
<p>${words.t('stock.kiosk.open.help')}</p>
${options.error === null ? '' : html`<p class="form-error" role="alert" id="kiosk-open-error">${options.error}</p>`}
<form method="post" action="${KIOSK_OPEN_PATH}" class="stacked">
<input type="hidden" name="${CSRF_FIELD}" value="${options.csrf}">
<p><label for="kiosk-token">${words.t('stock.kiosk.open.token')}</label>
<input type="password" name="token" id="kiosk-token" required autocomplete="off" spellcheck="false" maxlength="200"></p>
<p><button type="submit">${words.t('stock.kiosk.open.submit')}</button></p>
</form>
</section>
</main>`;
  return kioskDocument(site, words.t('stock.kiosk.open.title'), main, false);
}

/** What the kiosk says after a change: the sentence, and the purchase that may still be undone. */
export interface KioskOutcome {
  readonly said: string | null;
  /** The balance it tells is below zero: said as a warning. */
  readonly belowZero: boolean;
  readonly undo: { readonly entryId: number; readonly key: string; readonly secondsLeft: number } | null;
}

export interface KioskView {
  readonly csrf: string;
  readonly members: readonly KioskMember[];
  readonly products: readonly KioskProduct[];
  /** The member chosen (step 2), or null (step 1). */
  readonly member: KioskMember | null;
  readonly outcome: KioskOutcome;
  readonly error: string | null;
  /** A fresh one-time key for each product's form (the page without its script). */
  readonly newKey: () => string;
  readonly undoSeconds: number;
}

/** The opened kiosk: step 1 (who are you?) and step 2 (what do you take?), one of them shown. */
export function kioskPage(site: KioskSite, view: KioskView): Buffer {
  const { words } = site;
  const { member } = view;
  const step = member === null ? 'members' : 'products';
  const say = (key: Parameters<Words['t']>[0], values?: Parameters<Words['t']>[1]) => words.t(key, values);
  const main = html`<main id="main" class="kiosk" data-step="${step}"${member === null ? '' : html` data-member="${member.id}" data-member-name="${member.name}"`} data-csrf="${view.csrf}" data-idle-ms="${IDLE_MS}" data-undo-seconds="${view.undoSeconds}" data-repeat-ms="${REPEAT_MS}" data-scan-gap-ms="${SCAN_GAP_MS}" data-reload-ms="${RELOAD_MS}" data-purchase="${KIOSK_PURCHASE_PATH}" data-undo="${KIOSK_UNDO_PATH}" data-scan="${KIOSK_SCAN_PATH}" data-say-what="${say('stock.kiosk.what', { name: '{name}' })}" data-say-offline="${say('stock.kiosk.offline')}" data-say-busy="${say('stock.kiosk.busy')}">
<div class="kiosk-outcome">
<p id="kiosk-said" class="kiosk-said" role="status"${view.outcome.belowZero ? html` data-below-zero="true"` : ''}>${view.outcome.said ?? ''}</p>
${undoForm(words, view)}
<p id="kiosk-error" class="form-error kiosk-error" role="alert"${view.error === null ? html` hidden` : ''}>${view.error ?? ''}</p>
</div>
${membersStep(words, view)}
${productsStep(words, view)}
</main>`;
  return kioskDocument(site, words.t('stock.kiosk.title'), main, true);
}

function undoForm(words: Words, view: KioskView): Html {
  const undo = view.outcome.undo;
  return html`<form method="post" action="${KIOSK_UNDO_PATH}" id="kiosk-undo" class="kiosk-undo"${undo === null ? html` hidden` : ''}>
<input type="hidden" name="${CSRF_FIELD}" value="${view.csrf}">
<input type="hidden" name="entry" value="${undo?.entryId ?? ''}">
<input type="hidden" name="key" value="${undo?.key ?? ''}">
<button type="submit" class="kiosk-button kiosk-undo-button">${words.t('stock.kiosk.undo')}</button>
<label class="kiosk-undo-time"><span>${words.t('stock.kiosk.undo.time')}</span> <progress id="kiosk-undo-left" max="${view.undoSeconds}" value="${undo?.secondsLeft ?? 0}"></progress></label>
</form>`;
}

function membersStep(words: Words, view: KioskView): Html {
  return html`<section id="kiosk-members" class="kiosk-step" aria-labelledby="kiosk-members-heading"${view.member === null ? '' : html` hidden`}>
<h1 id="kiosk-members-heading">${words.t('stock.kiosk.who')}</h1>
<p class="kiosk-help">${words.t('stock.kiosk.who.help')}</p>
${
  view.members.length === 0
    ? html`<p class="kiosk-empty">${words.t('stock.kiosk.who.none')}</p>`
    : html`<ul class="kiosk-grid kiosk-members">${view.members.map(
        (m) => html`<li><a class="kiosk-button kiosk-member" href="${KIOSK_PATH}?member=${m.id}" data-member="${m.id}">${m.name}</a></li>`,
      )}</ul>`
}
</section>`;
}

function productsStep(words: Words, view: KioskView): Html {
  const { member } = view;
  const categories: { id: number; name: string; products: KioskProduct[] }[] = [];
  for (const product of view.products) {
    const last = categories.at(-1);
    if (last?.id === product.category_id) last.products.push(product);
    else categories.push({ id: product.category_id, name: product.category_name, products: [product] });
  }
  return html`<section id="kiosk-products" class="kiosk-step" aria-labelledby="kiosk-products-heading"${member === null ? html` hidden` : ''}>
<div class="kiosk-bar">
<h1 id="kiosk-products-heading">${member === null ? '' : words.t('stock.kiosk.what', { name: member.name })}</h1>
<a class="kiosk-button kiosk-back" href="${KIOSK_PATH}" id="kiosk-back">${words.t('stock.kiosk.back')}</a>
</div>
<p class="kiosk-help">${words.t('stock.kiosk.what.help')}</p>
${
  categories.length === 0
    ? html`<p class="kiosk-empty">${words.t('stock.kiosk.what.none')}</p>`
    : categories.map(
        (category) => html`<h2 id="kiosk-category-${category.id}">${category.name}</h2>
<ul class="kiosk-grid kiosk-products" aria-labelledby="kiosk-category-${category.id}">${category.products.map((product) => productForm(words, view, product))}</ul>`,
      )
}
</section>`;
}

function productForm(words: Words, view: KioskView, product: KioskProduct): Html {
  return html`<li><form method="post" action="${KIOSK_PURCHASE_PATH}" class="kiosk-buy">
<input type="hidden" name="${CSRF_FIELD}" value="${view.csrf}">
<input type="hidden" name="member" value="${view.member?.id ?? ''}">
<input type="hidden" name="product" value="${product.id}">
<input type="hidden" name="key" value="${view.newKey()}">
<button type="submit" class="kiosk-button kiosk-product" data-product="${product.id}"${product.soldOut ? html` data-sold-out="true"` : ''}><span class="kiosk-product-name">${product.name}</span> <span class="kiosk-price">${words.money(product.price_cents / 100)}</span> <span class="kiosk-sold-out">${words.t('stock.kiosk.sold-out')}</span></button>
</form></li>`;
}
