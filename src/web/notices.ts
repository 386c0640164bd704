/**
 * The short confirmations a member's form leads to (members.md §4), each named by a code: the
 * notice cookie carries the code (handlers/notice.ts), never text, so nothing typed is echoed.
 * Each app declares its own (`AppDeclaration.notices`).
 */

import type { MessageKey } from '../i18n/words.js';

/** What a record form did, as its notice says it: the message of each change (`The project is saved.`). */
export interface RecordNotices {
  readonly created: MessageKey;
  readonly saved: MessageKey;
  readonly deleted: MessageKey;
}

/** A kind of record's forms' notices, one per change, under `<kind>-<change>`: its app declares them. */
export function recordNotices({ kind, notices }: { kind: string; notices: RecordNotices }): Readonly<Record<string, MessageKey>> {
  return { [`${kind}-created`]: notices.created, [`${kind}-saved`]: notices.saved, [`${kind}-deleted`]: notices.deleted };
}

/** The site's own notices: none, the apps add theirs (`AppDeclaration.notices`). */
export const SITE_NOTICES: Readonly<Record<string, MessageKey>> = {};
