/**
 * `GET /spaceapi.json`: the SpaceAPI document built from the operator's file (SPACEAPI_CONFIG)
 * and the database, over real HTTP on the engine under test. Every document served is validated
 * against the SpaceAPI 15 schema with Ajv's 2019 build (which enforces `dependentRequired`),
 * independently of the service's own check; a bad file stops the service at start, in buildApp
 * and in the real command.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Ajv2019 } from 'ajv/dist/2019.js';
import draft07 from 'ajv/dist/refs/json-schema-draft-07.json' with { type: 'json' };
import { buildApp } from '../../../src/app.js';
import { ConfigError, configFrom } from '../../../src/config.js';
import { createToken } from '../../../src/resources/tokens.js';
import { readSpaceApiFile } from '../../../src/apps/space/spaceapi/config-file.js';
import { request } from '../../support/http.js';
import { freePort, startService } from '../../support/processes.js';
import { freshDatabase, startServer, type TestServer } from '../../support/server.js';
import { doorPost } from '../../support/door.js';

const REPO = path.resolve(import.meta.dirname, '../../..');
const EXAMPLE = path.join(REPO, 'examples/spaceapi.example.yaml');
const BUNDLED_SCHEMA = (version: string) => path.join(REPO, `src/apps/space/spaceapi/schema-${version}.json`);

const ajv = new Ajv2019({ allErrors: true, strict: false });
ajv.addMetaSchema(draft07);
const validators = Object.fromEntries(['14', '15'].map((v) => [v, ajv.compile(JSON.parse(fs.readFileSync(BUNDLED_SCHEMA(v), 'utf8')))]));

function assertValid(document: unknown, version = '15') {
  const validate = validators[version];
  assert.ok(validate(document), `not valid SpaceAPI ${version}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(document)}`);
}

/** A minimal document that SpaceAPI 14 and 15 both accept. */
const STATIC = {
  space: 'Test Space',
  logo: 'https://space.example.org/logo.png',
  url: 'https://space.example.org/',
  location: { address: 'Somewhere 1, 1000 Brussels', lat: 50.8, lon: 4.3 },
  contact: { email: 'hello@space.example.org' },
};

const user = (pk: number, username: string, hasKey: boolean) => ({
  model: 'users.user',
  pk,
  fields: { username, email: `${username}@mail.example.net`, has_key: hasKey },
});
const opening = (pk: number, time: string, isOpen: boolean) => ({ model: 'space.spacestatus', pk, fields: { time, is_open: isOpen } });

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hackerspace-spaceapi-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));
let files = 0;

/** Writes a config file (an object as JSON or YAML text as is) and returns its path. */
function configFile(content: unknown, extension = 'json'): string {
  const file = path.join(tmp, `spaceapi-${++files}.${extension}`);
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return file;
}

async function getDocument(server: TestServer): Promise<any> {
  const res = await request(server.base, '/spaceapi.json');
  assert.equal(res.status, 200, res.body);
  const document = res.json();
  assertValid(document);
  return document;
}

describe('the bundled SpaceAPI schemas', () => {
  it('are the published ones (SpaceApi/schema commit 85322b8, byte for byte)', () => {
    // The digests of the published schema files 14.json and 15.json.
    const published: Record<string, string> = {
      '14': '3816dab1114d707a9438792aa24f0efca333f4be869fa277e0a2fe8e2f329fa2',
      '15': 'aec3ddf201996a3ea4dc948af2e44754dfa01b9e82014f036b2fd6b369a02ead',
    };
    for (const version of ['14', '15']) {
      const digest = createHash('sha256')
        .update(fs.readFileSync(BUNDLED_SCHEMA(version)))
        .digest('hex');
      assert.equal(digest, published[version], `schema ${version}`);
    }
  });

  it('enforce dependentRequired (Ajv 2019): lat without lon is invalid', () => {
    assert.equal(validators['15']({ ...STATIC, api_compatibility: ['15'], location: { lat: 1 } }), false);
  });
});

