import type { AppDeclaration } from '../../http/app-declaration.js';
import { USERS_LOCALE } from './words.js';
import { USERS_PANELS } from './web/panels.js';
import type { Route } from '../../http/route.js';
import { detailRoute } from '../../routes/pages.js';
import { userCommand } from './cli/user.js';
import { USERS } from './collections.js';
import { USERS_MIGRATIONS } from './migrations.js';
import { USERS_NOTICES } from './notices.js';
import { ACCOUNT_ROUTES } from './routes/accounts.js';
import { ADMIN_ROUTES } from './routes/admin.js';
import { originalMemberAddress } from './routes/original-member.js';
import { memberDetail } from './web/member-detail.js';
import { USERS_MODELS } from './interchange/models.js';
import { AUTH_MODELS } from './interchange/auth-models.js';
import { USERS_TABLES } from './tables.js';

/**
 * The members (members.md): accounts, sessions, rights, passkeys, single sign-on, tokens, the
 * superusers' admin pages, `/api/users/`. The original's `users` app. Its declaration: what other
 * apps may use of it is in index.ts.
 */

const NAMED_ROUTES: readonly Route[] = [
  // A member's page names the projects they maintain or take part in.
  detailRoute('members', [...USERS.reads, 'projects', 'project_participants'], memberDetail),
  ...ACCOUNT_ROUTES,
  ...ADMIN_ROUTES,
];

/** The names of our `/accounts/<name>/…` pages: `/accounts/login` stays a redirect to `/accounts/login/`, not a member named "login". */
const ACCOUNT_PAGE_NAMES = new Set(NAMED_ROUTES.flatMap((route) => /^\/accounts\/([^/{]+)\//.exec(route.template)?.[1] ?? []));

export const usersApp: AppDeclaration = {
  name: 'users',
  locale: USERS_LOCALE,
  needs: [],
  optional: false,
  migrations: USERS_MIGRATIONS,
  tables: USERS_TABLES,
  models: USERS_MODELS,
  keptModels: AUTH_MODELS,
  collections: [USERS],
  // The original's `/accounts/<username>` last: any page of ours under `/accounts/` wins.
  routes: NAMED_ROUTES,
  // After every app's routes: `/accounts/balance` is the slate's (the stock app), not a member's.
  lastRoutes: [originalMemberAddress(ACCOUNT_PAGE_NAMES)],
  panels: USERS_PANELS,
  nav: [],
  commands: [userCommand],
  notices: USERS_NOTICES,
  assets: {
    dir: new URL('./assets/', import.meta.url),
    files: ['passkeys.js', 'simplewebauthn-browser.js'],
    // The WebAuthn ceremonies' browser half (the server's library's own), as one script that sets `SimpleWebAuthnBrowser`.
    vendor: { 'simplewebauthn-browser.js': { module: '@simplewebauthn/browser/dist/bundle/index.umd.min.js', patches: [] } },
    style: 'users.css',
  },
};
