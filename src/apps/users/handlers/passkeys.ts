import type { FastifyReply } from 'fastify';
import {
  beginLogin,
  beginRegistration,
  findPasskey,
  finishLogin,
  LoginRefused,
  loginRecentEnough,
  passkeyNameProblem,
  RECENT_LOGIN_SECONDS,
  RegistrationRefused,
  relyingPartyOf,
  removePasskey,
  renamePasskey,
  storePasskey,
  verifyRegistration,
  type LoginProblem,
  type RegistrationProblem,
  type RelyingParty,
} from '../passkeys.js';
import { field } from '../../../request/form.js';
import { safeNext } from '../../../request/next-path.js';
import { recordAudit, webAuditName } from '../../../resources/audit.js';
import { passkeyPage } from '../web/account-pages.js';
import { PASSKEY_LOGIN_PATH } from '../web/accounts.js';
import { messagePage } from '../../../web/message-page.js';
import { profileAnswer } from './account-pages.js';
import { loginForm, startMemberSession } from './accounts.js';
import { notFound, webWrite, type MemberExchange } from './member-pages.js';
import { seeOther, sendPage } from '../../../http/reply.js';
import { setNotice } from '../../../handlers/notice.js';
import type { MessageKey } from '../../../i18n/words.js';
import { said, say } from '../said.js';

/**
 * Passkeys (members.md §5). The page's script (assets/passkeys.js) asks for a ceremony's
 * options (a POST answered with JSON), lets the browser and the authenticator answer, and posts
 * the answer in an ordinary form, which these handlers check (apps/users/passkeys.ts) and answer with
 * a page: a login's session, a passkey added, or why not. Each ceremony is tied to the page's CSRF
 * token (`m.csrf`), itself tied to the browser's session or pre-session cookie.
 */

/** The relying party of this request: the host of PUBLIC_URL, or of the request; null when the request names no host. */
function relyingParty(m: MemberExchange<unknown>): RelyingParty | null {
  const base = m.ex.facts.base;
  return base === null ? null : relyingPartyOf(base, m.ex.services.site.name);
}

/** The options for the page's script; or, refused, `{ "detail": … }` for it to show. */
function sendJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply.code(status).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(body));
}

/** A request without a host: nothing can be checked against it. */
function noHost(m: MemberExchange<unknown>): string {
  return m.site.words.t('users.page.no-host');
}

// ---- Logging in ----

/** POST /accounts/passkey/login/options/: a login's options, with a new challenge for this browser. */
export async function passkeyLoginOptions(m: MemberExchange<unknown>): Promise<FastifyReply> {
  const rp = relyingParty(m);
  if (rp === null) return sendJson(m.ex.reply, 400, { detail: noHost(m) });
  return sendJson(m.ex.reply, 200, await beginLogin(m.ex.services.database.db, rp, m.csrf, m.nowUs));
}

/**
 * POST /accounts/passkey/login/: the browser's answer checked, then the same session as a password
 * login, an audit entry naming the passkey as the way in, and 303 to `next`. A refusal shows the
 * login page again with the reason. Not counted by the password throttling: an answer without the
 * device's private key never verifies, so there is nothing to guess.
 */
export async function submitPasskeyLogin(m: MemberExchange<unknown>): Promise<FastifyReply> {
  const { request, reply, services } = m.ex;
  const next = safeNext(m.form.get('next'));
  const rp = relyingParty(m);
  if (rp === null) return sendPage(reply, 400, messagePage(m.site, { title: m.site.words.t('users.page.bad-request'), message: noHost(m) }));
  let found;
  try {
    found = await finishLogin(services.database.db, rp, m.csrf, field(m.form, 'credential'), m.nowUs);
  } catch (error) {
    if (!(error instanceof LoginRefused)) throw error;
    request.log.info({ passkey: error.problem, detail: error.detail }, 'passkey login refused');
    const status = error.problem === 'malformed' ? 400 : 403;
    return sendPage(reply, status, await loginForm(m, { username: '', next, error: m.site.words.t(LOGIN_REFUSALS[error.problem]) }));
  }
  const { member, passkeyId } = found;
  await recordAudit(services.database.db, {
    timeUs: m.nowUs,
    tokenId: null,
    tokenName: `${webAuditName(member.username)} (passkey)`,
    method: 'POST',
    path: PASSKEY_LOGIN_PATH,
    collection: 'sessions',
    recordId: member.id,
    status: 303,
  });
  request.log.info({ member: member.id, login: 'passkey', passkey: passkeyId }, 'member logged in');
  return startMemberSession(m, member.id, next);
}

const LOGIN_REFUSALS: Readonly<Record<LoginProblem, MessageKey>> = {
  malformed: 'users.passkeys.login.malformed',
  expired: 'users.passkeys.login.expired',
  unknown: 'users.passkeys.login.unknown',
  inactive: 'users.passkeys.login.inactive',
  unverified: 'users.passkeys.login.unverified',
};

// ---- A member's passkeys ----

function logInAgain(m: MemberExchange<unknown>): string {
  return m.site.words.t('users.passkeys.log-in-again-old', { minutes: RECENT_LOGIN_SECONDS / 60 });
}

