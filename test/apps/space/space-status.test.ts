/**
 * `GET /api/space/status/`: the space's current state, compactly, over real HTTP on the engine
 * under test: nulls before the first opening, the latest opening's state and time after, never
 * stale after a door post, and the contract's conventions (formats, Accept, Allow/Vary, HEAD,
 * OPTIONS, the trailing-slash redirect, 401/403/405 for writes).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createToken } from '../../../src/resources/tokens.js';
import { request, assertJson, assertRouteHeaders } from '../../support/http.js';
import { startServer, type TestServer } from '../../support/server.js';
import { nowUs } from '../../support/clock.js';

const opening = (pk: number, time: string, isOpen: boolean) => ({ model: 'space.spacestatus', pk, fields: { time, is_open: isOpen } });

/** Openings whose ids do not follow their times: the latest by time is pk 2. */
const OPENINGS = [opening(1, '2021-03-27T20:00:00Z', true), opening(2, '2021-03-28T01:00:00.250000Z', false), opening(3, '2021-03-27T23:00:00Z', true)];

describe('GET /api/space/status/ before the first opening', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  it('answers nulls (the state is unknown), as JSON with the route headers', async () => {
    const res = await request(server.base, '/api/space/status/');
    assert.equal(res.body, '{"is_open":null,"since":null}');
    assertJson(res, 200, { is_open: null, since: null });
    assertRouteHeaders(res);
    assert.equal(res.headers['access-control-allow-origin'], '*');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
  });

  it('leaves the API root as the contract fixes it', async () => {
    const res = await request(server.base, '/api/');
    assert.deepEqual(Object.keys(res.json()), ['events', 'meetings', 'users', 'projects', 'stock/categories', 'stock/products', 'streams/urtip', 'space/openings']);
  });
});

