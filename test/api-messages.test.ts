// LANGUAGE_CODE words the API's messages as DRF 3.16 and Django 4.2 do: every error the API can give,
// provoked over HTTP on a server per language, against the text Debian's own catalogues of DRF and
// Django give (read by Python's gettext, formatted by Python); and src/drf/locale/*.json against
// those catalogues, so that a drift fails here.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { throttled } from '../src/drf/errors.js';
import { drfText, readDrfCatalogue } from '../src/drf/messages.js';
import { createToken } from '../src/resources/tokens.js';
import { API_MSGIDS } from './support/api-msgids.js';
import { debianCataloguesUnavailable, debianWords, type DebianCase } from './support/debian-catalogues.js';
import { request, type HttpResponse } from './support/http.js';
import { nowUs } from './support/clock.js';
import { sampleRecords, startServer, type TestServer } from './support/server.js';

const unavailable = debianCataloguesUnavailable();
const LANGUAGES = ['en', 'fr', 'nl', 'de', 'fr-be'];
const LOCALE = path.resolve(import.meta.dirname, '../src/drf/locale');

/** A message of an expected body: DRF's case (worded by Debian's catalogues), or a text that stays as it is (our own, or DRF's untranslated). */
type Expected = DebianCase | { literal: string } | { startsWith: string };
type Body = { detail: Expected } | Record<string, Expected[]>;

const m = (msgid: string, params?: Record<string, string | number>): DebianCase => ({ msgid, params });
const DATETIME = m('Datetime has wrong format. Use one of these formats instead: {format}.', { format: 'YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z]' });

interface Provocation {
  what: string;
  method?: string;
  path: string;
  /** The admin token by default; 'door', a secret, a raw Authorization header, or none. */
  auth?: 'admin' | 'door' | 'none' | { header: string };
  json?: unknown;
  raw?: { body: string; type: string };
  headers?: Record<string, string>;
  status: number;
  body: Body;
}

