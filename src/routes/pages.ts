import type { VersionedTable } from '../db/table-versions.js';
import { collections } from '../drf/collections.js';
import { parseId } from '../drf/routes.js';
import { answerPage, type PageSpec } from '../handlers/pages.js';
import { declareRoute, type Route, type RoutePath } from '../http/route.js';
import { eventsForCalendar } from '../resources/calendar-events.js';
import { API_DOCS_HEADERS, apiDocsPage } from '../web/api-docs.js';
import { calendarFeed, calendarSinceUs } from '../web/calendar.js';
import { dashboardPage } from '../web/dashboard.js';
import { DETAIL_KINDS, detailPage, type DetailKind } from '../web/details.js';
import { HTML_HEADERS, HTML_TYPE } from '../web/layout.js';
import { eventListPage, projectListPage } from '../web/lists.js';

/** The web face's pages (web.md §3–§5): GET and HEAD, HTML but for the calendar feed. */
const METHODS = ['GET', 'HEAD'] as const;
const PAGE_HEADERS = { allow: METHODS.join(', '), vary: 'Accept-Encoding', ...HTML_HEADERS };

/** A detail page shows its collection's record (what the API's record reads) and names a few related records; a write to any of them ends its cached copies. */
const DETAIL_READS: Record<DetailKind, readonly VersionedTable[]> = {
  projects: collections.projects.reads,
  // The organizer's name.
  events: [...collections.events.reads, 'users'],
  // The event's title.
  meetings: [...collections.meetings.reads, 'events'],
  // The projects they maintain or take part in.
  members: [...collections.users.reads, 'projects', 'project_participants'],
};

/** A page route: its path's pattern (against the path as sent) and what it shows. */
function pageRoute<P>(name: string, template: string, match: (path: RoutePath) => P | null, spec: PageSpec<P>, slashRedirect = true): Route {
  return declareRoute<P>({ name, template, methods: METHODS, page: true, slashRedirect, match, handle: (ex) => answerPage(ex, spec) });
}

const pattern =
  (regex: RegExp) =>
  ({ raw }: RoutePath): RegExpExecArray | null =>
    regex.exec(raw);

export const PAGE_ROUTES: readonly Route[] = [
  // It shows "3 hours ago" and the last 12 weeks up to now: rebuilt at least every minute.
  pageRoute('dashboard', '/', pattern(/^\/$/), {
    reads: ['openings', 'events', 'projects', 'users', 'meetings'],
    type: HTML_TYPE,
    headers: PAGE_HEADERS,
    maxAgeMs: 60_000,
    build: (ctx) => dashboardPage(ctx),
  }),
  // The lists (members.md §4); before the detail pages, whose `/events/<id>/` would match `/events/talks/`.
  pageRoute('projects', '/projects/', pattern(/^\/projects\/$/), {
    reads: ['projects', 'users'],
    type: HTML_TYPE,
    headers: PAGE_HEADERS,
    build: (ctx) => projectListPage(ctx),
  }),
  ...[false, true].map((talks) =>
    pageRoute(talks ? 'talks' : 'events', talks ? '/events/talks/' : '/events/', pattern(talks ? /^\/events\/talks\/$/ : /^\/events\/$/), {
      reads: ['events'],
      type: HTML_TYPE,
      headers: PAGE_HEADERS,
      // An event moves from "upcoming" to "past" as time goes by: rebuilt at least every minute.
      maxAgeMs: 60_000,
      build: (ctx) => eventListPage(ctx, talks),
    }),
  ),
  ...DETAIL_KINDS.map((kind) =>
    pageRoute(kind, `/${kind}/:id/`, pattern(new RegExp(`^/${kind}/([^/]+)/$`)), {
      reads: DETAIL_READS[kind],
      type: HTML_TYPE,
      headers: PAGE_HEADERS,
      // Event times read "in 3 days" nowhere here: a detail page changes only with its records.
      build: async (ctx, match) => {
        const id = parseId(decodeURIComponentSafe(match[1]));
        return id === null ? undefined : detailPage(kind, ctx, id);
      },
    }),
  ),
  // The API reference (web/api-docs.ts): the same for every request; its CSP allows Redoc's inline styles.
  pageRoute('api-docs', '/api/docs/', pattern(/^\/api\/docs\/$/), {
    reads: [],
    type: HTML_TYPE,
    headers: { ...PAGE_HEADERS, ...API_DOCS_HEADERS },
    build: async ({ site }) => apiDocsPage(site),
  }),
  // `/events/urlab.ics` is the original service's path, for installations migrating from it.
  pageRoute(
    'calendar',
    '/events.ics',
    pattern(/^\/events(?:\/urlab)?\.ics$/),
    {
      reads: ['events'],
      type: 'text/calendar; charset=utf-8',
      headers: { allow: METHODS.join(', '), vary: 'Accept-Encoding' },
      // The feed keeps the last 180 days: its window moves by the hour at most.
      maxAgeMs: 3_600_000,
      build: async ({ db, site, base, nowMs }) => {
        const events = await eventsForCalendar(db, calendarSinceUs(nowMs * 1000));
        return Buffer.from(calendarFeed(events, { baseUrl: base, name: site.name, nowUs: nowMs * 1000 }));
      },
    },
    false,
  ),
];

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return '';
  }
}