describe('GET /api/space/status/ with openings', () => {
  let server: TestServer;
  let admin: string;
  let door: string;
  before(async () => {
    server = await startServer({ records: OPENINGS, env: { TIME_ZONE: 'Europe/Brussels' } });
    admin = (await createToken(server.database.db, 'admin', 'admin', nowUs())).secret;
    door = (await createToken(server.database.db, 'door', 'door', nowUs())).secret;
  });
  after(() => server.close());

  it("gives the latest opening's state and time, in the contract's time format", async () => {
    // 01:00:00.25 UTC on the day Brussels moves to summer time is 03:00:00.25 local, at +02:00.
    assertJson(await request(server.base, '/api/space/status/'), 200, { is_open: false, since: '2021-03-28T03:00:00.250000+02:00' });
    // The same time as the newest record of the openings collection.
    const newest = (await request(server.base, '/api/space/openings/')).json().results[0];
    assertJson(await request(server.base, '/api/space/status/'), 200, { is_open: newest.is_open, since: newest.time });
  });

  it('is fresh right after a door post, and after the legacy door route', async () => {
    const before = await request(server.base, '/api/space/status/');
    assert.equal(before.json().is_open, false);
    const posted = await request(server.base, '/api/space/openings/', {
      method: 'POST',
      headers: { authorization: `Token ${door}`, 'content-type': 'application/json' },
      body: JSON.stringify({ is_open: true }),
    });
    assert.equal(posted.status, 201, posted.body);
    assertJson(await request(server.base, '/api/space/status/'), 200, { is_open: true, since: posted.json().time });
    // A repeated report records nothing: the state and its time stay.
    const again = await request(server.base, '/api/space/openings/', {
      method: 'POST',
      headers: { authorization: `Token ${door}`, 'content-type': 'application/json' },
      body: JSON.stringify({ is_open: true }),
    });
    assert.equal(again.status, 200);
    assertJson(await request(server.base, '/api/space/status/'), 200, { is_open: true, since: posted.json().time });

    const legacy = await request(server.base, '/space/change_status', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `secret=${encodeURIComponent(door)}&open=0`,
    });
    assert.equal(legacy.status, 200, legacy.body);
    const after = (await request(server.base, '/api/space/status/')).json();
    assert.equal(after.is_open, false);
    const newest = (await request(server.base, '/api/space/openings/')).json().results[0];
    assert.deepEqual(after, { is_open: false, since: newest.time });
  });

  it('follows an admin deleting the latest opening', async () => {
    // The door posts above recorded openings 4 (open) and 5 (closed, the latest).
    const [latest, previous] = (await request(server.base, '/api/space/openings/?page_size=2')).json().results;
    assertJson(await request(server.base, '/api/space/status/'), 200, { is_open: latest.is_open, since: latest.time });
    const res = await request(server.base, '/api/space/openings/5/', { method: 'DELETE', headers: { authorization: `Token ${admin}` } });
    assert.equal(res.status, 204, res.body);
    assertJson(await request(server.base, '/api/space/status/'), 200, { is_open: previous.is_open, since: previous.time });
  });

  it('takes the .json suffix and format=json|api; other formats are 404 with the route headers', async () => {
    const expected = (await request(server.base, '/api/space/status/')).json();
    for (const path of ['/api/space/status.json', '/api/space/status.json/', '/api/space/status.api', '/api/space/status/?format=json', '/api/space/status/?format=api']) {
      const res = await request(server.base, path);
      assertJson(res, 200, expected);
      assertRouteHeaders(res);
    }
    for (const path of ['/api/space/status.xml', '/api/space/status/?format=xml', '/api/space/status/?format=JSON']) {
      const res = await request(server.base, path);
      assertJson(res, 404, { detail: 'Not found.' });
      assertRouteHeaders(res);
    }
  });

  it('negotiates Accept: JSON or 406', async () => {
    for (const accept of ['application/json', '*/*', 'application/*', 'application/json, text/html']) {
      assert.equal((await request(server.base, '/api/space/status/', { headers: { accept } })).status, 200, accept);
    }
    for (const accept of ['application/xml', 'text/plain', 'text/event-stream']) {
      const res = await request(server.base, '/api/space/status/', { headers: { accept } });
      assertJson(res, 406, { detail: 'Could not satisfy the request Accept header.' });
      assertRouteHeaders(res);
    }
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const get = await request(server.base, '/api/space/status/');
    const head = await request(server.base, '/api/space/status/', { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
    assert.equal(head.headers['content-length'], String(Buffer.byteLength(get.body)));
    assert.equal(head.headers['content-type'], 'application/json');
    assertRouteHeaders(head);
  });

  it('describes itself on OPTIONS, with no actions even for an admin', async () => {
    const body = {
      name: 'Space Status',
      description: 'Whether the space is open, and since when (the latest opening; nulls before the first).',
      renders: ['application/json'],
      parses: ['application/json', 'application/x-www-form-urlencoded'],
    };
    for (const headers of [{}, { authorization: `Token ${admin}` }, { authorization: `Token ${door}` }] as Record<string, string>[]) {
      const res = await request(server.base, '/api/space/status/', { method: 'OPTIONS', headers });
      assertJson(res, 200, body);
      assertRouteHeaders(res);
    }
  });

  it('redirects the path without its slash, keeping the query', async () => {
    for (const method of ['GET', 'POST']) {
      const res = await request(server.base, '/api/space/status?format=json&x=1', { method });
      assert.equal(res.status, 301);
      assert.equal(res.headers.location, '/api/space/status/?format=json&x=1');
      assert.equal(res.headers.allow, undefined);
    }
    assertJson(await request(server.base, '/api/space/status/extra/'), 404, { detail: 'Not found.' });
    assertJson(await request(server.base, '/api/space/statuses/'), 404, { detail: 'Not found.' });
  });

  it('refuses writes: 401 without credentials, 403 for the door, 405 for an admin', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const anonymous = await request(server.base, '/api/space/status/', { method, headers: { 'content-type': 'application/json' }, body: '{"is_open":true}' });
      assertJson(anonymous, 401, { detail: 'Authentication credentials were not provided.' });
      assert.equal(anonymous.headers['www-authenticate'], 'Token');
      assertRouteHeaders(anonymous);
      const byDoor = await request(server.base, '/api/space/status/', { method, headers: { authorization: `Token ${door}` } });
      assertJson(byDoor, 403, { detail: 'You do not have permission to perform this action.' });
      const byAdmin = await request(server.base, '/api/space/status/', { method, headers: { authorization: `Token ${admin}` } });
      assertJson(byAdmin, 405, { detail: `Method "${method}" not allowed.` });
      assertRouteHeaders(byAdmin);
    }
  });
});
