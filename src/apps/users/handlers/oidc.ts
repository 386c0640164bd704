import type { FastifyReply } from 'fastify';
import { lastValue } from '../../../drf/query.js';
import type { OidcClient } from '../oidc-client.js';
import { AnswerRefused, ProviderUnavailable } from '../oidc-errors.js';
import { FLOW_SECONDS, storeFlow, takeFlow } from '../oidc-flows.js';
import { memberForIdentity, type SsoOutcome } from '../oidc-members.js';
import { startMemberSession } from './accounts.js';
import { clearCookie, cookieName, isHttps, parseCookies, setCookie } from '../../../request/cookies.js';
import { safeNext } from '../../../request/next-path.js';
import { recordAudit } from '../../../resources/audit.js';
import { messagePage } from '../../../web/message-page.js';
import { html, type Html, type HtmlValue } from '../../../web/html.js';
import { wordsHtml } from '../../../web/words-html.js';
import type { Words } from '../../../i18n/words.js';
import { type MemberExchange } from './member-pages.js';
import { seeOther, sendPage } from '../../../http/reply.js';

/**
 * Logging in with the space's OpenID provider (members.md §5): `/accounts/oidc/login/` begins the
 * authorization code flow (PKCE, state, nonce), `/accounts/oidc/callback/` finishes it, on any
 * process: what the callback checks is in the database, the browser holds the flow's id in a
 * short-lived cookie. The member found starts the same session as a password login; the
 * password throttling does not count these logins (the provider guards its own).
 */

export const OIDC_CALLBACK_PATH = '/accounts/oidc/callback/';
/** The flow's cookie (`__Host-oidc` on HTTPS). */
const FLOW_COOKIE = 'oidc';
/** How long a browser is asked to wait before trying an unreachable provider again. */
const RETRY_AFTER_SECONDS = 30;

/** GET /accounts/oidc/login/?next=…: the flow stored, its cookie set, 303 to the provider. */
export async function beginOidcLogin(m: MemberExchange<unknown>): Promise<FastifyReply> {
  const { reply, facts, services } = m.ex;
  const oidc = services.oidc!;
  const base = services.config.publicUrl ?? facts.base;
  if (base === null) return badRequest(m);
  let begun;
  try {
    begun = await oidc.begin(`${base}${OIDC_CALLBACK_PATH}`);
  } catch (error) {
    if (!(error instanceof ProviderUnavailable)) throw error;
    return unavailablePage(m, oidc);
  }
  const next = safeNext(lastValue(facts.target.query, 'next'));
  const id = await storeFlow(services.database.db, { ...begun.checks, next }, m.nowUs);
  reply.header('set-cookie', setCookie(FLOW_COOKIE, id, { https: isHttps(facts.base), maxAgeSeconds: FLOW_SECONDS }));
  return seeOther(reply, begun.url);
}

/**
 * GET /accounts/oidc/callback/?code=…&state=…: the flow taken (once), the provider's answer
 * checked, the member found (oidc-members.ts), a new session, 303 to `next`. Anything refused
 * logs no one in and says why in words, never a 500.
 */
export async function finishOidcLogin(m: MemberExchange<unknown>): Promise<FastifyReply> {
  const { request, reply, facts, services } = m.ex;
  const oidc = services.oidc!;
  const db = services.database.db;
  const https = isHttps(facts.base);
  // Whatever happens, the flow's cookie has served.
  reply.header('set-cookie', clearCookie(FLOW_COOKIE, https));
  const flowId = request.headers.cookie === undefined ? undefined : parseCookies(request.headers.cookie).get(cookieName(FLOW_COOKIE, https));
  const flow = flowId === undefined ? null : await takeFlow(db, flowId, m.nowUs);
  const w = m.site.words;
  if (flow === null) {
    const message = wordsHtml(w, 'users.oidc.expired', {}, { link: toLogin });
    return sendPage(reply, 400, messagePage(m.site, { title: w.t('users.oidc.expired-title'), message }));
  }
  const base = services.config.publicUrl ?? facts.base;
  if (base === null) return badRequest(m);
  const { rawQuery } = facts.target;
  let outcome: SsoOutcome;
  try {
    const identity = await oidc.finish(new URL(`${base}${OIDC_CALLBACK_PATH}${rawQuery === '' ? '' : `?${rawQuery}`}`), flow);
    outcome = await services.writes.run((trx) => memberForIdentity(trx, identity, { createMembers: oidc.settings.createMembers }, m.nowUs));
  } catch (error) {
    if (error instanceof ProviderUnavailable) return unavailablePage(m, oidc);
    if (!(error instanceof AnswerRefused)) throw error;
    request.log.warn({ oidc: error.code }, 'single sign-on refused');
    const provider = oidc.settings.name;
    const message = error.byProvider
      ? wordsHtml(w, 'users.oidc.refused-by-provider', { provider }, { link: toLogin })
      : wordsHtml(w, 'users.oidc.unchecked', { provider }, { link: toLogin });
    return sendPage(reply, error.byProvider ? 403 : 400, messagePage(m.site, { title: w.t('users.oidc.not-logged-in'), message }));
  }
  if (outcome.kind !== 'member') {
    request.log.info({ oidc: outcome.kind }, 'single sign-on refused');
    return sendPage(reply, 403, messagePage(m.site, { title: w.t('users.oidc.not-logged-in'), message: refusal(w, outcome.kind, oidc.settings.name) }));
  }
  const { member } = outcome;
  await recordAudit(db, {
    timeUs: m.nowUs,
    tokenId: null,
    tokenName: `web: ${member.username} (${oidc.settings.name})`,
    method: 'GET',
    path: OIDC_CALLBACK_PATH,
    collection: 'sessions',
    recordId: member.id,
    status: 303,
  });
  request.log.info({ member: member.id, login: 'oidc', found: outcome.found }, 'member logged in');
  return startMemberSession(m, member.id, flow.next, [clearCookie(FLOW_COOKIE, https)]);
}

/** A link back to the login page around a message's words. */
function toLogin(chunks: HtmlValue[]): Html {
  return html`<a href="/accounts/login/">${chunks}</a>`;
}

function badRequest(m: MemberExchange<unknown>): FastifyReply {
  const w = m.site.words;
  return sendPage(m.ex.reply, 400, messagePage(m.site, { title: w.t('users.page.bad-request'), message: w.t('users.page.no-host') }));
}

function refusal(w: Words, kind: Exclude<SsoOutcome['kind'], 'member'>, provider: string): string {
  switch (kind) {
    case 'inactive':
      return w.t('users.oidc.inactive');
    case 'ambiguous':
      return w.t('users.oidc.ambiguous', { provider });
    case 'unknown':
      return w.t('users.oidc.unknown', { provider });
  }
}

function unavailablePage(m: MemberExchange<unknown>, oidc: OidcClient): FastifyReply {
  m.ex.reply.header('retry-after', String(RETRY_AFTER_SECONDS));
  const w = m.site.words;
  const provider = oidc.settings.name;
  const message = m.ex.services.config.members.passwordLogin ? w.t('users.oidc.unavailable-or-password', { provider }) : w.t('users.oidc.unavailable', { provider });
  return sendPage(m.ex.reply, 503, messagePage(m.site, { title: w.t('users.oidc.unavailable-title', { provider }), message }));
}
