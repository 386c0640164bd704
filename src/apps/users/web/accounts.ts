import { CSRF_FIELD } from '../../../request/csrf.js';
import { html, type Html } from '../../../web/html.js';
import { layout, type Site } from '../../../web/layout.js';
import { wordsHtml } from '../../../web/words-html.js';
import type { Words } from '../../../i18n/words.js';

/** The pages of logging in and out (members.md §2), and the short pages a member's form may answer with. */

/** Where the login page's script asks for a passkey login's options, and where it posts the answer. */
/** The passkey ceremonies' script, after the WebAuthn library it uses (the users app's assets). */
export const PASSKEY_SCRIPTS = ['simplewebauthn-browser.js', 'passkeys.js'];

/** What assets/passkeys.js says while it works, in the page's language: its `data-` attributes. */
export function passkeyScriptWords(w: Words): Html {
  const say = {
    waiting: w.t('users.passkeys.js.waiting'),
    adding: w.t('users.passkeys.js.adding'),
    'logging-in': w.t('users.passkeys.js.logging-in'),
    'out-of-date': w.t('users.passkeys.js.out-of-date'),
    'cannot-start': w.t('users.passkeys.js.cannot-start'),
    'already-held': w.t('users.passkeys.js.already-held'),
    'add-cancelled': w.t('users.passkeys.js.add-cancelled'),
    'use-cancelled': w.t('users.passkeys.js.use-cancelled'),
    unreachable: w.t('users.passkeys.js.unreachable'),
    'add-impossible': w.t('users.passkeys.js.add-impossible'),
    'use-impossible': w.t('users.passkeys.js.use-impossible'),
  };
  return html`${Object.entries(say).map(([name, text]) => html` data-say-${name}="${text}"`)}`;
}

export const PASSKEY_LOGIN_OPTIONS_PATH = '/accounts/passkey/login/options/';
export const PASSKEY_LOGIN_PATH = '/accounts/passkey/login/';

/** What the login form shows: the typed username (never the password), where to go after, and why it is shown again. */
export interface LoginForm {
  csrf: string;
  username: string;
  /** `next`, already checked (request/next-path.ts). */
  next: string;
  /** Why the form is shown again ("Wrong username or password."), or null. */
  error: Html | string | null;
  /** No superuser exists yet: say how to make the first one. */
  noSuperuser: boolean;
  /** The member already logged in, if any. */
  loggedInAs: string | null;
  /** PASSWORD_LOGIN: the password form is shown. */
  passwordLogin: boolean;
  /** Single sign-on's button: the provider's name (OIDC_NAME); null without a provider. */
  oidcName: string | null;
  /** PASSKEYS: the passkey button is offered. */
  passkeys: boolean;
}

export function loginPage(site: Site, form: LoginForm): Buffer {
  const w = site.words;
  const main = html`<section class="account-form" aria-labelledby="login-heading">
<h1 id="login-heading">${w.t('users.login.title')}</h1>
${form.loggedInAs !== null ? html`<p class="notice">${w.t('users.login.logged-in-as', { username: form.loggedInAs })}</p>` : ''}
${form.error !== null ? html`<p class="form-error" role="alert" id="login-error">${form.error}</p>` : ''}
<div class="login-choices">
${form.oidcName === null ? '' : html`<p class="buttons"><a id="oidc-login" class="button" href="${oidcLoginPath(form.next)}">${w.t('users.login.with-provider', { provider: form.oidcName })}</a></p>`}
${form.passkeys ? passkeyForm(site, form) : ''}
</div>
${form.passwordLogin ? passwordForm(site, form) : ''}
${
  form.noSuperuser
    ? html`<aside class="notice" aria-labelledby="first-superuser-heading"><h2 id="first-superuser-heading">${w.t('users.login.new-installation')}</h2>
<p>${w.t('users.login.no-superuser')}</p>
<pre><code>hackerspace-api user create NAME --email ADDRESS --superuser</code></pre>
<p>${wordsHtml(w, 'users.login.no-superuser-link', { command: 'serve' }, { code: (chunks) => html`<code>${chunks}</code>` })}</p></aside>`
    : ''
}
</section>`;
  return layout(site, { title: w.t('users.login.title'), main, scripts: form.passkeys ? PASSKEY_SCRIPTS : [] });
}

/**
 * "Log in with a passkey": assets/passkeys.js asks for a challenge, lets the browser offer the
 * site's passkeys (discoverable: no username typed) and sends the answer in `credential`. Hidden
 * and disabled (Enter sends nothing) until the script finds a browser that has passkeys.
 */
function passkeyForm(site: Site, form: LoginForm): Html {
  const w = site.words;
  return html`<form method="post" action="${PASSKEY_LOGIN_PATH}" class="passkey-login" data-passkey="login" data-options="${PASSKEY_LOGIN_OPTIONS_PATH}"${passkeyScriptWords(w)}>
<input type="hidden" name="${CSRF_FIELD}" value="${form.csrf}">
<input type="hidden" name="next" value="${form.next}">
<input type="hidden" name="credential" value="">
<p class="passkey-status" role="status"></p>
<p class="buttons"><button type="submit" id="passkey-login" hidden disabled>${w.t('users.login.with-passkey')}</button></p>
</form>`;
}

/** Where single sign-on begins, with `next` carried along. */
function oidcLoginPath(next: string): string {
  return next === '/' ? '/accounts/oidc/login/' : `/accounts/oidc/login/?next=${encodeURIComponent(next)}`;
}

function passwordForm(site: Site, form: LoginForm): Html {
  const w = site.words;
  return html`${form.oidcName === null ? '' : html`<h2 id="password-login-heading">${w.t('users.login.or-password')}</h2>`}
<form method="post" action="/accounts/login/" class="stacked"${form.error !== null ? html` aria-describedby="login-error"` : ''}>
<input type="hidden" name="${CSRF_FIELD}" value="${form.csrf}">
<input type="hidden" name="next" value="${form.next}">
<p><label for="username">${w.t('users.form.username-or-email')}</label>
<input id="username" name="username" type="text" autocomplete="username" autocapitalize="none" spellcheck="false" required value="${form.username}"${form.error !== null || form.username === '' ? html` autofocus` : ''}></p>
<p><label for="password">${w.t('users.login.password')}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required></p>
<p><button type="submit">${w.t('users.login.button')}</button></p>
</form>`;
}

/** `GET /accounts/logout/`: the button, never the logging out itself (a link or a prefetch must not log anyone out). */
export function logoutPage(site: Site, member: { name: string; csrf: string } | null): Buffer {
  const w = site.words;
  const main =
    member === null
      ? html`<section class="account-form" aria-labelledby="logout-heading"><h1 id="logout-heading">${w.t('users.logout.title')}</h1>
<p>${wordsHtml(w, 'users.logout.not-logged-in', {}, { link: (chunks) => html`<a href="/accounts/login/">${chunks}</a>` })}</p></section>`
      : html`<section class="account-form" aria-labelledby="logout-heading"><h1 id="logout-heading">${w.t('users.logout.title')}</h1>
<p>${w.t('users.logout.logged-in-as', { username: member.name })}</p>
<form method="post" action="/accounts/logout/" class="stacked">
<input type="hidden" name="${CSRF_FIELD}" value="${member.csrf}">
<p><button type="submit">${w.t('users.logout.button')}</button></p>
</form></section>`;
  return layout(site, { title: w.t('users.logout.title'), main });
}