describe('GET /spaceapi.json on an empty database', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ env: { SPACEAPI_CONFIG: configFile(STATIC) } });
  });
  after(() => server.close());

  it('is valid SpaceAPI 15 and 14, with the state unknown: state.open and lastchange omitted', async () => {
    const document = await getDocument(server);
    assertValid(document, '14');
    assert.deepEqual(document, { api_compatibility: ['14', '15'], ...STATIC, state: {} });
  });

  it('is served with CORS, JSON, a short Cache-Control and the security headers', async () => {
    const res = await request(server.base, '/spaceapi.json', { headers: { origin: 'https://app.example.com' } });
    assert.equal(res.headers['access-control-allow-origin'], '*');
    assert.equal(res.headers['content-type'], 'application/json');
    assert.equal(res.headers['cache-control'], 'max-age=30');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['x-frame-options'], 'DENY');
    assert.equal(res.headers['referrer-policy'], 'strict-origin-when-cross-origin');
    // The query is ignored (cache busters), and any Accept gets the one representation.
    const busted = await request(server.base, '/spaceapi.json?_=12345', { headers: { accept: 'text/html' } });
    assert.equal(busted.status, 200);
    assert.equal(busted.body, res.body);
  });

  it('answers HEAD like GET without a body, OPTIONS with 204 and Allow, other methods 405', async () => {
    const get = await request(server.base, '/spaceapi.json');
    const head = await request(server.base, '/spaceapi.json', { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
    assert.equal(head.headers['content-length'], String(Buffer.byteLength(get.body)));
    assert.equal(head.headers['content-type'], 'application/json');
    assert.equal(head.headers['access-control-allow-origin'], '*');

    const options = await request(server.base, '/spaceapi.json', {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'GET' },
    });
    assert.equal(options.status, 204);
    assert.equal(options.body, '');
    assert.equal(options.headers.allow, 'GET, HEAD, OPTIONS');
    assert.equal(options.headers['access-control-allow-origin'], '*');
    assert.equal(options.headers['access-control-allow-methods'], 'GET, HEAD, OPTIONS');

    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const res = await request(server.base, '/spaceapi.json', { method, headers: { 'content-type': 'application/json' }, body: '{}' });
      assert.equal(res.status, 405, method);
      assert.equal(res.headers['content-type'], 'application/json');
      assert.equal(res.headers.allow, 'GET, HEAD, OPTIONS');
      assert.deepEqual(res.json(), { detail: `Method "${method}" not allowed.` });
    }
  });

  it('is only at /spaceapi.json', async () => {
    for (const path of ['/spaceapi.json/', '/spaceapi', '/api/spaceapi.json']) {
      assert.equal((await request(server.base, path)).status, 404, path);
    }
  });
});

describe('GET /spaceapi.json with openings', () => {
  let server: TestServer;
  let door: string;
  before(async () => {
    server = await startServer({
      records: [opening(1, '2024-05-01T18:00:00Z', true), opening(2, '2024-05-01T23:30:15.750000Z', false), opening(3, '2024-04-30T10:00:00Z', true)],
      env: { SPACEAPI_CONFIG: configFile({ ...STATIC, state: { message: 'members only' } }) },
    });
    door = (await createToken(server.database.db, 'door', 'door', Date.now() * 1000)).secret;
  });
  after(() => server.close());

  it("a closed space: state.open false, lastchange the latest opening's time in whole seconds", async () => {
    const document = await getDocument(server);
    assertValid(document, '14');
    assert.deepEqual(document.state, { open: false, lastchange: Math.floor(Date.parse('2024-05-01T23:30:15.750Z') / 1000), message: 'members only' });
    assert.ok(Number.isInteger(document.state.lastchange));
  });

  it('an open space after a door post, at once (cached bodies never outlive the data)', async () => {
    await getDocument(server);
    const posted = await doorPost(server.base, door, true);
    assert.equal(posted.status, 201, posted.body);
    const document = await getDocument(server);
    assert.equal(document.state.open, true);
    assert.equal(document.state.lastchange, Math.floor(Date.parse(posted.json().time) / 1000));
    // The status route and the document agree.
    const status = (await request(server.base, '/api/space/status/')).json();
    assert.equal(status.is_open, document.state.open);
    assert.equal(Math.floor(Date.parse(status.since) / 1000), document.state.lastchange);

    assert.equal((await doorPost(server.base, door, false)).status, 201);
    const closed = await getDocument(server);
    assert.equal(closed.state.open, false);
    assert.ok(closed.state.lastchange >= document.state.lastchange);
  });
});

