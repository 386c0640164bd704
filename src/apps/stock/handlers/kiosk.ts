import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { presentedSecret } from '../../../drf/auth.js';
import { sendJson, sendPage } from '../../../http/reply.js';
import type { Exchange } from '../../../http/route.js';
import type { Services } from '../../../http/services.js';
import { PRIVATE, wordsFor } from '../../../http/viewing.js';
import type { MessageKey, Words } from '../../../i18n/words.js';
import { cookieName, isHttps, parseCookies, setCookie } from '../../../request/cookies.js';
import { CSRF_COOKIE, CSRF_FIELD, csrfToken, csrfTokenMatches, originAllowed } from '../../../request/csrf.js';
import { isFormType, parseForm } from '../../../request/form.js';
import { recordAudit } from '../../../resources/audit.js';
import type { TokenInfo } from '../../../resources/tokens.js';
import { HTML_HEADERS } from '../../../web/layout.js';
import {
  isKioskKey,
  isScannedCode,
  KIOSK_UNDO_SECONDS,
  kioskBuy,
  kioskMember,
  kioskMemberByCode,
  kioskMembers,
  kioskProductByBarcode,
  kioskProducts,
  kioskToken,
  kioskUndo,
  KioskUndoRefused,
  undoDeadlineUs,
  type KioskMember,
  type KioskPurchase,
} from '../kiosk.js';
import { LedgerRefused, type LedgerRules, type Refusal } from '../ledger.js';
import { formatCents } from '../money.js';
import { stockCounts } from '../products.js';
import { REFUSAL_WORDS } from '../words.js';
import { KIOSK_PATH, kioskPage, openingPage, type KioskOutcome, type KioskSite } from '../web/kiosk.js';

/**
 * The kiosk's answers (ledger.md §4).
 *
 * Opening: `GET /stock/kiosk/` on a device that holds no kiosk token shows a form where the
 * operator pastes one (scope `kiosk`, `hackerspace-api token create --name fridge --scope kiosk`);
 * `POST /stock/kiosk/open` checks it and keeps it in a cookie (`kiosk`, `__Host-kiosk` on HTTPS:
 * HttpOnly, SameSite=Strict, Secure on HTTPS, a year) so that the tablet stays open. Every kiosk
 * request checks the token again: revoking it closes the kiosk at its next request. The JSON
 * endpoints also take `Authorization: Token <secret>`. A kiosk token records kiosk purchases and
 * their undo, nothing else: the API's writes refuse it (drf/auth.ts mayWrite) and member pages
 * know only sessions.
 *
 * Forgery: the cookie is SameSite=Strict and every POST made with it carries the page's token
 * (`csrfmiddlewaretoken`, or the `X-CSRFToken` header for the script), an HMAC keyed by the
 * kiosk's secret, and a same-origin Origin when the browser sends one. The opening form is tied to
 * the pre-session cookie, as the login form is.
 *
 * `POST /stock/kiosk/purchase` {member | member_code, product | barcode, key},
 * `POST /stock/kiosk/scan` {code, member?, key} (a member's card chooses them; a product's barcode
 * buys it for the member chosen) and `POST /stock/kiosk/undo` {entry, key} take JSON (the page's
 * script) or a form (the page without its script: the answer is the page). Refusals are 422 with
 * `{"<field>": ["…"]}` or `{"detail": "…"}` in the page's language; bad input never fails with 500.
 */

/** The cookie that keeps a kiosk open on a device. */
export const KIOSK_COOKIE = 'kiosk';
const KIOSK_COOKIE_SECONDS = 365 * 24 * 3600;
/** The header that carries the page's token on the script's requests (Django's name). */
const CSRF_HEADER = 'x-csrftoken';

/** A device the kiosk is open on, or a caller with a kiosk token. */
interface KioskAccess {
  readonly token: TokenInfo;
  readonly secret: string;
  /** Through the cookie (a POST needs the page's token) or an Authorization header. */
  readonly via: 'cookie' | 'header';
}

type Closed = { readonly closed: 'none' | 'unknown' | 'scope' | 'throttled'; readonly waitSeconds?: number };

function siteOf(services: Services, words: Words): KioskSite {
  return { name: services.site.name, assets: services.site.assets, words };
}

function wordsOf(ex: Exchange): Words {
  return wordsFor(ex.services.catalogue, ex.services.viewing, ex.facts, null);
}

