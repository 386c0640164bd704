import { PASSKEY_SCRIPTS, passkeyScriptWords } from './accounts.js';
import type { MemberTokenInfo } from '../member-tokens.js';
import { PASSKEY_NAME_MAX, type PasskeyInfo } from '../passkeys.js';
import { MIN_PASSWORD_LENGTH } from '../password-rules.js';
import type { ProfileFields } from '../profile.js';
import type { TimeFormatter } from '../../../time.js';
import type { Words } from '../../../i18n/words.js';
import { html, type Html, type HtmlValue } from '../../../web/html.js';
import { wordsHtml } from '../../../web/words-html.js';
import { layout, type Site } from '../../../web/layout.js';
import { csrfInput, described, fieldError, type FieldMessages } from '../../../web/form-parts.js';

/**
 * A member's own pages (members.md §4): their profile and personal API tokens, changing their
 * password, setting one from an invitation or reset link, asking for a reset. Every field is
 * labelled and named as the API (and Django) name it; a refused field's message is next to it
 * (linked by aria-describedby); typed values come back, passwords never.
 */

const NO_ERRORS: FieldMessages = {};

/** A member's passkeys: where the profile's script asks for a registration's options, where it posts the answer, and each passkey's pages. */
export const PASSKEY_OPTIONS_PATH = '/accounts/profile/passkeys/options/';
export const PASSKEYS_PATH = '/accounts/profile/passkeys/';
export const passkeyPath = (id: number): string => `${PASSKEYS_PATH}${id}/`;
export const passkeyRemovePath = (id: number): string => `${PASSKEYS_PATH}${id}/remove/`;

interface InputOptions {
  type?: string;
  autocomplete?: string;
  required?: boolean;
  maxLength?: number;
  hint?: string;
}

function textInput(name: string, label: string, value: string, errors: FieldMessages, options: InputOptions = {}): Html {
  const { type = 'text', autocomplete, required = false, maxLength, hint } = options;
  return html`<p><label for="${name}">${label}</label>
${hint ? html`<span class="hint" id="${name}-hint">${hint}</span>` : ''}<input id="${name}" name="${name}" type="${type}"${autocomplete ? html` autocomplete="${autocomplete}"` : ''}${required ? html` required` : ''}${maxLength ? html` maxlength="${maxLength}"` : ''}${type === 'password' ? '' : html` value="${value}"`}${described(name, errors)}>
${fieldError(name, errors)}</p>`;
}

function checkbox(name: string, label: string, checked: boolean): Html {
  return html`<p class="check"><label><input type="checkbox" name="${name}" value="on"${checked ? html` checked` : ''}> ${label}</label></p>`;
}

function formError(text: string | null): Html {
  return text === null ? html`` : html`<p class="form-error" role="alert">${text}</p>`;
}

export interface ProfileView {
  csrf: string;
  username: string;
  memberId: number;
  fields: ProfileFields;
  errors: FieldMessages;
  /** The description rendered (markdown.ts), when a preview is asked for. */
  preview: Html | null;
  tokens: readonly MemberTokenInfo[];
  tokenName: string;
  tokenError: string | null;
  /** The member's passkeys; null when PASSKEYS is false (no section). */
  passkeys: readonly PasskeyInfo[] | null;
  /** The member logged in recently enough to add one (else the form says to log in again). */
  canAddPasskey: boolean;
  passkeyName: string;
  passkeyError: string | null;
  /** The `<time datetime>` of dates (ISO 8601 in the space's zone). */
  zone: TimeFormatter;
  /** The languages a member may choose, each named in itself. */
  languages: readonly { tag: string; name: string }[];
  /** The OpenID provider the account is linked to (OIDC_NAME), or null. */
  linkedTo: string | null;
}

