import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { configFrom } from '../src/config.js';
import type { RouteKind } from '../src/drf/routes.js';
import { openApiDocument } from '../src/openapi/document.js';
import { INSTALLED_COLLECTIONS } from '../src/installed-apps.js';
import { apiOf } from '../src/routes/api.js';

/** The API routes of the route table with every installed app on. */
const matchApiPath = apiOf(INSTALLED_COLLECTIONS).routeOf;
import { request } from './support/http.js';
import { responseProblem } from './support/openapi.js';
import { sampleRecords, startServer, type TestServer } from './support/server.js';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const built = (env: Record<string, string> = {}) => JSON.parse(JSON.stringify(openApiDocument(configFrom(env))));
/** Every `$ref` and `$id` that leaves the document or resolves to nothing in it, as `where: what`. */
function outsideReferences(document: any): string[] {
  const found: string[] = [];
  const resolves = (pointer: string) =>
    pointer
      .slice(2)
      .split('/')
      .map((key) => decodeURIComponent(key).replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((node: any, key) => (node !== null && typeof node === 'object' && Object.hasOwn(node, key) ? node[key] : undefined), document) !== undefined;
  const walk = (node: unknown, where: string) => {
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$id') found.push(`${where}: $id ${JSON.stringify(value)}`);
      if (key === '$ref' && (typeof value !== 'string' || !value.startsWith('#/') || !resolves(value))) found.push(`${where}: $ref ${JSON.stringify(value)}`);
      walk(value, `${where}/${key}`);
    }
  };
  walk(document, '#');
  return found;
}

const operations = (document: any) =>
  Object.entries(document.paths).flatMap(([path, item]: [string, any]) => METHODS.filter((m) => item[m]).map((method) => ({ path, method, operation: item[method] })));

/** Each API route kind's methods, as the contract lists them (`Allow`). */
const ALLOW: Record<RouteKind, string> = {
  root: 'GET, HEAD, OPTIONS',
  list: 'GET, POST, HEAD, OPTIONS',
  detail: 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS',
  status: 'GET, HEAD, OPTIONS',
  hours: 'GET, HEAD, OPTIONS',
  stream: 'GET, HEAD, OPTIONS',
  ledger: 'GET, HEAD, OPTIONS',
  schema: 'GET, HEAD, OPTIONS',
};