describe('GET /spaceapi.json: key holders', () => {
  const records = [user(1, 'zoé', true), user(2, 'alice', true), user(3, 'bob', false), opening(1, '2024-05-01T18:00:00Z', true)];

  it('lists the users with a key, by username, when the operator opts in — never their e-mail', async () => {
    const server = await startServer({ records, env: { SPACEAPI_CONFIG: configFile({ ...STATIC, live: { keymasters: true } }) } });
    try {
      const res = await request(server.base, '/spaceapi.json');
      const document = (assertValid(res.json()), res.json());
      assertValid(document, '14');
      assert.deepEqual(document.contact, { email: 'hello@space.example.org', keymasters: [{ name: 'alice' }, { name: 'zoé' }] });
      assert.equal('live' in document, false);
      assert.doesNotMatch(res.body, /mail\.example\.net/);
      assert.equal(document.state.open, true);
    } finally {
      await server.close();
    }
  });

  it('puts the username in the chosen field', async () => {
    const server = await startServer({ records, env: { SPACEAPI_CONFIG: configFile({ ...STATIC, live: { keymasters: true, keymaster_field: 'irc_nick' } }) } });
    try {
      assert.deepEqual((await getDocument(server)).contact.keymasters, [{ irc_nick: 'alice' }, { irc_nick: 'zoé' }]);
    } finally {
      await server.close();
    }
  });

  it('leaves keymasters out while nobody has a key (the schema wants at least one), and without the opt-in', async () => {
    const nobody = await startServer({ records: [user(3, 'bob', false)], env: { SPACEAPI_CONFIG: configFile({ ...STATIC, live: { keymasters: true } }) } });
    try {
      assert.deepEqual((await getDocument(nobody)).contact, STATIC.contact);
    } finally {
      await nobody.close();
    }
    const off = await startServer({ records, env: { SPACEAPI_CONFIG: configFile(STATIC) } });
    try {
      assert.deepEqual((await getDocument(off)).contact, STATIC.contact);
    } finally {
      await off.close();
    }
  });
});

describe('GET /spaceapi.json: configuration', () => {
  it('answers 404 without SPACEAPI_CONFIG', async () => {
    const server = await startServer();
    try {
      for (const method of ['GET', 'POST']) {
        const res = await request(server.base, '/spaceapi.json', { method });
        assert.equal(res.status, 404);
        assert.deepEqual(res.json(), { detail: 'Not found.' });
      }
    } finally {
      await server.close();
    }
  });

  it('reads YAML: the example file in the repository', async () => {
    const server = await startServer({ records: [user(1, 'alice', true)], env: { SPACEAPI_CONFIG: EXAMPLE } });
    try {
      const document = await getDocument(server);
      assertValid(document, '14');
      assert.deepEqual(document.api_compatibility, ['14', '15']);
      assert.equal(document.space, 'UrLab');
      assert.deepEqual(document.contact.keymasters, [{ irc_nick: 'alice' }]);
      assert.equal(document.state.icon.open, 'https://urlab.be/static/images/open.png');
      assert.equal('open' in document.state, false);
    } finally {
      await server.close();
    }
  });

  it('claims only SpaceAPI 15 for a document that 14 would refuse (no location)', async () => {
    const { location: _, ...noLocation } = STATIC;
    const setup = readSpaceApiFile(configFile(noLocation));
    assert.deepEqual(setup.compatibility, ['15']);
    assert.match(setup.notes.join('\n'), /not valid for SpaceAPI 14.*location is required/);
    const server = await startServer({ env: { SPACEAPI_CONFIG: configFile(noLocation, 'yml') } });
    try {
      assert.deepEqual((await getDocument(server)).api_compatibility, ['15']);
    } finally {
      await server.close();
    }
  });
});

