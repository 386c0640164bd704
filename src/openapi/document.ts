import { Type, type TSchema } from '@sinclair/typebox';
import packageJson from '../../package.json' with { type: 'json' };
import { COLLECTIONS, type Collection, type CollectionPath } from '../drf/collections.js';
import { optionsBody } from '../drf/metadata.js';
import { ALLOW, WRITE_METHODS, type RouteKind, type RouteMatch } from '../drf/routes.js';
import { OPTIONS_BODY as STREAM_OPTIONS } from '../handlers/stream.js';
import { SpaceHoursRecord } from '../resources/opening-hours.js';
import { SpaceStatusRecord } from '../resources/openings.js';
import {
  ErrorBody,
  ETAG,
  FieldErrorsBody,
  FORMATS,
  HEADERS,
  HealthBody,
  LegacyDoorAnswer,
  LegacyDoorError,
  LegacyDoorFields,
  OptionsBody,
  parameter,
  parameters,
  ref,
  refs,
  RESPONSES,
  type Json,
  type OpenApiOptions,
  type ResponseName,
} from './components.js';
import { outsideApiPaths } from './outside-api.js';
import { spaceApiSchemas } from './spaceapi-schema.js';

export type { OpenApiOptions } from './components.js';

/**
 * The API as an OpenAPI 3.1 document (`GET /api/schema/`), built once at start from what the
 * service runs on: the route kinds and their methods (drf/routes.ts), the collection registry
 * (drf/collections.ts) with the resources' record and writable-field schemas, the names OPTIONS
 * gives, and the config that shapes a record (AVATAR_FIELD). TypeBox schemas are JSON Schema
 * 2020-12, OpenAPI 3.1's dialect: they go into `components.schemas` as they are, closed
 * (`additionalProperties: false`) where the contract fixes a record's fields.
 */

/** A TypeBox schema as plain JSON (TypeBox's symbol keys dropped). */
const plain = (schema: TSchema): Json => JSON.parse(JSON.stringify(schema)) as Json;
const closed = (schema: TSchema): Json => ({ ...plain(schema), additionalProperties: false });
const pascal = (name: string) => name.replace(/(?:^|[\s/_-])(\w)/g, (_, c: string) => c.toUpperCase());

/** The statuses any request to an API route can get before its handler: the checks of drf/resolve.ts, and failures. */
const ROUTE_ERRORS = { 401: 'Unauthorized', 404: 'NotFound', 406: 'NotAcceptable', 429: 'TooManyRequests', 500: 'InternalError', 503: 'Unavailable' } as const;
/** A method the route lacks: refused after authentication and permission (DRF's order). */
const OTHER_METHODS = { description: 'Any other method', responses: refs({ ...ROUTE_ERRORS, 403: 'Forbidden', 405: 'MethodNotAllowed' }) };

