import { PASSKEY_SCRIPTS } from './accounts.js';
import type { MemberTokenInfo } from '../member-tokens.js';
import { PASSKEY_NAME_MAX, type PasskeyInfo } from '../passkeys.js';
import type { ProfileFields } from '../profile.js';
import type { PageTimes } from '../../../web/format.js';
import { html, type Html } from '../../../web/html.js';
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
  times: PageTimes;
  /** The OpenID provider the account is linked to (OIDC_NAME), or null. */
  linkedTo: string | null;
}

/** `/accounts/profile/`: the profile form, then the personal API tokens. */
export function profilePage(site: Site, view: ProfileView): Buffer {
  const { fields, errors } = view;
  const main = html`<section class="account-form profile" aria-labelledby="profile-heading">
<h1 id="profile-heading">Your profile</h1>
<p>You are logged in as <strong>${view.username}</strong>. <a href="/members/${view.memberId}/">Your public page</a> · <a href="/accounts/password/">Change your password</a></p>
${view.linkedTo === null ? '' : html`<p id="oidc-linked">Your account is linked to ${view.linkedTo}: you can log in with it.</p>`}
${Object.keys(errors).length > 0 ? formError('The profile was not saved: see the messages by the fields.') : ''}
<form method="post" action="/accounts/profile/" class="stacked">
${csrfInput(view.csrf)}
${textInput('first_name', 'First name', fields.first_name, errors, { autocomplete: 'given-name', maxLength: 150 })}
${textInput('last_name', 'Last name', fields.last_name, errors, { autocomplete: 'family-name', maxLength: 150 })}
${checkbox('show_name', 'Show my first and last name on my public page', fields.show_name)}
${textInput('email', 'E-mail address', fields.email, errors, { type: 'email', autocomplete: 'email', required: true, maxLength: 254, hint: 'Never shown to anyone; used to send you a reset link.' })}
<p><label for="description">Description</label>
<span class="hint">Markdown, shown on your public page.</span><textarea id="description" name="description" rows="8"${described('description', errors)}>${fields.description}</textarea>
${fieldError('description', errors)}</p>
${checkbox('newsletter', 'Receive the newsletter', fields.newsletter)}
<p class="buttons"><button type="submit" name="action" value="save">Save</button> <button type="submit" name="action" value="preview" class="secondary">Preview</button></p>
</form>
${view.preview === null ? '' : html`<section class="preview" aria-labelledby="preview-heading"><h2 id="preview-heading">Preview of the description</h2><div class="markdown">${view.preview}</div></section>`}
</section>
${view.passkeys === null ? '' : passkeysSection(view, view.passkeys)}
${tokensSection(view)}`;
  return layout(site, { title: 'Your profile', main, scripts: view.passkeys === null ? [] : PASSKEY_SCRIPTS });
}

function tokensSection(view: ProfileView): Html {
  const rows = view.tokens.map(
    (token) => html`<tr><td>${token.name}</td><td>${when(view.times, token.createdUs)}</td><td>${token.lastUsedUs === null ? 'never' : when(view.times, token.lastUsedUs)}</td>
<td><form method="post" action="/accounts/profile/tokens/${token.id}/revoke/" class="inline">${csrfInput(view.csrf)}<button type="submit" class="secondary">Revoke</button></form></td></tr>`,
  );
  const errors: FieldMessages = view.tokenError === null ? NO_ERRORS : { token_name: [view.tokenError] };
  return html`<section class="account-form tokens" aria-labelledby="tokens-heading">
<h2 id="tokens-heading">Personal API tokens</h2>
<p>A token lets a program use the API as you, with your rights: send it as <code>Authorization: Token …</code>. Its secret is shown once, when it is made.</p>
${
  rows.length === 0
    ? html`<p>You have no token.</p>`
    : html`<table><thead><tr><th scope="col">Name</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Revoke</span></th></tr></thead><tbody>${rows}</tbody></table>`
}
<form method="post" action="/accounts/profile/tokens/" class="stacked">
${csrfInput(view.csrf)}
${textInput('token_name', 'Name of a new token', view.tokenName, errors, { required: true, maxLength: 100, hint: 'What the token is for, e.g. the program that uses it.' })}
<p><button type="submit">Create a token</button></p>
</form>
</section>`;
}

/**
 * The member's passkeys and the form that adds one. The form is sent by assets/passkeys.js once the
 * authenticator has answered (the answer in `credential`); without the script, or in a browser
 * without passkeys, its button stays hidden and the note says why.
 */
