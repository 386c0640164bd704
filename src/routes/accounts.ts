import { logoutWithoutSession, showLogin, showLogout, submitLogin, submitLogout } from '../handlers/accounts.js';
import { memberPage } from '../handlers/member-pages.js';
import { declareRoute, fixedPaths, type Route } from '../http/route.js';

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
  declareRoute({
    name: 'original login',
    template: '/auth/login/',
    methods: ['GET', 'HEAD'],
    page: true,
    bodiless: true,
    match: fixedPaths('/auth/login/', '/auth/login'),
    handle: async ({ reply, facts }) => {
      const { rawQuery } = facts.target;
      return reply
        .code(301)
        .header('location', `/accounts/login/${rawQuery === '' ? '' : `?${rawQuery}`}`)
        .send();
    },
  }),
];
