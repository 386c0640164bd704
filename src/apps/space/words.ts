import type SPACE_MESSAGES from './locale/en.json';
import type { KeysOf } from '../../i18n/words.js';

declare module '../../i18n/words.js' {
  // The space app's words, in its catalogues beside this module.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- its members are the catalogue's keys.
  interface MessageKeys extends KeysOf<typeof SPACE_MESSAGES> {}
}

/** The space app's catalogues, one `<language>.json` each. */
export const SPACE_LOCALE = new URL('./locale/', import.meta.url);
