import type EVENTS_MESSAGES from './locale/en.json';
import type { KeysOf } from '../../i18n/words.js';

declare module '../../i18n/words.js' {
  // The events app's words, in its catalogues beside this module.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- its members are the catalogue's keys.
  interface MessageKeys extends KeysOf<typeof EVENTS_MESSAGES> {}
}

/** The events app's catalogues, one `<language>.json` each. */
export const EVENTS_LOCALE = new URL('./locale/', import.meta.url);
