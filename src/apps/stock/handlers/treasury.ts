import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../../db/connection.js';
import type { MessageKey, Words } from '../../../i18n/words.js';
import { lastValue } from '../../../drf/query.js';
import { FORM_TYPE, type Form } from '../../../request/form.js';
import { seeOther, sendPage } from '../../../http/reply.js';
import { setNotice } from '../../../handlers/notice.js';
import type { Matched, Route } from '../../../http/route.js';
import { messagePage } from '../../../web/message-page.js';
import { notFound, webWrite, type MemberExchange } from '../../users/index.js';
import { correct, LedgerRefused } from '../ledger.js';
import { readAmount } from '../money.js';
import { checkReceipt, isMultipart, parseMultipart, receiptAt, storeReceipt, type ReceiptProblem, type UploadedFile } from '../receipts.js';
import { debtors, sendReminders } from '../reminders.js';
import {
  activeMembers,
  addZone,
  completeRefund,
  isTreasurer,
  ledgerBatch,
  memberBalances,
  openRefunds,
  readDay,
  recordPayment,
  recordRefund,
  TreasuryRefused,
  zoneSummaries,
  type LedgerCsvRow,
  type TreasuryRefusal,
} from '../treasury.js';
import { shopRightsOf } from '../shop.js';
import { AMOUNT_WORDS, REFUSAL_WORDS } from '../words.js';
import { remindersPage, treasuryPage, type TreasuryProblem } from '../web/treasury.js';
import { formatCents } from '../money.js';

/**
 * The treasury's pages and forms (ledger.md §1, §4), for members of the treasury (the right
 * `stock.view_paymenttransaction`) and superusers: the routes (routes/treasury.ts) require a
 * member; each handler here refuses the others with a 403 page (a receipt: a 404, as if it did
 * not exist). Every change is one announced write transaction with its audit entry.
 */

type M<P = unknown> = MemberExchange<P>;

export const TREASURY_NOTICES = {
  'stock-zone-added': 'stock.treasury.notice.zone-added',
  'stock-payment-recorded': 'stock.treasury.notice.payment-recorded',
  'stock-refund-recorded': 'stock.treasury.notice.refund-recorded',
  'stock-refund-completed': 'stock.treasury.notice.refund-completed',
  'stock-entry-corrected': 'stock.treasury.notice.entry-corrected',
  'stock-product-added': 'stock.shop.notice.product-added',
  'stock-product-saved': 'stock.shop.notice.product-saved',
  'stock-product-deleted': 'stock.shop.notice.product-deleted',
  'stock-restocked': 'stock.shop.notice.restocked',
  'stock-category-added': 'stock.shop.notice.category-added',
  'stock-category-saved': 'stock.shop.notice.category-saved',
  'stock-category-deleted': 'stock.shop.notice.category-deleted',
} as const satisfies Readonly<Record<string, MessageKey>>;

const TREASURY_REFUSAL_WORDS: Readonly<Record<TreasuryRefusal, MessageKey>> = {
  'zone-name': 'stock.treasury.refused.zone-name',
  'zone-method': 'stock.treasury.refused.zone-method',
  'zone-unknown': 'stock.treasury.refused.zone-unknown',
  way: 'stock.treasury.refused.way',
  date: 'stock.treasury.refused.date',
  comments: 'stock.treasury.refused.comments',
  title: 'stock.treasury.refused.title',
  'member-unknown': 'stock.treasury.refused.member-unknown',
  'refund-unknown': 'stock.treasury.refused.refund-unknown',
  'refund-done': 'stock.treasury.refused.refund-done',
};

const RECEIPT_WORDS: Readonly<Record<ReceiptProblem, MessageKey>> = {
  type: 'stock.treasury.receipt.type',
  'too-large': 'stock.treasury.receipt.too-large',
};

function db(m: M): Db {
  return m.ex.services.database.db;
}

/** Today in the space's zone, `YYYY-MM-DD`. */
export function todayIn(timeZone: string, nowUs: number): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(nowUs / 1000);
}

