import type { FastifyReply } from 'fastify';
import {
  beginLogin,
  beginRegistration,
  finishLogin,
  finishRegistration,
  findPasskey,
  loginRecentEnough,
  passkeyNameProblem,
  PasskeyRefused,
  RECENT_LOGIN_SECONDS,
  relyingPartyOf,
  removePasskey,
  renamePasskey,
  type PasskeyProblem,
  type RelyingParty,
} from '../members/passkeys.js';
import { field } from '../request/form.js';
import { safeNext } from '../request/next-path.js';
import { recordAudit, webAuditName } from '../resources/audit.js';
import { messagePage } from '../web/accounts.js';
import { html } from '../web/html.js';
import { passkeyPage } from '../web/account-pages.js';
import { loginForm, startMemberSession } from './accounts.js';
import { notFound, seeOther, sendPage, type MemberExchange } from './member-pages.js';
import { setNotice } from './notice.js';
import { profileAnswer } from './account-pages.js';

/**
 * Passkeys (members.md §5). The page's script (assets/passkeys.js) asks for a ceremony's options
 * (a POST answered with JSON), lets the browser and the authenticator answer, and posts the
 * answer in an ordinary form, which these handlers check (members/passkeys.ts) and answer with a
 * page: a login's session, a passkey added, or why not. Without the script the buttons stay hidden.
 */

export const PASSKEY_LOGIN_PATH = '/accounts/passkey/login/';
export const PASSKEY_LOGIN_OPTIONS_PATH = '/accounts/passkey/login/options/';
export const PASSKEYS_PATH = '/accounts/profile/passkeys/';
export const PASSKEY_OPTIONS_PATH = '/accounts/profile/passkeys/options/';

/** The relying party of this request: the host of PUBLIC_URL, or of the request; null when the request names no host. */
function relyingParty(m: MemberExchange<unknown>): RelyingParty | null {
  const base = m.ex.facts.base;
  return base === null ? null : relyingPartyOf(base, m.ex.services.site.name);
}

function noHost(m: MemberExchange<unknown>): FastifyReply {
  return sendPage(m.ex.reply, 400, messagePage(m.site, { title: 'Bad request', message: 'The request names no host.' }));
}

function sendJson(reply: FastifyReply, body: unknown): FastifyReply {
  return reply.code(200).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(body));
}

// ---- Logging in ----

