import type http from 'node:http';
import zlib from 'node:zlib';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { configFrom, type AvatarField } from '../../src/config.js';
import { decodePath } from '../../src/drf/routes.js';
import { INSTALLED_APPS } from '../../src/installed-apps.js';
import { openApiDocument } from '../../src/openapi/document.js';

/**
 * Every response the suite receives from the service, checked against the OpenAPI document the
 * service serves (src/openapi/document.ts, built here with the same function, no server needed):
 * the status must be documented for the path and method, required headers present, and a JSON
 * body valid against its schema. test/support/http.ts request() calls this on every answer to a
 * path under /api/, /spaceapi.json, /healthz and /space/change_status.
 *
 * Beyond the operations, two rules the document states in its description: a path without its
 * trailing slash whose slashed form is a route gets 301 with the slashed Location (documenting
 * every slash-less path would double the paths, and tools would show them as operations), and an
 * unknown path under /api/ gets 404. HTML answers (the browsable API, error pages) are checked for
 * their status only.
 */

type Json = Record<string, any>;

/** Where the document's `$ref`s resolve when its schemas are compiled. */
const DOCUMENT_ID = 'https://hackerspace-api.invalid/openapi.json';

/** Every value of AVATAR_FIELD (the one setting that changes a record's shape): a response must fit the document of one of them. */
const AVATAR_FIELDS = ['avatar', 'gravatar'] as const satisfies readonly AvatarField[];
const everyField: [Exclude<AvatarField, (typeof AVATAR_FIELDS)[number]>] extends [never] ? true : never = true;
void everyField;

/** What the HTTP parser answers before any route, on any path. */
const PARSER_ANSWERS: Record<number, string> = { 408: 'RequestTimeout', 431: 'RequestHeaderFieldsTooLarge' };

export const CHECKED_PATHS = /^\/api(?:\/|$)|^\/spaceapi\.json$|^\/healthz$|^\/space\/change_status\/?$/;

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  bytes: Buffer;
}

class DocumentCheck {
  private readonly ajv = new Ajv2020({ allErrors: true, strictTypes: false });
  private readonly validators = new Map<object, ValidateFunction>();
  private readonly templates: { template: string; regex: RegExp; item: Json }[];

  constructor(readonly document: Json) {
    (addFormatsModule as unknown as (ajv: Ajv2020) => void)(this.ajv);
    // The document's own keys and the `x-` keywords of its schemas are annotations to the validator.
    this.ajv.addVocabulary([...Object.keys(document), ...extensionKeywords(document.components.schemas)]);
    this.ajv.addSchema(document, DOCUMENT_ID);
    this.templates = Object.entries(document.paths as Json).map(([template, item]) => ({
      template,
      // A parameter holds no `.`: a dot in a path segment starts a format suffix (`/api/users/7.json`).
      regex: new RegExp('^' + template.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\\\{[^/]+?\\\}/g, '[^/.]+') + '$'),
      item,
    }));
  }

  /** The path item a decoded path falls in: as it is, or without a format suffix where the item takes them. */
  private pathItem(path: string): { template: string; item: Json } | undefined {
    const exact = this.templates.find(({ regex }) => regex.test(path));
    if (exact) return exact;
    const suffixed = /^(.*)\.[a-z0-9]+\/?$/.exec(path);
    if (suffixed === null) return undefined;
    // `/api/users.json` is `/api/users/`; `/api/.json` is `/api/`.
    const slashed = suffixed[1].endsWith('/') ? suffixed[1] : suffixed[1] + '/';
    return this.templates.find(({ regex, item }) => item['x-format-suffixes'] && regex.test(slashed));
  }

  /** What is wrong with this answer, or null. */
  problem(method: string, target: string, answer: Answer): string | null {
    const query = target.indexOf('?');
    const rawPath = query === -1 ? target : target.slice(0, query);
    const path = decodePath(rawPath) ?? rawPath;
    // The HTTP parser's answers, before any route (the document's description says so).
    const parser = PARSER_ANSWERS[answer.status];
    if (parser) return this.check('any path (the HTTP parser)', { [answer.status]: { $ref: `#/components/responses/${parser}` } }, method, answer);
    const found = this.pathItem(path);
    if (found === undefined) {
      if (!path.endsWith('/') && this.pathItem(path + '/') !== undefined) {
        const location = rawPath + '/' + (query === -1 || query === target.length - 1 ? '' : target.slice(query));
        if (answer.status !== 301) return `expected 301 to the path with its slash, got ${answer.status}`;
        if (answer.headers.location !== location) return `301 Location is ${answer.headers.location}, expected ${location}`;
        return answer.bytes.length === 0 ? null : '301 with a body';
      }
      return this.check('an unknown path', { 404: { $ref: '#/components/responses/NotFound' } }, method, answer);
    }
    const operation = found.item[method.toLowerCase()] as Json | undefined;
    const responses = operation?.responses ?? found.item['x-other-methods']?.responses;
    if (responses === undefined) return `${method} is not documented on ${found.template}`;
    return this.check(operation ? found.template : `${found.template} (x-other-methods)`, responses, method, answer);
  }

  private check(where: string, responses: Json, method: string, answer: Answer): string | null {
    let response = responses[String(answer.status)] as Json | undefined;
    if (response === undefined) return `status ${answer.status} is not documented for ${method} ${where} (documented: ${Object.keys(responses).join(', ')})`;
    if (response.$ref) response = this.resolve(response.$ref as string);
    for (const [name, given] of Object.entries((response.headers ?? {}) as Json)) {
      const header = given.$ref ? this.resolve(given.$ref as string) : given;
      if (header.required && answer.headers[name.toLowerCase()] === undefined) return `${answer.status} without its required ${name} header`;
    }
    if (method === 'HEAD' || answer.status === 304) return answer.bytes.length === 0 ? null : `${answer.status} to ${method} with a body`;
    const type = String(answer.headers['content-type'] ?? '')
      .split(';')[0]
      .trim();
    const content = (response.content ?? {}) as Json;
    if (answer.bytes.length === 0) return Object.keys(content).length === 0 ? null : `${answer.status} without a body, documented as ${Object.keys(content).join(', ')}`;
    // A person's browser gets the browsable page, or an error page with the same status.
    if (type === 'text/html') return null;
    const media = content[type] as Json | undefined;
    if (media === undefined) return `${answer.status} answered ${type || 'no Content-Type'}, documented: ${Object.keys(content).join(', ') || 'no body'}`;
    if (type !== 'application/json') return null;
    let body: unknown;
    try {
      body = JSON.parse(decoded(answer).toString('utf8'));
    } catch {
      return `${answer.status} body is not JSON`;
    }
    const errors = this.validate(media.schema as Json, body);
    return errors === null ? null : `${answer.status} body does not match the document: ${errors}`;
  }

  private resolve(ref: string): Json {
    return ref
      .slice(2)
      .split('/')
      .reduce((node: Json, key) => node[key.replace(/~1/g, '/').replace(/~0/g, '~')], this.document);
  }

  private validate(schema: Json, body: unknown): string | null {
    let validate = this.validators.get(schema);
    if (validate === undefined) {
      validate = this.ajv.compile({ ...rebased(schema) });
      this.validators.set(schema, validate);
    }
    if (validate(body)) return null;
    return this.ajv.errorsText(validate.errors, { dataVar: 'body' }) + ` in ${JSON.stringify(body).slice(0, 300)}`;
  }
}