/** The instant (µs) a day starts in a zone. */
export function dayStartUs(day: string, timeZone: string): number {
  const [y, mo, d] = day.split('-').map(Number);
  const guess = Date.UTC(y, mo - 1, d);
  const offsetAt = (ms: number) => {
    const parts = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    }).formatToParts(ms);
    const get = (type: string) => Number(parts.find((p) => p.type === type)!.value);
    return Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second')) - Math.floor(ms / 1000) * 1000;
  };
  let instant = guess - offsetAt(guess);
  instant = guess - offsetAt(instant);
  return instant * 1000;
}

/** Whether the viewer is of the treasury. (Not an async function answering a reply: a FastifyReply is thenable, and awaiting it would lose it.) */
function ofTreasury(m: M): Promise<boolean> {
  return isTreasurer(db(m), m.viewer!.member.id);
}

/** Whoever is not of the treasury: a 403 page. */
function deny(m: M): FastifyReply {
  const w = m.site.words;
  return sendPage(m.ex.reply, 403, messagePage(m.site, { title: w.t('stock.treasury.not-allowed-title'), message: w.t('stock.treasury.not-allowed') }));
}

async function renderTreasury(m: M, status: number, problem: TreasuryProblem | null): Promise<FastifyReply> {
  const [zones, balances, refunds, members, shop] = await Promise.all([
    zoneSummaries(db(m)),
    memberBalances(db(m)),
    openRefunds(db(m)),
    activeMembers(db(m)),
    shopRightsOf(db(m), m.viewer!.member.id),
  ]);
  const view = {
    csrf: m.csrf,
    zones,
    balances,
    refunds,
    members,
    today: todayIn(m.ex.services.config.timeZone, m.nowUs),
    shop: shop.size > 0,
    superuser: m.viewer!.member.isSuperuser,
    problem,
  };
  return sendPage(m.ex.reply, status, treasuryPage(m.site, view));
}

/** `GET /stock/transactions`. */
export async function showTreasury(m: M): Promise<FastifyReply> {
  if (!(await ofTreasury(m))) return deny(m);
  return renderTreasury(m, 200, null);
}

function valuesOf(form: Form, names: readonly string[]): Record<string, string> {
  return Object.fromEntries(names.map((name) => [name, form.get(name) ?? '']));
}

/** A refusal as the form shows it: a 422 with the page, the form's message beside its field. */
function refused(m: M, form: TreasuryProblem['form'], field: string, message: string, names: readonly string[]): Promise<FastifyReply> {
  return renderTreasury(m, 422, { form, errors: { [field]: [message] }, values: valuesOf(m.form, names) });
}

function amountOf(m: M, text: string): { cents: number } | { message: string } {
  const read = readAmount(text, m.ex.services.config.ledger.maxAmountCents);
  if ('cents' in read) return read;
  return { message: m.site.words.t(AMOUNT_WORDS[read.problem], { max: m.site.words.money(m.ex.services.config.ledger.maxAmountCents / 100) }) };
}

function idOf(text: string): number {
  return /^[0-9]{1,9}$/.test(text.trim()) ? Number(text.trim()) : 0;
}

function treasuryWrite<T>(m: M, collection: string, work: (trx: Db) => Promise<T>): Promise<T> {
  return webWrite(m, async (trx, audit) => {
    const result = await work(trx);
    await audit({ collection, recordId: typeof result === 'number' ? result : null, status: 303 });
    return result;
  });
}

function refusalText(w: Words, error: TreasuryRefused): string {
  return w.t(TREASURY_REFUSAL_WORDS[error.refusal]);
}

/** `POST /stock/transactions/zones/`: a fund zone. */
export async function submitZone(m: M): Promise<FastifyReply> {
  if (!(await ofTreasury(m))) return deny(m);
  const names = ['name', 'method'];
  try {
    await treasuryWrite(m, 'stock/fundzones', (trx) => addZone(trx, { name: m.form.get('name') ?? '', method: m.form.get('method') ?? '' }));
  } catch (error) {
    if (error instanceof TreasuryRefused) return refused(m, 'zone', error.field, refusalText(m.site.words, error), names);
    throw error;
  }
  setNotice(m.ex.reply, m.ex.facts, 'stock-zone-added');
  return seeOther(m.ex.reply, '/stock/transactions');
}

