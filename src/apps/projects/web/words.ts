import type { MessageKey } from '../../../i18n/words.js';

/** Project status letters as people read them (the original's names in French), in the dashboard's order. */
export const PROJECT_STATUS_NAMES: Readonly<Record<string, MessageKey>> = {
  i: 'projects.status.i',
  p: 'projects.status.p',
  d: 'projects.status.d',
  f: 'projects.status.f',
  a: 'projects.status.a',
};
