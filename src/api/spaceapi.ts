import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DatabaseHandle } from '../db/connection.js';
import type { SpaceApiSetup } from '../spaceapi/config-file.js';
import { readLiveParts, spaceApiDocument } from '../spaceapi/document.js';
import { methodNotAllowed } from './errors.js';
import { json } from './json.js';

/**
 * `GET /spaceapi.json`: the space's SpaceAPI document (https://spaceapi.io/), for directories,
 * apps and bots. Like the health check it lives outside the API: the standard fixes its shape,
 * so none of the API's conventions (format suffixes, Accept negotiation, authentication) apply.
 * Any origin may read it (cors.ts adds the header to every GET, HEAD and OPTIONS).
 */
export const SPACEAPI_PATH = '/spaceapi.json';

const ALLOW = 'GET, HEAD, OPTIONS';

/** As the original service did: clients and proxies may reuse the document for 30 s. */
export const SPACEAPI_MAX_AGE_SECONDS = 30;

/** Whether a request target (path and query) is the SpaceAPI document; the query is ignored. */
export function isSpaceApi(url: string | undefined): boolean {
  if (url === undefined) return false;
  const q = url.indexOf('?');
  return (q === -1 ? url : url.slice(0, q)) === SPACEAPI_PATH;
}

/**
 * The request handler. The body is built once per data version (one indexed query, two with
 * key holders) and reused until the next commit, as the API's response cache does.
 */
export function spaceApiHandler(database: DatabaseHandle, setup: SpaceApiSetup) {
  let cached: { version: string; body: Buffer } | undefined;

  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    reply.header('allow', ALLOW);
    if (request.method === 'OPTIONS') return reply.code(204).send();
    if (request.method !== 'GET' && request.method !== 'HEAD') throw methodNotAllowed(request.method);
    const version = await database.dataVersion();
    let body = cached?.version === version ? cached.body : undefined;
    if (body === undefined) {
      body = json(spaceApiDocument(setup, await readLiveParts(database.db, setup)));
      cached = { version, body };
    }
    return reply.code(200)
      .header('content-type', 'application/json')
      .header('cache-control', `max-age=${SPACEAPI_MAX_AGE_SECONDS}`)
      .send(body);
  };
}
