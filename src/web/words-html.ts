import type { MessageKey, MessageValues, Words } from '../i18n/words.js';
import { html, Html, type HtmlValue } from './html.js';

/**
 * A message with markup of our own around some of its words (`<api>/api/</api>` made a link by
 * `tags`): the message's text and its values are escaped like any other; only `tags` make markup.
 */
export function wordsHtml(words: Words, key: MessageKey, values: MessageValues, tags: Readonly<Record<string, (chunks: HtmlValue[]) => Html>>): Html {
  return html`${words.parts<Html>(key, values, tags)}`;
}
