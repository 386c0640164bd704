import type { AppDeclaration } from '../../http/app-declaration.js';
import { SPACE_LOCALE } from './words.js';
import { SPACE_PANELS } from './web/panels.js';
import { OPENINGS } from './collections.js';
import { SPACE_ROUTES } from './routes.js';
import { SPACE_MODELS } from './interchange.js';
import { SPACE_TABLES } from './tables.js';

/**
 * The space (web.md, api-contract.md): its openings and status, the door, the live state,
 * `/spaceapi.json`. The original's `space` app. Its declaration.
 */
export const spaceApp: AppDeclaration = {
  name: 'space',
  locale: SPACE_LOCALE,
  // The SpaceAPI document names the key holders who show their names.
  needs: ['users'],
  migrations: {},
  tables: SPACE_TABLES,
  models: SPACE_MODELS,
  optional: false,
  collections: [OPENINGS],
  routes: SPACE_ROUTES,
  panels: SPACE_PANELS,
  nav: [],
};
