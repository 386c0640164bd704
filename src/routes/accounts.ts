import { logoutWithoutSession, showLogin, showLogout, submitLogin, submitLogout } from '../handlers/accounts.js';
import { memberPage } from '../handlers/member-pages.js';
import { fixedPaths, type Route } from '../http/route.js';
import { MEMBER_ACCOUNT_ROUTES } from './account-pages.js';
import { originalPaths } from './original-addresses.js';

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
  // A member's own pages: profile and tokens, password, set-password links, reset (routes/account-pages.ts).
  ...MEMBER_ACCOUNT_ROUTES,
];
