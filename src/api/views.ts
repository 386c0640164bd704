import type { Config } from '../config.js';
import type { Db } from '../db/connection.js';
import { currentSpaceState, OpeningPositions, spaceStatusRecord } from '../resources/openings.js';
import type { TimeFormatter } from '../time.js';
import { collections } from './collections.js';
import { notFound } from './errors.js';
import { apiUrl, linkStyle, pageUrl, recordContext, type LinkStyle } from './links.js';
import { pageCount, pageNumberOf, pageSizeOf } from './pagination.js';
import type { Resolved } from './request-checks.js';
import { parseId, type RouteMatch } from './routes.js';

const PARSES = ['application/json', 'application/x-www-form-urlencoded'];

export interface ViewDependencies {
  db: Db;
  config: Config;
  times: TimeFormatter;
  avatar: (email: string) => string;
}

/** The body of a GET on any API route: the root, a page of a collection, or one record. */
export function bodyBuilder({ db, config, times, avatar }: ViewDependencies) {
  const openingPositions = new OpeningPositions();
  return async function buildBody(resolved: Resolved, base: string): Promise<unknown> {
    const { route } = resolved;
    const style = linkStyle(base, route.suffix, resolved.format);
    if (route.kind === 'root') return rootBody(style);
    if (route.kind === 'status') return spaceStatusRecord(await currentSpaceState(db), { time: (micros) => times.format(micros) });
    const resource = collections[route.collection!];
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
    const { count, pages, page, results } = await db.transaction().setIsolationLevel('repeatable read').execute(async (trx) => {
      const count = await resource.count(trx);
      const pages = pageCount(count, size);
      const page = pageNumberOf(resolved.query, pages);
      const results = await resource.page(trx, { offset: (page - 1) * size, limit: size, openingPositions }, resolved.query, ctx);
      return { count, pages, page, results };
    });
    return {
      count,
      next: page < pages ? pageUrl(base, resolved.rawPath, resolved.query, page + 1) : null,
      previous: page > 1 ? pageUrl(base, resolved.rawPath, resolved.query, page - 1) : null,
      results,
    };
  };
}

function rootBody(style: LinkStyle): Record<string, string> {
  return {
    events: apiUrl(style, 'events'),
    meetings: apiUrl(style, 'meetings'),
    users: apiUrl(style, 'users'),
    projects: apiUrl(style, 'projects'),
    'space/openings': apiUrl(style, 'space/openings'),
  };
}

/** DRF's metadata for OPTIONS, with `actions` when the caller may write there (metadata.ts). */
export function optionsBody(route: RouteMatch, actions?: object) {
  if (route.kind === 'root') {
    return { name: 'Api Root', description: 'The default basic root view for DefaultRouter', renders: ['application/json'], parses: PARSES };
  }
  if (route.kind === 'status') {
    return { name: 'Space Status', description: 'Whether the space is open, and since when (the latest opening; nulls before the first).', renders: ['application/json'], parses: PARSES };
  }
  const view = collections[route.collection!].viewName;
  const body = { name: `${view} ${route.kind === 'list' ? 'List' : 'Instance'}`, description: '', renders: ['application/json'], parses: PARSES };
  return actions ? { ...body, actions } : body;
}
