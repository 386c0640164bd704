import type { Route } from '../http/route.js';
import { ACCOUNT_ROUTES } from './accounts.js';
import { ADMIN_ROUTES } from './admin.js';
import { API_ROUTES } from './api.js';
import { ASSET_ROUTE, HEALTH_ROUTE, LEGACY_DOOR_ROUTES, SPACEAPI_ROUTE } from './outside-api.js';
import { PAGE_ROUTES } from './pages.js';
import { RECORD_FORM_ROUTES } from './record-forms.js';

/**
 * Everything the service answers, in the order the router tries it: the API (DRF's router), the
 * routes outside its conventions, then the members' forms for records (before the record pages:
 * `/projects/new/` is no project's page), the web face's pages, the members' account pages and the superusers' admin pages. Dispatch (http/router.ts), the
 * metrics' route labels, the OpenAPI document and each route's `Allow` read this table.
 */
export const ROUTES: readonly Route[] = [
  ...API_ROUTES,
  HEALTH_ROUTE,
  SPACEAPI_ROUTE,
  ...LEGACY_DOOR_ROUTES,
  ASSET_ROUTE,
  ...RECORD_FORM_ROUTES,
  ...PAGE_ROUTES,
  ...ACCOUNT_ROUTES,
  ...ADMIN_ROUTES,
];