function privateHeaders(ex: Exchange, methods: string): void {
  ex.reply.headers(HTML_HEADERS).header('allow', methods).header('cache-control', PRIVATE);
}

function kioskCookieName(ex: Exchange): string {
  return cookieName(KIOSK_COOKIE, isHttps(ex.facts.base));
}

/** The `Set-Cookie` of the kiosk's cookie: the service's attributes, but SameSite=Strict (a kiosk never arrives from another site). */
function kioskCookie(ex: Exchange, secret: string, maxAgeSeconds: number): string {
  return setCookie(KIOSK_COOKIE, secret, { https: isHttps(ex.facts.base), maxAgeSeconds }).replace('SameSite=Lax', 'SameSite=Strict');
}

/** The kiosk token the request presents (header first, then the cookie), checked now; or why the kiosk is closed to it. */
async function accessOf(ex: Exchange): Promise<KioskAccess | Closed> {
  const { request, services } = ex;
  const presented = presentedSecret(request.headers.authorization);
  const nowMs = Date.now();
  if (presented !== null) {
    // A header is a program's: its failures count towards the client's throttle, as the API's do.
    const wait = services.throttle.waitSeconds(request.ip, nowMs);
    if (wait > 0) return { closed: 'throttled', waitSeconds: wait };
    const found = typeof presented === 'string' ? await kioskToken(services.database.db, presented, nowMs * 1000) : { refused: 'unknown' as const };
    if ('refused' in found) {
      services.throttle.recordFailure(request.ip, nowMs);
      return { closed: found.refused };
    }
    return { token: found.token, secret: presented as string, via: 'header' };
  }
  const cookie = request.headers.cookie === undefined ? undefined : parseCookies(request.headers.cookie).get(kioskCookieName(ex));
  if (cookie === undefined || cookie === '') return { closed: 'none' };
  const found = await kioskToken(services.database.db, cookie, nowMs * 1000);
  if ('refused' in found) return { closed: found.refused };
  return { token: found.token, secret: cookie, via: 'cookie' };
}

function isClosed(access: KioskAccess | Closed): access is Closed {
  return 'closed' in access;
}

/** The pre-session key of the opening form (the login form's cookie, `csrftoken`); made by a GET when the browser has none. */
function preSessionKey(ex: Exchange, make: boolean): string | null {
  const https = isHttps(ex.facts.base);
  const header = ex.request.headers.cookie;
  const kept = header === undefined ? undefined : parseCookies(header).get(cookieName(CSRF_COOKIE, https));
  if (kept !== undefined && /^[A-Za-z0-9_-]{43}$/.test(kept)) return kept;
  if (!make) return null;
  const made = randomBytes(32).toString('base64url');
  ex.reply.header('set-cookie', setCookie(CSRF_COOKIE, made, { https, maxAgeSeconds: null }));
  return made;
}

const CLOSED_WORDS: Readonly<Record<Closed['closed'], MessageKey | null>> = {
  none: null,
  unknown: 'stock.kiosk.closed.unknown',
  scope: 'stock.kiosk.closed.scope',
  throttled: 'stock.kiosk.closed.throttled',
};

function closedText(words: Words, closed: Closed): string | null {
  const key = CLOSED_WORDS[closed.closed];
  return key === null ? null : words.t(key, { seconds: closed.waitSeconds ?? 0 });
}

function sendOpening(ex: Exchange, status: number, error: string | null): FastifyReply {
  const words = wordsOf(ex);
  const csrf = csrfToken(preSessionKey(ex, true)!);
  return sendPage(ex.reply, status, openingPage(siteOf(ex.services, words), { csrf, error }));
}

/** `GET /stock/kiosk/` (and `?member=<id>`, step 2 without the script): the kiosk, or its opening form. */
export async function showKiosk(ex: Exchange): Promise<FastifyReply> {
  privateHeaders(ex, 'GET, HEAD');
  if (ex.facts.method !== 'GET' && ex.facts.method !== 'HEAD') return methodRefused(ex);
  const access = await accessOf(ex);
  if (isClosed(access)) {
    // A revoked or changed token closes the kiosk: its cookie goes.
    if (access.closed === 'unknown' || access.closed === 'scope') ex.reply.header('set-cookie', kioskCookie(ex, '', 0));
    return sendOpening(ex, 200, closedText(wordsOf(ex), access));
  }
  const words = wordsOf(ex);
  const wanted = new URLSearchParams(ex.facts.target.rawQuery).get('member');
  let member: KioskMember | null = null;
  let error: string | null = null;
  if (wanted !== null) {
    member = (/^[0-9]{1,10}$/.test(wanted) ? await kioskMember(ex.services.database.db, Number(wanted)) : undefined) ?? null;
    if (member === null) error = words.t('stock.kiosk.refused.member');
  }
  return sendKiosk(ex, access, error === null ? 200 : 404, { member, outcome: { said: null, belowZero: false, undo: null }, error });
}