/** The receipt of an upload form, checked: its bytes and type, none, or the message that refuses it. */
function receiptOf(m: M): { file: { bytes: Uint8Array; type: ReturnType<typeof checkReceipt> } | null } | { message: string } {
  const file = uploadsOf(m.ex.request).get('receipt');
  if (file === undefined) return { file: null };
  const checked = checkReceipt(file.bytes, m.ex.services.config.ledger.receiptMaxBytes);
  if ('problem' in checked)
    return { message: m.site.words.t(RECEIPT_WORDS[checked.problem], { max: m.site.words.number(m.ex.services.config.ledger.receiptMaxBytes / 1024 / 1024) }) };
  return { file: { bytes: file.bytes, type: checked } };
}

async function stored(trx: Db, m: M, file: { bytes: Uint8Array; type: ReturnType<typeof checkReceipt> } | null): Promise<string | null> {
  if (file === null || !('type' in file.type)) return null;
  return storeReceipt(trx, file.bytes, file.type.type, m.nowUs);
}

/** `POST /stock/transactions/payments/` (multipart): a payment out of or into a zone, with its receipt. */
export async function submitPayment(m: M): Promise<FastifyReply> {
  if (!(await ofTreasury(m))) return deny(m);
  const names = ['zone', 'way', 'amount', 'payment_date', 'comments'];
  const amount = amountOf(m, m.form.get('amount') ?? '');
  if ('message' in amount) return refused(m, 'payment', 'amount', amount.message, names);
  const receipt = receiptOf(m);
  if ('message' in receipt) return refused(m, 'payment', 'receipt', receipt.message, names);
  try {
    await treasuryWrite(m, 'stock/payments', async (trx) =>
      recordPayment(trx, {
        zoneId: idOf(m.form.get('zone') ?? ''),
        way: m.form.get('way') ?? '',
        amountCents: amount.cents,
        paymentDate: m.form.get('payment_date') ?? '',
        comments: m.form.get('comments') ?? '',
        // Stored in the same transaction: a refused payment keeps no file.
        receipt: await stored(trx, m, receipt.file),
        byUserId: m.viewer!.member.id,
        nowUs: m.nowUs,
      }),
    );
  } catch (error) {
    if (error instanceof TreasuryRefused) return refused(m, 'payment', error.field, refusalText(m.site.words, error), names);
    throw error;
  }
  setNotice(m.ex.reply, m.ex.facts, 'stock-payment-recorded');
  return seeOther(m.ex.reply, '/stock/transactions');
}

/** `POST /stock/transactions/refunds/` (multipart): a refund owed to a member, with its receipt. */
export async function submitRefund(m: M): Promise<FastifyReply> {
  if (!(await ofTreasury(m))) return deny(m);
  const names = ['member', 'title', 'amount'];
  const amount = amountOf(m, m.form.get('amount') ?? '');
  if ('message' in amount) return refused(m, 'refund', 'amount', amount.message, names);
  const receipt = receiptOf(m);
  if ('message' in receipt) return refused(m, 'refund', 'receipt', receipt.message, names);
  try {
    await treasuryWrite(m, 'stock/refunds', async (trx) => {
      const title = (m.form.get('title') ?? '').trim();
      if (title === '' || [...title].length > 200) throw new TreasuryRefused('title', 'title');
      return recordRefund(trx, { userId: idOf(m.form.get('member') ?? ''), title, amountCents: amount.cents, receipt: await stored(trx, m, receipt.file), nowUs: m.nowUs });
    });
  } catch (error) {
    if (error instanceof TreasuryRefused) return refused(m, 'refund', error.field, refusalText(m.site.words, error), names);
    throw error;
  }
  setNotice(m.ex.reply, m.ex.facts, 'stock-refund-recorded');
  return seeOther(m.ex.reply, '/stock/transactions');
}

