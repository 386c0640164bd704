import { notFound } from '../drf/errors.js';
import { declareRoute, fixedPaths, idPath, type Exchange, type Route, type RoutePath } from '../http/route.js';
import { userIdByName } from '../resources/users.js';

/**
 * The original's addresses (members.md §4), so that links from a space's wiki, chat and old
 * e-mails still land: each a 301 to ours, the query kept. The original's GET links that changed
 * something (joining, interest) lead to the record's page, whose button does it: a GET never
 * changes anything here.
 */

interface OriginalAddress<P> {
  name: string;
  template: string;
  match: (path: RoutePath) => P | null;
  /** Our address for the request's params; null for a 404 (an unknown member). */
  to: (params: P, ex: Exchange<P>) => string | null | Promise<string | null>;
}

/** A 301 from one of the original's addresses to ours, its query kept (after ours, when ours has one). */
export function originalAddress<P>({ name, template, match, to }: OriginalAddress<P>): Route {
  return declareRoute<P>({
    name,
    template,
    methods: ['GET', 'HEAD'],
    page: true,
    bodiless: true,
    match,
    handle: async (ex) => {
      const location = await to(ex.params, ex);
      if (location === null) throw notFound();
      const { rawQuery } = ex.facts.target;
      const query = rawQuery === '' ? '' : `${location.includes('?') ? '&' : '?'}${rawQuery}`;
      return ex.reply
        .code(301)
        .header('location', location + query)
        .send();
    },
  });
}

/** The original's fixed addresses of one page (with and without the final slash, as it had them). */
export function originalPaths(name: string, paths: string[], to: string): Route {
  return originalAddress({ name, template: paths[0], match: fixedPaths(...paths), to: () => to });
}

/** `<prefix>/<id>`, with or without the final slash, to our address for the id. */
function originalRecordAddress(name: string, prefix: string, to: (id: number) => string): Route {
  return originalAddress({ name, template: `${prefix}/{id}`, match: idPath(new RegExp(`^${prefix}/([0-9]{1,18})/?$`)), to });
}

/** The original's addresses of the projects', events' and meetings' pages and forms. */
export const ORIGINAL_RECORD_ADDRESSES: readonly Route[] = [
  originalPaths('original new project', ['/projects/add', '/projects/add/'], '/projects/new/'),
  originalRecordAddress('original project edit', '/projects/edit', (id) => `/projects/${id}/edit/`),
  originalRecordAddress('original project join', '/projects/participe', (id) => `/projects/${id}/`),
  originalRecordAddress('original project leave', '/projects/noparticipe', (id) => `/projects/${id}/`),
  originalPaths('original new event', ['/events/add', '/events/add/'], '/events/new/'),
  originalRecordAddress('original event edit', '/events/edit', (id) => `/events/${id}/edit/`),
  originalRecordAddress('original event interested', '/events/interested', (id) => `/events/${id}/`),
  originalRecordAddress('original event not interested', '/events/not_interested', (id) => `/events/${id}/`),
  originalRecordAddress('original new meeting', '/events/add_meeting', (id) => `/meetings/new/?event=${id}`),
  originalRecordAddress('original meeting edit', '/events/edit_meeting', (id) => `/meetings/${id}/edit/`),
];

/**
 * `/accounts/<username>` (case-insensitive) to the member's page. `reserved`: the names of our own
 * `/accounts/<name>/` pages, whose address without the slash keeps its redirect to them.
 */
export function originalMemberAddress(reserved: ReadonlySet<string>): Route {
  return originalAddress({
    name: 'original member page',
    template: '/accounts/{username}',
    match: ({ decoded }) => {
      const name = decoded === null ? undefined : /^\/accounts\/([^/]+)\/?$/.exec(decoded)?.[1];
      return name === undefined || reserved.has(name) ? null : name;
    },
    to: async (name, ex) => {
      const id = await userIdByName(ex.services.database.db, name);
      return id === null ? null : `/members/${id}/`;
    },
  });
}
