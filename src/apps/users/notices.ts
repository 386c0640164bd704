import type { MessageKey } from '../../i18n/words.js';

/** The members' pages' confirmations (web/notices.ts), by their codes: each a message of the users app's catalogues. */
export const USERS_NOTICES = {
  joined: 'users.notice.joined',
  left: 'users.notice.left',
  interested: 'users.notice.interested',
  'not-interested': 'users.notice.not-interested',
  'member-saved': 'users.notice.member-saved',
  'member-passkeys-removed': 'users.notice.member-passkeys-removed',
  'group-created': 'users.notice.group-created',
  'group-saved': 'users.notice.group-saved',
  'group-deleted': 'users.notice.group-deleted',
  'token-revoked': 'users.notice.token-revoked',
  'passkey-added': 'users.notice.passkey-added',
  'passkey-renamed': 'users.notice.passkey-renamed',
  'passkey-removed': 'users.notice.passkey-removed',
  'profile-saved': 'users.notice.profile-saved',
  'password-changed': 'users.notice.password-changed',
} as const satisfies Readonly<Record<string, MessageKey>>;

export type UsersNotice = keyof typeof USERS_NOTICES;
