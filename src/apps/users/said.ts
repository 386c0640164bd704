import type { MessageKey, MessageValues, Words } from '../../i18n/words.js';

/**
 * A message to be said in the reader's language: its key in the users app's catalogues and its
 * values. Errors and checks of the users app carry one beside their English `message` (for the
 * command line and the logs); the pages say it with the request's words.
 */
export interface Said {
  readonly key: MessageKey;
  readonly values?: MessageValues;
}

export function said(key: MessageKey, values?: MessageValues): Said {
  return values === undefined ? { key } : { key, values };
}

/** The message in `words`' language. */
export function say(words: Words, message: Said): string {
  return words.t(message.key, message.values);
}

/** Messages by field, said: what a form shows next to its fields. */
export function sayFields(words: Words, fields: Readonly<Record<string, readonly Said[]>>): Record<string, string[]> {
  return Object.fromEntries(Object.entries(fields).map(([name, messages]) => [name, messages.map((message) => say(words, message))]));
}
