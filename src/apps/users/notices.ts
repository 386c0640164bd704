/** The members' pages' confirmations (web/notices.ts), by their codes. */
export const USERS_NOTICES = {
  joined: 'You take part in this project.',
  left: 'You no longer take part in this project.',
  interested: 'You are interested in this event.',
  'not-interested': 'You are no longer interested in this event.',
  'member-saved': 'The member is saved.',
  'member-passkeys-removed': 'The member’s passkeys are removed, and they are logged out everywhere.',
  'group-created': 'The group is created.',
  'group-saved': 'The group is saved.',
  'group-deleted': 'The group is deleted.',
  'token-revoked': 'The token is revoked.',
  'passkey-added': 'Your passkey is added: you can log in with it.',
  'passkey-renamed': 'Your passkey is renamed.',
  'passkey-removed': 'Your passkey is removed: it logs no one in any more.',
  'profile-saved': 'Your profile is saved.',
  'password-changed': 'Your password is changed. Your other sessions are logged out.',
} as const satisfies Readonly<Record<string, string>>;

export type UsersNotice = keyof typeof USERS_NOTICES;
