import { decodePath } from '../drf/routes.js';
import type { Target } from '../drf/request.js';
import type { Matched, Route, RoutePath } from './route.js';

/** Where a request target leads: a route, Django's redirect to the path with its slash, or nowhere (404). */
export type Routing = { matched: Matched; location?: never } | { matched?: never; location: string } | null;

/** Dispatch over the route table (src/routes/), in its order; the first route that matches answers. */
export class Router {
  constructor(private readonly routes: readonly Route[]) {}

  route({ rawPath, rawQuery }: Target): Routing {
    const matched = this.first(pathForms(rawPath), false);
    if (matched !== null) return { matched };
    if (!rawPath.endsWith('/') && this.first(pathForms(rawPath + '/'), true) !== null) {
      return { location: rawPath + '/' + (rawQuery === '' ? '' : '?' + rawQuery) };
    }
    return null;
  }

  private first(path: RoutePath, redirecting: boolean): Matched | null {
    for (const route of this.routes) {
      if (redirecting && !route.slashRedirect) continue;
      const matched = route.match(path);
      if (matched !== null) return matched;
    }
    return null;
  }
}

function pathForms(raw: string): RoutePath {
  return { raw, decoded: decodePath(raw) };
}