/** Every error the API gives, in the order they are sent (throttling last: failed credentials count). */
function provocations(username: string): Provocation[] {
  const project = { title: 'A project', maintainer: '/api/users/1/', status: 'p', progress: 10, short_description: 'Short' };
  return [
    { what: 'no such record', path: '/api/users/999999/', status: 404, body: { detail: m('Not found.') } },
    { what: 'no such path (a path the router cannot decode)', path: '/api/%zz/', status: 404, body: { detail: m('Not found.') } },
    { what: 'a page past the last', path: '/api/users/?page=9999', status: 404, body: { detail: m('Invalid page.') } },
    {
      what: 'an Accept nothing satisfies',
      path: '/api/users/',
      headers: { accept: 'application/xml' },
      status: 406,
      body: { detail: m('Could not satisfy the request Accept header.') },
    },
    {
      what: 'a write without credentials',
      method: 'POST',
      path: '/api/projects/',
      auth: 'none',
      json: project,
      status: 401,
      body: { detail: m('Authentication credentials were not provided.') },
    },
    {
      what: 'an unknown token',
      method: 'POST',
      path: '/api/projects/',
      auth: { header: 'Token 0123456789abcdef' },
      json: project,
      status: 401,
      body: { detail: m('Invalid token.') },
    },
    {
      what: 'a token header without a token',
      method: 'POST',
      path: '/api/projects/',
      auth: { header: 'Token' },
      json: project,
      status: 401,
      body: { detail: m('Invalid token header. No credentials provided.') },
    },
    {
      what: 'a token header with spaces',
      method: 'POST',
      path: '/api/projects/',
      auth: { header: 'Token abc def' },
      json: project,
      status: 401,
      body: { detail: m('Invalid token header. Token string should not contain spaces.') },
    },
    {
      what: "a door token's write of a project",
      method: 'POST',
      path: '/api/projects/',
      auth: 'door',
      json: project,
      status: 403,
      body: { detail: m('You do not have permission to perform this action.') },
    },
    {
      what: 'a method the route does not take',
      method: 'DELETE',
      path: '/api/projects/',
      status: 405,
      body: { detail: m('Method "{method}" not allowed.', { method: 'DELETE' }) },
    },
    {
      what: 'a body of another media type',
      method: 'POST',
      path: '/api/projects/',
      raw: { body: 'title=x', type: 'text/plain; charset=utf-8' },
      status: 415,
      body: { detail: m('Unsupported media type "{media_type}" in request.', { media_type: 'text/plain; charset=utf-8' }) },
    },
    // DRF's JSONParser does not translate its message: 'JSON parse error - %s' % exc.
    {
      what: 'malformed JSON',
      method: 'POST',
      path: '/api/projects/',
      raw: { body: '{"title": ', type: 'application/json' },
      status: 400,
      body: { detail: { startsWith: 'JSON parse error - ' } },
    },
    {
      what: 'a body that is no object',
      method: 'POST',
      path: '/api/projects/',
      json: [1],
      status: 400,
      body: { non_field_errors: [m('Invalid data. Expected a dictionary, but got {datatype}.', { datatype: 'list' })] },
    },
    // DRF's Serializer.errors does not translate it either.
    { what: 'a null body', method: 'POST', path: '/api/projects/', json: null, status: 400, body: { non_field_errors: [{ literal: 'No data provided' }] } },
    {
      what: 'required fields missing',
      method: 'POST',
      path: '/api/projects/',
      json: {},
      status: 400,
      body: {
        title: [m('This field is required.')],
        maintainer: [m('This field is required.')],
        status: [m('This field is required.')],
        progress: [m('This field is required.')],
        short_description: [m('This field is required.')],
      },
    },
    {
      what: "a project's fields, each wrong one way",
      method: 'POST',
      path: '/api/projects/',
      json: { title: '', maintainer: 5, participants: 'x', status: 'zz', progress: 'abc', short_description: null },
      status: 400,
      body: {
        title: [m('This field may not be blank.')],
        maintainer: [m('Incorrect type. Expected URL string, received {data_type}.', { data_type: 'int' })],
        participants: [m('Expected a list of items but got type "{input_type}".', { input_type: 'str' })],
        status: [m('"{input}" is not a valid choice.', { input: 'zz' })],
        progress: [m('A valid integer is required.')],
        short_description: [m('This field may not be null.')],
      },
    },
    {
      what: "a project's fields, each wrong another way",
      method: 'POST',
      path: '/api/projects/',
      json: { title: 'x'.repeat(301), maintainer: 'http://example.org/api/nowhere/', participants: ['/api/projects/1/'], status: 'p', progress: 101, short_description: [1] },
      status: 400,
      body: {
        title: [m('Ensure this field has no more than {max_length} characters.', { max_length: 300 })],
        maintainer: [m('Invalid hyperlink - No URL match.')],
        participants: [m('Invalid hyperlink - Incorrect URL match.')],
        progress: [m('Ensure this value is less than or equal to {max_value}.', { max_value: 100 })],
        short_description: [m('Not a valid string.')],
      },
    },
    {
      what: 'a progress below its least, a maintainer who does not exist',
      method: 'POST',
      path: '/api/projects/',
      json: { ...project, progress: -1 },
      status: 400,
      body: { progress: [m('Ensure this value is greater than or equal to {min_value}.', { min_value: 0 })] },
    },
    {
      what: 'a maintainer who does not exist',
      method: 'POST',
      path: '/api/projects/',
      json: { ...project, maintainer: '/api/users/999999/' },
      status: 400,
      body: { maintainer: [m('Invalid hyperlink - Object does not exist.')] },
    },
    {
      what: "an event's null character and date-time",
      method: 'POST',
      path: '/api/events/',
      json: { title: 'a\u0000b', start: 'yesterday', status: 'r' },
      status: 400,
      body: { title: [m('Null characters are not allowed.')], start: [DATETIME] },
    },
    { what: "a meeting's pad", method: 'POST', path: '/api/meetings/', json: { event: '/api/events/1/', pad: 'not a url' }, status: 400, body: { pad: [m('Enter a valid URL.')] } },
    {
      what: "a user's e-mail address and key",
      method: 'POST',
      path: '/api/users/',
      json: { username: 'someone-new', email: 'not an address', has_key: 'perhaps' },
      status: 400,
      body: { email: [m('Enter a valid email address.')], has_key: [m('Must be a valid boolean.')] },
    },
    { what: 'a username taken', method: 'POST', path: '/api/users/', json: { username }, status: 400, body: { username: [m('A user with that username already exists.')] } },
  ];
}

/** The body expected in `language`: each DRF case worded by Debian's catalogues. */
function expectedBody(language: string, body: Body): { body: unknown; checks: [string, string][] } {
  const cases: DebianCase[] = [];
  const checks: [string, string][] = [];
  const collect = (e: Expected) => {
    if (!('literal' in e) && !('startsWith' in e)) cases.push(e);
  };
  for (const value of Object.values(body)) (Array.isArray(value) ? value : [value]).forEach(collect);
  const { texts } = debianWords(language, [], cases);
  let next = 0;
  const word = (e: Expected, where: string): unknown => {
    if ('literal' in e) return e.literal;
    if ('startsWith' in e) {
      checks.push([where, e.startsWith]);
      return null;
    }
    return texts[next++];
  };
  const worded = Object.fromEntries(
    Object.entries(body).map(([key, value]) => [key, Array.isArray(value) ? value.map((e, i) => word(e, `${key}.${i}`)) : word(value as Expected, key)]),
  );
  return { body: worded, checks };
}