/** `POST /stock/transactions/refunds/<id>/complete/`: the refund paid from a zone. */
export async function submitCompleteRefund(m: M<number>): Promise<FastifyReply> {
  if (!(await ofTreasury(m))) return deny(m);
  const { config, catalogue } = m.ex.services;
  // The payment's comment is stored: in the space's language, as the original's French one.
  const space = catalogue.words(catalogue.defaultLanguage);
  try {
    await treasuryWrite(m, 'stock/payments', (trx) =>
      completeRefund(trx, {
        refundId: m.ex.params,
        zoneId: idOf(m.form.get('zone') ?? ''),
        byUserId: m.viewer!.member.id,
        nowUs: m.nowUs,
        today: todayIn(config.timeZone, m.nowUs),
        comments: (title, username) => space.t('stock.treasury.refund-comment', { title, username }),
      }),
    );
  } catch (error) {
    if (error instanceof TreasuryRefused) return refused(m, 'complete', error.field, refusalText(m.site.words, error), ['zone']);
    throw error;
  }
  setNotice(m.ex.reply, m.ex.facts, 'stock-refund-completed');
  return seeOther(m.ex.reply, '/stock/transactions');
}

/** `POST /stock/transactions/corrections/`: a ledger entry corrected with a reason (an entry that reverses it). */
export async function submitCorrection(m: M): Promise<FastifyReply> {
  if (!(await ofTreasury(m))) return deny(m);
  const names = ['entry', 'reason'];
  const w = m.site.words;
  try {
    await treasuryWrite(
      m,
      'stock/ledger',
      async (trx) =>
        (await correct(trx, { entryId: idOf(m.form.get('entry') ?? ''), reason: m.form.get('reason') ?? '', by: { userId: m.viewer!.member.id, channel: 'web' }, nowUs: m.nowUs }))
          .entry.id,
    );
  } catch (error) {
    if (error instanceof LedgerRefused)
      return refused(m, 'correct', error.field ?? 'entry', w.t(REFUSAL_WORDS[error.refusal], { minutes: m.ex.services.config.ledger.undoMinutes, limit: '' }), names);
    throw error;
  }
  setNotice(m.ex.reply, m.ex.facts, 'stock-entry-corrected');
  return seeOther(m.ex.reply, '/stock/transactions');
}

/**
 * A cell of the CSV, quoted when needed. Text that people typed (names, products, notes) has a
 * formula neutralised: a leading `'` before = + - @ (and tab, CR), as spreadsheets read them.
 * Numbers we write ourselves (`-1.50`) are left as numbers.
 */
