/**
 * The short confirmations a member's form leads to (members.md §4), each named by a code: the
 * notice cookie carries the code (handlers/notice.ts), never text, so nothing typed is echoed.
 * Each app declares its own (`AppDeclaration.notices`).
 */

/** What a record form did, as its notice says it. */
const RECORD_CHANGES = ['created', 'saved', 'deleted'] as const;

/** A kind of record's forms' notices ("The project is saved."), one per change, under `<kind>-<change>`: its app declares them. */
export function recordNotices({ kind, noun }: { kind: string; noun: string }): Readonly<Record<string, string>> {
  return Object.fromEntries(RECORD_CHANGES.map((change) => [`${kind}-${change}`, `The ${noun} is ${change}.`]));
}

/** The site's own notices: none, the apps add theirs (`AppDeclaration.notices`). */
export const SITE_NOTICES: Readonly<Record<string, string>> = {};