function passkeysSection(view: ProfileView, passkeys: readonly PasskeyInfo[]): Html {
  const rows = passkeys.map(
    (
      passkey,
    ) => html`<tr><td>${passkey.name}</td><td>${when(view.times, passkey.createdUs)}</td><td>${passkey.lastUsedUs === null ? 'never' : when(view.times, passkey.lastUsedUs)}</td>
<td class="actions"><a href="${passkeyPath(passkey.id)}">Rename<span class="visually-hidden"> ${passkey.name}</span></a>
<form method="post" action="${passkeyRemovePath(passkey.id)}" class="inline">${csrfInput(view.csrf)}<button type="submit" class="secondary">Remove<span class="visually-hidden"> ${passkey.name}</span></button></form></td></tr>`,
  );
  const errors: FieldMessages = view.passkeyError === null ? NO_ERRORS : { passkey_name: [view.passkeyError] };
  return html`<section class="account-form passkeys" aria-labelledby="passkeys-heading">
<h2 id="passkeys-heading">Passkeys</h2>
<p>A passkey logs you in with this device’s screen lock or a security key, without a password. Add one on each device you use.</p>
${
  rows.length === 0
    ? html`<p id="passkeys-none">You have no passkey.</p>`
    : html`<table id="passkeys"><thead><tr><th scope="col">Name</th><th scope="col">Added</th><th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Rename or remove</span></th></tr></thead><tbody>${rows}</tbody></table>`
}
${view.canAddPasskey ? addPasskeyForm(view, errors) : html`<p id="passkey-log-in-again">To add a passkey, <a href="/accounts/login/?next=/accounts/profile/">log in again</a> first: adding one asks for a recent login.</p>`}
</section>`;
}