describe('the API words its messages in LANGUAGE_CODE as DRF 3.16 and Django 4.2 do', () => {
  it("src/drf/locale/*.json holds exactly Debian's translations of the msgids the API uses", { skip: unavailable }, () => {
    const files = fs.readdirSync(LOCALE).sort();
    assert.deepEqual(files, ['de.json', 'fr.json', 'nl.json']);
    for (const file of files) {
      const language = file.slice(0, -'.json'.length);
      const ours = JSON.parse(fs.readFileSync(path.join(LOCALE, file), 'utf8')) as Record<string, string>;
      assert.deepEqual(ours, debianWords(language, API_MSGIDS).catalogue, `${file} against Debian's catalogues`);
    }
    // English is the msgids themselves: Debian's English catalogues change none of them.
    const english = debianWords('en', API_MSGIDS).catalogue;
    for (const msgid of API_MSGIDS) assert.equal(english[msgid] ?? msgid, msgid);
  });

  it('words DRF\'s throttling sentence, "second" for 1 and "seconds" otherwise, as Debian\'s DRF does', { skip: unavailable }, () => {
    for (const language of LANGUAGES) {
      const text = drfText(readDrfCatalogue(language));
      const waits = [1, 2, 60];
      assert.deepEqual(
        waits.map((wait) => text(throttled(wait).detail)),
        debianWords(
          language,
          [],
          waits.map((wait) => ({ throttledWait: wait })),
        ).texts,
        language,
      );
    }
  });

  for (const language of LANGUAGES) {
    describe(`LANGUAGE_CODE=${language}`, () => {
      let server: TestServer | undefined;
      let admin = '';
      let door = '';
      before(async () => {
        if (unavailable) return;
        server = await startServer({ records: sampleRecords(), env: { LANGUAGE_CODE: language } });
        admin = (await createToken(server.database.db, 'test admin', 'admin', nowUs())).secret;
        door = (await createToken(server.database.db, 'test door', 'door', nowUs())).secret;
      });
      after(async () => server?.close());

      it("every error the API gives, over HTTP, in the words of Debian's catalogues", { skip: unavailable }, async () => {
        const taken = { what: 'a user to take the name of', method: 'POST', path: '/api/users/', json: { username: 'taken-name' }, status: 201, body: {} };
        assert.equal((await send(server!, taken, admin, door)).status, 201);
        for (const p of provocations(taken.json.username)) {
          const res = await send(server!, p, admin, door);
          assert.equal(res.status, p.status, `${p.what}: status (body ${res.body.slice(0, 300)})`);
          const { body, checks } = expectedBody(language, p.body);
          const got = res.json() as Record<string, unknown>;
          for (const [where, prefix] of checks) {
            const [key, index] = where.split('.');
            const value = index === undefined ? got[key] : (got[key] as unknown[])[Number(index)];
            assert.ok(typeof value === 'string' && value.startsWith(prefix), `${p.what}: ${where} is ${JSON.stringify(value)}`);
            if (index === undefined) got[key] = null;
            else (got[key] as unknown[])[Number(index)] = null;
          }
          assert.deepEqual(got, body, p.what);
        }
      });

      it("throttling, after too many failed credentials, in the words of Debian's DRF", { skip: unavailable }, async () => {
        let res: HttpResponse | undefined;
        for (let attempt = 0; attempt < 20; attempt++) {
          res = await request(server!.base, '/api/projects/', { method: 'POST', headers: { authorization: 'Token not-a-token' } });
          if (res.status === 429) break;
        }
        assert.equal(res!.status, 429);
        const wait = Number(res!.headers['retry-after']);
        assert.ok(wait > 1, `Retry-After ${wait}`);
        assert.deepEqual(res!.json(), { detail: debianWords(language, [], [{ throttledWait: wait }]).texts[0] });
      });
    });
  }
});

function send(server: TestServer, p: Provocation, admin: string, door: string): Promise<HttpResponse> {
  const headers: Record<string, string> = { ...p.headers };
  const auth = p.auth ?? 'admin';
  if (auth === 'admin') headers.authorization = `Token ${admin}`;
  else if (auth === 'door') headers.authorization = `Token ${door}`;
  else if (auth !== 'none') headers.authorization = auth.header;
  let body: string | undefined;
  if (p.json !== undefined) {
    body = JSON.stringify(p.json);
    headers['content-type'] = 'application/json';
  } else if (p.raw !== undefined) {
    body = p.raw.body;
    headers['content-type'] = p.raw.type;
  }
  return request(server.base, p.path, { method: p.method ?? 'GET', headers, body });
}
