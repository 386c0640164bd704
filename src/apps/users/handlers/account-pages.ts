import type { FastifyReply } from 'fastify';
import { LinkNotValid, PasswordRejected, SuperuserExists, createFirstSuperuser, setPassword, setPasswordWithLink } from '../accounts.js';
import { createPasswordLink, findPasswordLink } from '../links.js';
import { passwordLinkMail } from '../mail.js';
import { createMemberToken, listMemberTokens, MemberTokenError, revokeMemberToken } from '../member-tokens.js';
import { isLinked } from '../oidc-members.js';
import { listPasskeys, loginRecentEnough } from '../passkeys.js';
import { HashingBusy } from '../passwords.js';
import { memberForReset, ProfileRefused, readProfile, trimProfile, updateProfile, type ProfileFields, type ProfileMessages } from '../profile.js';
import { englishText } from '../../../drf/messages.js';
import { FieldErrors } from '../../../resources/write-errors.js';
import type { FieldMessages } from '../../../web/form-parts.js';
import { say, sayFields } from '../said.js';
import { EMAIL_PATTERN } from '../../../resources/write-schema.js';
import { field, type Form } from '../../../request/form.js';
import {
  passwordPage,
  profilePage,
  resetPage,
  resetSentPage,
  resetWithoutMailPage,
  setPasswordPage,
  tokenCreatedPage,
  voidLinkPage,
  type SetPasswordView,
} from '../web/account-pages.js';
import { messagePage } from '../../../web/message-page.js';
import type { Html } from '../../../web/html.js';
import { notFound, webWrite, type MemberExchange } from './member-pages.js';
import { seeOther, sendPage } from '../../../http/reply.js';
import { setNotice } from '../../../handlers/notice.js';

/** A member's own pages (members.md §3, §4): profile and tokens, password change, set-password links, reset by mail. */

function member(m: MemberExchange<unknown>): { id: number; username: string } {
  // memberPage ensures a viewer on pages that require a member.
  return m.viewer!.member;
}

// ---- /accounts/profile/ ----

/** What the profile page shows besides the stored profile: what was typed and refused, a preview. */
interface ProfileState {
  /** The profile as typed (a preview, a refusal); the stored one when absent. */
  fields?: ProfileFields;
  errors?: ProfileMessages;
  preview?: Html | null;
  tokenName?: string;
  tokenError?: string | null;
  passkeyName?: string;
  passkeyError?: string | null;
}

/** The profile page, with the member's tokens, passkeys and single sign-on link. */
export async function profileAnswer(m: MemberExchange<unknown>, status: number, state: ProfileState = {}): Promise<FastifyReply> {
  const { id, username } = member(m);
  const { database, oidc, catalogue, times } = m.ex.services;
  const db = database.db;
  const fields = state.fields ?? (await readProfile(db, id));
  if (!fields) return notFound(m);
  const passkeysOn = m.ex.services.config.members.passkeys;
  const [tokens, passkeys] = await Promise.all([listMemberTokens(db, id), passkeysOn ? listPasskeys(db, id) : null]);
  const linkedTo = oidc !== null && (await isLinked(db, id, oidc.issuer)) ? oidc.settings.name : null;
  const page = profilePage(m.site, {
    csrf: m.csrf,
    username,
    memberId: id,
    fields,
    errors: sayFields(m.site.words, state.errors ?? {}),
    preview: state.preview ?? null,
    tokens,
    tokenName: state.tokenName ?? '',
    tokenError: state.tokenError ?? null,
    passkeys,
    canAddPasskey: loginRecentEnough(m.viewer!, m.nowUs),
    passkeyName: state.passkeyName ?? '',
    passkeyError: state.passkeyError ?? null,
    zone: times,
    languages: catalogue.offered.map((tag) => ({ tag, name: catalogue.nameOf(tag) })),
    linkedTo,
  });
  return sendPage(m.ex.reply, status, page);
}

