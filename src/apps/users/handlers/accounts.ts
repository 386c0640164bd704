import type { FastifyReply } from 'fastify';
import type { Db } from '../../../db/connection.js';
import { lastValue } from '../../../drf/query.js';
import { logIn } from '../login.js';
import { HashingBusy } from '../passwords.js';
import { endSession, startSession } from '../sessions.js';
import { isHttps, setCookie } from '../../../request/cookies.js';
import { SESSION_COOKIE } from '../../../request/facts.js';
import { field } from '../../../request/form.js';
import { safeNext } from '../../../request/next-path.js';
import { loginPage, logoutPage, type LoginForm } from '../web/accounts.js';
import { messagePage } from '../../../web/message-page.js';
import { html } from '../../../web/html.js';
import { wordsHtml } from '../../../web/words-html.js';
import { siteFor } from '../../../web/layout.js';
import { clearSessionCookie, type MemberExchange } from './member-pages.js';
import { seeOther, sendPage } from '../../../http/reply.js';

/** Logging in and out (members.md §2). */

/** GET /accounts/login/: the form, with `next` carried along. */
export async function showLogin(m: MemberExchange<unknown>): Promise<FastifyReply> {
  const next = safeNext(lastValue(m.ex.facts.target.query, 'next'));
  return sendPage(m.ex.reply, 200, await loginForm(m, { username: '', next, error: null }));
}

/**
 * POST /accounts/login/: the password checked (login.ts: throttled, the same work for an unknown
 * name), then a new session (never the id the browser came with: a planted id would otherwise
 * become a live session), its cookie, and 303 to `next`.
 */
export async function submitLogin(m: MemberExchange<unknown>): Promise<FastifyReply> {
  const { ex, form, nowUs } = m;
  const { request, reply, facts, services } = ex;
  const db = services.database.db;
  const username = field(form, 'username');
  const password = field(form, 'password');
  const next = safeNext(form.get('next') ?? lastValue(facts.target.query, 'next'));
  const w = m.site.words;
  if (!services.config.members.passwordLogin) {
    const provider = services.oidc?.settings.name ?? w.t('users.login.sso');
    const message = wordsHtml(w, 'users.login.passwords-off', { provider }, { link: (chunks) => html`<a href="/accounts/login/">${chunks}</a>` });
    return sendPage(reply, 403, messagePage(m.site, { title: w.t('users.login.passwords-off-title'), message }));
  }
  if (username.trim() === '' || password === '') {
    return sendPage(reply, 422, await loginForm(m, { username, next, error: w.t('users.login.blank') }));
  }
  let result;
  try {
    result = await logIn(db, services.hasher, { username, password, client: request.ip }, nowUs);
  } catch (error) {
    if (!(error instanceof HashingBusy)) throw error;
    reply.header('retry-after', String(error.retryAfterSeconds));
    return sendPage(reply, 503, messagePage(m.site, { title: w.t('users.busy.title'), message: w.t('users.login.busy', { seconds: error.retryAfterSeconds }) }));
  }
  // The one message of every failed login: it never tells whether the account exists.
  if (result.kind === 'wrong') return sendPage(reply, 422, await loginForm(m, { username, next, error: w.t('users.login.wrong') }));
  if (result.kind === 'throttled') {
    const untilUs = nowUs + result.retryAfterSeconds * 1_000_000;
    reply.header('retry-after', String(result.retryAfterSeconds));
    const message = wordsHtml(
      w,
      'users.login.wait',
      { until: w.dateTime(untilUs) },
      { time: (chunks) => html`<time datetime="${services.times.format(untilUs)}">${chunks}</time>` },
    );
    return sendPage(reply, 429, messagePage(m.site, { title: w.t('users.login.wait-title'), message }));
  }
  // `form`, the password form: no log line carries the name of the original's private field `password`.
  request.log.info({ member: result.member.id, login: 'form' }, 'member logged in');
  return startMemberSession(m, result.member.id, next);
}

/**
 * The end of every kind of login (password, single sign-on, passkey): the session the browser came
 * with ended, a new one started and its cookie set (with `otherCookies`, the set-cookie headers
 * set so far replaced), 303 to `next`.
 */
export async function startMemberSession(m: MemberExchange<unknown>, memberId: number, next: string, otherCookies: readonly string[] = []): Promise<FastifyReply> {
  const { reply, facts, services } = m.ex;
  const db = services.database.db;
  if (facts.session !== null) await endSession(db, facts.session);
  const days = services.config.members.sessionDays;
  const id = await startSession(db, memberId, m.nowUs, days);
  reply.removeHeader('set-cookie');
  reply.header('set-cookie', [...otherCookies, setCookie(SESSION_COOKIE, id, { https: isHttps(facts.base), maxAgeSeconds: days * 86_400 })]);
  return seeOther(reply, next);
}

/** GET /accounts/logout/: a button; a GET never logs out (a link, a prefetch, an image could). */
export async function showLogout(m: MemberExchange<unknown>): Promise<FastifyReply> {
  const member = m.viewer === null ? null : { name: m.viewer.member.username, csrf: m.csrf };
  return sendPage(m.ex.reply, 200, logoutPage(m.site, member));
}

/** POST /accounts/logout/: the session ended in the database (every process sees it at once), the cookie removed, 303 to `/`. */
export async function submitLogout(m: MemberExchange<unknown>): Promise<FastifyReply> {
  const { reply, facts, services } = m.ex;
  if (facts.session !== null) await endSession(services.database.db, facts.session);
  reply.removeHeader('set-cookie');
  clearSessionCookie(reply, facts.base, SESSION_COOKIE);
  return seeOther(reply, '/');
}

/** A visitor posting the logout form (a session already ended): nothing to end; the cookie goes. */
export async function logoutWithoutSession(m: MemberExchange<unknown>): Promise<FastifyReply> {
  if (m.ex.facts.method !== 'POST') return showLogout(m);
  return submitLogout(m);
}

/** The login page for this request, with what was typed and why it is shown again. */
export async function loginForm(m: MemberExchange<unknown>, typed: Pick<LoginForm, 'username' | 'next' | 'error'>): Promise<Buffer> {
  const db = m.ex.services.database.db;
  // A visitor's log-in link on the login page itself leads nowhere else.
  const site = m.viewer === null ? siteFor(m.site, m.site.words, { member: null, next: null }) : m.site;
  return loginPage(site, {
    ...typed,
    csrf: m.csrf,
    noSuperuser: !(await hasSuperuser(db)),
    loggedInAs: m.viewer?.member.username ?? null,
    passwordLogin: m.ex.services.config.members.passwordLogin,
    oidcName: m.ex.services.oidc?.settings.name ?? null,
    passkeys: m.ex.services.config.members.passkeys,
  });
}

async function hasSuperuser(db: Db): Promise<boolean> {
  const row = await db.selectFrom('users').select('id').where('is_superuser', '=', 1).where('is_active', '=', 1).limit(1).executeTakeFirst();
  return row !== undefined;
}