/** What one API route is, for its path item. */
interface RouteSpec {
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
function routeSpecName(route: RouteMatch): Pick<RouteSpec, 'name' | 'description'> {
  const { name, description } = optionsBody(route, null);
  return { name, description: description || (route.kind === 'list' ? `The ${route.collection} collection, paginated` : `One record of ${route.collection}`) };
}

/** A route's path item: its methods exactly as ALLOW says, in that order. */
function pathItem(spec: RouteSpec, suffixes: boolean): Json {
  const item: Json = { summary: spec.name, description: spec.description };
  if (suffixes) item['x-format-suffixes'] = FORMATS;
  for (const method of ALLOW[spec.kind].split(', ')) {
    item[method.toLowerCase()] = WRITE_METHODS[spec.kind].has(method) ? spec.write!(method) : readOperation(spec, method, suffixes);
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
function jsonOrHtml(schema: Json): Json {
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

/** The user record under the configured avatar field's name (resources/users.ts userRecord), in the same place. */
function recordSchema(collection: Collection, options: OpenApiOptions): Json {
  const schema = closed(collection.record);
  if (collection.path !== 'users' || options.avatarField === 'avatar') return schema;
  const rename = (key: string) => (key === 'avatar' ? options.avatarField : key);
  schema.properties = Object.fromEntries(Object.entries(schema.properties as Json).map(([key, value]) => [rename(key), value]));
  schema.required = (schema.required as string[]).map(rename);
  return schema;
}

const page = (record: string): Json => ({
  type: 'object',
  properties: {
    count: { type: 'integer', minimum: 0, description: 'Records in the whole collection' },
    next: { anyOf: [{ type: 'string', format: 'uri' }, { type: 'null' }] },
    previous: { anyOf: [{ type: 'string', format: 'uri' }, { type: 'null' }] },
    results: { type: 'array', items: ref(record) },
  },
  required: ['count', 'next', 'previous', 'results'],
  additionalProperties: false,
});

/** Query parameters a collection's list takes beyond pagination (what its `list` reads from the query). */
const LIST_QUERY: Partial<Record<CollectionPath, Json[]>> = { events: [parameter('ordering')] };

/** A route outside the collections (one path, no id), described as OPTIONS names it. */
function single(kind: 'root' | 'status' | 'hours' | 'schema', path: string, tag: string, get: RouteSpec['get'], more: Partial<RouteSpec> = {}): Json {
  return { [path]: pathItem({ kind, tag, ...routeSpecName({ kind, collection: null, id: null, suffix: null }), get, ...more }, true) };
}

/** Every route kind's path items: a kind without its entry here does not compile. */
const ROUTES: { readonly [K in RouteKind]: () => Json } = {
  root: () => single('root', '/api/', 'api', { description: "Each collection's URL", content: jsonOrHtml(ref('ApiRoot')), cached: true }),
  list: () =>
    Object.fromEntries(
      COLLECTIONS.map((collection) => {
        const name = schemaName(collection);
        const spec: RouteSpec = {
          kind: 'list',
          tag: collection.path,
          ...routeSpecName({ kind: 'list', collection: collection.path, id: null, suffix: null }),
          get: { description: 'A page of the collection', content: jsonOrHtml(ref(`${name}Page`)), cached: true },
          parameters: [parameter('page'), parameter('page_size'), ...(LIST_QUERY[collection.path] ?? [])],
          optionalToken: true,
          write: (method) => writeOperation(collection, name, 'list', method),
        };
        return [`/api/${collection.path}/`, pathItem(spec, true)];
      }),
    ),
  detail: () =>
    Object.fromEntries(
      COLLECTIONS.map((collection) => {
        const name = schemaName(collection);
        const spec: RouteSpec = {
          kind: 'detail',
          tag: collection.path,
          ...routeSpecName({ kind: 'detail', collection: collection.path, id: '1', suffix: null }),
          get: { description: 'The record, as in the list', content: jsonOrHtml(ref(name)), cached: true },
          optionalToken: true,
          write: (method) => writeOperation(collection, name, 'detail', method),
        };
        return [`/api/${collection.path}/{id}/`, { ...pathItem(spec, true), parameters: [parameter('id')] }];
      }),
    ),
  status: () =>
    single('status', '/api/space/status/', 'space', {
      description: 'The latest opening\'s state and time; `{"is_open": null, "since": null}` before the first',
      content: jsonOrHtml(ref('SpaceStatus')),
      cached: true,
    }),
  hours: () =>
    single(
      'hours',
      '/api/space/hours/',
      'space',
      { description: 'Per weekday (Monday first) and local hour, the share of the time the space was open', content: jsonOrHtml(ref('SpaceHours')), cached: true },
      { parameters: [parameter('weeks')], readErrors: { 400: 'BadRequest' } },
    ),
  stream: () => ({
    '/api/space/stream/': pathItem(
      {
        kind: 'stream',
        tag: 'space',
        name: STREAM_OPTIONS.name,
        description: STREAM_OPTIONS.description,
        get: {
          description:
            'Server-Sent Events. On connect the current state (or, with `Last-Event-ID`, the changes since that event, oldest first, at most 1,000), then one event per change:\n\n' +
            "```\nevent: state\nid: <the opening's id; 0 before the first>\ndata: <the body of /api/space/status/, see SpaceStatus>\n\n```\n\n" +
            'A comment line `: heartbeat` keeps idle connections open. `Accept` must admit `text/event-stream` (`*/*` and `text/*` do), else 406.',
          content: { 'text/event-stream': { schema: { type: 'string', description: 'event: state / id: <id> / data: <SpaceStatus JSON>, one blank line after each' } } },
          cached: false,
        },
        parameters: [parameter('Last-Event-ID'), parameter('lastEventId')],
      },
      false,
    ),
  }),
  schema: () => single('schema', '/api/schema/', 'api', { description: 'This document', content: jsonOrHtml(ref('OpenApiDocument')), cached: true }),
};

/** A collection's name in `components.schemas`: DRF's view name (`Event`, `Openings`). */
function schemaName(collection: Collection): string {
  return pascal(collection.viewName);
}

/** The document. It does not depend on the request (servers is relative), so it is built once. */
export function openApiDocument(options: OpenApiOptions): Json {
  const schemas: Json = {};
  const routes = Object.assign({}, ...Object.values(ROUTES).map((pathsOf) => pathsOf())) as Json;
  for (const collection of COLLECTIONS) {
    const name = schemaName(collection);
    schemas[name] = recordSchema(collection, options);
    schemas[`${name}Fields`] = plain(collection.fields);
    schemas[`${name}Patch`] = plain(Type.Partial(collection.fields));
    schemas[`${name}Page`] = page(name);
  }
  Object.assign(schemas, {
    ApiRoot: {
      type: 'object',
      properties: Object.fromEntries(COLLECTIONS.map(({ path }) => [path, { type: 'string', format: 'uri' }])),
      required: COLLECTIONS.map(({ path }) => path),
      additionalProperties: false,
    },
    SpaceStatus: closed(SpaceStatusRecord),
    SpaceHours: closed(SpaceHoursRecord),
    Options: plain(OptionsBody),
    Error: plain(ErrorBody),
    FieldErrors: plain(FieldErrorsBody),
    Health: plain(HealthBody),
    LegacyDoorFields: plain(LegacyDoorFields),
    LegacyDoorAnswer: plain(LegacyDoorAnswer),
    LegacyDoorError: plain(LegacyDoorError),
    BrowsablePage: { type: 'string', description: "The browsable API: the same answer as an HTML page, for a person's browser" },
    OpenApiDocument: { type: 'object', required: ['openapi', 'info', 'paths'], properties: { openapi: { const: '3.1.0' } }, description: 'An OpenAPI 3.1 document: this one' },
    ...spaceApiSchemas(),
  });
  return {
    openapi: '3.1.0',
    info: {
      title: 'hackerspace-api',
      version: packageJson.version,
      summary: "A hackerspace's members, door history, projects, meetings and events, in Django REST Framework's conventions",
      description: DESCRIPTION,
      license: { name: packageJson.license, identifier: packageJson.license },
    },
    servers: [{ url: '/' }],
    tags: [
      { name: 'api', description: 'The API root and this document' },
      ...COLLECTIONS.map(({ path, viewName }) => ({ name: path, description: `The ${viewName} collection and its records` })),
      { name: 'space', description: "The space's state: now, per hour, pushed as it changes, as SpaceAPI, and the original door route" },
      { name: 'operations', description: 'For load balancers' },
    ],
    paths: { ...routes, ...outsideApiPaths() },
    components: {
      schemas,
      responses: RESPONSES,
      parameters: parameters(options),
      headers: HEADERS,
      securitySchemes: {
        Token: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description:
            "DRF's TokenAuthentication: `Authorization: Token <secret>` (`Bearer <secret>` works too), a token made with `hackerspace-api token create`. " +
            'Scope `admin` may write everything; `door` may only POST to /api/space/openings/. Writes need one; reads do not, but a token that is presented is checked on every method (a bad one is a 401).',
        },
      },
    },
  };
}

const DESCRIPTION = `The API follows Django REST Framework's conventions (the service's docs/api.md tells them in full).

- **Authentication.** Reads need no credentials. Writes need a token, sent as \`Authorization: Token <secret>\` (the \`Token\` security scheme; \`hackerspace-api token create\` makes one).
- **Forms.** Every route under \`/api/\` except the stream also answers at its path with a format suffix (\`/api/users.json\`, \`/api/users/7.api\`: the same as \`?format=json|api\`; path items list them in \`x-format-suffixes\`). A path without its trailing slash, when the path with it is a route, is answered \`301\` with a relative \`Location\` (the path with its slash and the same query) and an empty body, whatever the method; any other unknown path under \`/api/\` is \`404 {"detail": "Not found."}\`.
- **JSON or HTML.** GET answers JSON to programs and the browsable HTML page when \`Accept\` prefers \`text/html\` (a browser's); errors keep their status in both forms. OPTIONS and 406 are always JSON.
- **Other methods.** A method a route lacks gets \`401\` without credentials, \`403\` when the token may not write there, else \`405\`; each path item lists these answers in \`x-other-methods\`.
- **Every answer** of a route carries \`Allow\` and \`Vary\`; reads carry a strong \`ETag\` and honour \`If-None-Match\` (304). Requests the HTTP parser refuses get \`400\`, \`408\` or \`431\` with \`{"detail": …}\`, whatever the path (\`components.responses\` RequestTimeout, RequestHeaderFieldsTooLarge).`;
