import { NOUNS, type RecordKind } from './record-forms.js';

/**
 * The short confirmations a member's form leads to (members.md §4), each named by a code: the
 * notice cookie carries the code (handlers/notice.ts), never text, so nothing typed is echoed.
 * Each app declares its own; these are the record forms'.
 */

/** What a record form did, as its notice says it. */
const RECORD_CHANGES = ['created', 'saved', 'deleted'] as const;

/** A record form's notice ("The project is saved."), one per record kind and change. */
type RecordNotice = `${RecordKind}-${(typeof RECORD_CHANGES)[number]}`;

const RECORD_NOTICES = Object.fromEntries(
  (Object.keys(NOUNS) as RecordKind[]).flatMap((kind) => RECORD_CHANGES.map((change) => [`${kind}-${change}`, `The ${NOUNS[kind]} is ${change}.`])),
) as Record<RecordNotice, string>;

/** The record forms' notices; the apps add their own (`AppDeclaration.notices`). */
export const SITE_NOTICES: Readonly<Record<string, string>> = RECORD_NOTICES;
