import type { Words } from '../../../i18n/words.js';
import { html, type Html } from '../../../web/html.js';
import { layout, type Site } from '../../../web/layout.js';
import { csrfInput, described, fieldError, type FieldMessages } from '../../../web/form-parts.js';
import { receiptUrl } from '../receipts.js';
import type { MemberBalance, RefundRow, ZoneSummary } from '../treasury.js';
import { MAX_COMMENTS, MAX_REFUND_TITLE, MAX_ZONE_NAME } from '../treasury.js';

/**
 * `/stock/transactions`: the treasury's page (ledger.md §1, §4). The fund zones with their
 * estimated balances and payments, the refunds still owed, what members owe and are owed, and
 * the forms: a zone, a payment, a refund, a refund completed, an entry corrected, the ledger as
 * CSV. Every value escaped by `html`; every form carries the CSRF token.
 */

/** Which form a refused POST came from, its messages and what was typed (shown again). */
export interface TreasuryProblem {
  form: 'zone' | 'payment' | 'refund' | 'complete' | 'correct';
  errors: FieldMessages;
  values: Readonly<Record<string, string>>;
}

export interface TreasuryView {
  csrf: string;
  zones: ZoneSummary[];
  balances: { members: MemberBalance[]; owedByMembersCents: number; owedToMembersCents: number };
  refunds: RefundRow[];
  members: { id: number; username: string }[];
  today: string;
  /** The shop's management and the reminders are linked for those who may use them. */
  shop: boolean;
  superuser: boolean;
  problem: TreasuryProblem | null;
}

function money(w: Words, cents: number): string {
  return w.money(cents / 100);
}

function alertOf(problem: TreasuryProblem | null, form: TreasuryProblem['form'], w: Words): Html | string {
  if (problem === null || problem.form !== form) return '';
  return html`<p class="form-error" role="alert" id="${form}-problem">${w.t('stock.treasury.form-problem')}</p>`;
}

/** The errors and values of the form that was refused; none for the others. */
function partsOf(problem: TreasuryProblem | null, form: TreasuryProblem['form']): { errors: FieldMessages; value: (name: string, fallback?: string) => string } {
  const own = problem !== null && problem.form === form;
  return { errors: own ? problem.errors : {}, value: (name, fallback = '') => (own ? (problem.values[name] ?? fallback) : fallback) };
}

function zoneSection(w: Words, zone: ZoneSummary): Html {
  const rows = zone.payments.map(
    (p) => html`<tr>
<td>${p.payment_date}</td>
<td class="${p.way === 'a' ? 'amount-out' : 'amount-in'}">${p.way === 'a' ? '−' : '+'}${money(w, p.amount_cents)}</td>
<td>${p.username}</td>
<td>${p.comments ?? ''}</td>
<td>${p.receipt ? html`<a href="${receiptUrl(p.receipt)}">${w.t('stock.treasury.receipt')}</a>` : w.t('stock.treasury.no-receipt')}</td>
</tr>`,
  );
  return html`<section class="zone" aria-labelledby="zone-${zone.id}">
<h3 id="zone-${zone.id}">${zone.name} <span class="method">(${w.t(zone.method === 'CASH' ? 'stock.treasury.method.cash' : 'stock.treasury.method.bank')})</span></h3>
<p class="zone-balance" data-zone="${zone.id}">${w.t('stock.treasury.estimated', { name: zone.name, amount: money(w, zone.balanceCents) })}</p>
${
  rows.length === 0
    ? html`<p>${w.t('stock.treasury.no-payments')}</p>`
    : html`<div class="table-scroll"><table class="payments">
<caption>${w.t('stock.treasury.payments-of', { name: zone.name })}</caption>
<thead><tr><th scope="col">${w.t('stock.treasury.date')}</th><th scope="col">${w.t('stock.treasury.amount')}</th><th scope="col">${w.t('stock.treasury.by')}</th><th scope="col">${w.t('stock.treasury.comments')}</th><th scope="col">${w.t('stock.treasury.receipt')}</th></tr></thead>
<tbody>${rows}</tbody>
</table></div>`
}
</section>`;
}