/** `/accounts/profile/`: the profile form, then the personal API tokens. */
export function profilePage(site: Site, view: ProfileView): Buffer {
  const { fields, errors } = view;
  const w = site.words;
  const main = html`<section class="account-form profile" aria-labelledby="profile-heading">
<h1 id="profile-heading">${w.t('users.profile.title')}</h1>
<p>${wordsHtml(w, 'users.profile.logged-in-as', { username: view.username }, { strong: (chunks) => html`<strong>${chunks}</strong>` })} <a href="/members/${view.memberId}/">${w.t('users.profile.public-page')}</a> · <a href="/accounts/password/">${w.t('users.profile.change-password')}</a></p>
${view.linkedTo === null ? '' : html`<p id="oidc-linked">${w.t('users.profile.oidc-linked', { provider: view.linkedTo })}</p>`}
${Object.keys(errors).length > 0 ? formError(w.t('users.profile.not-saved')) : ''}
<form method="post" action="/accounts/profile/" class="stacked">
${csrfInput(view.csrf)}
${textInput('first_name', w.t('users.profile.first-name'), fields.first_name, errors, { autocomplete: 'given-name', maxLength: 150 })}
${textInput('last_name', w.t('users.profile.last-name'), fields.last_name, errors, { autocomplete: 'family-name', maxLength: 150 })}
${checkbox('show_name', w.t('users.profile.show-name'), fields.show_name)}
${textInput('email', w.t('users.form.email'), fields.email, errors, { type: 'email', autocomplete: 'email', required: true, maxLength: 254, hint: w.t('users.profile.email-hint') })}
${languageSelect(w, view.languages, fields.language, errors)}
<p><label for="description">${w.t('users.profile.description')}</label>
<span class="hint">${w.t('users.profile.description-hint')}</span><textarea id="description" name="description" rows="8"${described('description', errors)}>${fields.description}</textarea>
${fieldError('description', errors)}</p>
${checkbox('newsletter', w.t('users.profile.newsletter'), fields.newsletter)}
<p class="buttons"><button type="submit" name="action" value="save">${w.t('users.form.save')}</button> <button type="submit" name="action" value="preview" class="secondary">${w.t('users.profile.preview')}</button></p>
</form>
${view.preview === null ? '' : html`<section class="preview" aria-labelledby="preview-heading"><h2 id="preview-heading">${w.t('users.profile.preview-heading')}</h2><div class="markdown">${view.preview}</div></section>`}
</section>
${view.passkeys === null ? '' : passkeysSection(w, view, view.passkeys)}
${tokensSection(w, view)}`;
  return layout(site, { title: w.t('users.profile.title'), main, scripts: view.passkeys === null ? [] : PASSKEY_SCRIPTS });
}

/** The language of the member's pages and mails: one of those offered, or none ('': the browser's). */
function languageSelect(w: Words, languages: ProfileView['languages'], chosen: string, errors: FieldMessages): Html {
  const option = (value: string, label: string) => html`<option value="${value}"${value === chosen ? html` selected` : ''}>${label}</option>`;
  return html`<p><label for="language">${w.t('users.profile.language')}</label>
<span class="hint" id="language-hint">${w.t('users.profile.language-hint')}</span><select id="language" name="language"${described('language', errors)}>
${option('', w.t('users.profile.language-browser'))}
${languages.map((language) => option(language.tag, language.name))}
</select>
${fieldError('language', errors)}</p>`;
}

function tokensSection(w: Words, view: ProfileView): Html {
  const rows = view.tokens.map(
    (
      token,
    ) => html`<tr><td>${token.name}</td><td>${when(w, view.zone, token.createdUs)}</td><td>${token.lastUsedUs === null ? w.t('users.when.never') : when(w, view.zone, token.lastUsedUs)}</td>
<td><form method="post" action="/accounts/profile/tokens/${token.id}/revoke/" class="inline">${csrfInput(view.csrf)}<button type="submit" class="secondary">${w.t('users.tokens.revoke')}</button></form></td></tr>`,
  );
  const errors: FieldMessages = view.tokenError === null ? NO_ERRORS : { token_name: [view.tokenError] };
  return html`<section class="account-form tokens" aria-labelledby="tokens-heading">
<h2 id="tokens-heading">${w.t('users.tokens.heading')}</h2>
<p>${wordsHtml(w, 'users.tokens.intro', { header: 'Authorization: Token …' }, { code: (chunks) => html`<code>${chunks}</code>` })}</p>
${
  rows.length === 0
    ? html`<p>${w.t('users.tokens.none')}</p>`
    : html`<table><thead><tr><th scope="col">${w.t('users.tokens.name')}</th><th scope="col">${w.t('users.tokens.created')}</th><th scope="col">${w.t('users.tokens.last-used')}</th><th scope="col"><span class="visually-hidden">${w.t('users.tokens.revoke')}</span></th></tr></thead><tbody>${rows}</tbody></table>`
}
<form method="post" action="/accounts/profile/tokens/" class="stacked">
${csrfInput(view.csrf)}
${textInput('token_name', w.t('users.tokens.new-name'), view.tokenName, errors, { required: true, maxLength: 100, hint: w.t('users.tokens.new-name-hint') })}
<p><button type="submit">${w.t('users.tokens.create')}</button></p>
</form>
</section>`;
}