export async function showProfile(m: MemberExchange<unknown>): Promise<FastifyReply> {
  return profileAnswer(m, 200);
}

function typedProfile(form: Form): ProfileFields {
  return {
    first_name: field(form, 'first_name'),
    last_name: field(form, 'last_name'),
    email: field(form, 'email'),
    description: field(form, 'description'),
    newsletter: form.has('newsletter'),
    show_name: form.has('show_name'),
    language: field(form, 'language'),
  };
}

/**
 * POST /accounts/profile/: "Preview" shows the description rendered and the form as typed;
 * "Save" writes through the announced writes (the users table's version moves: cached pages and
 * the API see it at once), with an audit entry naming the member and the web.
 */
export async function submitProfile(m: MemberExchange<unknown>): Promise<FastifyReply> {
  const { form, nowUs } = m;
  const typed = typedProfile(form);
  if (form.get('action') === 'preview') {
    // Loaded on demand, as the detail pages do (markdown-it is 200 KB to parse).
    const { renderMarkdown } = await import('../../../web/markdown.js');
    return profileAnswer(m, 200, { fields: typed, preview: renderMarkdown(typed.description, 3) });
  }
  const { id } = member(m);
  try {
    await webWrite(m, async (trx, audit) => {
      await updateProfile(trx, id, typed, m.ex.services.catalogue.offered, nowUs);
      await audit({ collection: 'users', recordId: id, status: 303 });
    });
  } catch (error) {
    if (!(error instanceof ProfileRefused)) throw error;
    return profileAnswer(m, 422, { fields: trimProfile(typed), errors: error.errors });
  }
  setNotice(m.ex.reply, m.ex.facts, 'profile-saved');
  return seeOther(m.ex.reply, '/accounts/profile/');
}

/** POST /accounts/profile/tokens/: a new personal API token, its secret on the answer only. */
export async function submitNewToken(m: MemberExchange<unknown>): Promise<FastifyReply> {
  const db = m.ex.services.database.db;
  const { id } = member(m);
  const name = field(m.form, 'token_name');
  try {
    const { token, secret } = await createMemberToken(db, id, name, m.nowUs);
    return sendPage(m.ex.reply, 200, tokenCreatedPage(m.site, { name: token.name, secret }));
  } catch (error) {
    if (!(error instanceof MemberTokenError)) throw error;
    return profileAnswer(m, 422, { tokenName: name, tokenError: say(m.site.words, error.said) });
  }
}

/** POST /accounts/profile/tokens/<id>/revoke/: only the member's own, still active token. */
export async function submitRevokeToken(m: MemberExchange<number>): Promise<FastifyReply> {
  const revoked = await revokeMemberToken(m.ex.services.database.db, member(m).id, m.ex.params, m.nowUs);
  if (!revoked) return notFound(m);
  setNotice(m.ex.reply, m.ex.facts, 'token-revoked');
  return seeOther(m.ex.reply, '/accounts/profile/');
}

// ---- /accounts/password/ ----

export async function showPassword(m: MemberExchange<unknown>): Promise<FastifyReply> {
  return sendPage(m.ex.reply, 200, passwordPage(m.site, { csrf: m.csrf, errors: {} }));
}

/**
 * POST /accounts/password/: the current password checked, the new one twice and by the rules;
 * then stored, the member's links voided and their other sessions ended (this one kept).
 */
