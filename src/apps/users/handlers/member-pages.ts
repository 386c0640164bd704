import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { Db } from '../../../db/connection.js';
import type { MemberSession } from '../sessions.js';
import { recordAudit, webAuditName } from '../../../resources/audit.js';
import { clearCookie, cookieName, isHttps, parseCookies, setCookie } from '../../../request/cookies.js';
import { CSRF_COOKIE, CSRF_FIELD, csrfToken, csrfTokenMatches, originAllowed } from '../../../request/csrf.js';
import { isFormType, MAX_FORM_FIELDS, parseForm, type Form, type FormLists } from '../../../request/form.js';
import { loginUrl } from '../../../request/next-path.js';
import { sendPage } from '../../../http/reply.js';
import { declareRoute, type Exchange, type Route, type RoutePath } from '../../../http/route.js';
import type { Services } from '../../../http/services.js';
import { messagePage } from '../../../web/message-page.js';
import { HTML_HEADERS, siteFor, type Site } from '../../../web/layout.js';
import { notFoundPage } from '../../../web/not-found.js';
import { takeNotice } from '../../../handlers/notice.js';
import { navOf, settleSessionCookie, viewerOf } from './viewer.js';
import { hereOf } from '../../../request/next-path.js';
import { wordsFor } from '../../../http/viewing.js';
import { PRIVATE } from '../../../http/viewing.js';

/**
 * Pages and forms that depend on who is logged in (members.md §2, §4): the login and logout pages,
 * and the profile, password and admin pages after them. Declared with `memberPage`, each gets
 * the same handling before its own: the viewer looked up once, a visitor sent to the login page
 * (with `next`), a member without the right refused, a POST's Origin, form and CSRF token
 * checked (a 403 page that changes nothing), and every answer private and never cached.
 */

export type Requirement = 'anyone' | 'member' | 'superuser';

/** What a member page's handler is given: the request, who sends it, the site as it is shown to them, the form posted. */
export interface MemberExchange<P> {
  readonly ex: Exchange<P>;
  /** The member logged in, or null; never null when the page requires a member. */
  readonly viewer: MemberSession | null;
  /** The site with this request's navigation (siteFor). */
  readonly site: Site;
  /** The CSRF token of the forms of the page it answers with (under `csrfmiddlewaretoken`). */
  readonly csrf: string;
  /** The fields of a POST (checked: Origin, UTF-8, CSRF); empty for a GET. */
  readonly form: Form;
  /** The same fields with every value of each (a list of checkboxes). */
  readonly lists: FormLists;
  readonly nowUs: number;
}

export interface MemberPageDeclaration<P> {
  name: string;
  template: string;
  match: (path: RoutePath) => P | null;
  /** GET (HEAD comes with it) and POST, as the page has them. */
  methods: readonly ('GET' | 'POST')[];
  requires: Requirement;
  /**
   * The forms of a page for visitors (the login form) are tied to a pre-session cookie
   * (`csrftoken`), set by the GET that shows the form; otherwise to the member's session.
   */
  preSession?: boolean;
  /** Served only when this says so (single sign-on's pages without a provider are unknown paths). */
  servedBy?: (services: Services) => boolean;
  /** What a visitor gets on a page that requires a member (default: 303 to the login page with `next`). */
  visitor?: (m: MemberExchange<P>) => Promise<FastifyReply>;
  handle: (m: MemberExchange<P>) => Promise<FastifyReply>;
}

/** A member page as an entry of the route table (src/routes/). */
export function memberPage<P>(declaration: MemberPageDeclaration<P>): Route {
  const methods = declaration.methods.flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method]));
  return declareRoute<P>({
    name: declaration.name,
    template: declaration.template,
    methods,
    page: true,
    slashRedirect: true,
    match: declaration.match,
    servedBy: declaration.servedBy,
    handle: (ex) => answerMemberPage(ex, declaration, methods),
  });
}