function zoneOptions(view: TreasuryView, selected: string): Html[] {
  return view.zones.map((z) => html`<option value="${z.id}"${String(z.id) === selected ? html` selected` : ''}>${z.name}</option>`);
}

export function treasuryPage(site: Site, view: TreasuryView): Buffer {
  const w = site.words;
  const zone = partsOf(view.problem, 'zone');
  const pay = partsOf(view.problem, 'payment');
  const refund = partsOf(view.problem, 'refund');
  const complete = partsOf(view.problem, 'complete');
  const correct = partsOf(view.problem, 'correct');
  const balanceRows = view.balances.members.map(
    (m) => html`<tr><th scope="row">${m.username}</th><td class="${m.balanceCents < 0 ? 'amount-out' : 'amount-in'}">${money(w, m.balanceCents)}</td></tr>`,
  );
  const refundRows = view.refunds.map(
    (r) => html`<tr>
<td>${r.username}</td><td>${r.title}</td><td>${money(w, r.amount_cents)}</td>
<td>${r.receipt ? html`<a href="${receiptUrl(r.receipt)}">${w.t('stock.treasury.receipt')}</a>` : w.t('stock.treasury.no-receipt')}</td>
<td>${
      view.zones.length === 0
        ? w.t('stock.treasury.no-zones')
        : html`<form method="post" action="/stock/transactions/refunds/${r.id}/complete/" class="inline">${csrfInput(view.csrf)}
<label for="complete-zone-${r.id}">${w.t('stock.treasury.from-zone')}</label>
<select id="complete-zone-${r.id}" name="zone"${described('zone', complete.errors)}>${zoneOptions(view, complete.value('zone'))}</select>
<button type="submit">${w.t('stock.treasury.complete')}<span class="visually-hidden"> ${r.title}</span></button></form>`
    }</td>
</tr>`,
  );
  const main = html`<section class="treasury" aria-labelledby="treasury-heading">
<h1 id="treasury-heading">${w.t('stock.treasury.title')}</h1>
${view.shop || view.superuser ? html`<ul class="treasury-links">${view.shop ? html`<li><a href="/stock/products/">${w.t('stock.shop.title')}</a></li>` : ''}${view.superuser ? html`<li><a href="/accounts/debtmails/">${w.t('stock.reminder.title')}</a></li>` : ''}</ul>` : ''}
<h2>${w.t('stock.treasury.members')}</h2>
<p id="owed-by-members">${w.t('stock.treasury.owed-by', { amount: money(w, view.balances.owedByMembersCents) })}</p>
<p id="owed-to-members">${w.t('stock.treasury.owed-to', { amount: money(w, view.balances.owedToMembersCents) })}</p>

<h2>${w.t('stock.treasury.zones')}</h2>
${view.zones.length === 0 ? html`<p>${w.t('stock.treasury.no-zones')}</p>` : view.zones.map((z) => zoneSection(w, z))}

<h2 id="payment-heading">${w.t('stock.treasury.new-payment')}</h2>
${alertOf(view.problem, 'payment', w)}
${
  view.zones.length === 0
    ? html`<p>${w.t('stock.treasury.no-zones')}</p>`
    : html`<form method="post" action="/stock/transactions/payments/" enctype="multipart/form-data" class="stacked" aria-labelledby="payment-heading">${csrfInput(view.csrf)}
<label for="payment-zone">${w.t('stock.treasury.zone')}</label>
<select id="payment-zone" name="zone"${described('zone', pay.errors)}>${zoneOptions(view, pay.value('zone'))}</select>${fieldError('zone', pay.errors)}
<fieldset><legend>${w.t('stock.treasury.way')}</legend>
<p class="check"><input type="radio" id="way-a" name="way" value="a"${pay.value('way', 'a') === 'a' ? html` checked` : ''}> <label for="way-a">${w.t('stock.treasury.way.a')}</label></p>
<p class="check"><input type="radio" id="way-b" name="way" value="b"${pay.value('way') === 'b' ? html` checked` : ''}> <label for="way-b">${w.t('stock.treasury.way.b')}</label></p>
${fieldError('way', pay.errors)}</fieldset>
<label for="payment-amount">${w.t('stock.treasury.amount')}</label>
<input id="payment-amount" name="amount" inputmode="decimal" required value="${pay.value('amount')}"${described('amount', pay.errors)}>${fieldError('amount', pay.errors)}
<label for="payment-date">${w.t('stock.treasury.date')}</label>
<input id="payment-date" name="payment_date" type="date" required value="${pay.value('payment_date', view.today)}"${described('payment_date', pay.errors)}>${fieldError('payment_date', pay.errors)}
<label for="payment-comments">${w.t('stock.treasury.comments')}</label>
<input id="payment-comments" name="comments" maxlength="${MAX_COMMENTS}" value="${pay.value('comments')}"${described('comments', pay.errors)}>${fieldError('comments', pay.errors)}
<label for="payment-receipt">${w.t('stock.treasury.receipt-file')}</label>
<input id="payment-receipt" name="receipt" type="file" accept="application/pdf,image/jpeg,image/png"${described('receipt', pay.errors)}>${fieldError('receipt', pay.errors)}
<button type="submit">${w.t('stock.treasury.record-payment')}</button>
</form>`
}

<h2>${w.t('stock.treasury.refunds')}</h2>
${alertOf(view.problem, 'complete', w)}${fieldError('refund', complete.errors)}${fieldError('zone', complete.errors)}
${
  refundRows.length === 0
    ? html`<p>${w.t('stock.treasury.no-refunds')}</p>`
    : html`<div class="table-scroll"><table id="refunds">
<caption>${w.t('stock.treasury.refunds-caption')}</caption>
<thead><tr><th scope="col">${w.t('stock.treasury.member')}</th><th scope="col">${w.t('stock.treasury.refund-title')}</th><th scope="col">${w.t('stock.treasury.amount')}</th><th scope="col">${w.t('stock.treasury.receipt')}</th><th scope="col">${w.t('stock.treasury.complete')}</th></tr></thead>
<tbody>${refundRows}</tbody></table></div>`
}

<h2 id="refund-heading">${w.t('stock.treasury.new-refund')}</h2>
${alertOf(view.problem, 'refund', w)}
<form method="post" action="/stock/transactions/refunds/" enctype="multipart/form-data" class="stacked" aria-labelledby="refund-heading">${csrfInput(view.csrf)}
<label for="refund-member">${w.t('stock.treasury.member')}</label>
<select id="refund-member" name="member"${described('member', refund.errors)}>${view.members.map((m) => html`<option value="${m.id}"${String(m.id) === refund.value('member') ? html` selected` : ''}>${m.username}</option>`)}</select>${fieldError('member', refund.errors)}
<label for="refund-title">${w.t('stock.treasury.refund-title')}</label>
<input id="refund-title" name="title" required maxlength="${MAX_REFUND_TITLE}" value="${refund.value('title')}"${described('title', refund.errors)}>${fieldError('title', refund.errors)}
<label for="refund-amount">${w.t('stock.treasury.amount')}</label>
<input id="refund-amount" name="amount" inputmode="decimal" required value="${refund.value('amount')}"${described('amount', refund.errors)}>${fieldError('amount', refund.errors)}
<label for="refund-receipt">${w.t('stock.treasury.receipt-file')}</label>
<input id="refund-receipt" name="receipt" type="file" accept="application/pdf,image/jpeg,image/png"${described('receipt', refund.errors)}>${fieldError('receipt', refund.errors)}
<button type="submit">${w.t('stock.treasury.record-refund')}</button>
</form>

<h2 id="zone-heading">${w.t('stock.treasury.new-zone')}</h2>
${alertOf(view.problem, 'zone', w)}
<form method="post" action="/stock/transactions/zones/" class="stacked" aria-labelledby="zone-heading">${csrfInput(view.csrf)}
<label for="zone-name">${w.t('stock.treasury.zone-name')}</label>
<input id="zone-name" name="name" required maxlength="${MAX_ZONE_NAME}" value="${zone.value('name')}"${described('name', zone.errors)}>${fieldError('name', zone.errors)}
<label for="zone-method">${w.t('stock.treasury.zone-method')}</label>
<select id="zone-method" name="method"${described('method', zone.errors)}>
<option value="CASH"${zone.value('method') === 'CASH' ? html` selected` : ''}>${w.t('stock.treasury.method.cash')}</option>
<option value="BANK"${zone.value('method') === 'BANK' ? html` selected` : ''}>${w.t('stock.treasury.method.bank')}</option>
</select>${fieldError('method', zone.errors)}
<button type="submit">${w.t('stock.treasury.add-zone')}</button>
</form>

<h2 id="correct-heading">${w.t('stock.treasury.correct')}</h2>
<p>${w.t('stock.treasury.correct-help')}</p>
${alertOf(view.problem, 'correct', w)}
<form method="post" action="/stock/transactions/corrections/" class="stacked" aria-labelledby="correct-heading">${csrfInput(view.csrf)}
<label for="correct-entry">${w.t('stock.treasury.entry')}</label>
<input id="correct-entry" name="entry" inputmode="numeric" required value="${correct.value('entry')}"${described('entry', correct.errors)}>${fieldError('entry', correct.errors)}
<label for="correct-reason">${w.t('stock.treasury.reason')}</label>
<input id="correct-reason" name="reason" required maxlength="200" value="${correct.value('reason')}"${described('reason', correct.errors)}>${fieldError('reason', correct.errors)}
<button type="submit">${w.t('stock.treasury.correct-button')}</button>
</form>

<h2 id="csv-heading">${w.t('stock.treasury.csv')}</h2>
<form method="get" action="/stock/transactions/ledger.csv" class="stacked" aria-labelledby="csv-heading">
<label for="csv-from">${w.t('stock.treasury.from')}</label>
<input id="csv-from" name="from" type="date" required value="${view.today.slice(0, 8)}01">
<label for="csv-to">${w.t('stock.treasury.to')}</label>
<input id="csv-to" name="to" type="date" required value="${view.today}">
<button type="submit">${w.t('stock.treasury.download')}</button>
</form>

<h2>${w.t('stock.treasury.balances')}</h2>
${
  balanceRows.length === 0
    ? html`<p>${w.t('stock.treasury.no-balances')}</p>`
    : html`<div class="table-scroll"><table id="balances">
<caption>${w.t('stock.treasury.balances-caption')}</caption>
<thead><tr><th scope="col">${w.t('stock.treasury.member')}</th><th scope="col">${w.t('stock.treasury.balance')}</th></tr></thead>
<tbody>${balanceRows}</tbody></table></div>`
}
</section>`;
  return layout(site, { title: w.t('stock.treasury.title'), main });
}

/** `/accounts/debtmails/`: how many members are in debt, the button that mails them, and how it went. */
export function remindersPage(site: Site, view: { csrf: string; debtors: number; mail: boolean; report: { sent: number; noAddress: number; failed: number } | null }): Buffer {
  const w = site.words;
  const main = html`<section aria-labelledby="reminders-heading">
<h1 id="reminders-heading">${w.t('stock.reminder.title')}</h1>
${
  view.report === null
    ? ''
    : html`<p role="status" id="reminder-report">${w.t('stock.reminder.report', { sent: view.report.sent, failed: view.report.failed, noAddress: view.report.noAddress })}</p>`
}
<p id="debtors">${w.t('stock.reminder.debtors', { count: view.debtors })}</p>
${
  view.mail
    ? html`<form method="post" action="/accounts/debtmails/" class="stacked">${csrfInput(view.csrf)}<button type="submit">${w.t('stock.reminder.send')}</button></form>`
    : html`<p class="form-error" role="alert" id="no-mail">${w.t('stock.reminder.no-mail')}</p>`
}
</section>`;
  return layout(site, { title: w.t('stock.reminder.title'), main });
}
