import { answerAsset } from '../handlers/assets.js';
import { answerHealth } from '../handlers/health.js';
import { declareRoute, fixedPaths } from '../http/route.js';
import { healthPathItem } from '../openapi/outside-api.js';
import { ASSET_PREFIX } from '../web/assets.js';

/** The routes of no app outside the API's conventions: the health check and the pages' assets. */

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

/** The pages' stylesheet, scripts and icon, under content-hashed names. */
export const ASSET_ROUTE = declareRoute({
  name: 'assets',
  template: `${ASSET_PREFIX}:file`,
  methods: ['GET', 'HEAD'],
  bodiless: true,
  match: ({ raw }) => (raw.startsWith(ASSET_PREFIX) ? true : null),
  handle: answerAsset,
});