async function sendKiosk(
  ex: Exchange,
  access: KioskAccess,
  status: number,
  shown: { member: KioskMember | null; outcome: KioskOutcome; error: string | null },
): Promise<FastifyReply> {
  const words = wordsOf(ex);
  const db = ex.services.database.db;
  const [members, products] = await Promise.all([kioskMembers(db), kioskProducts(db)]);
  ex.reply.headers(HTML_HEADERS).header('cache-control', PRIVATE);
  return sendPage(
    ex.reply,
    status,
    kioskPage(siteOf(ex.services, words), {
      csrf: csrfToken(access.secret),
      members,
      products,
      member: shown.member,
      outcome: shown.outcome,
      error: shown.error,
      newKey: () => randomBytes(16).toString('base64url'),
      undoSeconds: KIOSK_UNDO_SECONDS,
    }),
  );
}

function methodRefused(ex: Exchange): FastifyReply {
  const words = wordsOf(ex);
  return sendJson(ex.reply.code(405), { detail: words.t('stock.kiosk.refused.method', { method: ex.facts.method }) });
}

/** `POST /stock/kiosk/open` {token}: a kiosk token kept in the device's cookie, then the kiosk (303); refused, the form again. */
export async function openKiosk(ex: Exchange): Promise<FastifyReply> {
  const { request, reply, services, facts } = ex;
  privateHeaders(ex, 'POST');
  if (facts.method !== 'POST') return methodRefused(ex);
  const words = wordsOf(ex);
  const body = request.body as Buffer | undefined;
  const reading = isFormType(request.headers['content-type']) ? parseForm(body) : null;
  if (!originAllowed(request.headers.origin, facts.base) || reading === null || !reading.ok || !csrfTokenMatches(preSessionKey(ex, false), reading.form.get(CSRF_FIELD))) {
    return sendOpening(ex, 403, words.t('stock.kiosk.refused.form'));
  }
  const secret = (reading.form.get('token') ?? '').trim();
  if (secret === '') return sendOpening(ex, 422, words.t('stock.kiosk.open.missing'));
  const nowMs = Date.now();
  const wait = services.throttle.waitSeconds(request.ip, nowMs);
  if (wait > 0) return sendOpening(ex, 429, closedText(words, { closed: 'throttled', waitSeconds: wait }));
  const found = await kioskToken(services.database.db, secret, nowMs * 1000);
  if ('refused' in found) {
    services.throttle.recordFailure(request.ip, nowMs);
    return sendOpening(ex, 403, closedText(words, { closed: found.refused }));
  }
  if (!/^[A-Za-z0-9_-]+$/.test(secret)) return sendOpening(ex, 403, closedText(words, { closed: 'unknown' }));
  request.log.info({ token: found.token.name }, 'kiosk opened');
  return reply
    .code(303)
    .header('set-cookie', kioskCookie(ex, secret, KIOSK_COOKIE_SECONDS))
    .header('location', KIOSK_PATH)
    .send();
}

/** A kiosk POST's fields, read from JSON or a form, each as text; or why it cannot be read. */
type Fields = { form: boolean; get(name: string): string | undefined };

function readFields(ex: Exchange): Fields | null {
  const { request } = ex;
  const body = request.body as Buffer | undefined;
  const type = request.headers['content-type'];
  if (isFormType(type)) {
    const reading = parseForm(body);
    if (!reading.ok) return null;
    return { form: true, get: (name) => reading.form.get(name) };
  }
  const media = type?.split(';', 1)[0].trim().toLowerCase();
  if (media !== 'application/json') return null;
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body ?? Buffer.alloc(0)));
  } catch {
    return null;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const object = value as Record<string, unknown>;
  return {
    form: false,
    get(name) {
      const field = object[name];
      if (typeof field === 'string') return field;
      if (typeof field === 'number' && Number.isFinite(field)) return String(field);
      return undefined;
    },
  };
}

