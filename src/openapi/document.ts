import { Type, type TSchema } from '@sinclair/typebox';
import packageJson from '../../package.json' with { type: 'json' };
import type { Collection } from '../drf/collections.js';
import { appsTurnedOn, collectionsOf } from '../http/app-declaration.js';
import { INSTALLED_APPS } from '../installed-apps.js';
import { SpaceHoursRecord } from '../apps/space/opening-hours.js';
import { SpaceStatusRecord } from '../apps/space/openings.js';
import { routeTable } from '../routes/index.js';
import {
  ErrorBody,
  FieldErrorsBody,
  HEADERS,
  HealthBody,
  LegacyDoorAnswer,
  LegacyDoorError,
  LegacyDoorFields,
  OptionsBody,
  parameters,
  ref,
  RESPONSES,
  type Json,
  type OpenApiOptions,
} from './components.js';
import { schemaName } from './operations.js';
import { spaceApiSchemas } from '../apps/space/openapi/spaceapi-schema.js';
import { SPACE_PARAMETERS } from '../apps/space/openapi/parameters.js';
import { EVENTS_PARAMETERS } from '../apps/events/openapi.js';

export type { OpenApiOptions } from './components.js';

/**
 * The API as an OpenAPI 3.1 document (`GET /api/schema/`), built once at start from what the
 * service runs on: the route table's path items (src/routes/, with each route's methods), the collection registry
 * (drf/collections.ts) with the resources' record and writable-field schemas, the names OPTIONS
 * gives, and the config that shapes a record (AVATAR_FIELD). TypeBox schemas are JSON Schema
 * 2020-12, OpenAPI 3.1's dialect: they go into `components.schemas` as they are, closed
 * (`additionalProperties: false`) where the contract fixes a record's fields.
 */

/** A TypeBox schema as plain JSON (TypeBox's symbol keys dropped). */
const plain = (schema: TSchema): Json => JSON.parse(JSON.stringify(schema)) as Json;
const closed = (schema: TSchema): Json => ({ ...plain(schema), additionalProperties: false });

/** The user record under the configured avatar field's name (apps/users/users.ts userRecord), in the same place. */
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

/** The document. It does not depend on the request (servers is relative), so it is built once. */
export function openApiDocument(options: OpenApiOptions): Json {
  const apps = appsTurnedOn(INSTALLED_APPS, options.apps);
  const collections = collectionsOf(apps);
  const schemas: Json = {};
  // The route table's path items, in its order: what the service answers is what the document describes.
  const paths = Object.assign({}, ...routeTable(apps).routes.map((route) => route.openapi())) as Json;
  for (const collection of collections) {
    const name = schemaName(collection);
    schemas[name] = recordSchema(collection, options);
    // A read-only collection (the shop's) takes no fields: no body to describe.
    if (collection.readOnly !== true) {
      schemas[`${name}Fields`] = plain(collection.fields);
      schemas[`${name}Patch`] = plain(Type.Partial(collection.fields));
    }
    schemas[`${name}Page`] = page(name);
  }
  Object.assign(schemas, {
    ApiRoot: {
      type: 'object',
      properties: Object.fromEntries(collections.map(({ path }) => [path, { type: 'string', format: 'uri' }])),
      required: collections.map(({ path }) => path),
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
      ...collections.map(({ path, viewName }) => ({ name: path, description: `The ${viewName} collection and its records` })),
      { name: 'space', description: "The space's state: now, per hour, pushed as it changes, as SpaceAPI, and the original door route" },
      { name: 'operations', description: 'For load balancers' },
    ],
    paths,
    components: {
      schemas,
      responses: RESPONSES,
      parameters: parameters(options, { ...EVENTS_PARAMETERS, ...SPACE_PARAMETERS }),
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
