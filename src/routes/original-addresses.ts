import { notFound } from '../drf/errors.js';
import { declareRoute, fixedPaths, idPath, type Exchange, type Route, type RoutePath } from '../http/route.js';

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
export function originalRecordAddress(name: string, prefix: string, to: (id: number) => string): Route {
  return originalAddress({ name, template: `${prefix}/{id}`, match: idPath(new RegExp(`^${prefix}/([0-9]{1,18})/?$`)), to });
}