/** A schema's local `$ref`s made to point into the document. */
function rebased(schema: Json): Json {
  return JSON.parse(JSON.stringify(schema).replace(/"\$ref":"#\//g, `"$ref":"${DOCUMENT_ID}#/`));
}

function extensionKeywords(node: unknown, found = new Set<string>()): Set<string> {
  if (node === null || typeof node !== 'object') return found;
  for (const [key, value] of Object.entries(node)) {
    if (key.startsWith('x-')) found.add(key);
    extensionKeywords(value, found);
  }
  return found;
}

function decoded({ headers, bytes }: Answer): Buffer {
  const coding = headers['content-encoding'];
  if (coding === 'gzip') return zlib.gunzipSync(bytes);
  if (coding === 'br') return zlib.brotliDecompressSync(bytes);
  return bytes;
}

/** APPS: each choice of the apps a space may turn off (test/apps/installed-apps.test.ts and the apps' own tests turn some off), every app on first. */
const APP_CHOICES: Record<string, string>[] = (() => {
  const optional = INSTALLED_APPS.filter((app) => app.optional);
  const choices: Record<string, string>[] = [{}];
  for (let off = 1; off < 2 ** optional.length; off++) {
    const on = INSTALLED_APPS.filter((app) => !app.optional || (off & (1 << optional.indexOf(app))) === 0);
    choices.push({ APPS: on.map((app) => app.name).join(',') });
  }
  return choices;
})();

/** The documents the service can serve, one per AVATAR_FIELD and choice of apps, each built when first needed (once per test process). */
const checks = new Map<string, DocumentCheck>();
const CHOICES = AVATAR_FIELDS.flatMap((field) => APP_CHOICES.map((apps) => ({ AVATAR_FIELD: field, ...apps })));

function documentCheck(env: Record<string, string>): DocumentCheck {
  const key = JSON.stringify(env);
  let check = checks.get(key);
  if (check === undefined) {
    check = new DocumentCheck(openApiDocument(configFrom(env)));
    checks.set(key, check);
  }
  return check;
}

/** Every document the service can serve. */
export function servedDocuments(): DocumentCheck[] {
  return CHOICES.map(documentCheck);
}

/** Null when the answer fits the document (of some AVATAR_FIELD and choice of apps), else what is wrong with it. */
export function responseProblem(method: string, target: string, answer: Answer): string | null {
  const rawPath = target.split('?', 1)[0];
  if (!CHECKED_PATHS.test(rawPath)) return null;
  let first: string | null = null;
  for (const env of CHOICES) {
    const problem = documentCheck(env).problem(method, target, answer);
    if (problem === null) return null;
    first ??= problem;
  }
  return `${method} ${target.slice(0, 200)} → ${answer.status}: ${first}`;
}
