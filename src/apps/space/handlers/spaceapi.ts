import type { FastifyReply } from 'fastify';
import { readAnswerWhenReady, type ReadOptions } from '../../../cache/read-answer.js';
import { Representation, sourceOf } from '../../../cache/representation.js';
import { sameVersions, type VersionedTable } from '../../../db/table-versions.js';
import { methodNotAllowed } from '../../../drf/errors.js';
import type { Exchange } from '../../../http/route.js';
import { sendAnswer } from '../../../http/reply.js';
import { json } from '../../../json.js';
import { readLiveParts, spaceApiDocument, SPACEAPI_MAX_AGE_SECONDS } from '../spaceapi/document.js';

/** Allow and Vary: none of the API's negotiation applies, only the content coding. */
export const SPACEAPI_HEADERS = { allow: 'GET, HEAD, OPTIONS', vary: 'Accept-Encoding' };

/** The state comes from the openings, key holders from the users. */
const READS: readonly VersionedTable[] = ['openings', 'users'];

/**
 * `GET /spaceapi.json`: the space's SpaceAPI document, for directories, apps and bots. Like the
 * health check it lives outside the API: the standard fixes its shape, so none of the API's
 * conventions (format suffixes, Accept negotiation, authentication) apply. Any origin may read it
 * (drf/headers.ts). The document is built once per version of the tables it reads and reused
 * until they change, with its entity tag and compressed variants, as the API's response cache does.
 */
export async function answerSpaceApi({ request, reply, facts, services }: Exchange): Promise<FastifyReply> {
  const spaceApi = services.spaceApi!;
  reply.headers(SPACEAPI_HEADERS);
  if (facts.method === 'OPTIONS') return reply.code(204).send();
  if (facts.method !== 'GET' && facts.method !== 'HEAD') throw methodNotAllowed(facts.method);
  const { database, config } = services;
  const snapshot = await database.versions();
  if (spaceApi.latest === undefined || !sameVersions(snapshot, READS, spaceApi.latest.source.versions)) {
    const source = sourceOf(snapshot, READS, { headers: SPACEAPI_HEADERS });
    spaceApi.latest = new Representation(json(spaceApiDocument(spaceApi.setup, await readLiveParts(database.db, spaceApi.setup))), source);
  }
  const options: ReadOptions = { cacheControl: `max-age=${SPACEAPI_MAX_AGE_SECONDS}`, compressMinBytes: config.compressMinBytes };
  return sendAnswer(reply, await readAnswerWhenReady(spaceApi.latest, request.headers, options));
}
