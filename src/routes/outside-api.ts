import { answerAsset } from '../handlers/assets.js';
import { answerHealth } from '../handlers/health.js';
import { answerLegacyDoor } from '../apps/space/handlers/legacy-door.js';
import { answerSpaceApi } from '../apps/space/handlers/spaceapi.js';
import { declareRoute, fixedPaths, type Route } from '../http/route.js';
import { healthPathItem, legacyDoorPathItem, spaceApiPathItem } from '../openapi/outside-api.js';
import { ASSET_PREFIX } from '../web/assets.js';

/** The routes outside the API's conventions: the health check, SpaceAPI, the original's door route, the pages' assets. */

/** For load balancers; answered before any body is read. */
export const HEALTH_ROUTE = declareRoute({
  name: 'health',
  template: '/healthz',
  methods: ['GET', 'HEAD'],
  bodiless: true,
  match: fixedPaths('/healthz'),
  handle: answerHealth,
  openapi: () => healthPathItem('/healthz'),
});

/** The SpaceAPI document, served when the operator gave its file (SPACEAPI_CONFIG). */
export const SPACEAPI_ROUTE = declareRoute({
  name: 'spaceapi',
  template: '/spaceapi.json',
  methods: ['GET', 'HEAD', 'OPTIONS'],
  bodiless: true,
  servedBy: (services) => services.spaceApi !== null,
  match: fixedPaths('/spaceapi.json'),
  handle: answerSpaceApi,
  openapi: () => spaceApiPathItem('/spaceapi.json'),
});

/** The original service's private door API, still used by old door scripts: with and without its slash, each answered. */
export const LEGACY_DOOR_ROUTES: readonly Route[] = ['/space/change_status', '/space/change_status/'].map((path) =>
  declareRoute({
    name: `legacy door ${path}`,
    template: path,
    methods: ['POST'],
    match: fixedPaths(path),
    handle: answerLegacyDoor,
    openapi: () => legacyDoorPathItem(path),
  }),
);

/** The pages' stylesheet, scripts and icon, under content-hashed names. */
export const ASSET_ROUTE = declareRoute({
  name: 'assets',
  template: `${ASSET_PREFIX}:file`,
  methods: ['GET', 'HEAD'],
  bodiless: true,
  match: ({ raw }) => (raw.startsWith(ASSET_PREFIX) ? true : null),
  handle: answerAsset,
});