function addPasskeyForm(view: ProfileView, errors: FieldMessages): Html {
  return html`<form method="post" action="${PASSKEYS_PATH}" class="stacked" data-passkey="register" data-options="${PASSKEY_OPTIONS_PATH}">
${csrfInput(view.csrf)}
<input type="hidden" name="credential" value="">
${textInput('passkey_name', 'Name of a new passkey', view.passkeyName, errors, { maxLength: PASSKEY_NAME_MAX, hint: 'Where it is, e.g. “Phone” or “Red security key”.' })}
<p class="passkey-unsupported">Adding a passkey needs JavaScript and a browser that supports passkeys.</p>
<p class="passkey-status" role="status"></p>
<p><button type="submit" id="passkey-add" hidden disabled>Add a passkey</button></p>
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
  const errors: FieldMessages = view.error === null ? NO_ERRORS : { passkey_name: [view.error] };
  const main = html`<section class="account-form" aria-labelledby="passkey-heading">
<h1 id="passkey-heading">Rename a passkey</h1>
${view.error === null ? '' : formError('The name was not saved: see the message by the field.')}
<form method="post" action="${passkeyPath(view.passkey.id)}" class="stacked">
${csrfInput(view.csrf)}
${textInput('passkey_name', 'Name', view.name, errors, { required: true, maxLength: PASSKEY_NAME_MAX })}
<p><button type="submit">Save</button></p>
</form>
<p><a href="/accounts/profile/">Back to your profile</a></p>
</section>`;
  return layout(site, { title: 'Rename a passkey', main });
}

function when(times: PageTimes, us: number): Html {
  return html`<time datetime="${times.isoDate(us)}">${times.date(us)}</time>`;
}

/** The answer to a token's creation: its secret, this once. */
export function tokenCreatedPage(site: Site, { name, secret }: { name: string; secret: string }): Buffer {
  const main = html`<section class="account-form" aria-labelledby="token-heading">
<h1 id="token-heading">Token created</h1>
<p>Your token <strong>${name}</strong> is made. Copy its secret now: it is not shown again.</p>
<p><label for="token-secret">Secret</label> <input id="token-secret" readonly value="${secret}" size="50"></p>
<p>Use it as <code>Authorization: Token ${secret}</code>.</p>
<p><a href="/accounts/profile/">Back to your profile</a></p>
</section>`;
  return layout(site, { title: 'Token created', main });
}

export interface PasswordView {
  csrf: string;
  errors: FieldMessages;
}

/** `/accounts/password/`: the old password, the new one twice (Django's field names). */
export function passwordPage(site: Site, view: PasswordView): Buffer {
  const { errors } = view;
  const main = html`<section class="account-form" aria-labelledby="password-heading">
<h1 id="password-heading">Change your password</h1>
${passwordRules()}
<form method="post" action="/accounts/password/" class="stacked">
${csrfInput(view.csrf)}
${textInput('old_password', 'Current password', '', errors, { type: 'password', autocomplete: 'current-password', required: true })}
${newPasswordInputs(errors)}
<p><button type="submit">Change the password</button></p>
</form>
<p>Changing it logs you out everywhere else.</p>
</section>`;
  return layout(site, { title: 'Change your password', main });
}

function passwordRules(): Html {
  return html`<p class="hint">At least 8 characters, not only digits, not your username or e-mail address, and not a common password.</p>`;
}

function newPasswordInputs(errors: FieldMessages): Html {
  return html`${textInput('new_password1', 'New password', '', errors, { type: 'password', autocomplete: 'new-password', required: true })}
${textInput('new_password2', 'New password again', '', errors, { type: 'password', autocomplete: 'new-password', required: true })}`;
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
  const first = view.purpose === 'first-superuser';
  const title = first ? 'Create the first superuser' : view.purpose === 'invitation' ? 'Welcome: choose your password' : 'Choose a new password';
  const main = html`<section class="account-form" aria-labelledby="set-password-heading">
<h1 id="set-password-heading">${title}</h1>
${first ? html`<p>This site has no superuser yet. This link makes one, once.</p>` : html`<p>For the account <strong>${view.username ?? ''}</strong>.</p>`}
${errors.link ? formError(errors.link.join(' ')) : ''}
${passwordRules()}
<form method="post" action="/accounts/set-password/${view.token}/" class="stacked">
${csrfInput(view.csrf)}
${
  first
    ? html`${textInput('username', 'Username', view.typed.username, errors, { autocomplete: 'username', required: true, maxLength: 150 })}
${textInput('email', 'E-mail address', view.typed.email, errors, { type: 'email', autocomplete: 'email', required: true, maxLength: 254 })}`
    : ''
}
${newPasswordInputs(errors)}
<p><button type="submit">${first ? 'Create the superuser' : 'Set the password'}</button></p>
</form>
</section>`;
  return layout(site, { title, main });
}

/** A link that no longer opens anything: what happened and what to do. */
export function voidLinkPage(site: Site, { mail }: { mail: boolean }): Buffer {
  const main = html`<section class="message" aria-labelledby="void-link-heading">
<h1 id="void-link-heading">This link no longer works</h1>
<p>A link to set a password works once, for a limited time (72 hours for an invitation, one hour for a reset), and not after the password was changed.</p>
<p>${mail ? html`<a href="/accounts/password/reset/">Ask for a new link</a>, or ask a superuser of the site for one.` : 'Ask a superuser of the site for a new link.'} If you know your password, <a href="/accounts/login/">log in</a>.</p>
</section>`;
  return layout(site, { title: 'This link no longer works', main });
}

export interface ResetView {
  csrf: string;
  login: string;
  errors: FieldMessages;
}

/** `/accounts/password/reset/` with mail: the form asking for a link. */
export function resetPage(site: Site, view: ResetView): Buffer {
  const main = html`<section class="account-form" aria-labelledby="reset-heading">
<h1 id="reset-heading">Forgot your password?</h1>
<p>Type your username or e-mail address: we send a link to choose a new password to the address of your account.</p>
<form method="post" action="/accounts/password/reset/" class="stacked">
${csrfInput(view.csrf)}
${textInput('login', 'Username or e-mail address', view.login, view.errors, { autocomplete: 'username', required: true, maxLength: 254 })}
<p><button type="submit">Send me a link</button></p>
</form>
</section>`;
  return layout(site, { title: 'Forgot your password?', main });
}

/** The one answer to a reset request, whether the account exists or not. */
export function resetSentPage(site: Site): Buffer {
  const main = html`<section class="message" aria-labelledby="reset-sent-heading">
<h1 id="reset-sent-heading">Check your mail</h1>
<p>If an account matches what you typed, a link to choose a new password is on its way to its e-mail address. It works once, within one hour.</p>
<p>No mail within a few minutes? Check your spam folder, then try again later, or ask a superuser of the site for a link.</p>
</section>`;
  return layout(site, { title: 'Check your mail', main });
}

/** `/accounts/password/reset/` without mail: whom to ask. */
export function resetWithoutMailPage(site: Site): Buffer {
  const main = html`<section class="message" aria-labelledby="reset-heading">
<h1 id="reset-heading">Forgot your password?</h1>
<p>This site does not send mail. Ask a superuser of the site for a link to choose a new password: they make one on the admin page or with <code>hackerspace-api user link USERNAME</code>.</p>
</section>`;
  return layout(site, { title: 'Forgot your password?', main });
}