/**
 * The member's passkeys and the form that adds one. The form is sent by assets/passkeys.js once the
 * authenticator has answered (the answer in `credential`); without the script, or in a browser
 * without passkeys, its button stays hidden and the note says why.
 */
function passkeysSection(w: Words, view: ProfileView, passkeys: readonly PasskeyInfo[]): Html {
  const rows = passkeys.map(
    (
      passkey,
    ) => html`<tr><td>${passkey.name}</td><td>${when(w, view.zone, passkey.createdUs)}</td><td>${passkey.lastUsedUs === null ? w.t('users.when.never') : when(w, view.zone, passkey.lastUsedUs)}</td>
<td class="actions"><a href="${passkeyPath(passkey.id)}">${w.t('users.passkeys.rename')}<span class="visually-hidden"> ${passkey.name}</span></a>
<form method="post" action="${passkeyRemovePath(passkey.id)}" class="inline">${csrfInput(view.csrf)}<button type="submit" class="secondary">${w.t('users.passkeys.remove')}<span class="visually-hidden"> ${passkey.name}</span></button></form></td></tr>`,
  );
  const errors: FieldMessages = view.passkeyError === null ? NO_ERRORS : { passkey_name: [view.passkeyError] };
  return html`<section class="account-form passkeys" aria-labelledby="passkeys-heading">
<h2 id="passkeys-heading">${w.t('users.passkeys.heading')}</h2>
<p>${w.t('users.passkeys.intro')}</p>
${
  rows.length === 0
    ? html`<p id="passkeys-none">${w.t('users.passkeys.none')}</p>`
    : html`<table id="passkeys"><thead><tr><th scope="col">${w.t('users.passkeys.name')}</th><th scope="col">${w.t('users.passkeys.added')}</th><th scope="col">${w.t('users.tokens.last-used')}</th><th scope="col"><span class="visually-hidden">${w.t('users.passkeys.rename-or-remove')}</span></th></tr></thead><tbody>${rows}</tbody></table>`
}
${
  view.canAddPasskey
    ? addPasskeyForm(w, view, errors)
    : html`<p id="passkey-log-in-again">${wordsHtml(w, 'users.passkeys.log-in-again', {}, { link: (chunks) => html`<a href="/accounts/login/?next=/accounts/profile/">${chunks}</a>` })}</p>`
}
</section>`;
}

function addPasskeyForm(w: Words, view: ProfileView, errors: FieldMessages): Html {
  return html`<form method="post" action="${PASSKEYS_PATH}" class="stacked" data-passkey="register" data-options="${PASSKEY_OPTIONS_PATH}"${passkeyScriptWords(w)}>
${csrfInput(view.csrf)}
<input type="hidden" name="credential" value="">
${textInput('passkey_name', w.t('users.passkeys.new-name'), view.passkeyName, errors, { maxLength: PASSKEY_NAME_MAX, hint: w.t('users.passkeys.new-name-hint') })}
<p class="passkey-unsupported">${w.t('users.passkeys.unsupported')}</p>
<p class="passkey-status" role="status"></p>
<p><button type="submit" id="passkey-add" hidden disabled>${w.t('users.passkeys.add')}</button></p>
</form>`;
}

export interface PasskeyView {
  csrf: string;
  passkey: PasskeyInfo;
  /** The name as typed (or the stored one). */
  name: string;
  error: string | null;
}

