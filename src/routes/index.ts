import { collectionsOf, type AppDeclaration } from '../http/app-declaration.js';
import type { Route } from '../http/route.js';
import { apiOf, type Api } from './api.js';
import { ASSET_ROUTE, HEALTH_ROUTE } from './outside-api.js';
import { SET_LANGUAGE_ROUTE, sitePageRoutes } from './pages.js';

/** The route table of the apps that are on, and their API. */
export interface RouteTable {
  /** Dispatch (http/router.ts), the metrics' route labels, the OpenAPI document and each route's `Allow` read it. */
  readonly routes: readonly Route[];
  readonly api: Api;
}

/**
 * Everything the service answers, in the order the router tries it: the API (DRF's router, with
 * the collections of the apps that are on), the routes outside its conventions, the site's own
 * pages, then each app's routes in the installed order (each app lists its own in its order: its
 * forms before its records' pages), then the apps' catch-alls (the original's `/accounts/<username>`,
 * so that `/accounts/balance` is the slate's).
 */
export function routeTable(apps: readonly AppDeclaration[]): RouteTable {
  const api = apiOf(collectionsOf(apps));
  return {
    api,
    routes: [
      ...api.routes,
      HEALTH_ROUTE,
      ASSET_ROUTE,
      ...sitePageRoutes(apps.flatMap((app) => app.panels ?? [])),
      SET_LANGUAGE_ROUTE,
      ...apps.flatMap((app) => app.routes),
      ...apps.flatMap((app) => app.lastRoutes ?? []),
    ],
  };
}
