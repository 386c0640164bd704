import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseId, type RouteMatch } from '../drf/routes.js';
import type { Json } from '../openapi/components.js';
import type { RequestFacts } from '../request/facts.js';
import type { Services } from './services.js';

/** A request path in the two forms routes match: as sent, and percent-decoded as Django decodes it (null when that fails). */
export interface RoutePath {
  readonly raw: string;
  readonly decoded: string | null;
}

/** One request on its way through a route: everything a check or a handler reads, passed explicitly. */
export interface Exchange<P = unknown> {
  readonly request: FastifyRequest;
  readonly reply: FastifyReply;
  readonly facts: RequestFacts;
  readonly services: Services;
  readonly route: Route;
  /** What the route's match read from the path (an id, a format suffix). */
  readonly params: P;
}

declare module '../drf/api-view.js' {
  /** An API view is handed its route's exchange. */
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the exchange, as the drf layer below may not name it.
  interface ApiViewExchange extends Exchange<RouteMatch> {}
}

/** A route as declared in a family's file (src/routes/): how it matches, what it is called, what it answers. */
export interface RouteDeclaration<P, C = void> {
  /** A stable name (tests and logs). */
  name: string;
  /** The path with its variable parts named (`/api/users/:id/`): the metrics' `route`, never the URL sent. */
  template: string;
  /** The methods it answers, in the order its `Allow` lists them. */
  methods: readonly string[];
  /** The params of a path it answers, or null. */
  match: (path: RoutePath) => P | null;
  /** Whether the same path without its final slash is redirected to it (Django's APPEND_SLASH). */
  slashRedirect?: boolean;
  /** A page of the web face (errors are pages whatever the Accept; web.md §2). */
  page?: boolean;
  /** Served only when this says so (SpaceAPI without its file is as unknown as any other path). */
  servedBy?: (services: Services) => boolean;
  /** Checks made before the body is read (the API's: format, Accept, authentication, permission, method); what they learn goes to `handle`. */
  check?: (exchange: Exchange<P>) => Promise<C>;
  /** Answered before the body is read (it needs none: a health check must not wait for a 1 MB upload). */
  bodiless?: boolean;
  handle: (exchange: Exchange<P>, checked: C) => Promise<FastifyReply>;
  /** Its path items in the OpenAPI document, by path. */
  openapi?: () => Json;
}

/** A route of the table, its params' type erased (declareRoute keeps each route's own). */
export interface Route {
  readonly name: string;
  readonly template: string;
  readonly methods: readonly string[];
  readonly slashRedirect: boolean;
  readonly page: boolean;
  readonly bodiless: boolean;
  servedBy(services: Services): boolean;
  /** The route's work for a path it answers, or null. */
  match(path: RoutePath): Matched | null;
  openapi(): Json;
}

/** The request facts, services and framework objects an Exchange adds to a route's params. */
export type Arrival = Omit<Exchange, 'params' | 'route'>;

/** A route that answers a request's path, with what its match read. */
export interface Matched {
  readonly route: Route;
  /** Runs the route's checks: a route ready to answer, or a throw (an error answer). */
  check(arrival: Arrival): Promise<Ready> | Ready;
}

/** A route whose checks passed: it answers once the body has been read. */
export interface Ready {
  readonly route: Route;
  handle(arrival: Arrival): Promise<FastifyReply>;
}

export function declareRoute<P, C = void>(declaration: RouteDeclaration<P, C>): Route {
  const { name, template, methods, check, handle } = declaration;
  const route: Route = {
    name,
    template,
    methods,
    slashRedirect: declaration.slashRedirect ?? false,
    page: declaration.page ?? false,
    bodiless: declaration.bodiless ?? false,
    servedBy: (services) => declaration.servedBy?.(services) ?? true,
    match(path) {
      const params = declaration.match(path);
      if (params === null) return null;
      const ready = (checked: C): Ready => ({ route, handle: (arrival) => handle({ ...arrival, route, params }, checked) });
      return {
        route,
        check: (arrival) => (check === undefined ? ready(undefined as C) : check({ ...arrival, route, params }).then(ready)),
      };
    },
    openapi: () => declaration.openapi?.() ?? {},
  };
  return route;
}

/** A match for one fixed path, or any of a few. */
export function fixedPaths(...paths: string[]): (path: RoutePath) => true | null {
  return ({ raw }) => (paths.includes(raw) ? true : null);
}

/** A match for paths (as sent) of a pattern whose first group is a record's id: the id, or no match. */
export function idPath(pattern: RegExp): (path: RoutePath) => number | null {
  return ({ raw }) => {
    const digits = pattern.exec(raw)?.[1];
    return digits === undefined ? null : parseId(digits);
  };
}