/** POST /accounts/passkey/login/options/: a login's options, with a new challenge. */
export async function passkeyLoginOptions(m: MemberExchange<unknown>): Promise<FastifyReply> {
  const rp = relyingParty(m);
  if (rp === null) return noHost(m);
  return sendJson(m.ex.reply, await beginLogin(m.ex.services.database.db, rp, m.nowUs));
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
  if (rp === null) return noHost(m);
  let found;
  try {
    found = await finishLogin(services.database.db, rp, field(m.form, 'credential'), m.nowUs);
  } catch (error) {
    if (!(error instanceof PasskeyRefused)) throw error;
    request.log.info({ passkey: error.problem, detail: error.detail }, 'passkey login refused');
    const status = error.problem === 'malformed' ? 400 : 403;
    return sendPage(reply, status, await loginForm(m, { username: '', next, error: LOGIN_REFUSALS[error.problem] }));
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

const LOGIN_REFUSALS: Record<PasskeyProblem, string> = {
  malformed: 'Your browser sent no passkey. Try again, or log in another way.',
  expired: 'That passkey login took too long or was already used. Try again.',
  unknown: 'This passkey is not known here: it may have been removed. Log in another way, then add it again on your profile.',
  inactive: "This account is inactive. Ask the space's committee if you think it should not be.",
  unverified: 'The passkey’s answer could not be checked, so no one was logged in. Try again.',
  taken: 'This passkey is not known here.',
};

// ---- A member's passkeys ----

function logInAgain(m: MemberExchange<unknown>): FastifyReply {
  const message = html`To add a passkey, <a href="/accounts/login/?next=/accounts/profile/">log in again</a> first: your login is more than ${RECENT_LOGIN_SECONDS / 60} minutes old.`;
  return sendPage(m.ex.reply, 403, messagePage(m.site, { title: 'Log in again', message }));
}

/** POST /accounts/profile/passkeys/options/: a registration's options for the member, with a new challenge. */
export async function passkeyOptions(m: MemberExchange<unknown>): Promise<FastifyReply> {
  const rp = relyingParty(m);
  if (rp === null) return noHost(m);
  if (!loginRecentEnough(m.viewer!, m.nowUs)) return logInAgain(m);
  return sendJson(m.ex.reply, await beginRegistration(m.ex.services.database.db, rp, m.viewer!.member, m.nowUs));
}

/** POST /accounts/profile/passkeys/: the authenticator's answer checked and the passkey stored under the typed name; 303 to the profile. */
export async function submitNewPasskey(m: MemberExchange<unknown>): Promise<FastifyReply> {
  const { request, services } = m.ex;
  const db = services.database.db;
  const member = m.viewer!.member;
  const rp = relyingParty(m);
  if (rp === null) return noHost(m);
  if (!loginRecentEnough(m.viewer!, m.nowUs)) return logInAgain(m);
  const typedName = field(m.form, 'passkey_name').trim();
  const nameProblem = passkeyNameProblem(typedName);
  if (nameProblem !== null) return profileAnswer(m, 422, { passkeyName: typedName, passkeyError: nameProblem });
  let added;
  try {
    const name = typedName === '' ? `Passkey added ${services.pageTimes.date(m.nowUs)}` : typedName;
    added = await finishRegistration(db, rp, member.id, field(m.form, 'credential'), name, m.nowUs);
  } catch (error) {
    if (!(error instanceof PasskeyRefused)) throw error;
    request.log.info({ passkey: error.problem, detail: error.detail }, 'passkey not added');
    return profileAnswer(m, error.problem === 'malformed' ? 400 : 422, { passkeyName: typedName, passkeyError: ADD_REFUSALS[error.problem] });
  }
  await audit(m, added.id, 303);
  setNotice(m.ex.reply, m.ex.facts, 'passkey-added');
  return seeOther(m.ex.reply, '/accounts/profile/');
}

const ADD_REFUSALS: Record<PasskeyProblem, string> = {
  malformed: 'Your browser sent no passkey. Try again.',
  expired: 'Adding the passkey took too long or the form was sent twice. Try again.',
  unknown: 'The passkey could not be added. Try again.',
  inactive: 'The passkey could not be added. Try again.',
  unverified: 'The authenticator’s answer could not be checked, so no passkey was added. Try again.',
  taken: 'This passkey is already added to an account here.',
};

/** GET and POST /accounts/profile/passkeys/<id>/: renaming one of the member's passkeys. */
export async function passkeyRename(m: MemberExchange<number>): Promise<FastifyReply> {
  const db = m.ex.services.database.db;
  const member = m.viewer!.member;
  const passkey = await findPasskey(db, member.id, m.ex.params);
  if (passkey === undefined) return notFound(m);
  if (m.ex.facts.method !== 'POST') return sendPage(m.ex.reply, 200, passkeyPage(m.site, { csrf: m.csrf, passkey, name: passkey.name, error: null }));
  const name = field(m.form, 'passkey_name').trim();
  const problem = name === '' ? 'This field may not be blank.' : passkeyNameProblem(name);
  if (problem !== null) return sendPage(m.ex.reply, 422, passkeyPage(m.site, { csrf: m.csrf, passkey, name, error: problem }));
  if (!(await renamePasskey(db, member.id, passkey.id, name))) return notFound(m);
  setNotice(m.ex.reply, m.ex.facts, 'passkey-renamed');
  return seeOther(m.ex.reply, '/accounts/profile/');
}

/** POST /accounts/profile/passkeys/<id>/remove/: only the member's own; it logs no one in from now on. */
export async function submitRemovePasskey(m: MemberExchange<number>): Promise<FastifyReply> {
  const member = m.viewer!.member;
  if (!(await removePasskey(m.ex.services.database.db, member.id, m.ex.params))) return notFound(m);
  await audit(m, m.ex.params, 303);
  setNotice(m.ex.reply, m.ex.facts, 'passkey-removed');
  return seeOther(m.ex.reply, '/accounts/profile/');
}

/** A passkey added or removed, in the audit log under the member's name (never its key). */
function audit(m: MemberExchange<unknown>, passkeyId: number, status: number): Promise<void> {
  const { facts, services } = m.ex;
  return recordAudit(services.database.db, {
    timeUs: m.nowUs,
    tokenId: null,
    tokenName: webAuditName(m.viewer!.member.username),
    method: facts.method,
    path: facts.target.rawPath,
    collection: 'passkeys',
    recordId: passkeyId,
    status,
  });
}