/** Bad files, and what the message must say about each (besides the variable and the file). */
const BAD_FILES: [string, string | object, string, RegExp][] = [
  ['bad JSON', '{"space": "x",\n  "logo": }', 'json', /not valid JSON: Unexpected token/],
  ['a missing comma in JSON', '{"space": "x"\n  "logo": "y"}', 'json', /not valid JSON: .*\(line 2, column 3\)/],
  ['bad YAML', 'space: x\nlogo: [a, b\nurl: y\n', 'yaml', /not valid YAML: .*line \d+, column \d+/],
  ['duplicate YAML keys', 'space: x\nspace: y\n', 'yml', /not valid YAML: Map keys must be unique/],
  ['not a mapping', '["space"]', 'json', /must hold a mapping .* got a list/],
  ['an empty YAML file', '', 'yaml', /must hold a mapping .* got nothing/],
  ['missing space', { ...STATIC, space: undefined }, 'json', /not a valid SpaceAPI 15 document: space is required/],
  ['a wrong type', { ...STATIC, logo: 42 }, 'json', /not a valid SpaceAPI 15 document: logo must be string/],
  ['lat without lon', { ...STATIC, location: { lat: 50.8 } }, 'json', /location: lon is required when lat is given/],
  [
    'a bad enum',
    { ...STATIC, membership_plans: [{ name: 'x', value: 1, currency: 'EUR', billing_interval: 'fortnightly' }] },
    'json',
    /membership_plans\[0\]\.billing_interval must be one of "yearly"/,
  ],
  ['a live state', { ...STATIC, state: { open: true, lastchange: 1 } }, 'json', /state\.open comes from the database.*state\.lastchange comes from the database/],
  ['api_compatibility', { ...STATIC, api_compatibility: ['15'] }, 'json', /api_compatibility is set by the service/],
  ['sensors', { ...STATIC, sensors: { people_now_present: [{ value: 3 }] } }, 'json', /sensors are live measurements/],
  ['people_now_present', { ...STATIC, live: { people_now_present: true } }, 'json', /live\.people_now_present is not supported/],
  ['an unknown option', { ...STATIC, live: { keymaster: true } }, 'json', /live\.keymaster is not an option/],
  ['a bad keymaster field', { ...STATIC, live: { keymasters: true, keymaster_field: 'email' } }, 'json', /live\.keymaster_field must be one of name, irc_nick/],
  ['keymasters twice', { ...STATIC, contact: { keymasters: [{ name: 'x', irc_nick: 'x' }] }, live: { keymasters: true } }, 'json', /contact\.keymasters comes from the database/],
];

describe('a bad SpaceAPI file stops the service at start', () => {
  it('names the variable, the file and the problem (ConfigError from buildApp)', async () => {
    for (const [what, content, extension, reason] of BAD_FILES) {
      const file = configFile(content, extension);
      await assert.rejects(buildApp(configFrom({ DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent', SPACEAPI_CONFIG: file }), { logger: false }), (error: unknown) => {
        assert.ok(error instanceof ConfigError, `${what}: ${String(error)}`);
        assert.equal(error.variable, 'SPACEAPI_CONFIG');
        assert.ok(error.message.startsWith(`SPACEAPI_CONFIG: ${file}: `), `${what}: ${error.message}`);
        assert.match(error.message, reason, what);
        return true;
      });
    }
    const missing = path.join(tmp, 'missing.yaml');
    assert.throws(() => readSpaceApiFile(missing), new RegExp(`^ConfigError: SPACEAPI_CONFIG: ${missing}: cannot read the file \\(ENOENT`));
  });

  it('makes `hackerspace-api serve` exit with code 78 and the message, and serve a good file', async () => {
    const fresh = await freshDatabase();
    try {
      const bad = configFile({ ...STATIC, space: undefined });
      const failing = await startService(['serve'], { DATABASE_URL: fresh.url, PORT: String(await freePort()), SPACEAPI_CONFIG: bad });
      const exit = await failing.exited;
      assert.equal(exit.code, 78, failing.output());
      assert.match(failing.stderr(), new RegExp(`configuration error: SPACEAPI_CONFIG: ${bad}: not a valid SpaceAPI 15 document: space is required`));

      const badYaml = configFile('space: [\n', 'yaml');
      const failingYaml = await startService(['serve', '--workers', '2'], { DATABASE_URL: fresh.url, PORT: String(await freePort()), SPACEAPI_CONFIG: badYaml });
      assert.equal((await failingYaml.exited).code, 78, failingYaml.output());
      assert.match(failingYaml.stderr(), /SPACEAPI_CONFIG: .*not valid YAML/);

      const good = await startService(['serve'], { DATABASE_URL: fresh.url, PORT: String(await freePort()), SPACEAPI_CONFIG: EXAMPLE, LOG_LEVEL: 'info' });
      try {
        await good.waitForLog((line) => String(line.msg).startsWith('Server listening'), 'listening');
        const res = await request(good.base, '/spaceapi.json');
        assert.equal(res.status, 200, res.body);
        assertValid(res.json());
        assert.ok(
          good.logs.some((line) => line.spaceapi === EXAMPLE),
          good.output(),
        );
      } finally {
        await good.stop();
      }
    } finally {
      await fresh.cleanup();
    }
  });
});
