import type SITE_MESSAGES from './locale/en.json';
import type { KeysOf } from '../i18n/words.js';

declare module '../i18n/words.js' {
  // The site's own words: layout, error pages, forms' machinery, the browsable API's chrome.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- its members are the catalogue's keys.
  interface MessageKeys extends KeysOf<typeof SITE_MESSAGES> {}
}

/** The site's catalogues, one `<language>.json` each (the apps have their own beside their modules). */
export const SITE_LOCALE = new URL('./locale/', import.meta.url);
