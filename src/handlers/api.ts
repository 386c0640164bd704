import type { FastifyReply } from 'fastify';
import { linkStyle, recordContext, requireBase } from '../drf/links.js';
import { optionsBody } from '../drf/metadata.js';
import { checkRequest, type Resolved } from '../drf/resolve.js';
import { SAFE_METHODS, type RouteMatch } from '../drf/routes.js';
import type { Exchange } from '../http/route.js';
import { sendJson } from '../http/reply.js';
import { readApi } from './read.js';
import { write } from './write.js';

/** An API route's request: its params are the route it matched, as DRF's URLconf names it. */
export type ApiExchange = Exchange<RouteMatch>;

import type { ApiRoute } from './api-route.js';

export type { ApiRoute };

/**
 * The checks DRF makes before reading the body (drf/resolve.ts), after the route's headers are
 * set. A valid token on a read lets the fast path answer that token's next reads.
 */
export async function checkApi(ex: ApiExchange, { headers, writeMethods, collection, view }: ApiRoute): Promise<Resolved> {
  const { request, reply, facts, services } = ex;
  reply.headers(headers);
  const resolved = await checkRequest(
    { method: facts.method, headers: request.headers, ip: request.ip, target: facts.target, preferred: facts.preferred },
    ex.params,
    writeMethods,
    view?.eventStream === true,
    services.database.db,
    services.throttle,
    services.memberTokens,
    collection?.memberWrites,
  );
  if (resolved.token !== null) services.fast.authenticated(facts, resolved.token);
  return resolved;
}

/** An API route's request, once checked: to OPTIONS, a view's own answer (the stream), a write or a read. */
export async function answerApi(ex: ApiExchange, resolved: Resolved, api: ApiRoute): Promise<FastifyReply> {
  const { routeOf, collection, view } = api;
  const { request, reply, facts, services } = ex;
  const { config, times, avatar } = services;
  // The Host check every API route makes, the stream included (its events hold no links).
  const base = requireBase(facts.base);
  if (facts.method === 'OPTIONS') return sendJson(reply, view !== null ? view.options : optionsBody(resolved.route, resolved.token, collection));
  if (view !== null && 'answer' in view.get) return view.get.answer(ex, resolved);
  if (!SAFE_METHODS.has(facts.method)) {
    const style = linkStyle(base, resolved.route.suffix, resolved.format);
    return write(request, reply, resolved, collection!, style, recordContext(style, config, times, avatar), { writes: services.writes, timeZone: config.timeZone, routeOf });
  }
  return readApi(ex, resolved, base, api);
}
