import type { VersionedTable } from '../db/table-versions.js';
import { parseId } from '../drf/routes.js';
import { answerPage, type PageSpec } from '../handlers/pages.js';
import { setLanguage } from '../handlers/set-language.js';
import { declareRoute, fixedPaths, type Route, type RoutePath } from '../http/route.js';
import { API_DOCS_HEADERS, apiDocsPage } from '../web/api-docs.js';
import { dashboardPage, dashboardReads, type DashboardPanel } from '../web/dashboard.js';
import { detailPage, type DetailBuilder } from '../web/details.js';
import { HTML_HEADERS, HTML_TYPE, type NavLink } from '../web/layout.js';

/** The web face's pages (web.md §3–§5): GET and HEAD, HTML but for the calendar feed. */
export const METHODS = ['GET', 'HEAD'] as const;
// A page's language follows Accept-Language and the language cookie (request/facts.ts), which a shared cache must know.
export const PAGE_HEADERS = { allow: METHODS.join(', '), vary: 'Accept-Encoding, Accept-Language, Cookie', ...HTML_HEADERS };

/** A page route: its path's pattern (against the path as sent) and what it shows. */
export function pageRoute<P>(name: string, template: string, match: (path: RoutePath) => P | null, spec: PageSpec<P>, slashRedirect = true): Route {
  return declareRoute<P>({ name, template, methods: METHODS, page: true, slashRedirect, match, handle: (ex) => answerPage(ex, spec) });
}

export const pattern =
  (regex: RegExp) =>
  ({ raw }: RoutePath): RegExpExecArray | null =>
    regex.exec(raw);

/** The navigation's links to the pages of no app (the apps' links fall in between by their order). */
export const SITE_LINKS: readonly NavLink[] = [
  { href: '/', label: 'site.nav.dashboard', order: 0 },
  { href: '/api/', label: 'site.nav.api', order: 80 },
  { href: '/api/docs/', label: 'site.nav.api-docs', order: 81 },
];

/** The language switch of every page (handlers/set-language.ts), at Django's address. */
export const SET_LANGUAGE_ROUTE: Route = declareRoute<true>({
  name: 'set-language',
  template: '/i18n/setlang/',
  methods: ['POST'],
  page: true,
  match: fixedPaths('/i18n/setlang/'),
  handle: (ex) => setLanguage(ex),
});

/** The pages of no app: the dashboard, of the apps' panels, and the API reference. */
export function sitePageRoutes(panels: readonly DashboardPanel[]): Route[] {
  return [
    // It shows "3 hours ago" and the last 12 weeks up to now: rebuilt at least every minute.
    pageRoute('dashboard', '/', pattern(/^\/$/), {
      reads: dashboardReads(panels),
      type: HTML_TYPE,
      headers: PAGE_HEADERS,
      maxAgeMs: 60_000,
      build: (ctx) => dashboardPage(ctx, panels),
    }),
    // The API reference (web/api-docs.ts): the same for every request; its CSP allows Redoc's inline styles.
    pageRoute('api-docs', '/api/docs/', pattern(/^\/api\/docs\/$/), {
      reads: [],
      type: HTML_TYPE,
      headers: { ...PAGE_HEADERS, ...API_DOCS_HEADERS },
      build: async ({ site }) => apiDocsPage(site),
    }),
  ];
}

/**
 * A record's page, `/<kind>/<id>/`, as its app builds it: what `reads` names (the collection's
 * record and the related records it names); a write to any of them ends its cached copies. After the kind's forms in the
 * route table: `/projects/new/` is no project's page.
 */
export function detailRoute(kind: string, reads: readonly VersionedTable[], build: DetailBuilder): Route {
  return pageRoute(kind, `/${kind}/:id/`, pattern(new RegExp(`^/${kind}/([^/]+)/$`)), {
    reads,
    type: HTML_TYPE,
    headers: PAGE_HEADERS,
    // Event times read "in 3 days" nowhere here: a detail page changes only with its records.
    build: async (ctx, match) => {
      const id = parseId(decodeURIComponentSafe(match[1]));
      return id === null ? undefined : detailPage(build, ctx, id);
    },
  });
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return '';
  }
}
