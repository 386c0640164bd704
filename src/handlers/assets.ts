import type { FastifyReply } from 'fastify';
import { readAnswerWhenReady } from '../cache/read-answer.js';
import { methodNotAllowed, notFound } from '../drf/errors.js';
import type { Exchange } from '../http/route.js';
import { sendAnswer } from '../http/reply.js';

/** `GET /assets/<name>.<hash>.<ext>`: the pages' stylesheet and script, kept by browsers for a year. */
export async function answerAsset({ request, reply, facts, services }: Exchange): Promise<FastifyReply> {
  const { assets } = services.site;
  const file = assets.at(facts.target.rawPath);
  if (file === undefined) throw notFound();
  reply.headers(file.source.headers);
  if (facts.method !== 'GET' && facts.method !== 'HEAD') throw methodNotAllowed(facts.method);
  return sendAnswer(reply, await readAnswerWhenReady(file, request.headers, assets.options));
}
