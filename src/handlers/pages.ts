import type { FastifyReply } from 'fastify';
import type { VersionedTable } from '../db/table-versions.js';
import { methodNotAllowed, notFound } from '../drf/errors.js';
import { requireBase } from '../drf/links.js';
import type { Exchange } from '../http/route.js';
import { sendAnswer } from '../http/reply.js';
import { siteFor } from '../web/layout.js';
import type { PageContext } from '../web/page-context.js';
import { takeNotice } from './notice.js';
import { PRIVATE, wordsFor } from '../http/viewing.js';
import { hereOf } from '../request/next-path.js';

/** A page outside the API, as its route declares it (routes/pages.ts): the tables it shows, what it is, and its builder. */
export interface PageSpec<P> {
  reads: readonly VersionedTable[];
  type: string;
  headers: Readonly<Record<string, string>>;
  /** How long a built page may be served (it shows the time, or a window that moves); until a write when absent. */
  maxAgeMs?: number;
  /** The body, or undefined for a 404 (an unknown record). */
  build(ctx: PageContext, params: P): Promise<Buffer | undefined>;
}

/**
 * GET and HEAD of a web page: through the response cache like the API's reads, so a repeated `/`
 * costs what a cached API read costs (the fast path answers it) and the same writes end it. A
 * visitor's page is the same for every visitor (its login link names the page); the holder of a
 * session cookie gets a page built for them, kept by no cache (members.md §2).
 */
export async function answerPage<P>(ex: Exchange<P>, page: PageSpec<P>): Promise<FastifyReply> {
  const { request, reply, facts, services } = ex;
  reply.headers(page.headers);
  if (facts.method !== 'GET' && facts.method !== 'HEAD') throw methodNotAllowed(facts.method);
  const base = requireBase(facts.base);
  const { database, times, viewing } = services;
  const viewer = facts.session === null ? null : await viewing.of(facts);
  const nav = viewing.nav(facts, viewer);
  // Only a request the cache keeps nothing for (facts.key null: it carries a session cookie) gets a page built for its member.
  const forMember = facts.key === null && viewer !== null;
  // Built for them alone, never cached: only such a page may carry a form's notice.
  // A member's page is in their own language; a visitor's in the request's (the cache key names it).
  const words = wordsFor(services.catalogue, viewing, facts, forMember ? viewer : null);
  const site = siteFor(services.site, words, nav, forMember ? takeNotice(reply, facts, request.headers.cookie, services.notices) : null, hereOf(facts));
  const pageViewer = forMember && nav.member ? viewing.page(viewer, nav.member.csrf) : null;
  // Read before the body is built, so that the body is at least as new as the versions it is filed under.
  const snapshot = await services.fast.versionsFor(facts);
  const recipe = {
    reads: page.reads,
    kind: { headers: page.headers, type: page.type, maxAgeMs: page.maxAgeMs, route: ex.route.template },
    build: async () => {
      const context = { db: database.db, site, words, zone: times, base, nowMs: Date.now(), query: facts.target.query, viewer: pageViewer };
      const body = await page.build(context, ex.params);
      if (body === undefined) throw notFound();
      return body;
    },
  };
  if (facts.key !== null) return sendAnswer(reply, await services.bodies.answer(facts.key, snapshot, request.headers, recipe));
  const answer = await services.bodies.fresh(snapshot, request.headers, recipe);
  viewing.settle(reply, facts, viewer);
  return sendAnswer(reply, { ...answer, headers: { ...answer.headers, 'cache-control': PRIVATE } });
}
