import type { Route } from '../http/route.js';
import { ACCOUNT_ROUTES } from './accounts.js';
import { ADMIN_ROUTES } from './admin.js';
import { API_ROUTES } from './api.js';
import { ORIGINAL_RECORD_ADDRESSES, originalMemberAddress } from './original-addresses.js';
import { ASSET_ROUTE, HEALTH_ROUTE, LEGACY_DOOR_ROUTES, SPACEAPI_ROUTE } from './outside-api.js';
import { PAGE_ROUTES } from './pages.js';
import { RECORD_FORM_ROUTES } from './record-forms.js';
import { TAKING_PART_ROUTES } from './taking-part.js';

/**
 * Everything the service answers but the original's `/accounts/<username>`, in the order the
 * router tries it: the API (DRF's router), the routes outside its conventions, the original's
 * addresses of the records' pages (before the pages, whose `/projects/<id>/` they would match),
 * the members' forms for records (before the record pages: `/projects/new/` is no project's
 * page), the web face's pages, taking part in a record, the members' account pages and the superusers'
 * admin pages.
 */
const NAMED_ROUTES: readonly Route[] = [
  ...API_ROUTES,
  HEALTH_ROUTE,
  SPACEAPI_ROUTE,
  ...LEGACY_DOOR_ROUTES,
  ASSET_ROUTE,
  ...ORIGINAL_RECORD_ADDRESSES,
  ...RECORD_FORM_ROUTES,
  ...PAGE_ROUTES,
  ...TAKING_PART_ROUTES,
  ...ACCOUNT_ROUTES,
  ...ADMIN_ROUTES,
];

/** The names of our `/accounts/<name>/…` pages: `/accounts/login` stays a redirect to `/accounts/login/`, not a member named "login". */
const ACCOUNT_PAGE_NAMES = new Set(NAMED_ROUTES.flatMap((route) => /^\/accounts\/([^/{]+)\//.exec(route.template)?.[1] ?? []));

/**
 * The route table: dispatch (http/router.ts), the metrics' route labels, the OpenAPI document
 * and each route's `Allow` read it. The original's `/accounts/<username>` comes last: any other
 * page under `/accounts/` wins.
 */
export const ROUTES: readonly Route[] = [...NAMED_ROUTES, originalMemberAddress(ACCOUNT_PAGE_NAMES)];