/** POST /accounts/profile/passkeys/options/: a registration's options for the member, with a new challenge for this browser. */
export async function passkeyOptions(m: MemberExchange<unknown>): Promise<FastifyReply> {
  const { reply, services } = m.ex;
  const rp = relyingParty(m);
  if (rp === null) return sendJson(reply, 400, { detail: noHost(m) });
  if (!loginRecentEnough(m.viewer!, m.nowUs)) return sendJson(reply, 403, { detail: logInAgain(m) });
  try {
    return sendJson(reply, 200, await beginRegistration(services.database.db, rp, m.viewer!.member, m.csrf, m.nowUs));
  } catch (error) {
    if (!(error instanceof RegistrationRefused)) throw error;
    return sendJson(reply, 422, { detail: m.site.words.t(ADD_REFUSALS[error.problem]) });
  }
}

/**
 * POST /accounts/profile/passkeys/: the authenticator's answer checked (its challenge taken for
 * good), then the passkey stored under the typed name with its audit entry, in one transaction;
 * 303 to the profile.
 */
export async function submitNewPasskey(m: MemberExchange<unknown>): Promise<FastifyReply> {
  const { request, services } = m.ex;
  const member = m.viewer!.member;
  const rp = relyingParty(m);
  const w = m.site.words;
  if (rp === null) return sendPage(m.ex.reply, 400, messagePage(m.site, { title: w.t('users.page.bad-request'), message: noHost(m) }));
  if (!loginRecentEnough(m.viewer!, m.nowUs)) return sendPage(m.ex.reply, 403, messagePage(m.site, { title: w.t('users.passkeys.log-in-again-title'), message: logInAgain(m) }));
  const typedName = field(m.form, 'passkey_name').trim();
  const nameProblem = passkeyNameProblem(typedName);
  if (nameProblem !== null) return profileAnswer(m, 422, { passkeyName: typedName, passkeyError: say(w, nameProblem) });
  // A name in the member's language, the date as it writes it: it is theirs to rename.
  const name = typedName === '' ? w.t('users.passkeys.default-name', { date: w.dateTime(m.nowUs) }) : typedName;
  try {
    const passkey = await verifyRegistration(services.database.db, rp, member.id, m.csrf, field(m.form, 'credential'), m.nowUs);
    await webWrite(m, async (trx, audit) => {
      const id = await storePasskey(trx, member.id, passkey, name, m.nowUs);
      await audit({ collection: 'passkeys', recordId: id, status: 303 });
    });
  } catch (error) {
    if (!(error instanceof RegistrationRefused)) throw error;
    request.log.info({ passkey: error.problem, detail: error.detail }, 'passkey not added');
    return profileAnswer(m, error.problem === 'malformed' ? 400 : 422, { passkeyName: typedName, passkeyError: w.t(ADD_REFUSALS[error.problem]) });
  }
  setNotice(m.ex.reply, m.ex.facts, 'passkey-added');
  return seeOther(m.ex.reply, '/accounts/profile/');
}

const ADD_REFUSALS: Readonly<Record<RegistrationProblem, MessageKey>> = {
  malformed: 'users.passkeys.add.malformed',
  expired: 'users.passkeys.add.expired',
  unverified: 'users.passkeys.add.unverified',
  taken: 'users.passkeys.add.taken',
  'too-many': 'users.passkeys.add.too-many',
};

/** GET and POST /accounts/profile/passkeys/<id>/: renaming one of the member's passkeys. */
export async function passkeyRename(m: MemberExchange<number>): Promise<FastifyReply> {
  const member = m.viewer!.member;
  const passkey = await findPasskey(m.ex.services.database.db, member.id, m.ex.params);
  if (passkey === undefined) return notFound(m);
  if (m.ex.facts.method !== 'POST') return sendPage(m.ex.reply, 200, passkeyPage(m.site, { csrf: m.csrf, passkey, name: passkey.name, error: null }));
  const name = field(m.form, 'passkey_name').trim();
  const problem = name === '' ? said('users.form.blank') : passkeyNameProblem(name);
  if (problem !== null) return sendPage(m.ex.reply, 422, passkeyPage(m.site, { csrf: m.csrf, passkey, name, error: say(m.site.words, problem) }));
  const renamed = await webWrite(m, async (trx, audit) => {
    const done = await renamePasskey(trx, member.id, passkey.id, name);
    if (done) await audit({ collection: 'passkeys', recordId: passkey.id, status: 303 });
    return done;
  });
  if (!renamed) return notFound(m);
  setNotice(m.ex.reply, m.ex.facts, 'passkey-renamed');
  return seeOther(m.ex.reply, '/accounts/profile/');
}

/** POST /accounts/profile/passkeys/<id>/remove/: only the member's own; it logs no one in from now on. */
export async function submitRemovePasskey(m: MemberExchange<number>): Promise<FastifyReply> {
  const member = m.viewer!.member;
  const removed = await webWrite(m, async (trx, audit) => {
    const done = await removePasskey(trx, member.id, m.ex.params);
    if (done) await audit({ collection: 'passkeys', recordId: m.ex.params, status: 303 });
    return done;
  });
  if (!removed) return notFound(m);
  setNotice(m.ex.reply, m.ex.facts, 'passkey-removed');
  return seeOther(m.ex.reply, '/accounts/profile/');
}
