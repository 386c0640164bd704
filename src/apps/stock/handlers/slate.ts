import type { FastifyReply } from 'fastify';
import type { Db } from '../../../db/connection.js';
import { lastValue } from '../../../drf/query.js';
import { seeOther, sendPage } from '../../../http/reply.js';
import type { Words } from '../../../i18n/words.js';
import { recordAudit, webAuditName } from '../../../resources/audit.js';
import { clearCookie, cookieName, isHttps, parseCookies, setCookie } from '../../../request/cookies.js';
import { field } from '../../../request/form.js';
import { messagePage } from '../../../web/message-page.js';
import { hasRight, type MemberExchange } from '../../users/index.js';
import * as ledger from '../ledger.js';
import { LedgerRefused, type LedgerEntry, type Recorded } from '../ledger.js';
import { readAmount } from '../money.js';
import * as slate from '../slate.js';
import { AMOUNT_WORDS, REFUSAL_WORDS } from '../words.js';
import { NOTHING_TYPED, SLATE_PATH, slatePage, type SlateForm, type SlateRefusal, type SlateTyped } from '../web/slate.js';

/**
 * The slate's page and forms (ledger.md §1–§3). Each form: the member page's checks (session,
 * Origin, CSRF: apps/users memberPage), the right `users.change_balance`, the typed values read,
 * then one ledger change in one announced write transaction with its audit entry, and a 303 back
 * to the slate whose notice says what was recorded. A refusal is the page again, 422, with the
 * form's message; nothing is recorded.
 */

/** Entries per page of the slate's list. */
export const ENTRIES_PER_PAGE = 20;

/** The cookie that tells the slate, after a form's 303, what it did: an entry's id, or the kiosk choice. */
const DONE_COOKIE = 'slate';
const KIOSK_DONE = { on: 'kiosk-on', off: 'kiosk-off' } as const;

const RIGHT = 'users.change_balance';

type Slate = MemberExchange<unknown>;

function memberOf(m: Slate): { id: number; username: string } {
  return m.viewer!.member;
}

interface PageState {
  refused?: SlateRefusal;
  typed?: SlateTyped;
}

/** The slate for the member, with what a refused form said. */
async function answer(m: Slate, status: number, state: PageState = {}): Promise<FastifyReply> {
  const db = m.ex.services.database.db;
  const { id } = memberOf(m);
  const w = m.site.words;
  const undoMinutes = m.ex.services.config.ledger.undoMinutes;
  const count = await slate.countEntriesOf(db, id);
  const pages = Math.max(1, Math.ceil(count / ENTRIES_PER_PAGE));
  const asked = Number(lastValue(m.ex.facts.target.query, 'page') ?? '1');
  const page = Number.isSafeInteger(asked) && asked >= 1 ? Math.min(asked, pages) : 1;
  const [balanceCents, mayChange, shop, recipients, onKiosk, entries] = await Promise.all([
    ledger.balanceOf(db, id),
    hasRight(db, id, RIGHT),
    slate.shelves(db),
    slate.recipients(db, id),
    slate.onKiosk(db, id),
    slate.ownEntries(db, id, { offset: (page - 1) * ENTRIES_PER_PAGE, limit: ENTRIES_PER_PAGE }),
  ]);
  const favourites = await slate.favouritesOf(db, id, shop.all);
  const notice = status === 200 ? await takeDone(m, db, id) : null;
  const undoable = new Set(entries.filter((entry) => slate.undoable(entry, m.nowUs, undoMinutes)).map((entry) => entry.id));
  const body = slatePage(m.site, {
    csrf: m.csrf,
    key: slate.newFormKey,
    zone: m.ex.services.times,
    balanceCents: balanceCents ?? 0,
    mayChange,
    favourites,
    shelves: shop.byCategory,
    recipients,
    onKiosk,
    entries,
    undoable,
    page,
    pages,
    notice: notice === null ? null : noticeWords(w, notice),
    refused: state.refused ?? null,
    typed: state.typed ?? NOTHING_TYPED,
  });
  return sendPage(m.ex.reply, status, body);
}

export function showSlate(m: Slate): Promise<FastifyReply> {
  return answer(m, 200);
}

/** What the last form did, as its cookie names it (removed as it is read); null when nothing or not the member's. */
type Done = { entry: LedgerEntry; names: { product: string | null; member: string | null } } | 'kiosk-on' | 'kiosk-off';

