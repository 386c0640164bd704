import type { FastifyReply, FastifyRequest } from 'fastify';
import { readAnswerWhenReady } from '../cache/read-answer.js';
import { methodNotAllowed, notFound } from '../drf/errors.js';
import { pathOf } from '../drf/request.js';
import { sendAnswer } from '../http/reply.js';
import type { Assets } from '../web/assets.js';

/** `GET /assets/<name>.<hash>.<ext>`: the pages' stylesheet and script, kept by browsers for a year. */
export function assetHandler(assets: Assets) {
  return async function asset(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const file = assets.at(pathOf(request.raw.url));
    if (file === undefined) throw notFound();
    reply.headers(file.source.headers);
    if (request.method !== 'GET' && request.method !== 'HEAD') throw methodNotAllowed(request.method);
    return sendAnswer(reply, await readAnswerWhenReady(file, request.headers, assets.options));
  };
}