export async function submitPassword(m: MemberExchange<unknown>): Promise<FastifyReply> {
  const { services, facts, reply } = m.ex;
  const db = services.database.db;
  const { id } = member(m);
  const w = m.site.words;
  const refuse = (errors: FieldMessages) => sendPage(reply, 422, passwordPage(m.site, { csrf: m.csrf, errors }));
  const old = field(m.form, 'old_password');
  const new1 = field(m.form, 'new_password1');
  const new2 = field(m.form, 'new_password2');
  return busyAware(m, async () => {
    const stored = await db.selectFrom('users').select('password').where('id', '=', id).executeTakeFirst();
    const { matches } = await services.hasher.verify(stored?.password ?? null, old);
    if (!matches) return refuse({ old_password: [w.t('users.password.current-wrong')] });
    const mismatch = newPasswordMismatch(m, new1, new2);
    if (mismatch) return refuse(mismatch);
    try {
      await setPassword(db, services.hasher, id, new1, m.nowUs, facts.session ?? undefined);
    } catch (error) {
      if (!(error instanceof PasswordRejected)) throw error;
      return refuse({ new_password1: [say(w, error.said)] });
    }
    setNotice(reply, facts, 'password-changed');
    return seeOther(reply, '/accounts/profile/');
  });
}

function newPasswordMismatch(m: MemberExchange<unknown>, new1: string, new2: string): FieldMessages | null {
  if (new1 === '') return { new_password1: [m.site.words.t('users.password.new-missing')] };
  if (new1 !== new2) return { new_password2: [m.site.words.t('users.password.new-differ')] };
  return null;
}

/** Hashing is bounded (passwords.ts): past the queue, 503 with Retry-After. */
async function busyAware(m: MemberExchange<unknown>, work: () => Promise<FastifyReply>): Promise<FastifyReply> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof HashingBusy)) throw error;
    m.ex.reply.header('retry-after', String(error.retryAfterSeconds));
    return sendPage(
      m.ex.reply,
      503,
      messagePage(m.site, { title: m.site.words.t('users.busy.title'), message: m.site.words.t('users.busy.passwords', { seconds: error.retryAfterSeconds }) }),
    );
  }
}

// ---- /accounts/set-password/<token>/ ----

/**
 * A link that opens nothing (unknown, used, expired, void after a password change, or a
 * first-superuser link once one exists): 410 Gone, whichever, with what to do. Gone rather than
 * 404: the page is right, the link behind it has ended; and one answer for every case tells a
 * holder nothing about other links (a token cannot be guessed anyway).
 */
function linkGone(m: MemberExchange<unknown>): FastifyReply {
  return sendPage(m.ex.reply, 410, voidLinkPage(m.site, { mail: m.ex.services.config.members.mail !== null }));
}

export async function showSetPassword(m: MemberExchange<string>): Promise<FastifyReply> {
  const link = await findPasswordLink(m.ex.services.database.db, m.ex.params, m.nowUs);
  if (!link) return linkGone(m);
  return sendPage(
    m.ex.reply,
    200,
    setPasswordPage(m.site, { csrf: m.csrf, token: m.ex.params, username: link.username, purpose: link.purpose, typed: { username: '', email: '' }, errors: {} }),
  );
}

/** POST: the password set (or the first superuser made), the link used up, then 303 to the confirmation and the login. */
export async function submitSetPassword(m: MemberExchange<string>): Promise<FastifyReply> {
  const { services, reply, params: token } = m.ex;
  const db = services.database.db;
  const link = await findPasswordLink(db, token, m.nowUs);
  if (!link) return linkGone(m);
  const typed = { username: field(m.form, 'username').trim(), email: field(m.form, 'email').trim() };
  const refuse = (errors: FieldMessages) => {
    const view: SetPasswordView = { csrf: m.csrf, token, username: link.username, purpose: link.purpose, typed, errors };
    return sendPage(reply, 422, setPasswordPage(m.site, view));
  };
  const new1 = field(m.form, 'new_password1');
  const errors: FieldMessages = { ...newPasswordMismatch(m, new1, field(m.form, 'new_password2')) };
  if (link.purpose === 'first-superuser') Object.assign(errors, superuserFieldProblems(m, typed));
  if (Object.keys(errors).length > 0) return refuse(errors);
  return busyAware(m, async () => {
    try {
      if (link.purpose === 'first-superuser') await createFirstSuperuser(db, services.hasher, token, { ...typed, password: new1 }, m.nowUs);
      else await setPasswordWithLink(db, services.hasher, token, new1, m.nowUs);
    } catch (error) {
      if (error instanceof LinkNotValid || error instanceof SuperuserExists) return linkGone(m);
      if (error instanceof PasswordRejected) return refuse({ new_password1: [say(m.site.words, error.said)] });
      if (error instanceof FieldErrors) return refuse(error.worded(englishText));
      throw error;
    }
    services.database.noteWrite();
    return seeOther(reply, '/accounts/set-password/done/');
  });
}

