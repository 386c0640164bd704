import { NOUNS, type RecordKind } from './record-forms.js';

/**
 * The short confirmations a member's form leads to (members.md §4), each named by a code: the
 * notice cookie carries the code (handlers/notice.ts), never text, so nothing typed is echoed.
 */

/** What a record form did, as its notice says it. */
const RECORD_CHANGES = ['created', 'saved', 'deleted'] as const;

/** A record form's notice ("The project is saved."), one per record kind and change. */
type RecordNotice = `${RecordKind}-${(typeof RECORD_CHANGES)[number]}`;

const RECORD_NOTICES = Object.fromEntries(
  (Object.keys(NOUNS) as RecordKind[]).flatMap((kind) => RECORD_CHANGES.map((change) => [`${kind}-${change}`, `The ${NOUNS[kind]} is ${change}.`])),
) as Record<RecordNotice, string>;

/** Every notice, by its code. */
const NOTICES = {
  ...RECORD_NOTICES,
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

export type Notice = keyof typeof NOTICES;

/** A notice's words; null for a code that names none (a cookie as sent may hold anything). */
export function noticeText(code: string): string | null {
  return Object.hasOwn(NOTICES, code) ? NOTICES[code as Notice] : null;
}
