import type { FastifyReply } from 'fastify';
import type { VersionedTable } from '../db/table-versions.js';
import type { ApiViewBody } from '../drf/api-view.js';
import type { Collection } from '../drf/collections.js';
import type { ApiRoute } from './api-route.js';
import { notFound } from '../drf/errors.js';
import { apiUrl, linkStyle, pageUrl, recordContext, type LinkStyle } from '../drf/links.js';
import { pageCount, pageNumberOf, pageSizeOf } from '../drf/pagination.js';
import type { Resolved } from '../drf/resolve.js';
import { parseId, type RouteMatch } from '../drf/routes.js';
import type { Exchange } from '../http/route.js';
import { sendAnswer } from '../http/reply.js';
import { json } from '../json.js';
import { browsablePage } from '../web/browsable.js';
import { HTML_HEADERS, HTML_TYPE, siteFor } from '../web/layout.js';
import { PRIVATE, wordsFor } from '../http/viewing.js';

/**
 * GET and HEAD on an API route: from the response cache when the tables the body was built from
 * have not changed since, else built once (however many requests ask at the same time) and kept.
 * A person's browser gets the same body as the browsable HTML page (web/browsable.ts), kept
 * under a key of its own (the request's facts name it).
 */
export async function readApi(ex: Exchange<RouteMatch>, resolved: Resolved, base: string, api: ApiRoute): Promise<FastifyReply> {
  const { headers } = api;
  const { request, reply, facts, services, route: entry } = ex;
  const { route } = resolved;
  const html = resolved.media === 'html';
  // Read before the body is built, so that the body is at least as new as the versions it is filed under.
  const snapshot = await services.fast.versionsFor(facts);
  // The holder of a session cookie: a browsable page shows who is logged in; nothing is filed under a shared key.
  const viewer = html && facts.session !== null ? await services.viewing.of(facts) : null;
  const recipe = {
    reads: readsOf(route, api),
    kind: html
      ? { headers: { ...headers, ...HTML_HEADERS, vary: `${headers.vary}, Accept-Language, Cookie` }, type: HTML_TYPE, maxAgeMs: maxAgeOf(api), route: entry.template }
      : { headers, maxAgeMs: maxAgeOf(api), route: entry.template },
    build: html
      ? async () => {
          const body = await buildBody(ex, resolved, base, api);
          const { rawPath, rawQuery } = facts.target;
          const shown = [
            ['Allow', headers.allow],
            ['Content-Type', 'application/json'],
            ['Vary', headers.vary],
          ] as const;
          return browsablePage(siteFor(services.site, wordsFor(services.catalogue, services.viewing, facts, viewer), services.viewing.nav(facts, viewer)), {
            method: 'GET',
            target: rawPath + (rawQuery === '' ? '' : `?${rawQuery}`),
            base,
            status: 200,
            headers: shown,
            body,
          });
        }
      : () => buildBody(ex, resolved, base, api).then(json),
  };
  if (html) reply.headers(HTML_HEADERS);
  if (facts.key !== null) return sendAnswer(reply, await services.bodies.answer(facts.key, snapshot, request.headers, recipe));
  const answer = await services.bodies.fresh(snapshot, request.headers, recipe);
  if (html) services.viewing.settle(reply, facts, viewer);
  return sendAnswer(reply, { ...answer, headers: { ...answer.headers, 'cache-control': PRIVATE } });
}

/** A view's cached body (drf/api-view.ts: the space's status and hours); null on the other routes. */
function viewBody({ view }: ApiRoute): ApiViewBody | null {
  return view !== null && 'body' in view.get ? view.get.body : null;
}

/** How long an answer may be served whatever the tables say: a view's that depends on the time says so. */
function maxAgeOf(api: ApiRoute): number | undefined {
  return viewBody(api)?.maxAgeMs;
}

/** The tables a GET on a route reads: what the cache checks its response against. */
function readsOf(route: RouteMatch, api: ApiRoute): readonly VersionedTable[] {
  // The root and the OpenAPI document depend on no data.
  if (route.kind === 'root' || route.kind === 'schema') return [];
  return viewBody(api)?.reads ?? api.collection!.reads;
}

/** The body of a GET on any API route: the root, a view's, a page of a collection, one record, or the OpenAPI document. */
async function buildBody(ex: Exchange<RouteMatch>, resolved: Resolved, base: string, api: ApiRoute): Promise<unknown> {
  const {
    database: { db },
    config,
    times,
    avatar,
    openapi,
    pagePositions,
  } = ex.services;
  const { route } = resolved;
  const style = linkStyle(base, route.suffix, resolved.format);
  if (route.kind === 'root') return rootBody(style, api.root);
  if (route.kind === 'schema') return openapi();
  const view = viewBody(api);
  if (view !== null) return view.build(ex, resolved);
  const resource = api.collection!;
  const ctx = recordContext(style, config, times, avatar);
  if (route.kind === 'detail') {
    const id = parseId(route.id!);
    const record = id === null ? undefined : await resource.find(db, id, ctx);
    if (record === undefined) throw notFound();
    return record;
  }
  const size = pageSizeOf(resolved.query, config);
  // One snapshot for the count and the page, so that a concurrent write can't split them
  // (PostgreSQL's default READ COMMITTED takes a snapshot per statement; SQLite's is per transaction).
  const { count, pages, page, results } = await db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const count = await resource.count(trx);
      const pages = pageCount(count, size);
      const page = pageNumberOf(resolved.query, pages);
      const results = await resource.page(trx, { ...pagePositions, offset: (page - 1) * size, limit: size }, resolved.query, ctx);
      return { count, pages, page, results };
    });
  return {
    count,
    next: page < pages ? pageUrl(base, resolved.rawPath, resolved.query, page + 1) : null,
    previous: page > 1 ? pageUrl(base, resolved.rawPath, resolved.query, page - 1) : null,
    results,
  };
}

/** The API root: the URL of each collection of the apps that are on, in the root's order. */
function rootBody(style: LinkStyle, root: readonly Collection[]): Record<string, string> {
  const body: Record<string, string> = {};
  for (const { path } of root) body[path] = apiUrl(style, path);
  return body;
}