export function csvCell(value: string | number | null, typed = true): string {
  let text = value === null ? '' : String(value);
  if (typed && typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const CSV_HEADER = ['id', 'time', 'member', 'kind', 'amount', 'product', 'unit_price', 'quantity', 'location', 'info', 'counterpart', 'reverses', 'recorded_by', 'channel'];

function csvLine(row: LedgerCsvRow, time: (us: number) => string): string {
  return `${[
    csvCell(row.id),
    csvCell(time(row.created_us), false),
    csvCell(row.username),
    csvCell(row.kind),
    csvCell(formatCents(row.amount_cents), false),
    csvCell(row.product),
    csvCell(row.unit_price_cents === null ? null : formatCents(row.unit_price_cents), false),
    csvCell(row.quantity),
    csvCell(row.location),
    csvCell(row.info),
    csvCell(row.counterpart),
    csvCell(row.reverses_id),
    csvCell(row.recorded_by),
    csvCell(row.channel),
  ].join(',')}\r\n`;
}

/** `GET /stock/transactions/ledger.csv?from=&to=`: the entries of the days from..to (the space's zone), streamed. */
export async function ledgerCsv(m: M): Promise<FastifyReply> {
  if (!(await ofTreasury(m))) return deny(m);
  const { query } = m.ex.facts.target;
  const { timeZone } = m.ex.services.config;
  const from = readDay(lastValue(query, 'from') ?? '');
  const to = readDay(lastValue(query, 'to') ?? '');
  const w = m.site.words;
  if (from === null || to === null || from > to) {
    return sendPage(m.ex.reply, 422, messagePage(m.site, { title: w.t('stock.treasury.csv'), message: w.t('stock.treasury.csv-period') }));
  }
  const next = new Date(`${to}T00:00:00Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  const period = { fromUs: dayStartUs(from, timeZone), toUs: dayStartUs(next.toISOString().slice(0, 10), timeZone) };
  const format = new Intl.DateTimeFormat('sv-SE', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  });
  const time = (us: number) => format.format(us / 1000);
  const database = db(m);
  async function* lines(): AsyncGenerator<string> {
    yield `${CSV_HEADER.join(',')}\r\n`;
    let after = 0;
    for (;;) {
      const batch = await ledgerBatch(database, period, after, 500);
      if (batch.length === 0) return;
      yield batch.map((row) => csvLine(row, time)).join('');
      after = batch[batch.length - 1].id;
    }
  }
  return m.ex.reply
    .code(200)
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="ledger-${from}-${to}.csv"`)
    .header('x-content-type-options', 'nosniff')
    .send(Readable.from(lines()));
}

/** `GET /stock/receipts/souches/<name>`: a receipt, to the treasury only; anyone else gets a 404, as for a receipt that does not exist. */
export async function serveReceipt(m: M<string>): Promise<FastifyReply> {
  if (!(await isTreasurer(db(m), m.viewer!.member.id))) return notFound(m);
  const receipt = await receiptAt(db(m), m.ex.params);
  if (receipt === undefined) return notFound(m);
  const name = receipt.path.slice('souches/'.length);
  return m.ex.reply
    .code(200)
    .header('content-type', receipt.media_type)
    .header('content-disposition', `inline; filename="${name}"`)
    .header('cache-control', 'private, no-store')
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', "default-src 'none'; sandbox")
    .send(Buffer.from(receipt.content));
}

/** `/accounts/debtmails/` (superusers): GET says how many members are in debt, POST mails them and says how it went. */
export async function debtMails(m: M): Promise<FastifyReply> {
  const { services } = m.ex;
  const mailer = services.mailer;
  const count = (await debtors(db(m))).length;
  if (m.ex.facts.method !== 'POST' || mailer === null) {
    return sendPage(m.ex.reply, m.ex.facts.method === 'POST' ? 503 : 200, remindersPage(m.site, { csrf: m.csrf, debtors: count, mail: mailer !== null, report: null }));
  }
  const report = await sendReminders(db(m), (mail) => mailer.send(mail), {
    spaceName: services.site.name,
    baseUrl: services.config.publicUrl ?? m.ex.facts.base ?? '',
    wordsOf: (language) => services.catalogue.words(language === '' ? services.catalogue.defaultLanguage : language),
  });
  const after = (await debtors(db(m))).length;
  return sendPage(
    m.ex.reply,
    200,
    remindersPage(m.site, { csrf: m.csrf, debtors: after, mail: true, report: { sent: report.sent.length, noAddress: report.noAddress.length, failed: report.failed.length } }),
  );
}

// Uploads: the member pages read urlencoded forms only (request/form.ts); a multipart form's
// files are taken out here, and its text fields handed on as the urlencoded form they would be.

const UPLOADS = new WeakMap<FastifyRequest, ReadonlyMap<string, UploadedFile>>();

/** The files the request's multipart form carried (none for another form). */
export function uploadsOf(request: FastifyRequest): ReadonlyMap<string, UploadedFile> {
  return UPLOADS.get(request) ?? new Map();
}

/**
 * A member page that also takes `multipart/form-data`: the body is read (undici's parser, which
 * Node ships), its files kept for the handler, and its text fields handed to the member page as
 * an urlencoded form, so that the Origin, session and CSRF checks are the member pages' own. A
 * malformed or truncated body carries no form (no CSRF token): the member page refuses it (403).
 */
export function withUploads(route: Route): Route {
  const wrapped: Route = {
    ...route,
    servedBy: (services) => route.servedBy(services),
    openapi: () => route.openapi(),
    match(path) {
      const matched = route.match(path);
      if (matched === null) return null;
      const ours: Matched = {
        route: wrapped,
        check: async (arrival) => {
          const ready = await matched.check(arrival);
          return {
            route: wrapped,
            handle: async (a) => {
              const contentType = a.request.headers['content-type'];
              if (a.request.method === 'POST' && isMultipart(contentType)) {
                const body = a.request.body;
                const parsed = Buffer.isBuffer(body) ? await parseMultipart(body, contentType!) : null;
                UPLOADS.set(a.request, parsed?.files ?? new Map());
                const fields = new URLSearchParams([...(parsed?.fields ?? new Map<string, string>())]);
                a.request.body = Buffer.from(fields.toString(), 'utf8');
                a.request.headers['content-type'] = FORM_TYPE;
              }
              return ready.handle(a);
            },
          };
        },
      };
      return ours;
    },
  };
  return wrapped;
}
