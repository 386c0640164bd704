import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/connection.js';
import { sameVersions, type VersionedTable } from '../db/table-versions.js';
import type { SpaceApiSetup } from '../spaceapi/config-file.js';
import { readLiveParts, spaceApiDocument } from '../spaceapi/document.js';
import { methodNotAllowed } from './errors.js';
import { json } from './json.js';
import { readAnswerWhenReady, sendAnswer, type ReadOptions } from './read-answer.js';
import { Representation, sourceOf } from './representation.js';

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

/** The state comes from the openings, key holders from the users. */
const READS: readonly VersionedTable[] = ['openings', 'users'];

/**
 * The request handler. The document is built once per version of the tables it reads (one
 * indexed query, two with key holders) and reused until they change, with its entity tag and
 * compressed variants, as the API's response cache does.
 */
export function spaceApiHandler(database: DatabaseHandle, setup: SpaceApiSetup, config: Pick<Config, 'compressMinBytes'>) {
  const options: ReadOptions = { cacheControl: `max-age=${SPACEAPI_MAX_AGE_SECONDS}`, compressMinBytes: config.compressMinBytes };
  let cached: Representation | undefined;

  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    reply.header('allow', ALLOW).header('vary', 'Accept-Encoding');
    if (request.method === 'OPTIONS') return reply.code(204).send();
    if (request.method !== 'GET' && request.method !== 'HEAD') throw methodNotAllowed(request.method);
    const snapshot = await database.versions();
    if (cached === undefined || !sameVersions(snapshot, READS, cached.source.versions)) {
      const source = sourceOf(snapshot, READS, ALLOW);
      cached = new Representation(json(spaceApiDocument(setup, await readLiveParts(database.db, setup))), source);
    }
    return sendAnswer(reply, await readAnswerWhenReady(cached, request.headers, options));
  };
}
