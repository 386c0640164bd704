import type { Collection, CollectionPath } from '../drf/collections.js';
import { optionsBody } from '../drf/metadata.js';
import type { RouteKind, RouteMatch } from '../drf/routes.js';
import { ETAG, FORMATS, parameter, ref, refs, type Json, type ResponseName } from './components.js';

/**
 * The path items of the OpenAPI document, one builder per kind of route: the routes' own
 * declarations (src/routes/) call them with their paths and methods, and the document
 * (openapi/document.ts) gathers what the route table gives.
 */

const pascal = (name: string) => name.replace(/(?:^|[\s/_-])(\w)/g, (_, c: string) => c.toUpperCase());

/** The statuses any request to an API route can get before its handler: the checks of drf/resolve.ts, and failures. */
const ROUTE_ERRORS = { 401: 'Unauthorized', 404: 'NotFound', 406: 'NotAcceptable', 429: 'TooManyRequests', 500: 'InternalError', 503: 'Unavailable' } as const;
/** A method the route lacks: refused after authentication and permission (DRF's order). */
const OTHER_METHODS = { description: 'Any other method', responses: refs({ ...ROUTE_ERRORS, 403: 'Forbidden', 405: 'MethodNotAllowed' }) };

/** What one API route is, for its path item. */
export interface RouteSpec {
  kind: RouteKind;
  tag: string;
  /** DRF's view name (OPTIONS `name`): operation ids are the method and this name. */
  name: string;
  description: string;
  /** The body of GET's 200 (JSON), or the stream's own content. */
  get: { description: string; content: Json; cached: boolean };
  /** Parameters of GET and HEAD beyond `format`. */
  parameters?: Json[];
  /** Statuses GET and HEAD may give beyond the route's. */
  readErrors?: Partial<Record<number, ResponseName>>;
  /** OPTIONS describes the writable fields to a token that may write there. */
  optionalToken?: boolean;
  write?: (method: string) => Json;
}

/** The route's name and description as OPTIONS gives them. */
function routeSpecName(route: RouteMatch, collection: Collection | null = null): Pick<RouteSpec, 'name' | 'description'> {
  const { name, description } = optionsBody(route, null, collection);
  return { name, description: description || (route.kind === 'list' ? `The ${route.collection} collection, paginated` : `One record of ${route.collection}`) };
}

const WRITES: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** A route's path item: its methods exactly as the route declares them (its `Allow`), in that order. */
function pathItem(spec: RouteSpec, methods: readonly string[], suffixes: boolean): Json {
  const item: Json = { summary: spec.name, description: spec.description };
  if (suffixes) item['x-format-suffixes'] = FORMATS;
  for (const method of methods) {
    item[method.toLowerCase()] = WRITES.has(method) ? spec.write!(method) : readOperation(spec, method, suffixes);
  }
  item['x-other-methods'] = OTHER_METHODS;
  return item;
}

function readOperation(spec: RouteSpec, method: string, suffixes: boolean): Json {
  const base = { tags: [spec.tag], operationId: `${method.toLowerCase()}${pascal(spec.name)}` };
  const format = suffixes ? [parameter('format')] : [];
  if (method === 'OPTIONS') {
    return {
      ...base,
      summary: `${spec.name}: describe the route (DRF's metadata)`,
      ...(spec.optionalToken ? { description: 'With a token that may write here, `actions` describes the writable fields.', security: [{}, { Token: [] }] } : {}),
      parameters: format,
      responses: { 200: { description: "DRF's metadata", content: { 'application/json': { schema: ref('Options') } } }, ...refs({ ...ROUTE_ERRORS, 413: 'PayloadTooLarge' }) },
    };
  }
  const { cached } = spec.get;
  const conditional = cached ? [parameter('If-None-Match'), parameter('If-Modified-Since')] : [];
  const headers = cached ? ETAG : undefined;
  const ok =
    method === 'GET'
      ? { description: spec.get.description, ...(headers ? { headers } : {}), content: spec.get.content }
      : { description: "The GET's status and headers, without a body", ...(headers ? { headers } : {}) };
  return {
    ...base,
    summary: method === 'GET' ? `${spec.name}: read` : `${spec.name}: the headers of a GET`,
    parameters: [...format, ...(spec.parameters ?? []), ...conditional],
    responses: { 200: ok, ...(cached ? refs({ 304: 'NotModified' }) : {}), ...refs({ ...ROUTE_ERRORS, ...spec.readErrors }) },
  };
}

/** A JSON body, and for a person's browser the same answer as the browsable HTML page. */
export function jsonOrHtml(schema: Json): Json {
  return { 'application/json': { schema }, 'text/html': { schema: ref('BrowsablePage') } };
}

