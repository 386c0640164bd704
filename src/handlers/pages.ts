import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CachedBodies } from '../cache/cached-bodies.js';
import { cacheKey, type FastReads } from '../cache/fast-path.js';
import type { Config } from '../config.js';
import type { Db } from '../db/connection.js';
import { methodNotAllowed, notFound } from '../drf/errors.js';
import { baseUrlOf } from '../drf/links.js';
import { sendAnswer } from '../http/reply.js';
import { describeRequest } from '../http/request.js';
import type { TimeFormatter } from '../time.js';
import type { PageTimes } from '../web/format.js';
import type { Site } from '../web/layout.js';
import type { PageRoute } from '../web/routes.js';

export interface PagesDependencies {
  db: Db;
  config: Config;
  bodies: CachedBodies;
  fast: FastReads;
  site: Site;
  times: PageTimes;
  zone: TimeFormatter;
}

/**
 * GET and HEAD of a web page (web/routes.ts): through the response cache like the API's reads,
 * so a repeated `/` costs what a cached API read costs (the fast path answers it) and the same
 * writes end it.
 */
export function pagesHandler({ db, config, bodies, fast, site, times, zone }: PagesDependencies) {
  return async function page(request: FastifyRequest, reply: FastifyReply, route: PageRoute, match: RegExpExecArray): Promise<FastifyReply> {
    reply.headers(route.headers);
    if (request.method !== 'GET' && request.method !== 'HEAD') throw methodNotAllowed(request.method);
    const base = baseUrlOf(describeRequest(request), config);
    const target = fast.targetOf(request.raw);
    const key = cacheKey(base, target.rawPath, target.query, 'page');
    // Read before the body is built, so that the body is at least as new as the versions it is filed under.
    const snapshot = await fast.versionsFor(request.raw);
    const answer = await bodies.answer(key, snapshot, request.headers, {
      reads: route.reads,
      kind: { headers: route.headers, type: route.type, maxAgeMs: route.maxAgeMs, route: route.template },
      build: async () => {
        const body = await route.build({ db, site, times, zone, base, nowMs: Date.now() }, match);
        if (body === undefined) throw notFound();
        return body;
      },
    });
    return sendAnswer(reply, answer);
  };
}
