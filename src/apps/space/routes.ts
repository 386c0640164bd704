import { declareRoute, fixedPaths, type Route } from '../../http/route.js';
import { answerLegacyDoor } from './handlers/legacy-door.js';
import { answerSpaceApi } from './handlers/spaceapi.js';
import { legacyDoorPathItem, spaceApiPathItem } from './openapi/outside-api.js';

/** The space's routes outside the API's conventions. */
export const SPACE_ROUTES: readonly Route[] = [
  /** The SpaceAPI document, served when the operator gave its file (SPACEAPI_CONFIG). */
  declareRoute({
    name: 'spaceapi',
    template: '/spaceapi.json',
    methods: ['GET', 'HEAD', 'OPTIONS'],
    bodiless: true,
    servedBy: (services) => services.spaceApi !== null,
    match: fixedPaths('/spaceapi.json'),
    handle: answerSpaceApi,
    openapi: () => spaceApiPathItem('/spaceapi.json'),
  }),
  // The original service's private door API, still used by old door scripts: with and without its slash, each answered.
  ...['/space/change_status', '/space/change_status/'].map((path) =>
    declareRoute({
      name: `legacy door ${path}`,
      template: path,
      methods: ['POST'],
      match: fixedPaths(path),
      handle: answerLegacyDoor,
      openapi: () => legacyDoorPathItem(path),
    }),
  ),
];