/** A refusal: `{"<field>": ["…"]}` (or `{"detail": "…"}`) for the script, the kiosk page with the message for a form. */
interface Refused {
  readonly status: number;
  readonly field: string | null;
  readonly message: string;
}

class KioskRefused extends Error {
  constructor(readonly refused: Refused) {
    super(refused.message);
  }
}

function refuse(status: number, field: string | null, message: string): never {
  throw new KioskRefused({ status, field, message });
}

/** The kiosk's POSTs: the kiosk open to the caller, its fields read and checked, the answer as JSON or as the page. */
async function kioskPost(
  ex: Exchange,
  work: (access: KioskAccess, fields: Fields, words: Words) => Promise<{ json: unknown; member: KioskMember | null; outcome: KioskOutcome }>,
): Promise<FastifyReply> {
  const { request, reply, facts } = ex;
  reply.header('allow', 'POST').header('cache-control', PRIVATE);
  if (facts.method !== 'POST') return methodRefused(ex);
  const words = wordsOf(ex);
  const access = await accessOf(ex);
  if (isClosed(access)) {
    if (access.closed === 'throttled') reply.header('retry-after', String(access.waitSeconds ?? 1));
    if (access.closed === 'unknown' || access.closed === 'scope') reply.header('set-cookie', kioskCookie(ex, '', 0));
    const status = access.closed === 'throttled' ? 429 : access.closed === 'scope' ? 403 : 401;
    if (status === 401) reply.header('www-authenticate', 'Token');
    return sendJson(reply.code(status), { detail: closedText(words, access) ?? words.t('stock.kiosk.closed.none') });
  }
  const fields = readFields(ex);
  const asPage = fields?.form === true && access.via === 'cookie';
  if (access.via === 'cookie') {
    const presented = fields?.form === true ? fields.get(CSRF_FIELD) : headerValue(request.headers[CSRF_HEADER]);
    if (!originAllowed(request.headers.origin, facts.base) || !csrfTokenMatches(access.secret, presented)) {
      return sendJson(reply.code(403), { detail: words.t('stock.kiosk.refused.form') });
    }
  }
  if (fields === null) return sendJson(reply.code(400), { detail: words.t('stock.kiosk.refused.body') });
  try {
    const done = await work(access, fields, words);
    if (!asPage) return sendJson(reply.code(200), done.json);
    return sendKiosk(ex, access, 200, { member: done.member, outcome: done.outcome, error: null });
  } catch (error) {
    if (!(error instanceof KioskRefused)) throw error;
    const { status, field, message } = error.refused;
    if (!asPage) return sendJson(reply.code(status), field === null ? { detail: message } : { [field]: [message] });
    const wanted = fields.get('member');
    const member = wanted !== undefined && /^[0-9]{1,10}$/.test(wanted) ? ((await kioskMember(ex.services.database.db, Number(wanted))) ?? null) : null;
    return sendKiosk(ex, access, status, { member, outcome: { said: null, belowZero: false, undo: null }, error: message });
  }
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function rulesOf(services: Services): LedgerRules {
  return services.config.ledger;
}

/** The ledger's refusals in the kiosk's words. */
function refusalOf(words: Words, rules: LedgerRules, error: LedgerRefused): never {
  const refusal: Refusal = error.refusal;
  if (refusal === 'member-unknown') refuse(422, 'member', words.t('stock.kiosk.refused.member'));
  if (refusal === 'product-unknown') refuse(422, 'product', words.t(REFUSAL_WORDS[refusal]));
  if (refusal === 'undo-unknown') refuse(422, 'entry', words.t(REFUSAL_WORDS[refusal]));
  if (refusal === 'undo-too-late') refuse(422, null, words.t('stock.kiosk.refused.undo-too-late', { seconds: KIOSK_UNDO_SECONDS }));
  if (refusal === 'debt-limit') refuse(422, null, words.t(REFUSAL_WORDS[refusal], { limit: words.money((rules.debtLimitCents ?? 0) / 100) }));
  refuse(422, null, words.t(REFUSAL_WORDS[refusal], { minutes: rules.undoMinutes }));
}

function keyOf(fields: Fields, words: Words): string {
  const key = fields.get('key');
  if (key === undefined || !isKioskKey(key)) refuse(422, 'key', words.t('stock.kiosk.refused.key'));
  return key;
}

function idOf(text: string | undefined): number | null {
  return text !== undefined && /^[0-9]{1,10}$/.test(text.trim()) ? Number(text.trim()) : null;
}

async function memberOf(ex: Exchange, fields: Fields, words: Words, required: boolean): Promise<KioskMember | null> {
  const db = ex.services.database.db;
  const id = fields.get('member');
  const code = fields.get('member_code');
  if ((id === undefined || id === '') && (code === undefined || code === '')) {
    if (required) refuse(422, 'member', words.t('stock.kiosk.refused.member'));
    return null;
  }
  if (id !== undefined && id !== '') {
    const number = idOf(id);
    const member = number === null ? undefined : await kioskMember(db, number);
    if (member === undefined) refuse(422, 'member', words.t('stock.kiosk.refused.member'));
    return member;
  }
  const member = isScannedCode(code!) ? await kioskMemberByCode(db, code!) : undefined;
  if (member === undefined) refuse(422, 'member_code', words.t('stock.kiosk.refused.member-code'));
  return member;
}

/** What a purchase answers: the script's JSON, and the page's sentence and undo form. */
async function purchaseAnswer(ex: Exchange, member: KioskMember, recorded: KioskPurchase, words: Words): Promise<{ json: unknown; member: KioskMember; outcome: KioskOutcome }> {
  const { entry, balanceCents } = recorded;
  const nowUs = Date.now() * 1000;
  const deadlineUs = undoDeadlineUs(entry);
  const secondsLeft = Math.max(0, Math.floor((deadlineUs - nowUs) / 1_000_000));
  const price = -Number(entry.amount_cents);
  let said = words.t('stock.kiosk.bought', { product: recorded.productName, price: words.money(price / 100), balance: words.money(balanceCents / 100) });
  if (balanceCents < 0) said += ' ' + words.t('stock.kiosk.below-zero');
  let soldOut = false;
  if (entry.product_id !== null) {
    const product = await ex.services.database.db.selectFrom('stock_products').select('counts_stock').where('id', '=', entry.product_id).executeTakeFirst();
    if (product?.counts_stock === 1) soldOut = ((await stockCounts(ex.services.database.db, [entry.product_id])).get(entry.product_id) ?? 0) <= 0;
  }
  const undoKey = randomBytes(16).toString('base64url');
  return {
    json: {
      entry: entry.id,
      member,
      product: { id: entry.product_id, name: recorded.productName, sold_out: soldOut },
      price: formatCents(price),
      balance: formatCents(balanceCents),
      said,
      below_zero: balanceCents < 0,
      undo_until: new Date(deadlineUs / 1000).toISOString(),
      undo_seconds_left: secondsLeft,
      repeated: recorded.repeated,
    },
    member,
    outcome: { said, belowZero: balanceCents < 0, undo: secondsLeft > 0 ? { entryId: entry.id, key: undoKey, secondsLeft } : null },
  };
}

/** A purchase at the kiosk, recorded in one announced transaction with its audit entry (the kiosk's token named). */
async function recordPurchase(ex: Exchange, access: KioskAccess, words: Words, member: KioskMember, productId: number, key: string): Promise<KioskPurchase> {
  const { services, facts } = ex;
  const rules = rulesOf(services);
  const nowUs = Date.now() * 1000;
  try {
    return await services.writes.run(async (trx) => {
      const recorded = await kioskBuy(trx, rules, { memberId: member.id, productId, key, nowUs });
      if (!recorded.repeated) await audit(trx, access, facts.target.rawPath, recorded.entry.id, nowUs);
      return recorded;
    });
  } catch (error) {
    if (error instanceof LedgerRefused) refusalOf(words, rules, error);
    throw error;
  }
}

function audit(trx: Parameters<typeof recordAudit>[0], access: KioskAccess, path: string, recordId: number, nowUs: number): Promise<void> {
  return recordAudit(trx, { timeUs: nowUs, tokenId: access.token.id, tokenName: access.token.name, method: 'POST', path, collection: 'stock/ledger', recordId, status: 200 });
}

/** `POST /stock/kiosk/purchase` {member | member_code, product | barcode, key}. */
export function purchaseAtKiosk(ex: Exchange): Promise<FastifyReply> {
  return kioskPost(ex, async (access, fields, words) => {
    const key = keyOf(fields, words);
    const member = (await memberOf(ex, fields, words, true))!;
    const productId = await productIdOf(ex, fields, words);
    const recorded = await recordPurchase(ex, access, words, member, productId, key);
    return purchaseAnswer(ex, member, recorded, words);
  });
}

async function productIdOf(ex: Exchange, fields: Fields, words: Words): Promise<number> {
  const product = fields.get('product');
  if (product !== undefined && product !== '') {
    const id = idOf(product);
    if (id === null) refuse(422, 'product', words.t(REFUSAL_WORDS['product-unknown']));
    return id;
  }
  const barcode = fields.get('barcode');
  if (barcode === undefined || barcode === '') refuse(422, 'product', words.t(REFUSAL_WORDS['product-unknown']));
  const found = isScannedCode(barcode) ? await kioskProductByBarcode(ex.services.database.db, barcode) : undefined;
  if (found === undefined) refuse(422, 'barcode', words.t('stock.kiosk.refused.barcode'));
  return found.id;
}

/**
 * `POST /stock/kiosk/scan` {code, member?, key}: what a scanner read. A member's card chooses
 * them (`{"member": …}`; a card wins over a barcode with the same digits); a product's barcode
 * buys it for the member chosen (the purchase's answer, with `"purchase": true`).
 */
export function scanAtKiosk(ex: Exchange): Promise<FastifyReply> {
  return kioskPost(ex, async (access, fields, words) => {
    const code = (fields.get('code') ?? '').trim();
    if (!isScannedCode(code)) refuse(422, 'code', words.t('stock.kiosk.refused.code'));
    const db = ex.services.database.db;
    const cardholder = await kioskMemberByCode(db, code);
    if (cardholder !== undefined) return { json: { member: cardholder }, member: cardholder, outcome: { said: null, belowZero: false, undo: null } };
    const product = await kioskProductByBarcode(db, code);
    if (product === undefined) refuse(422, 'code', words.t('stock.kiosk.refused.code'));
    const member = await memberOf(ex, fields, words, false);
    if (member === null) refuse(422, null, words.t('stock.kiosk.refused.member-first'));
    const key = keyOf(fields, words);
    const recorded = await recordPurchase(ex, access, words, member, product.id, key);
    const answer = await purchaseAnswer(ex, member, recorded, words);
    return { ...answer, json: { ...(answer.json as object), purchase: true } };
  });
}

/** `POST /stock/kiosk/undo` {entry, key}: a kiosk purchase undone within KIOSK_UNDO_SECONDS. */
export function undoAtKiosk(ex: Exchange): Promise<FastifyReply> {
  return kioskPost(ex, async (access, fields, words) => {
    const { services, facts } = ex;
    const key = keyOf(fields, words);
    const entryId = idOf(fields.get('entry'));
    if (entryId === null) refuse(422, 'entry', words.t(REFUSAL_WORDS['undo-unknown']));
    const rules = rulesOf(services);
    const nowUs = Date.now() * 1000;
    let recorded: KioskPurchase;
    try {
      recorded = await services.writes.run(async (trx) => {
        const done = await kioskUndo(trx, rules, { entryId, key, nowUs });
        if (!done.repeated) await audit(trx, access, facts.target.rawPath, done.entry.id, nowUs);
        return done;
      });
    } catch (error) {
      if (error instanceof KioskUndoRefused) refuse(422, null, words.t('stock.kiosk.refused.undo-kind'));
      if (error instanceof LedgerRefused) refusalOf(words, rules, error);
      throw error;
    }
    const member = await services.database.db.selectFrom('users').select(['id', 'username as name']).where('id', '=', recorded.entry.user_id).executeTakeFirstOrThrow();
    const said = words.t('stock.kiosk.undone', { product: recorded.productName, balance: words.money(recorded.balanceCents / 100) });
    return {
      json: {
        entry: recorded.entry.id,
        undone: recorded.entry.reverses_id,
        member,
        balance: formatCents(recorded.balanceCents),
        said,
        below_zero: recorded.balanceCents < 0,
        repeated: recorded.repeated,
      },
      member,
      outcome: { said, belowZero: recorded.balanceCents < 0, undo: null },
    };
  });
}