/** `/accounts/profile/passkeys/<id>/`: renaming a passkey. */
export function passkeyPage(site: Site, view: PasskeyView): Buffer {
  const w = site.words;
  const errors: FieldMessages = view.error === null ? NO_ERRORS : { passkey_name: [view.error] };
  const main = html`<section class="account-form" aria-labelledby="passkey-heading">
<h1 id="passkey-heading">${w.t('users.passkeys.rename-title')}</h1>
${view.error === null ? '' : formError(w.t('users.passkeys.not-saved'))}
<form method="post" action="${passkeyPath(view.passkey.id)}" class="stacked">
${csrfInput(view.csrf)}
${textInput('passkey_name', w.t('users.passkeys.name'), view.name, errors, { required: true, maxLength: PASSKEY_NAME_MAX })}
<p><button type="submit">${w.t('users.form.save')}</button></p>
</form>
<p><a href="/accounts/profile/">${w.t('users.profile.back')}</a></p>
</section>`;
  return layout(site, { title: w.t('users.passkeys.rename-title'), main });
}

/** A date and time as the page's language writes it, with the API's ISO form for machines. */
function when(w: Words, zone: TimeFormatter, us: number): Html {
  return html`<time datetime="${zone.format(us)}">${w.dateTime(us)}</time>`;
}

/** The answer to a token's creation: its secret, this once. */
export function tokenCreatedPage(site: Site, { name, secret }: { name: string; secret: string }): Buffer {
  const w = site.words;
  const main = html`<section class="account-form" aria-labelledby="token-heading">
<h1 id="token-heading">${w.t('users.tokens.created-title')}</h1>
<p>${wordsHtml(w, 'users.tokens.created-intro', { name }, { strong: (chunks) => html`<strong>${chunks}</strong>` })}</p>
<p><label for="token-secret">${w.t('users.tokens.secret')}</label> <input id="token-secret" readonly value="${secret}" size="50"></p>
<p>${wordsHtml(w, 'users.tokens.use-as', { header: `Authorization: Token ${secret}` }, { code: (chunks) => html`<code>${chunks}</code>` })}</p>
<p><a href="/accounts/profile/">${w.t('users.profile.back')}</a></p>
</section>`;
  return layout(site, { title: w.t('users.tokens.created-title'), main });
}

export interface PasswordView {
  csrf: string;
  errors: FieldMessages;
}

/** `/accounts/password/`: the old password, the new one twice (Django's field names). */
export function passwordPage(site: Site, view: PasswordView): Buffer {
  const { errors } = view;
  const w = site.words;
  const main = html`<section class="account-form" aria-labelledby="password-heading">
<h1 id="password-heading">${w.t('users.password.change-title')}</h1>
${passwordRules(w)}
<form method="post" action="/accounts/password/" class="stacked">
${csrfInput(view.csrf)}
${textInput('old_password', w.t('users.password.current'), '', errors, { type: 'password', autocomplete: 'current-password', required: true })}
${newPasswordInputs(w, errors)}
<p><button type="submit">${w.t('users.password.change-button')}</button></p>
</form>
<p>${w.t('users.password.change-logs-out')}</p>
</section>`;
  return layout(site, { title: w.t('users.password.change-title'), main });
}

function passwordRules(w: Words): Html {
  return html`<p class="hint">${w.t('users.password.rules', { min: MIN_PASSWORD_LENGTH })}</p>`;
}

function newPasswordInputs(w: Words, errors: FieldMessages): Html {
  return html`${textInput('new_password1', w.t('users.password.new'), '', errors, { type: 'password', autocomplete: 'new-password', required: true })}
${textInput('new_password2', w.t('users.password.new-again'), '', errors, { type: 'password', autocomplete: 'new-password', required: true })}`;
}

export interface SetPasswordView {
  csrf: string;
  token: string;
  /** Null for the first-superuser link: the form asks for a username and an address too. */
  username: string | null;
  purpose: 'invitation' | 'reset' | 'first-superuser';
  typed: { username: string; email: string };
  errors: FieldMessages;
}

