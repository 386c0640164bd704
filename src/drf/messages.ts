import { existsSync, readFileSync } from 'node:fs';
import type { Message } from '../resources/write-errors.js';

/**
 * The API's messages in LANGUAGE_CODE, worded as DRF 3.16 and Django 4.2 word them. Errors carry
 * msgids (resources/write-errors.ts Message) and are worded once, when the error's answer is
 * sent, so successful requests never pay for it. A catalogue (`locale/<language>.json`) maps a
 * msgid to its translation, exactly as Debian's python3-djangorestframework and python3-django
 * catalogues say it (test/api-messages.test.ts checks them); a msgid it lacks stays English,
 * as gettext leaves an untranslated message. No entry is a plural: DRF's one plural (Throttled's
 * "second"/"seconds") is two plain msgids, of which it takes the first for 1 and the second
 * otherwise, as gettext's ngettext does for messages it cannot find.
 */

/** What an error says: one message, or several sentences joined by a space (DRF's Throttled). */
export type Detail = Message | readonly Message[];

/** Words a detail in the process's language. */
export type DrfText = (detail: Detail) => string;

/** Translations by msgid, of one language. */
export type DrfCatalogue = Readonly<Record<string, string>>;

/** `{name}` placeholders filled in, as Python's str.format fills DRF's messages. */
function fillIn(text: string, params: Readonly<Record<string, string | number>>): string {
  return text.replace(/\{(\w+)\}/g, (placeholder, name: string) => (Object.hasOwn(params, name) ? String(params[name]) : placeholder));
}

export function drfText(catalogue: DrfCatalogue): DrfText {
  const word = (message: Message): string => (typeof message === 'string' ? (catalogue[message] ?? message) : fillIn(catalogue[message.msgid] ?? message.msgid, message.params));
  return (detail) => (typeof detail === 'string' || !Array.isArray(detail) ? word(detail as Message) : detail.map(word).join(' '));
}

/** The msgids themselves: logs, the CLI, and the pages (which have their own words). */
export const englishText: DrfText = drfText({});

// Beside the bundle (scripts/build.mjs copies them there), else beside this module.
const LOCALE_FOLDERS = [new URL('./drf-locale/', import.meta.url), new URL('./locale/', import.meta.url)];

/**
 * The catalogue Django would use for LANGUAGE_CODE: the tag's own (`fr-be`), else its generic
 * language's (`fr`); none for English or a language we do not ship (its msgids stay English).
 */
export function readDrfCatalogue(languageCode: string): DrfCatalogue {
  const folder = LOCALE_FOLDERS.find((url) => existsSync(url));
  if (folder === undefined) throw new Error(`the API's message catalogues are not beside ${import.meta.url}`);
  for (const tag of [languageCode, languageCode.split('-')[0]]) {
    const file = new URL(`${tag}.json`, folder);
    if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as DrfCatalogue;
  }
  return {};
}
