import { ETAG, ref, refs, RETRY_AFTER, type Json } from '../../../openapi/components.js';
import { SPACEAPI_MAX_AGE_SECONDS } from '../spaceapi/document.js';
import { SPACEAPI_SCHEMA_NAME, SPACEAPI_VERSION } from './spaceapi-schema.js';

/** The path items of the space's routes outside `/api/`: SpaceAPI and the original door scripts' route. */
function spaceItems() {
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
    legacy,
  };
}

export const spaceApiPathItem = (path: string): Json => ({ [path]: spaceItems().spaceApi });
export const legacyDoorPathItem = (path: string): Json => ({ [path]: spaceItems().legacy(path) });
