import { Type, type Static } from '@sinclair/typebox';
import type { Config } from '../config.js';
import type { optionsBody } from '../drf/metadata.js';
import type { FieldErrors } from '../resources/write-errors.js';

/**
 * What the OpenAPI document (document.ts) shares between operations: the contract's error shapes,
 * DRF's OPTIONS metadata and the other small bodies, the responses and headers every route may
 * give, and the parameters. The record schemas are not here: they come from the resources
 * (src/resources/*.ts) through the collection registry.
 */

/* eslint-disable @typescript-eslint/no-explicit-any -- the document is plain JSON */
export type Json = Record<string, any>;

/** What the document depends on: the avatar field's name, page sizes, and the apps that are on (APPS). */
export type OpenApiOptions = Pick<Config, 'avatarField' | 'pageSize' | 'maxPageSize' | 'apps'>;

/** The `format` values, and the suffixes that mean the same (`/api/users.json`). */
export const FORMATS = ['json', 'api'];

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const parameter = (name: string) => ({ $ref: `#/components/parameters/${name}` });

/** Every error of the API: `{"detail": "…"}`. */
export const ErrorBody = Type.Object({ detail: Type.String() }, { additionalProperties: false });

/** DRF's field errors: `{"<field>": ["<message>", …], …}` (`non_field_errors` for the record as a whole). */
export const FieldErrorsBody = Type.Record(Type.String(), Type.Array(Type.String(), { minItems: 1 }), { minProperties: 1 });

/** DRF's metadata, the answer to OPTIONS; `actions` only for a caller whose token may write there. */
export const OptionsBody = Type.Object(
  {
    name: Type.String(),
    description: Type.String(),
    renders: Type.Array(Type.String()),
    parses: Type.Array(Type.String()),
    actions: Type.Optional(
      Type.Record(
        Type.String({ description: 'The method these fields are for: POST on a collection, PUT on a record' }),
        Type.Record(
          Type.String(),
          Type.Object({
            type: Type.String({ description: "DRF's field type: string, integer, boolean, choice, datetime, email, url, field (a hyperlink)" }),
            required: Type.Boolean(),
            read_only: Type.Boolean(),
            label: Type.String(),
            max_length: Type.Optional(Type.Integer()),
            min_value: Type.Optional(Type.Number()),
            max_value: Type.Optional(Type.Number()),
            choices: Type.Optional(Type.Array(Type.Object({ value: Type.String(), display_name: Type.String() }, { additionalProperties: false }))),
          }),
        ),
      ),
    ),
  },
  { additionalProperties: false },
);

/** The health check's answer (handlers/health.ts), 200 or 503. */
export const HealthBody = Type.Object(
  { status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]), database: Type.Union([Type.Literal('up'), Type.Literal('down')]) },
  { additionalProperties: false },
);

/** The original door scripts' form (apps/space/handlers/legacy-door.ts): a JSON body's values are read as text. */
export const LegacyDoorFields = Type.Object({
  secret: Type.String({ description: 'A door or admin token' }),
  open: Type.Union([Type.Literal('0'), Type.Literal('1'), Type.Literal(0), Type.Literal(1)], { description: '1: the door opened; 0: it closed' }),
});
export const LegacyDoorAnswer = Type.Object({ open: Type.Union([Type.Literal(0), Type.Literal(1)]) }, { additionalProperties: false });
/** The original's error shape, kept on its route; the message never repeats the secret. */
export const LegacyDoorError = Type.Object({ error: Type.String() }, { additionalProperties: false });

// The code's shapes must fit these schemas: a change to either side that breaks the other does not
// compile (`actions` is typed loosely in drf/metadata.ts: the tests check it against the document).
type Fits<Actual, Documented> = [Actual] extends [Documented] ? true : never;
const fits: [
  Fits<ReturnType<FieldErrors['worded']>, Static<typeof FieldErrorsBody>>,
  Fits<Omit<ReturnType<typeof optionsBody>, 'actions'>, Omit<Static<typeof OptionsBody>, 'actions'>>,
] = [true, true];
void fits;

const json = (schema: string) => ({ 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } });
const error = (description: string, headers?: Record<string, object>) => ({ description, ...(headers ? { headers } : {}), content: json('Error') });
const header = (description: string, required = true) => ({ description, required, schema: { type: 'string' } });
export const ETAG = { ETag: { $ref: '#/components/headers/ETag' } };
export const RETRY_AFTER = { 'Retry-After': { $ref: '#/components/headers/Retry-After' } };

/** Headers several responses carry (`#/components/headers/<name>`). */
export const HEADERS = {
  ETag: { description: 'A strong tag of the body (one per content coding): send it back in `If-None-Match`', required: true, schema: { type: 'string' } },
  'Retry-After': header('Seconds to wait'),
} as const;

