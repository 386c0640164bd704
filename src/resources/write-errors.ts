/**
 * A message as DRF or Django makes it: its msgid (the English text, with Python's `{name}`
 * placeholders) and their values; a plain string is a msgid without any. It is worded in
 * LANGUAGE_CODE only when an answer is sent (drf/messages.ts).
 */
export type Message = string | { readonly msgid: string; readonly params: Readonly<Record<string, string | number>> };

/** A msgid with its placeholders' values. */
export function message(msgid: string, params: Readonly<Record<string, string | number>>): Message {
  return { msgid, params };
}

/** Field-level validation failures, in DRF's shape: field name → messages. */
export type FieldMessages = Record<string, Message[]>;

export class FieldErrors extends Error {
  override name = 'FieldErrors';
  constructor(readonly errors: FieldMessages) {
    super(`invalid fields: ${Object.keys(errors).join(', ')}`);
  }

  /** The messages in words, by field (`word`: drf/messages.ts, for LANGUAGE_CODE or English). */
  worded(word: (message: Message) => string): Record<string, string[]> {
    return Object.fromEntries(Object.entries(this.errors).map(([field, messages]) => [field, messages.map(word)]));
  }
}

/** A write that would leave a reference dangling (deleting a user who still maintains a project…). */
export class ConflictError extends Error {
  override name = 'ConflictError';
}

export const DOES_NOT_EXIST = 'Invalid hyperlink - Object does not exist.';

/** Throws the collected errors, if any. */
export function throwIfAny(errors: FieldMessages): void {
  if (Object.keys(errors).length > 0) throw new FieldErrors(errors);
}