async function takeDone(m: Slate, db: Db, userId: number): Promise<Done | null> {
  const header = m.ex.request.headers.cookie;
  if (header === undefined) return null;
  const https = isHttps(m.ex.facts.base);
  const value = parseCookies(header).get(cookieName(DONE_COOKIE, https));
  if (value === undefined) return null;
  m.ex.reply.header('set-cookie', clearCookie(DONE_COOKIE, https));
  if (value === KIOSK_DONE.on || value === KIOSK_DONE.off) return value;
  if (!/^[0-9]{1,10}$/.test(value)) return null;
  const entry = await ledger.entryById(db, Number(value));
  if (entry === undefined || entry.user_id !== userId) return null;
  const [described] = await slate.describeEntries(db, [entry]);
  let product = described.productName;
  if (entry.kind === 'reversal' && entry.reverses_id !== null) {
    const reversed = await ledger.entryById(db, entry.reverses_id);
    if (reversed !== undefined) product = (await slate.describeEntries(db, [reversed]))[0].productName;
  }
  return { entry, names: { product, member: described.counterpartName } };
}

function noticeWords(w: Words, done: Done): string {
  if (done === 'kiosk-on') return w.t('stock.slate.done.kiosk-on');
  if (done === 'kiosk-off') return w.t('stock.slate.done.kiosk-off');
  const { entry, names } = done;
  const amount = w.money(Math.abs(entry.amount_cents) / 100);
  switch (entry.kind) {
    case 'purchase':
      return w.t('stock.slate.done.purchase', { product: names.product ?? '?', amount });
    case 'spend':
      return w.t('stock.slate.done.spend', { name: entry.info, amount });
    case 'topup':
      return w.t('stock.slate.done.topup', { amount });
    case 'transfer':
      return w.t('stock.slate.done.transfer', { member: names.member ?? '?', amount });
    default:
      return w.t('stock.slate.done.undo', { amount });
  }
}

/** The page's answer to a form without the right: 403, nothing recorded. */
function notAllowed(m: Slate): FastifyReply {
  const w = m.site.words;
  return sendPage(m.ex.reply, 403, messagePage(m.site, { title: w.t('stock.slate.not-allowed-title'), message: w.t('stock.slate.not-allowed') }));
}

/** The form's one-time key: null when absent; a key too long to be ours counts as absent too (nothing to remember it by). */
function keyOf(m: Slate): string | null {
  const key = field(m.form, 'key');
  return key === '' || key.length > 64 ? null : key;
}

/** The refusal of a typed amount, in words. */
function amountRefusal(m: Slate, form: SlateForm, problem: keyof typeof AMOUNT_WORDS): SlateRefusal {
  const max = m.site.words.money(m.ex.services.config.ledger.maxAmountCents / 100);
  return { form, field: 'value', message: m.site.words.t(AMOUNT_WORDS[problem], { max }) };
}

function ledgerRefusal(m: Slate, form: SlateForm, error: LedgerRefused): SlateRefusal {
  const w = m.site.words;
  const { debtLimitCents, undoMinutes } = m.ex.services.config.ledger;
  const message = w.t(REFUSAL_WORDS[error.refusal], { limit: w.money((debtLimitCents ?? 0) / 100), minutes: undoMinutes });
  return { form, field: error.field, message };
}

/**
 * A form's change: the right checked, then `change` in one write transaction with its audit entry;
 * 303 to the slate, whose notice says what the entry (the first one, for a repeated key) was.
 */
async function record(m: Slate, form: SlateForm, typed: SlateTyped, change: (trx: Db, base: ChangeBase) => Promise<Recorded>): Promise<FastifyReply> {
  const { services, facts, reply } = m.ex;
  const member = memberOf(m);
  if (!(await hasRight(services.database.db, member.id, RIGHT))) return notAllowed(m);
  const base: ChangeBase = { userId: member.id, key: keyOf(m), by: { userId: member.id, channel: 'web' }, nowUs: m.nowUs };
  let recorded: Recorded;
  try {
    recorded = await services.writes.run(async (trx) => {
      const done = await change(trx, base);
      if (!done.repeated) {
        await recordAudit(trx, {
          timeUs: m.nowUs,
          tokenId: null,
          tokenName: webAuditName(member.username),
          method: facts.method,
          path: facts.target.rawPath,
          collection: 'ledger_entries',
          recordId: done.entry.id,
          status: 303,
        });
      }
      return done;
    });
  } catch (error) {
    if (!(error instanceof LedgerRefused)) throw error;
    return answer(m, 422, { refused: ledgerRefusal(m, form, error), typed });
  }
  reply.header('set-cookie', setCookie(DONE_COOKIE, String(recorded.entry.id), { https: isHttps(facts.base), maxAgeSeconds: null }));
  return seeOther(reply, SLATE_PATH);
}

