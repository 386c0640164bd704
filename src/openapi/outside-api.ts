import { SPACEAPI_MAX_AGE_SECONDS } from '../apps/space/spaceapi/document.js';
import { ETAG, ref, refs, RETRY_AFTER, type Json } from './components.js';
import { SPACEAPI_SCHEMA_NAME, SPACEAPI_VERSION } from '../apps/space/openapi/spaceapi-schema.js';

/** The path items of the routes outside `/api/`: SpaceAPI, the health check, the original door scripts' route. */
function outsideApiItems() {
  const spaceApi = {
    tags: ['space'],
    responses: {
      200: {
        description: `The space in the SpaceAPI format (version ${SPACEAPI_VERSION}; \`Cache-Control: max-age=${SPACEAPI_MAX_AGE_SECONDS}\`)`,
        headers: ETAG,
        content: { 'application/json': { schema: ref(SPACEAPI_SCHEMA_NAME) } },
      },
      ...refs({ 304: 'NotModified', 404: 'NotFound', 500: 'InternalError', 503: 'Unavailable' }),
    },
  };
  const health = (method: string) => ({
    tags: ['operations'],
    operationId: `${method}Health`,
    summary: method === 'get' ? 'Whether the service and its database answer' : 'The health check without a body',
    // HEAD: the same statuses and headers, no body.
    responses: {
      200: { description: 'Up', ...(method === 'get' ? { content: { 'application/json': { schema: ref('Health') } } } : {}) },
      503: {
        description: 'The database did not answer in time (`{"status": "unavailable", "database": "down"}`), or the server is shutting down (`{"detail": …}`)',
        headers: RETRY_AFTER,
        ...(method === 'get' ? { content: { 'application/json': { schema: { anyOf: [ref('Health'), ref('Error')] } } } } : {}),
      },
      ...refs({ 500: 'InternalError' }),
    },
  });
  const legacyError = (description: string) => ({ description, content: { 'application/json': { schema: ref('LegacyDoorError') } } });
  const legacy = (path: string) => ({
    summary: "The original service's door route",
    description: `Kept for the original door scripts. Answers \`{"open": 0|1}\` whether or not the state changed; errors are \`{"error": "…"}\` and never repeat the secret. Answered with and without its final slash.`,
    post: {
      tags: ['space'],
      operationId: path.endsWith('/') ? 'postChangeStatusWithSlash' : 'postChangeStatus',
      summary: "Report the door's state (the original's form)",
      requestBody: {
        content: Object.fromEntries(['application/x-www-form-urlencoded', 'multipart/form-data', 'application/json'].map((type) => [type, { schema: ref('LegacyDoorFields') }])),
      },
      responses: {
        200: { description: 'Recorded (or the same state again: nothing recorded)', content: { 'application/json': { schema: ref('LegacyDoorAnswer') } } },
        400: legacyError('No secret, no or a bad `open`, or a malformed body'),
        403: legacyError('The secret is not a door or admin token'),
        415: legacyError('The body is neither a form nor JSON'),
        429: { ...legacyError('Too many bad secrets from this address in the last minute'), headers: RETRY_AFTER },
        ...refs({ 413: 'PayloadTooLarge', 500: 'InternalError', 503: 'Unavailable' }),
      },
    },
    'x-other-methods': { description: 'Any other method', responses: { 400: legacyError('`Only POST requests are allowed`') } },
  });
  return {
    spaceApi: {
      summary: 'SpaceAPI',
      description: 'Published when the operator configures SPACEAPI_CONFIG (else 404). The query string and `Accept` are ignored.',
      get: { ...spaceApi, operationId: 'getSpaceApi', summary: 'The space in the SpaceAPI format' },
      head: {
        ...spaceApi,
        operationId: 'headSpaceApi',
        summary: 'The headers of the SpaceAPI document',
        responses: { ...spaceApi.responses, 200: { description: "The GET's headers", headers: ETAG } },
      },
      options: {
        tags: ['space'],
        operationId: 'optionsSpaceApi',
        summary: 'The methods of the SpaceAPI document',
        responses: { 204: { description: 'Allow: GET, HEAD, OPTIONS' }, ...refs({ 404: 'NotFound' }) },
      },
      'x-other-methods': { description: 'Any other method', responses: refs({ 404: 'NotFound', 405: 'MethodNotAllowed' }) },
    },
    health: {
      summary: 'Health check',
      description: "For load balancers: none of the API's conventions apply. `Cache-Control: no-store`.",
      get: health('get'),
      head: health('head'),
      'x-other-methods': { description: 'Any other method', responses: refs({ 405: 'MethodNotAllowed' }) },
    },
    legacy,
  };
}

export const spaceApiPathItem = (path: string): Json => ({ [path]: outsideApiItems().spaceApi });
export const healthPathItem = (path: string): Json => ({ [path]: outsideApiItems().health });
export const legacyDoorPathItem = (path: string): Json => ({ [path]: outsideApiItems().legacy(path) });
