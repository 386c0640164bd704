import type { Db } from '../db/connection.js';
import type { VersionedTable } from '../db/table-versions.js';
import { collections } from '../drf/collections.js';
import { parseId } from '../drf/routes.js';
import { eventsForCalendar } from '../resources/calendar-events.js';
import type { TimeFormatter } from '../time.js';
import { API_DOCS_HEADERS, apiDocsPage } from './api-docs.js';
import { calendarFeed, calendarSinceUs } from './calendar.js';
import { dashboardPage } from './dashboard.js';
import { DETAIL_KINDS, detailPage, type DetailKind } from './details.js';
import type { PageTimes } from './format.js';
import { HTML_HEADERS, HTML_TYPE, type Site } from './layout.js';

/** What a page is built with: the database, the site, times, and the request's base URL and time. */
export interface PageContext {
  db: Db;
  site: Site;
  times: PageTimes;
  zone: TimeFormatter;
  base: string;
  nowMs: number;
}

/** A page outside the API, declared once: its path, the tables it shows, what it is, and its builder. */
export interface PageRoute {
  name: string;
  pattern: RegExp;
  /** The path with its variable part named (`/projects/:id/`): the metrics' `route`, never the URL sent. */
  template: string;
  reads: readonly VersionedTable[];
  type: string;
  headers: Readonly<Record<string, string>>;
  /** How long a built page may be served (it shows the time, or a window that moves); until a write when absent. */
  maxAgeMs?: number;
  /** The body, or undefined for a 404 (an unknown record). */
  build(ctx: PageContext, match: RegExpExecArray): Promise<Buffer | undefined>;
}

const ALLOW = 'GET, HEAD';
const PAGE_HEADERS = { allow: ALLOW, vary: 'Accept-Encoding', ...HTML_HEADERS };
/** A detail page shows its collection's record (what the API's record reads) and names a few related records. */
const DETAIL_READS: Record<DetailKind, readonly VersionedTable[]> = {
  projects: collections.projects.reads,
  // The organizer's name.
  events: [...collections.events.reads, 'users'],
  // The event's title.
  meetings: [...collections.meetings.reads, 'events'],
  // The projects they maintain or take part in.
  members: [...collections.users.reads, 'projects', 'project_participants'],
};

/** The web face's pages (web.md §3–§5). The dashboard shows "3 hours ago" and the last 12 weeks up to now: rebuilt at least every minute. */
export const PAGE_ROUTES: readonly PageRoute[] = [
  {
    name: 'dashboard',
    pattern: /^\/$/,
    template: '/',
    reads: ['openings', 'events', 'projects', 'users', 'meetings'],
    type: HTML_TYPE,
    headers: PAGE_HEADERS,
    maxAgeMs: 60_000,
    build: ({ db, site, times, zone, nowMs }) => dashboardPage(db, site, times, zone, nowMs),
  },
  ...DETAIL_KINDS.map((kind): PageRoute => ({
    name: kind,
    pattern: new RegExp(`^/${kind}/([^/]+)/$`),
    template: `/${kind}/:id/`,
    reads: DETAIL_READS[kind],
    type: HTML_TYPE,
    headers: PAGE_HEADERS,
    // Event times read "in 3 days" nowhere here: a detail page changes only with its records.
    build: async ({ db, site, times }, match) => {
      const id = parseId(decodeURIComponentSafe(match[1]));
      return id === null ? undefined : detailPage(kind, db, id, site, times);
    },
  })),
  {
    // The API reference (api-docs.ts): the same for every request; its CSP allows Redoc's inline styles.
    name: 'api-docs',
    pattern: /^\/api\/docs\/$/,
    template: '/api/docs/',
    reads: [],
    type: HTML_TYPE,
    headers: { ...PAGE_HEADERS, ...API_DOCS_HEADERS },
    build: async ({ site }) => apiDocsPage(site),
  },
  {
    // `/events/urlab.ics` is the original service's path, for installations migrating from it.
    name: 'calendar',
    pattern: /^\/events(?:\/urlab)?\.ics$/,
    template: '/events.ics',
    reads: ['events'],
    type: 'text/calendar; charset=utf-8',
    headers: { allow: ALLOW, vary: 'Accept-Encoding' },
    // The feed keeps the last 180 days: its window moves by the hour at most.
    maxAgeMs: 3_600_000,
    build: async ({ db, site, base, nowMs }) => {
      const events = await eventsForCalendar(db, calendarSinceUs(nowMs * 1000));
      return Buffer.from(calendarFeed(events, { baseUrl: base, name: site.name, nowUs: nowMs * 1000 }));
    },
  },
];

/** The page at a path (without its query), and the pattern's match; null when none. */
export function pageRouteOf(path: string): { route: PageRoute; match: RegExpExecArray } | null {
  // Under /api/ only the reference is a page: every API request is routed here first, and need
  // not be tried against the patterns.
  if (path.startsWith('/api/') && path !== '/api/docs/') return null;
  for (const route of PAGE_ROUTES) {
    const match = route.pattern.exec(path);
    if (match !== null) return { route, match };
  }
  return null;
}

/** Whether a path is a page's without its final slash (`/projects/7`): Django's redirect applies, as in the API. */
export function pageWithSlash(path: string): boolean {
  return !path.endsWith('/') && !path.endsWith('.ics') && pageRouteOf(path + '/') !== null;
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return '';
  }
}