/** The shop's collections, read only as the original's (ledger.md §1): GET, HEAD and OPTIONS on their list and records. */
const READ_ONLY = ['stock/categories', 'stock/products', 'streams/urtip'];

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document on its own (@seriousme/openapi-schema-validator, no other document given)', async () => {
    const validator = new Validator();
    for (const env of [{}, { AVATAR_FIELD: 'gravatar' }] as Record<string, string>[]) {
      const result = await validator.validate(built(env));
      assert.equal(result.valid, true, JSON.stringify(result.errors, null, 1));
      assert.equal(validator.version, '3.1');
    }
  });

  it('stands alone: every $ref points inside the document and resolves there, and no schema has an $id', () => {
    for (const env of [{}, { AVATAR_FIELD: 'gravatar' }] as Record<string, string>[]) assert.deepEqual(outsideReferences(built(env)), []);
    const document = built();
    assert.equal(document.paths['/spaceapi.json'].get.responses['200'].content['application/json'].schema.$ref, '#/components/schemas/SpaceApi');
  });

  it('would be caught leaving the document: a web address, a dangling pointer, an $id (the check above can fail)', () => {
    const document = built();
    document.paths['/spaceapi.json'].get.responses['200'].content['application/json'].schema = { $ref: 'https://schema.spaceapi.io/15.json' };
    document.components.schemas.User.properties.username = { $ref: '#/components/schemas/Nowhere' };
    document.components.schemas.SpaceApi.$id = 'https://schema.spaceapi.io/15.json';
    assert.deepEqual(outsideReferences(document), [
      '#/paths//spaceapi.json/get/responses/200/content/application/json/schema: $ref "https://schema.spaceapi.io/15.json"',
      '#/components/schemas/User/properties/username: $ref "#/components/schemas/Nowhere"',
      '#/components/schemas/SpaceApi: $id "https://schema.spaceapi.io/15.json"',
    ]);
  });

  it('is refused by the validator when broken (the check above can fail)', async () => {
    // A Response Object requires `description` (OpenAPI 3.1 no longer requires an operation's `responses`).
    const broken = built();
    delete broken.paths['/api/users/'].get.responses['200'].description;
    const result = await new Validator().validate(broken);
    assert.equal(result.valid, false);
  });

  it('has a path item for every route kind of the route table, with the methods the contract gives it, and no path the router lacks', () => {
    const document = built();
    const kinds = new Set<RouteKind>();
    for (const [path, item] of Object.entries<any>(document.paths)) {
      if (!path.startsWith('/api/')) continue;
      const route = matchApiPath(path.replace('{id}', '7'));
      assert.ok(route, `${path} is no route`);
      kinds.add(route.kind);
      const methods = METHODS.filter((m) => item[m]).map((m) => m.toUpperCase());
      const allow = route.collection !== null && READ_ONLY.includes(route.collection) ? 'GET, HEAD, OPTIONS' : ALLOW[route.kind];
      assert.deepEqual(methods.sort(), allow.split(', ').sort(), path);
      assert.ok(item['x-other-methods'], `${path}: what other methods get`);
      assert.equal(Boolean(item['x-format-suffixes']), route.kind !== 'stream', `${path}: format suffixes`);
      // `/api/users.json`, `/api/users/7.json`, `/api/.json`
      const suffixed = path === '/api/' ? '/api/.json' : path.replace('{id}', '7').replace(/\/$/, '.json');
      if (item['x-format-suffixes']) assert.equal(matchApiPath(suffixed)?.kind, route.kind, suffixed);
    }
    assert.deepEqual([...kinds].sort(), (Object.keys(ALLOW) as RouteKind[]).sort());
  });

  it('names, summarises and tags every operation; writes need the Token scheme, reads do not', () => {
    const document = built();
    const ids = new Set<string>();
    for (const { path, method, operation } of operations(document)) {
      assert.match(operation.operationId ?? '', /^[a-z][A-Za-z]+$/, `${method} ${path}`);
      assert.ok(!ids.has(operation.operationId), `${operation.operationId} is unique`);
      ids.add(operation.operationId);
      assert.ok(operation.summary, `${method} ${path}: summary`);
      assert.ok(operation.tags?.length > 0 && operation.tags.every((tag: string) => document.tags.some((t: any) => t.name === tag)), `${method} ${path}: tags`);
      const write = ['post', 'put', 'patch', 'delete'].includes(method) && path.startsWith('/api/');
      if (write) assert.deepEqual(operation.security, [{ Token: [] }], `${method} ${path}`);
      else assert.ok(operation.security === undefined || operation.security.some((s: object) => Object.keys(s).length === 0), `${method} ${path} needs no token`);
    }
    assert.ok(ids.size >= 70, `${ids.size} operations`);
    assert.deepEqual(document.components.securitySchemes.Token, { ...document.components.securitySchemes.Token, type: 'apiKey', in: 'header', name: 'Authorization' });
    assert.match(document.components.securitySchemes.Token.description, /Token <secret>/);
  });

  it('documents every status the contract names, the browsable HTML beside JSON, and the stream as text/event-stream', () => {
    const document = built();
    const statuses = new Set(operations(document).flatMap(({ operation }) => Object.keys(operation.responses)));
    for (const status of ['200', '201', '204', '304', '400', '401', '403', '404', '405', '406', '409', '413', '415', '429', '500', '503']) {
      assert.ok(statuses.has(status) || Object.values(document.paths).some((item: any) => item['x-other-methods']?.responses[status]), status);
    }
    for (const { path, method, operation } of operations(document)) {
      if (method === 'get' && path.startsWith('/api/') && path !== '/api/space/stream/') assert.ok(operation.responses['200'].content['text/html'], path);
    }
    assert.ok(document.paths['/api/space/stream/'].get.responses['200'].content['text/event-stream']);
    assert.deepEqual(document.servers, [{ url: '/' }]);
    // Records are the resources' schemas, closed: User has exactly the contract's fields.
    assert.deepEqual(Object.keys(document.components.schemas.User.properties), ['username', 'avatar', 'has_key']);
    assert.equal(document.components.schemas.User.additionalProperties, false);
  });

  it('follows AVATAR_FIELD: with `gravatar` the user record has `gravatar` in the same place', () => {
    assert.deepEqual(Object.keys(built({ AVATAR_FIELD: 'gravatar' }).components.schemas.User.properties), ['username', 'gravatar', 'has_key']);
  });

  // The SpaceAPI schema it embeds is about 34 KB of it.
  it('reports its build time (warm), and stays under 160 KB', (t) => {
    const config = configFrom({});
    openApiDocument(config);
    const started = performance.now();
    const document = openApiDocument(config);
    const ms = performance.now() - started;
    const bytes = Buffer.byteLength(JSON.stringify(document));
    t.diagnostic(`built in ${ms.toFixed(1)} ms, ${bytes} bytes`);
    assert.ok(bytes < 160 * 1024, `${bytes} bytes`);
  });
});