/** POST on a collection, PUT/PATCH/DELETE on a record: the collection's writable fields, admin or door tokens. */
function writeOperation(collection: Collection, name: string, kind: 'list' | 'detail', method: string): Json {
  const view = `${collection.viewName} ${kind === 'list' ? 'List' : 'Instance'}`;
  const door = collection.create === null;
  const fieldsName = method === 'PATCH' ? `${name}Patch` : `${name}Fields`;
  const body =
    method === 'DELETE' ? {} : { requestBody: { content: { 'application/json': { schema: ref(fieldsName) }, 'application/x-www-form-urlencoded': { schema: ref(fieldsName) } } } };
  const record = { 'application/json': { schema: ref(name) } };
  const answers: Json =
    method === 'POST'
      ? {
          201: {
            description: 'Created: the record',
            headers: { Location: { description: "The record's URL", required: true, schema: { type: 'string', format: 'uri' } } },
            content: record,
          },
          ...(door
            ? { 200: { description: 'The report repeats the state (or a backfill falls where it already was): nothing recorded; the latest opening', content: record } }
            : {}),
        }
      : method === 'DELETE'
        ? { 204: { description: 'Deleted' } }
        : { 200: { description: 'The record as it is now', content: record } };
  const summaries: Record<string, string> = {
    POST: door ? "report the door's state (admins may backfill a past `time`)" : 'create a record',
    PUT: 'replace a record',
    PATCH: 'change some fields of a record',
    DELETE: 'delete a record',
  };
  return {
    tags: [collection.path],
    operationId: `${method.toLowerCase()}${pascal(view)}`,
    summary: `${view}: ${summaries[method]}`,
    ...(door && method === 'POST' ? { description: 'A door token may post `is_open` only; an admin token may add `time`. The same state twice records nothing (200).' } : {}),
    security: [{ Token: [] }],
    parameters: [parameter('format')],
    ...body,
    responses: {
      ...answers,
      ...refs({ ...ROUTE_ERRORS, 403: 'Forbidden', 409: 'Conflict', 413: 'PayloadTooLarge' }),
      ...(method === 'DELETE' ? {} : refs({ 400: 'BadRequest', 415: 'UnsupportedMediaType' })),
    },
  };
}

/** Query parameters a collection's list takes beyond pagination (what its `list` reads from the query). */
const LIST_QUERY: Partial<Record<CollectionPath, Json[]>> = { events: [parameter('ordering')] };

/** The API root and this document: one path each, no id. */
const SINGLES = {
  root: { path: '/api/', tag: 'api', get: { description: "Each collection's URL", content: jsonOrHtml(ref('ApiRoot')), cached: true } },
  schema: { path: '/api/schema/', tag: 'api', get: { description: 'This document', content: jsonOrHtml(ref('OpenApiDocument')), cached: true } },
} as const;

/** A read-only API view (drf/api-view.ts: the space's status, hours and stream) at `path`: its spec names it as its OPTIONS does. */
export function viewPathItem(path: string, spec: RouteSpec, methods: readonly string[], suffixes: boolean): Json {
  return { [path]: pathItem(spec, methods, suffixes) };
}

/** A route outside the collections (one path, no id), described as OPTIONS names it. */
export function singlePathItem(kind: keyof typeof SINGLES, methods: readonly string[]): Json {
  const single: { path: string; tag: string; get: RouteSpec['get']; more?: Partial<RouteSpec> } = SINGLES[kind];
  return {
    [single.path]: pathItem({ kind, tag: single.tag, ...routeSpecName({ kind, collection: null, id: null, suffix: null }), get: single.get, ...single.more }, methods, true),
  };
}

/** A collection's list: a page of records, and POST. */
export function collectionPathItem(collection: Collection<CollectionPath>, methods: readonly string[]): Json {
  const name = schemaName(collection);
  const spec: RouteSpec = {
    kind: 'list',
    tag: collection.path,
    ...routeSpecName({ kind: 'list', collection: collection.path, id: null, suffix: null }, collection),
    get: { description: 'A page of the collection', content: jsonOrHtml(ref(`${name}Page`)), cached: true },
    parameters: [parameter('page'), parameter('page_size'), ...(LIST_QUERY[collection.path] ?? [])],
    // A read-only collection has no writable fields to describe to anyone.
    optionalToken: collection.readOnly !== true,
    write: (method) => writeOperation(collection, name, 'list', method),
  };
  return { [`/api/${collection.path}/`]: pathItem(spec, methods, true) };
}

/** One record of a collection: GET, PUT, PATCH, DELETE. */
export function recordPathItem(collection: Collection<CollectionPath>, methods: readonly string[]): Json {
  const name = schemaName(collection);
  const spec: RouteSpec = {
    kind: 'detail',
    tag: collection.path,
    ...routeSpecName({ kind: 'detail', collection: collection.path, id: '1', suffix: null }, collection),
    get: { description: 'The record, as in the list', content: jsonOrHtml(ref(name)), cached: true },
    optionalToken: collection.readOnly !== true,
    write: (method) => writeOperation(collection, name, 'detail', method),
  };
  return { [`/api/${collection.path}/{id}/`]: { ...pathItem(spec, methods, true), parameters: [parameter('id')] } };
}

/** A collection's name in `components.schemas`: DRF's view name (`Event`, `Openings`). */
export function schemaName(collection: Collection): string {
  return pascal(collection.viewName);
}
