import {
  showPassword,
  showPasswordSet,
  showProfile,
  showReset,
  showResetSent,
  showSetPassword,
  submitNewToken,
  submitPassword,
  submitProfile,
  submitReset,
  submitRevokeToken,
  submitSetPassword,
} from '../handlers/account-pages.js';
import { memberPage } from '../handlers/member-pages.js';
import { passkeyOptions, passkeyRename, submitNewPasskey, submitRemovePasskey } from '../handlers/passkeys.js';
import { PASSKEY_OPTIONS_PATH, PASSKEYS_PATH } from '../web/account-pages.js';
import { fixedPaths, idPath, type Route, type RoutePath } from '../../../http/route.js';
import type { Services } from '../../../http/services.js';
import { originalPaths } from '../../../routes/original-addresses.js';

/** A set-password link's token as links.ts makes them (43 base64url characters). */
const LINK_PATH = /^\/accounts\/set-password\/([A-Za-z0-9_-]{43})\/$/;
const REVOKE_PATH = /^\/accounts\/profile\/tokens\/([0-9]{1,18})\/revoke\/$/;

function linkToken({ raw }: RoutePath): string | null {
  return LINK_PATH.exec(raw)?.[1] ?? null;
}

const revokedId = idPath(REVOKE_PATH);
const passkeysOn = (services: Services): boolean => services.config.members.passkeys;
const passkeyId = idPath(/^\/accounts\/profile\/passkeys\/([0-9]{1,18})\/$/);
const removedPasskeyId = idPath(/^\/accounts\/profile\/passkeys\/([0-9]{1,18})\/remove\/$/);

/** A member's own pages (members.md §3, §4): profile and personal tokens, password, set-password links, reset by mail. */
export const MEMBER_ACCOUNT_ROUTES: readonly Route[] = [
  memberPage({
    name: 'profile',
    template: '/accounts/profile/',
    match: fixedPaths('/accounts/profile/'),
    methods: ['GET', 'POST'],
    requires: 'member',
    handle: (m) => (m.ex.facts.method === 'POST' ? submitProfile(m) : showProfile(m)),
  }),
  memberPage({
    name: 'new member token',
    template: '/accounts/profile/tokens/',
    match: fixedPaths('/accounts/profile/tokens/'),
    methods: ['POST'],
    requires: 'member',
    handle: submitNewToken,
  }),
  memberPage({
    name: 'revoke member token',
    template: '/accounts/profile/tokens/{id}/revoke/',
    match: revokedId,
    methods: ['POST'],
    requires: 'member',
    handle: submitRevokeToken,
  }),
  // Passkeys (members.md §5), unless PASSKEYS=false: the profile form's script asks for a challenge, then posts the answer here.
  memberPage({
    name: 'passkey options',
    template: PASSKEY_OPTIONS_PATH,
    match: fixedPaths(PASSKEY_OPTIONS_PATH),
    methods: ['POST'],
    requires: 'member',
    servedBy: passkeysOn,
    handle: passkeyOptions,
  }),
  memberPage({
    name: 'new passkey',
    template: PASSKEYS_PATH,
    match: fixedPaths(PASSKEYS_PATH),
    methods: ['POST'],
    requires: 'member',
    servedBy: passkeysOn,
    handle: submitNewPasskey,
  }),
  memberPage({
    name: 'passkey',
    template: '/accounts/profile/passkeys/{id}/',
    match: passkeyId,
    methods: ['GET', 'POST'],
    requires: 'member',
    servedBy: passkeysOn,
    handle: passkeyRename,
  }),
  memberPage({
    name: 'remove passkey',
    template: '/accounts/profile/passkeys/{id}/remove/',
    match: removedPasskeyId,
    methods: ['POST'],
    requires: 'member',
    servedBy: passkeysOn,
    handle: submitRemovePasskey,
  }),
  memberPage({
    name: 'password change',
    template: '/accounts/password/',
    match: fixedPaths('/accounts/password/'),
    methods: ['GET', 'POST'],
    requires: 'member',
    handle: (m) => (m.ex.facts.method === 'POST' ? submitPassword(m) : showPassword(m)),
  }),
  // Before the link's page: "done" is no token (43 characters), but say it first anyway.
  memberPage({
    name: 'password set',
    template: '/accounts/set-password/done/',
    match: fixedPaths('/accounts/set-password/done/'),
    methods: ['GET'],
    requires: 'anyone',
    handle: showPasswordSet,
  }),
  // The link's holder may be logged out, or logged in as someone else: the form is tied to the pre-session cookie.
  memberPage({
    name: 'set password',
    template: '/accounts/set-password/{token}/',
    match: linkToken,
    methods: ['GET', 'POST'],
    requires: 'anyone',
    preSession: true,
    handle: (m) => (m.ex.facts.method === 'POST' ? submitSetPassword(m) : showSetPassword(m)),
  }),
  memberPage({
    name: 'password reset',
    template: '/accounts/password/reset/',
    match: fixedPaths('/accounts/password/reset/'),
    methods: ['GET', 'POST'],
    requires: 'anyone',
    preSession: true,
    handle: (m) => (m.ex.facts.method === 'POST' ? submitReset(m) : showReset(m)),
  }),
  memberPage({
    name: 'password reset sent',
    template: '/accounts/password/reset/done/',
    match: fixedPaths('/accounts/password/reset/done/'),
    methods: ['GET'],
    requires: 'anyone',
    handle: showResetSent,
  }),
  originalPaths('original profile', ['/accounts/profile', '/accounts/edit', '/accounts/edit/'], '/accounts/profile/'),
  originalPaths('original password change', ['/accounts/passwd/', '/accounts/passwd'], '/accounts/password/'),
  originalPaths('original password reset', ['/auth/password_reset/', '/auth/password_reset'], '/accounts/password/reset/'),
];