describe('the response check of test/support/http.ts', () => {
  const json = (body: unknown, status = 200, headers: Record<string, string> = {}) => ({
    status,
    headers: { 'content-type': 'application/json', ...headers },
    bytes: Buffer.from(JSON.stringify(body)),
  });
  const page = { count: 1, next: null, previous: null, results: [{ username: 'ada', avatar: '//www.gravatar.com/avatar/0?d=wavatar', has_key: true }] };

  it('accepts what the document describes', () => {
    assert.equal(responseProblem('GET', '/api/users/?page=1', json(page, 200, { etag: '"x"' })), null);
    assert.equal(responseProblem('GET', '/api/users.json', json(page, 200, { etag: '"x"' })), null);
    assert.equal(responseProblem('GET', '/api/users/7/', json({ detail: 'Not found.' }, 404)), null);
    assert.equal(responseProblem('GET', '/api/users?page=2', { status: 301, headers: { location: '/api/users/?page=2' }, bytes: Buffer.alloc(0) }), null);
    assert.equal(responseProblem('GET', '/somewhere/else', json({}, 418)), null, 'outside the documented paths');
  });

  it('refuses a body, a status, a header or a redirect the document does not describe', () => {
    assert.match(responseProblem('GET', '/api/users/', json({ ...page, count: '1' }, 200, { etag: '"x"' }))!, /body does not match/);
    assert.match(responseProblem('GET', '/api/users/', json({ ...page, results: [{ ...page.results[0], email: 'a@b' }] }, 200, { etag: '"x"' }))!, /body does not match/);
    assert.match(responseProblem('GET', '/api/users/', json(page))!, /ETag/);
    assert.match(responseProblem('GET', '/api/users/', json({ detail: 'x' }, 418))!, /status 418 is not documented/);
    assert.match(responseProblem('DELETE', '/api/users/', json({ detail: 'x' }, 204))!, /204 is not documented/);
    assert.match(responseProblem('POST', '/api/users/', json({ username: 'ada' }, 201, { location: '/api/users/1/' }))!, /body does not match/);
    assert.match(responseProblem('POST', '/api/users/', json(page.results[0], 201))!, /Location/);
    assert.match(responseProblem('GET', '/api/users', { status: 301, headers: { location: '/elsewhere/' }, bytes: Buffer.alloc(0) })!, /Location/);
    assert.match(responseProblem('GET', '/api/nope/', json({ count: 0 }, 200))!, /not documented/);
    assert.match(responseProblem('POST', '/space/change_status', json({ detail: 'Bad secret' }, 403))!, /body does not match/);
  });
});

describe('GET /api/schema/', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ records: sampleRecords() });
  });
  after(() => server.close());

  it('serves the document the service builds from its config, as JSON with an ETag, 304 on revalidation', async () => {
    const res = await request(server.base, '/api/schema/');
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'application/json');
    assert.deepEqual(res.json(), JSON.parse(JSON.stringify(openApiDocument(server.config))));
    assert.equal(res.headers.allow, 'GET, HEAD, OPTIONS');
    assert.ok(res.headers.etag);
    const again = await request(server.base, '/api/schema/', { headers: { 'if-none-match': res.headers.etag } });
    assert.equal(again.status, 304);
    const head = await request(server.base, '/api/schema/', { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.etag, res.headers.etag);
  });

  it("follows the API's conventions: suffixes and format, the slash redirect, OPTIONS, HTML for a browser, writes refused", async () => {
    assert.deepEqual((await request(server.base, '/api/schema.json')).json().openapi, '3.1.0');
    assert.equal((await request(server.base, '/api/schema/?format=api')).status, 200);
    assert.equal((await request(server.base, '/api/schema/?format=xml')).status, 404);
    const redirect = await request(server.base, '/api/schema?format=json');
    assert.equal(redirect.status, 301);
    assert.equal(redirect.headers.location, '/api/schema/?format=json');
    const options = await request(server.base, '/api/schema/', { method: 'OPTIONS' });
    assert.equal(options.json().name, 'Schema');
    const page = await request(server.base, '/api/schema/', { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    assert.equal(page.status, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.match(page.body, /openapi/);
    assert.equal((await request(server.base, '/api/schema/', { method: 'POST' })).status, 401);
    assert.equal((await request(server.base, '/api/schema/', { headers: { accept: 'application/xml' } })).status, 406);
  });

  it('is not listed in the API root', async () => {
    const root = (await request(server.base, '/api/')).json();
    assert.ok(!Object.values(root).some((url) => String(url).includes('schema')), JSON.stringify(root));
  });
});

describe('GET /spaceapi.json against the SpaceAPI schema the OpenAPI document embeds', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ records: sampleRecords(), env: { SPACEAPI_CONFIG: path.resolve(import.meta.dirname, '../examples/spaceapi.example.yaml') } });
  });
  after(() => server.close());

  it('validates (Ajv, JSON Schema 2020-12: the dialect of OpenAPI 3.1); a body missing `space` or `lon` beside `lat` does not', async () => {
    const document = (await request(server.base, '/api/schema/')).json();
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    ajv.addSchema(document, 'urn:hackerspace-api:openapi');
    const validate = ajv.compile({ $ref: 'urn:hackerspace-api:openapi#/components/schemas/SpaceApi' });
    const fits = (body: unknown): boolean => validate(body);
    const res = await request(server.base, '/spaceapi.json');
    assert.equal(res.status, 200);
    const space = res.json();
    assert.equal(space.space, 'UrLab');
    assert.ok(fits(space), ajv.errorsText(validate.errors));
    const { space: _name, ...nameless } = space;
    assert.equal(fits(nameless), false, 'space is required');
    const { lon: _lon, ...latOnly } = space.location;
    assert.equal(fits({ ...space, location: latOnly }), false, 'lat needs lon (dependentRequired)');
    assert.equal(fits({ ...space, api_compatibility: ['13'] }), false, 'api_compatibility must contain 15');
  });
});