/** The responses operations refer to (`#/components/responses/<name>`). */
export const RESPONSES = {
  NotModified: { description: 'Not Modified: the `If-None-Match` tag (or `If-Modified-Since` date) still matches; no body.' },
  BadRequest: {
    description: 'Invalid fields (`{"<field>": ["<message>", …]}`, DRF\'s messages), or a body that is not valid JSON (`{"detail": "JSON parse error - …"}`).',
    content: { 'application/json': { schema: { anyOf: [{ $ref: '#/components/schemas/FieldErrors' }, { $ref: '#/components/schemas/Error' }] } } },
  },
  Unauthorized: error('No credentials on a write (`Authentication credentials were not provided.`), or a bad token on any method (`Invalid token.`).', {
    'WWW-Authenticate': header('`Token`'),
  }),
  Forbidden: error("The token's scope does not allow this write (`You do not have permission to perform this action.`)."),
  NotFound: error('`Not found.` (no such record, an unknown `format` or suffix) or `Invalid page.`; an HTML page for a browser.'),
  MethodNotAllowed: error('The route has no such method (`Method "PUT" not allowed.`).', { Allow: header("The route's methods") }),
  NotAcceptable: error('The `Accept` header admits none of the media types this route renders (`Could not satisfy the request Accept header.`).'),
  Conflict: error('A delete would leave a reference dangling, or a concurrent change by another tool conflicts.'),
  PayloadTooLarge: error('The body is larger than the server accepts (`Request body is too large.`).'),
  UnsupportedMediaType: error('The body is neither JSON nor a form (`Unsupported media type "text/plain" in request.`).'),
  TooManyRequests: error('Too many failed authentications from this address in the last minute (`Request was throttled. Expected available in N seconds.`).', RETRY_AFTER),
  InternalError: error('An unexpected failure (`Internal server error.`); the details are in the log only.'),
  Unavailable: error('The database cannot answer, or the server is shutting down (`Service temporarily unavailable.`).', RETRY_AFTER),
  // Answers of the HTTP parser, before any route: any request may get them.
  RequestTimeout: error('The request did not arrive in time (`Request timeout.`); the connection is closed. Any path.'),
  RequestHeaderFieldsTooLarge: error('The request line and headers are too large (`Request header fields too large.`); the connection is closed. Any path.'),
} as const;

export type ResponseName = keyof typeof RESPONSES;

const REFS = Object.fromEntries(Object.keys(RESPONSES).map((name) => [name, { $ref: `#/components/responses/${name}` }])) as Record<ResponseName, { $ref: string }>;

/** `{"404": {"$ref": "#/components/responses/NotFound"}, …}` for the given statuses. */
export function refs(statuses: Partial<Record<number, ResponseName>>): Record<string, { $ref: string }> {
  const responses: Record<string, { $ref: string }> = {};
  for (const status in statuses) responses[status] = REFS[statuses[status]!];
  return responses;
}

/** The parameters operations refer to (`#/components/parameters/<name>`): the API's, with the apps' (`apps`) after pagination's. */
export function parameters(options: OpenApiOptions, apps: Json): Json {
  return {
    id: {
      name: 'id',
      in: 'path',
      required: true,
      description: "The record's id, a decimal integer (surrounding spaces, a leading `+` and leading zeros are accepted); any other id is a 404",
      schema: { type: 'integer', minimum: 1 },
    },
    format: {
      name: 'format',
      in: 'query',
      description:
        'Both give JSON to programs; `json` also to browsers, `api` the browsable page to a browser. Hyperlinks in the body carry it. A suffix works the same (`/api/users.json`, `/api/users/7.api`); any other value is a 404.',
      schema: { enum: FORMATS },
    },
    page: {
      name: 'page',
      in: 'query',
      description: 'A page number (surrounding spaces, `+` and leading zeros accepted) or `last`; anything else, or past the last page, is `404 Invalid page.`',
      schema: { anyOf: [{ type: 'integer', minimum: 1 }, { const: 'last' }] },
    },
    ...apps,
    'If-None-Match': { name: 'If-None-Match', in: 'header', description: 'An ETag received before (or `*`): 304 while it still matches', schema: { type: 'string' } },
    'If-Modified-Since': { name: 'If-Modified-Since', in: 'header', description: 'Honoured when there is no If-None-Match', schema: { type: 'string' } },
    page_size: {
      name: 'page_size',
      in: 'query',
      description: `Records per page (default ${options.pageSize}); above ${options.maxPageSize} it is clamped, and a value that is not a positive integer is ignored`,
      schema: { type: 'integer', minimum: 1, default: options.pageSize },
    },
  };
}