async function answerMemberPage<P>(ex: Exchange<P>, page: MemberPageDeclaration<P>, methods: readonly string[]): Promise<FastifyReply> {
  const { request, reply, facts } = ex;
  reply.headers(HTML_HEADERS).header('allow', methods.join(', ')).header('cache-control', PRIVATE);
  const viewer = await viewerOf(ex);
  settleSessionCookie(reply, facts, viewer);
  const shown = viewer !== null && (facts.method === 'GET' || facts.method === 'HEAD');
  const words = wordsFor(ex.services.catalogue, ex.services.viewing, facts, viewer);
  const site = siteFor(
    ex.services.site,
    words,
    navOf(facts, viewer),
    shown ? takeNotice(reply, facts, request.headers.cookie, ex.services.notices) : null,
    shown ? hereOf(facts) : null,
  );
  const nowUs = Date.now() * 1000;
  if (!methods.includes(facts.method)) {
    return sendPage(reply, 405, messagePage(site, { title: words.t('users.page.method-title'), message: words.t('users.page.method', { method: facts.method }) }));
  }
  const post = facts.method === 'POST';
  const csrfKey = page.preSession ? preSessionKey(ex, post) : viewer !== null ? facts.session : null;
  const m: MemberExchange<P> = { ex, viewer, site, csrf: csrfKey === null ? '' : csrfToken(csrfKey), form: new Map(), lists: new Map(), nowUs };
  if (post && !originAllowed(request.headers.origin, facts.base)) return refusedForm(m);
  if (viewer === null && page.requires !== 'anyone') {
    if (page.visitor) return page.visitor(m);
    return reply
      .code(303)
      .header('location', loginUrl(hereOf(facts)))
      .send();
  }
  if (page.requires === 'superuser' && !viewer!.member.isSuperuser) {
    return sendPage(reply, 403, messagePage(site, { title: words.t('users.page.not-allowed-title'), message: words.t('users.page.superusers-only') }));
  }
  if (!post) return page.handle(m);
  const contentType = request.headers['content-type'];
  const body = request.body as Buffer | undefined;
  if (contentType !== undefined && !isFormType(contentType)) {
    return sendPage(
      reply,
      415,
      messagePage(site, { title: words.t('users.page.not-form-title'), message: words.t('users.page.not-form', { type: 'application/x-www-form-urlencoded' }) }),
    );
  }
  const reading = parseForm(body);
  if (!reading.ok) {
    // request/form.ts says it in English: too many fields, or not UTF-8.
    const message = /UTF-8/.test(reading.problem) ? words.t('users.page.form-not-utf8') : words.t('users.page.form-too-many', { max: MAX_FORM_FIELDS });
    return sendPage(reply, 400, messagePage(site, { title: words.t('users.page.bad-request'), message }));
  }
  if (!csrfTokenMatches(csrfKey, reading.form.get(CSRF_FIELD))) return refusedForm(m);
  return page.handle({ ...m, form: reading.form, lists: reading.lists });
}

/**
 * The login form's CSRF key: the pre-session cookie, made by the GET that shows the form when
 * the browser has none (a POST without one is refused).
 */
function preSessionKey(ex: Exchange<unknown>, post: boolean): string | null {
  const https = isHttps(ex.facts.base);
  const header = ex.request.headers.cookie;
  const kept = header === undefined ? undefined : parseCookies(header).get(cookieName(CSRF_COOKIE, https));
  if (kept !== undefined && /^[A-Za-z0-9_-]{43}$/.test(kept)) return kept;
  if (post) return null;
  const made = randomBytes(32).toString('base64url');
  ex.reply.header('set-cookie', setCookie(CSRF_COOKIE, made, { https, maxAgeSeconds: null }));
  return made;
}

/** A POST without the right token or from another origin: a 403 page, nothing changed. */
export function refusedForm<P>(m: MemberExchange<P>): FastifyReply {
  const w = m.site.words;
  return sendPage(m.ex.reply, 403, messagePage(m.site, { title: w.t('users.page.form-refused-title'), message: w.t('users.page.form-refused') }));
}

/** Logging out: the cookie removed. */
export function clearSessionCookie(reply: FastifyReply, base: string | null, name: string): FastifyReply {
  return reply.header('set-cookie', clearCookie(name, isHttps(base)));
}

/** A 404 page for the request's path (an unknown record, a token that is not the member's). */
export function notFound<P>(m: MemberExchange<P>): FastifyReply {
  return sendPage(m.ex.reply, 404, notFoundPage(m.site, m.ex.facts.target.rawPath));
}

/** What the audit log records of a change made from a page (the method, path, time and who come from the request). */
export interface WebAudit {
  collection: string;
  recordId: number | null;
  status: number;
}

/**
 * A change made from a member's page: one announced write transaction (live/writes.ts: caches,
 * stream, webhooks), in which `work` calls `audit` for what it changed, so that the log and the
 * data agree.
 */
export function webWrite<P, T>(m: MemberExchange<P>, work: (trx: Db, audit: (entry: WebAudit) => Promise<void>) => Promise<T>): Promise<T> {
  const { services, facts } = m.ex;
  const tokenName = webAuditName(m.viewer!.member.username);
  return services.writes.run((trx) =>
    work(trx, (entry) => recordAudit(trx, { timeUs: m.nowUs, tokenId: null, tokenName, method: facts.method, path: facts.target.rawPath, ...entry })),
  );
}
