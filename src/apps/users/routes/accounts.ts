import { logoutWithoutSession, showLogin, showLogout, submitLogin, submitLogout } from '../handlers/accounts.js';
import { memberPage } from '../handlers/member-pages.js';
import { beginOidcLogin, finishOidcLogin, OIDC_CALLBACK_PATH } from '../handlers/oidc.js';
import { passkeyLoginOptions, submitPasskeyLogin } from '../handlers/passkeys.js';
import { PASSKEY_LOGIN_OPTIONS_PATH, PASSKEY_LOGIN_PATH } from '../web/accounts.js';
import { fixedPaths, type Route } from '../../../http/route.js';
import { MEMBER_ACCOUNT_ROUTES } from './account-pages.js';
import { originalPaths } from '../../../routes/original-addresses.js';

/** The members' account pages (members.md §2): logging in and out, and the original's address of the login page. */
export const ACCOUNT_ROUTES: readonly Route[] = [
  memberPage({
    name: 'login',
    template: '/accounts/login/',
    match: fixedPaths('/accounts/login/'),
    methods: ['GET', 'POST'],
    requires: 'anyone',
    preSession: true,
    handle: (m) => (m.ex.facts.method === 'POST' ? submitLogin(m) : showLogin(m)),
  }),
  // Single sign-on (members.md §5), with OIDC_ISSUER only: begun here, finished at the redirect URI.
  memberPage({
    name: 'oidc login',
    template: '/accounts/oidc/login/',
    match: fixedPaths('/accounts/oidc/login/'),
    methods: ['GET'],
    requires: 'anyone',
    servedBy: (services) => services.oidc !== null,
    handle: beginOidcLogin,
  }),
  memberPage({
    name: 'oidc callback',
    template: OIDC_CALLBACK_PATH,
    match: fixedPaths(OIDC_CALLBACK_PATH),
    methods: ['GET'],
    requires: 'anyone',
    servedBy: (services) => services.oidc !== null,
    handle: finishOidcLogin,
  }),
  // Passkeys (members.md §5), unless PASSKEYS=false: the login form's script asks for a challenge, then posts the answer. Tied to the login form's pre-session cookie.
  memberPage({
    name: 'passkey login options',
    template: PASSKEY_LOGIN_OPTIONS_PATH,
    match: fixedPaths(PASSKEY_LOGIN_OPTIONS_PATH),
    methods: ['POST'],
    requires: 'anyone',
    preSession: true,
    servedBy: (services) => services.config.members.passkeys,
    handle: passkeyLoginOptions,
  }),
  memberPage({
    name: 'passkey login',
    template: PASSKEY_LOGIN_PATH,
    match: fixedPaths(PASSKEY_LOGIN_PATH),
    methods: ['POST'],
    requires: 'anyone',
    preSession: true,
    servedBy: (services) => services.config.members.passkeys,
    handle: submitPasskeyLogin,
  }),
  memberPage({
    name: 'logout',
    template: '/accounts/logout/',
    match: fixedPaths('/accounts/logout/'),
    methods: ['GET', 'POST'],
    requires: 'member',
    visitor: logoutWithoutSession,
    handle: (m) => (m.ex.facts.method === 'POST' ? submitLogout(m) : showLogout(m)),
  }),
  // The original's login address (django.contrib.auth's): 301, the query kept (`next` with it).
  originalPaths('original login', ['/auth/login/', '/auth/login'], '/accounts/login/'),
  // A member's own pages: profile and tokens, password, set-password links, reset (apps/users/routes/account-pages.ts).
  ...MEMBER_ACCOUNT_ROUTES,
];
