import type USERS_MESSAGES from './locale/en.json';
import type { KeysOf } from '../../i18n/words.js';

declare module '../../i18n/words.js' {
  // The users app's words, in its catalogues beside this module.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- its members are the catalogue's keys.
  interface MessageKeys extends KeysOf<typeof USERS_MESSAGES> {}
}

/** The users app's catalogues, one `<language>.json` each. */
export const USERS_LOCALE = new URL('./locale/', import.meta.url);