/** The API's checks of a new user's username and address (apps/users/users.ts UserFields). */
function superuserFieldProblems(m: MemberExchange<unknown>, typed: { username: string; email: string }): FieldMessages {
  const w = m.site.words;
  const errors: Record<string, string[]> = {};
  if (typed.username === '') errors.username = [w.t('users.form.blank')];
  else if ([...typed.username].length > 150 || typed.username.includes('\0')) errors.username = [w.t('users.form.too-long', { max: 150 })];
  if (!EMAIL_PATTERN.test(typed.email) || typed.email.length > 254) errors.email = [w.t('users.form.email-invalid')];
  return errors;
}

export async function showPasswordSet(m: MemberExchange<unknown>): Promise<FastifyReply> {
  const w = m.site.words;
  return sendPage(m.ex.reply, 200, messagePage(m.site, { title: w.t('users.set-password.done-title'), message: w.t('users.set-password.done') }));
}

// ---- /accounts/password/reset/ ----

export async function showReset(m: MemberExchange<unknown>): Promise<FastifyReply> {
  if (m.ex.services.mailer === null) return sendPage(m.ex.reply, 200, resetWithoutMailPage(m.site));
  return sendPage(m.ex.reply, 200, resetPage(m.site, { csrf: m.csrf, login: '', errors: {} }));
}

/**
 * POST: the answer (303 to one page) comes before anything is looked up: whether the account
 * exists, has an address, or the mail server takes the mail, neither the page nor its timing
 * tells. The link and the mail are made after; a mail not sent is logged (mail.ts: never the
 * address), and the page tells everyone to try again later when no mail comes.
 */
export async function submitReset(m: MemberExchange<unknown>): Promise<FastifyReply> {
  const { services, reply, facts, request } = m.ex;
  const mailer = services.mailer;
  if (mailer === null) return sendPage(reply, 200, resetWithoutMailPage(m.site));
  const login = field(m.form, 'login').trim();
  if (login === '') return sendPage(reply, 422, resetPage(m.site, { csrf: m.csrf, login, errors: { login: [m.site.words.t('users.reset.login-missing')] } }));
  const baseUrl = (services.config.publicUrl ?? facts.base ?? '').replace(/\/+$/, '');
  const nowUs = m.nowUs;
  const db = services.database.db;
  void (async () => {
    const found = await memberForReset(db, login);
    if (!found) return;
    const token = await createPasswordLink(db, found.id, 'reset', nowUs);
    // In the member's language, else the space's (LANGUAGE_CODE): not the language of whoever asked.
    const words = found.language !== '' ? services.catalogue.words(found.language) : services.catalogue.spaceWords;
    await mailer.send({ to: found.email, ...passwordLinkMail('reset', { spaceName: services.site.name, baseUrl, token, username: found.username, words, nowUs }) });
  })().catch((error: unknown) => {
    // mail.ts logged a mail not sent; anything else is logged by its name only.
    if ((error as Error)?.name !== 'MailNotSent') request.log.warn({ error: (error as Error)?.name }, 'reset link not made');
  });
  return seeOther(reply, '/accounts/password/reset/done/');
}

export async function showResetSent(m: MemberExchange<unknown>): Promise<FastifyReply> {
  return sendPage(m.ex.reply, 200, resetSentPage(m.site));
}
