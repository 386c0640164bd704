import type { ApiView } from '../drf/api-view.js';
import type { Collection } from '../drf/collections.js';
import { VARY } from '../drf/headers.js';
import type { Resolved } from '../drf/resolve.js';
import type { ApiPathMatch } from '../drf/serializer.js';
import { apiPattern, type RouteKind, type RouteMatch } from '../drf/routes.js';
import { answerApi, checkApi, type ApiRoute } from '../handlers/api.js';
import { declareRoute, type Route } from '../http/route.js';
import { collectionPathItem, recordPathItem, singlePathItem } from '../openapi/operations.js';

/**
 * The API's routes (DRF's router under /api/): each kind once, with its methods (its `Allow`),
 * its `Vary`, its path pattern (against the percent-decoded path, with a format suffix where
 * DRF's router adds one) and its OpenAPI path item; the list and detail kinds once per
 * collection of the registry (drf/collections.ts), then the collections' views (drf/api-view.ts).
 */
interface ApiKind {
  methods: readonly string[];
  vary: string;
  /** The path after `/api/` and its template, for a collection's kinds given the collection's path. */
  path(collection: string): { pattern: RegExp; template: string };
}

const READ = ['GET', 'HEAD', 'OPTIONS'] as const;
const KINDS: Record<'root' | 'list' | 'detail' | 'schema', ApiKind> = {
  root: { methods: READ, vary: VARY, path: () => ({ pattern: /^\/api\/(?:\.([a-z0-9]+)\/?)?$/, template: '/api/' }) },
  list: { methods: ['GET', 'POST', 'HEAD', 'OPTIONS'], vary: VARY, path: (c) => ({ pattern: apiPattern(escape(c)), template: `/api/${c}/` }) },
  detail: {
    methods: ['GET', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'],
    vary: VARY,
    path: (c) => ({ pattern: apiPattern(`${escape(c)}/([^/.]+)`), template: `/api/${c}/:id/` }),
  },
  // The API described in OpenAPI 3.1 (openapi/document.ts); not listed in the root.
  schema: { methods: READ, vary: VARY, path: () => ({ pattern: apiPattern('schema'), template: '/api/schema/' }) },
};

const WRITES: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function escape(path: string): string {
  return path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A view's kind: read-only, at its own path. */
function viewKind(view: ApiView): ApiKind {
  return { methods: READ, vary: view.vary, path: () => ({ pattern: apiPattern(view.path, { suffixes: view.suffixes }), template: `/api/${view.path}/` }) };
}

/** An API path: its kind, collection or view, and pattern; `params` reads a match. */
class ApiPath {
  readonly pattern: RegExp;
  readonly template: string;
  readonly methods: readonly string[];
  readonly vary: string;

  constructor(
    readonly kind: RouteKind,
    readonly collection: Collection | null,
    readonly view: ApiView | null = null,
  ) {
    const known = view === null ? KINDS[kind as keyof typeof KINDS] : viewKind(view);
    ({ pattern: this.pattern, template: this.template } = known.path(collection?.path ?? ''));
    ({ methods: this.methods, vary: this.vary } = known);
    if (collection?.readOnly === true) this.methods = READ;
  }

  params(decoded: string | null): RouteMatch | null {
    const m = decoded === null ? null : this.pattern.exec(decoded);
    if (m === null) return null;
    const hasId = this.kind === 'detail';
    return { kind: this.kind, collection: this.collection?.path ?? null, id: hasId ? m[1] : null, suffix: (hasId ? m[2] : m[1]) ?? null };
  }
}

/** The API's paths for these collections, in the order they are tried. */
function apiPaths(collections: readonly Collection[]): readonly ApiPath[] {
  return [
    new ApiPath('root', null),
    ...collections.flatMap((collection) => [new ApiPath('list', collection), new ApiPath('detail', collection)]),
    ...collections.flatMap((collection) => (collection.views ?? []).map((view) => new ApiPath(view.kind, null, view))),
    new ApiPath('schema', null),
  ];
}

/** The API route a percent-decoded path names among these paths (hyperlinked relations in bodies are read with it). */
function matcherOf(paths: readonly ApiPath[]): ApiPathMatch {
  return (decodedPath) => {
    for (const path of paths) {
      const params = path.params(decodedPath);
      if (params !== null) return params;
    }
    return null;
  };
}

/** The OpenAPI path item of an API path, with its methods. */
function pathItemOf({ kind, collection, view }: ApiPath, methods: readonly string[]): Record<string, unknown> {
  if (collection !== null) return kind === 'list' ? collectionPathItem(collection, methods) : recordPathItem(collection, methods);
  return view !== null ? view.openapi(methods) : singlePathItem(kind as 'root' | 'schema', methods);
}

function apiRoute(path: ApiPath, routeOf: ApiPathMatch, root: readonly Collection[]): Route {
  const { methods, vary } = path;
  const api: ApiRoute = {
    headers: Object.freeze({ allow: methods.join(', '), vary }),
    writeMethods: new Set(methods.filter((method) => WRITES.has(method))),
    routeOf,
    collection: path.collection,
    view: path.view,
    root,
  };
  return declareRoute<RouteMatch, Resolved>({
    name: path.collection === null ? path.kind : `${path.collection.path} ${path.kind}`,
    template: path.template,
    methods,
    slashRedirect: true,
    match: ({ decoded }) => path.params(decoded),
    check: (ex) => checkApi(ex, api),
    handle: (ex, resolved) => answerApi(ex, resolved, api),
    openapi: () => pathItemOf(path, methods),
  });
}

/** The API of these collections (the apps' that are on, in the root's order): its routes, and the match of its paths. */
export interface Api {
  readonly routes: readonly Route[];
  readonly routeOf: ApiPathMatch;
}

export function apiOf(collections: readonly Collection[]): Api {
  const paths = apiPaths(collections);
  const routeOf = matcherOf(paths);
  return { routes: paths.map((path) => apiRoute(path, routeOf, collections)), routeOf };
}