/** `/accounts/set-password/<token>/`: a new password from an invitation or reset, or the first superuser. */
export function setPasswordPage(site: Site, view: SetPasswordView): Buffer {
  const { errors } = view;
  const w = site.words;
  const first = view.purpose === 'first-superuser';
  const title = first ? w.t('users.set-password.first-title') : view.purpose === 'invitation' ? w.t('users.set-password.invitation-title') : w.t('users.set-password.reset-title');
  const main = html`<section class="account-form" aria-labelledby="set-password-heading">
<h1 id="set-password-heading">${title}</h1>
${
  first
    ? html`<p>${w.t('users.set-password.first-intro')}</p>`
    : html`<p>${wordsHtml(w, 'users.set-password.for-account', { username: view.username ?? '' }, { strong: (chunks) => html`<strong>${chunks}</strong>` })}</p>`
}
${errors.link ? formError(errors.link.join(' ')) : ''}
${passwordRules(w)}
<form method="post" action="/accounts/set-password/${view.token}/" class="stacked">
${csrfInput(view.csrf)}
${
  first
    ? html`${textInput('username', w.t('users.form.username'), view.typed.username, errors, { autocomplete: 'username', required: true, maxLength: 150 })}
${textInput('email', w.t('users.form.email'), view.typed.email, errors, { type: 'email', autocomplete: 'email', required: true, maxLength: 254 })}`
    : ''
}
${newPasswordInputs(w, errors)}
<p><button type="submit">${first ? w.t('users.set-password.first-button') : w.t('users.set-password.button')}</button></p>
</form>
</section>`;
  return layout(site, { title, main });
}

/** A link that no longer opens anything: what happened and what to do. */
export function voidLinkPage(site: Site, { mail }: { mail: boolean }): Buffer {
  const w = site.words;
  const login = { login: (chunks: HtmlValue[]) => html`<a href="/accounts/login/">${chunks}</a>` };
  const main = html`<section class="message" aria-labelledby="void-link-heading">
<h1 id="void-link-heading">${w.t('users.void-link.title')}</h1>
<p>${w.t('users.void-link.why')}</p>
<p>${
    mail
      ? wordsHtml(w, 'users.void-link.ask-mail', {}, { reset: (chunks) => html`<a href="/accounts/password/reset/">${chunks}</a>`, ...login })
      : wordsHtml(w, 'users.void-link.ask', {}, login)
  }</p>
</section>`;
  return layout(site, { title: w.t('users.void-link.title'), main });
}

export interface ResetView {
  csrf: string;
  login: string;
  errors: FieldMessages;
}

/** `/accounts/password/reset/` with mail: the form asking for a link. */
export function resetPage(site: Site, view: ResetView): Buffer {
  const w = site.words;
  const main = html`<section class="account-form" aria-labelledby="reset-heading">
<h1 id="reset-heading">${w.t('users.reset.title')}</h1>
<p>${w.t('users.reset.intro')}</p>
<form method="post" action="/accounts/password/reset/" class="stacked">
${csrfInput(view.csrf)}
${textInput('login', w.t('users.form.username-or-email'), view.login, view.errors, { autocomplete: 'username', required: true, maxLength: 254 })}
<p><button type="submit">${w.t('users.reset.button')}</button></p>
</form>
</section>`;
  return layout(site, { title: w.t('users.reset.title'), main });
}

/** The one answer to a reset request, whether the account exists or not. */
export function resetSentPage(site: Site): Buffer {
  const w = site.words;
  const main = html`<section class="message" aria-labelledby="reset-sent-heading">
<h1 id="reset-sent-heading">${w.t('users.reset.sent-title')}</h1>
<p>${w.t('users.reset.sent')}</p>
<p>${w.t('users.reset.sent-none')}</p>
</section>`;
  return layout(site, { title: w.t('users.reset.sent-title'), main });
}

/** `/accounts/password/reset/` without mail: whom to ask. */
export function resetWithoutMailPage(site: Site): Buffer {
  const w = site.words;
  const main = html`<section class="message" aria-labelledby="reset-heading">
<h1 id="reset-heading">${w.t('users.reset.title')}</h1>
<p>${wordsHtml(w, 'users.reset.without-mail', { command: 'hackerspace-api user link USERNAME' }, { code: (chunks) => html`<code>${chunks}</code>` })}</p>
</section>`;
  return layout(site, { title: w.t('users.reset.title'), main });
}
