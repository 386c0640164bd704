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
import { html } from '../../../web/html.js';
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
  if (base === null) return sendPage(reply, 400, messagePage(m.site, { title: 'Bad request', message: 'The request names no host.' }));
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
  if (flow === null) {
    const message = html`This login was already used, took too long, or began in another browser. <a href="/accounts/login/">Log in again</a>.`;
    return sendPage(reply, 400, messagePage(m.site, { title: 'Login expired', message }));
  }
  const base = services.config.publicUrl ?? facts.base;
  if (base === null) return sendPage(reply, 400, messagePage(m.site, { title: 'Bad request', message: 'The request names no host.' }));
  const { rawQuery } = facts.target;
  let outcome: SsoOutcome;
  try {
    const identity = await oidc.finish(new URL(`${base}${OIDC_CALLBACK_PATH}${rawQuery === '' ? '' : `?${rawQuery}`}`), flow);
    outcome = await services.writes.run((trx) => memberForIdentity(trx, identity, { createMembers: oidc.settings.createMembers }, m.nowUs));
  } catch (error) {
    if (error instanceof ProviderUnavailable) return unavailablePage(m, oidc);
    if (!(error instanceof AnswerRefused)) throw error;
    request.log.warn({ oidc: error.code }, 'single sign-on refused');
    const message = error.byProvider
      ? html`${oidc.settings.name} did not log you in. <a href="/accounts/login/">Back to the login page</a>.`
      : html`The answer of ${oidc.settings.name} could not be checked, so no one was logged in. <a href="/accounts/login/">Log in again</a>.`;
    return sendPage(reply, error.byProvider ? 403 : 400, messagePage(m.site, { title: 'Not logged in', message }));
  }
  if (outcome.kind !== 'member') {
    request.log.info({ oidc: outcome.kind }, 'single sign-on refused');
    return sendPage(reply, 403, messagePage(m.site, { title: 'Not logged in', message: refusal(outcome.kind, oidc.settings.name) }));
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

function refusal(kind: Exclude<SsoOutcome['kind'], 'member'>, provider: string) {
  switch (kind) {
    case 'inactive':
      return html`This account is inactive. Ask the space's committee if you think it should not be.`;
    case 'ambiguous':
      return html`Several members of this site have the address ${provider} gave. Ask the space's committee to sort it out.`;
    case 'unknown':
      return html`You logged in at ${provider}, but no member of this site has that account or its verified e-mail address. Ask the space's committee for an invitation, or log in with your password if you have one.`;
  }
}

function unavailablePage(m: MemberExchange<unknown>, oidc: OidcClient): FastifyReply {
  m.ex.reply.header('retry-after', String(RETRY_AFTER_SECONDS));
  const name = oidc.settings.name;
  const fallback = m.ex.services.config.members.passwordLogin ? ', or log in with your password' : '';
  return sendPage(m.ex.reply, 503, messagePage(m.site, { title: `${name} is unavailable`, message: `${name} cannot be reached at the moment. Try again in a minute${fallback}.` }));
}