interface ChangeBase {
  readonly userId: number;
  readonly key: string | null;
  readonly by: ledger.Recorder;
  readonly nowUs: number;
}

/** A positive id as a form sends it; null for anything else. */
function idOf(text: string): number | null {
  return /^[0-9]{1,10}$/.test(text.trim()) ? Number(text.trim()) : null;
}

/** POST /accounts/balance/product: `product`. */
export function submitProduct(m: Slate): Promise<FastifyReply> {
  const productId = idOf(field(m.form, 'product'));
  const rules = m.ex.services.config.ledger;
  return record(m, 'product', NOTHING_TYPED, (trx, base) => {
    if (productId === null) throw new LedgerRefused('product-unknown', 'product');
    return ledger.buy(trx, rules, { ...base, productId });
  });
}

/** A form with an amount (`value`): refused with the page (422) when the amount is not one, else recorded by `change`. */
async function amountForm(
  m: Slate,
  form: SlateForm,
  typed: SlateTyped,
  value: string,
  change: (trx: Db, base: ChangeBase, cents: number) => Promise<Recorded>,
): Promise<FastifyReply> {
  const amount = readAmount(value, m.ex.services.config.ledger.maxAmountCents);
  if (!(await hasRight(m.ex.services.database.db, memberOf(m).id, RIGHT))) return notAllowed(m);
  if ('problem' in amount) return answer(m, 422, { refused: amountRefusal(m, form, amount.problem), typed });
  return record(m, form, typed, (trx, base) => change(trx, base, amount.cents));
}

/** POST /accounts/balance/spend: `name` (≤ 100 characters), `value`. */
export function submitSpend(m: Slate): Promise<FastifyReply> {
  const name = field(m.form, 'name');
  const value = field(m.form, 'value');
  const rules = m.ex.services.config.ledger;
  return amountForm(m, 'spend', { ...NOTHING_TYPED, name, spendValue: value }, value, (trx, base, amountCents) => ledger.spend(trx, rules, { ...base, name, amountCents }));
}

/** POST /accounts/balance/top: `location` (BANK or CASH), `value`. */
export function submitTop(m: Slate): Promise<FastifyReply> {
  const location = field(m.form, 'location');
  const value = field(m.form, 'value');
  const rules = m.ex.services.config.ledger;
  return amountForm(m, 'top', { ...NOTHING_TYPED, location, topValue: value }, value, (trx, base, amountCents) => ledger.topUp(trx, rules, { ...base, location, amountCents }));
}

/** POST /accounts/balance/transfer: `recipient` (a member's id), `value`. */
export function submitTransfer(m: Slate): Promise<FastifyReply> {
  const recipient = field(m.form, 'recipient');
  const value = field(m.form, 'value');
  const rules = m.ex.services.config.ledger;
  const recipientId = idOf(recipient);
  return amountForm(m, 'transfer', { ...NOTHING_TYPED, recipient, transferValue: value }, value, (trx, base, amountCents) => {
    if (recipientId === null) throw new LedgerRefused('recipient-unknown', 'recipient');
    return ledger.transfer(trx, rules, { ...base, recipientId, amountCents });
  });
}

/** POST /accounts/balance/undo/<entry id>: the member's own purchase, spend or transfer, within LEDGER_UNDO_MINUTES. */
export function submitUndo(m: MemberExchange<number>): Promise<FastifyReply> {
  const entryId = m.ex.params;
  const rules = m.ex.services.config.ledger;
  return record(m, 'undo', NOTHING_TYPED, (trx, base) => ledger.undo(trx, rules, { ...base, entryId }));
}

/** POST /accounts/balance/kiosk: `on_kiosk` checked or not (whether the member appears on the kiosk: ledger.md §4). */
export async function submitKiosk(m: Slate): Promise<FastifyReply> {
  const { services, facts, reply } = m.ex;
  const member = memberOf(m);
  const shown = m.form.has('on_kiosk');
  await services.writes.run(async (trx) => {
    await slate.chooseKiosk(trx, member.id, shown);
    await recordAudit(trx, {
      timeUs: m.nowUs,
      tokenId: null,
      tokenName: webAuditName(member.username),
      method: facts.method,
      path: facts.target.rawPath,
      collection: 'stock_members',
      recordId: member.id,
      status: 303,
    });
  });
  reply.header('set-cookie', setCookie(DONE_COOKIE, shown ? KIOSK_DONE.on : KIOSK_DONE.off, { https: isHttps(facts.base), maxAgeSeconds: null }));
  return seeOther(reply, SLATE_PATH);
}
