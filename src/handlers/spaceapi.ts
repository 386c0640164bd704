import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/connection.js';
import { sameVersions, type VersionedTable } from '../db/table-versions.js';
import type { SpaceApiSetup } from '../spaceapi/config-file.js';
import { readLiveParts, spaceApiDocument } from '../spaceapi/document.js';
import { readAnswerWhenReady, type ReadOptions } from '../cache/read-answer.js';
import { Representation, sourceOf } from '../cache/representation.js';
import { methodNotAllowed } from '../drf/errors.js';
import { pathOf } from '../drf/request.js';
import { sendAnswer } from '../http/reply.js';
import { json } from '../json.js';

/**
 * `GET /spaceapi.json`: the space's SpaceAPI document (https://spaceapi.io/), for directories,
 * apps and bots. Like the health check it lives outside the API: the standard fixes its shape,
 * so none of the API's conventions (format suffixes, Accept negotiation, authentication) apply.
 * Any origin may read it (drf/headers.ts: the CORS headers of every GET, HEAD and OPTIONS).
 */
export const SPACEAPI_PATH = '/spaceapi.json';

/** Allow and Vary: none of the API's negotiation applies, only the content coding. */
const HEADERS = { allow: 'GET, HEAD, OPTIONS', vary: 'Accept-Encoding' };

/** As the original service did: clients and proxies may reuse the document for 30 s. */
export const SPACEAPI_MAX_AGE_SECONDS = 30;

/** Whether a request target (path and query) is the SpaceAPI document; the query is ignored. */
export function isSpaceApi(url: string | undefined): boolean {
  return pathOf(url) === SPACEAPI_PATH;
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
    reply.headers(HEADERS);
    if (request.method === 'OPTIONS') return reply.code(204).send();
    if (request.method !== 'GET' && request.method !== 'HEAD') throw methodNotAllowed(request.method);
    const snapshot = await database.versions();
    if (cached === undefined || !sameVersions(snapshot, READS, cached.source.versions)) {
      const source = sourceOf(snapshot, READS, { headers: HEADERS });
      cached = new Representation(json(spaceApiDocument(setup, await readLiveParts(database.db, setup))), source);
    }
    return sendAnswer(reply, await readAnswerWhenReady(cached, request.headers, options));
  };
}
