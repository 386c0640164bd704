/**
 * Opening hours (web spec §3): the share of time the space was open per weekday × local hour
 * over the last N weeks. The computation is tested on a real database of the engine under test
 * with a fixed `until` (openingHours), against shares worked out by hand from the definition, in
 * Europe/Brussels across both daylight-saving changes; the route `GET /api/space/hours/` over
 * real HTTP for its conventions (weeks validation, formats, Accept, HEAD, OPTIONS, Allow/Vary,
 * ETag/304, the slash redirect, writes refused, not in the API root).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Db } from '../../../src/db/connection.js';
import { offsetSpans, openingHours } from '../../../src/apps/space/opening-hours.js';
import { createToken } from '../../../src/resources/tokens.js';
import { formatIsoUtc, parseIsoMicros, TimeFormatter } from '../../../src/time.js';
import { request, assertJson, assertRouteHeaders } from '../../support/http.js';
import { freshDatabase, startServer, type FreshDatabase, type TestServer } from '../../support/server.js';
import { nowUs } from '../../support/clock.js';

const BRUSSELS = new TimeFormatter('Europe/Brussels');
const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const MINUTE_US = 60_000_000;
const WEEK_US = 7 * 24 * 60 * MINUTE_US;

/** An instant written in UTC (`2021-03-28T01:00:00Z`), in microseconds. */
function utc(text: string): number {
  const us = parseIsoMicros(text);
  assert.notEqual(us, null, text);
  return us!;
}

/** A 7 × 24 table of shares: `fill` everywhere, then the cells named `thursday 1` and so on. */
function shares(cells: Record<string, number>, fill = 0): number[][] {
  const rows = DAYS.map(() => new Array<number>(24).fill(fill));
  for (const [name, value] of Object.entries(cells)) {
    const [day, hour] = name.split(' ');
    assert.ok(DAYS.includes(day) && Number(hour) >= 0 && Number(hour) < 24, name);
    rows[DAYS.indexOf(day)][Number(hour)] = value;
  }
  return rows;
}

async function insertOpenings(db: Db, rows: [id: number, time: string, isOpen: boolean][]): Promise<void> {
  await db.deleteFrom('openings').execute();
  if (rows.length === 0) return;
  await db
    .insertInto('openings')
    .values(rows.map(([id, time, isOpen]) => ({ id, time_us: utc(time), is_open: isOpen ? 1 : 0 })))
    .execute();
}

describe('openingHours: shares over a window ending at a given until (Europe/Brussels)', () => {
  let fresh: FreshDatabase;
  let db: Db;
  before(async () => {
    fresh = await freshDatabase();
    db = fresh.handle.db;
  });
  after(() => fresh.cleanup());

  it('is all zeros without any opening, for weeks 1, 12 and 104', async () => {
    await insertOpenings(db, []);
    for (const weeks of [1, 12, 104]) {
      assert.deepEqual(await openingHours(db, BRUSSELS, utc('2021-04-01T00:00:00Z'), weeks), shares({}), `weeks=${weeks}`);
    }
  });

  it('finds the offset change of each daylight-saving transition once, to the second', () => {
    // Spring 2021: +01:00 until 2021-03-28T01:00Z, +02:00 from then. Autumn: back to +01:00 at 2021-10-31T01:00Z.
    const H = 3600 * 1_000_000;
    assert.deepEqual(offsetSpans(BRUSSELS, utc('2021-03-25T00:00:00Z'), utc('2021-04-01T00:00:00Z')), [
      { startUs: utc('2021-03-25T00:00:00Z'), endUs: utc('2021-03-28T01:00:00Z'), offsetUs: H },
      { startUs: utc('2021-03-28T01:00:00Z'), endUs: utc('2021-04-01T00:00:00Z'), offsetUs: 2 * H },
    ]);
    assert.deepEqual(offsetSpans(BRUSSELS, utc('2019-11-07T00:00:00Z'), utc('2021-11-04T00:00:00Z')), [
      { startUs: utc('2019-11-07T00:00:00Z'), endUs: utc('2020-03-29T01:00:00Z'), offsetUs: H },
      { startUs: utc('2020-03-29T01:00:00Z'), endUs: utc('2020-10-25T01:00:00Z'), offsetUs: 2 * H },
      { startUs: utc('2020-10-25T01:00:00Z'), endUs: utc('2021-03-28T01:00:00Z'), offsetUs: H },
      { startUs: utc('2021-03-28T01:00:00Z'), endUs: utc('2021-10-31T01:00:00Z'), offsetUs: 2 * H },
      { startUs: utc('2021-10-31T01:00:00Z'), endUs: utc('2021-11-04T00:00:00Z'), offsetUs: H },
    ]);
  });

  it('counts the spring change exactly (weeks=1): the missing hour is empty, a state lasts across the start and past until', async () => {
    // W = [2021-03-25T00:00Z, 2021-04-01T00:00Z): local Thu 25 01:00 (+01:00) to Thu 1 02:00 (+02:00).
    // Lengths of S(d,h): one hour each, except Thursday 0 (only Apr 1 00:00–01:00: 1 h), Thursday 1
    // (Mar 25 and Apr 1: 2 h), and Sunday 2, which the clock skips on Mar 28 (empty: share 0).
    await insertOpenings(db, [
      [10, '2021-03-10T12:00:00Z', false],
      // The latest record before W by time (a smaller id than the one before it): open at W's start.
      [9, '2021-03-20T12:00:00Z', true],
      // Closed at local Thu 01:45: Thursday 1 is open 45 min on Mar 25.
      [11, '2021-03-25T00:45:00Z', false],
      // Open from local Sun 01:30 (+01:00) to 03:30 (+02:00), one hour of real time: 30 min in Sunday 1, 30 min in Sunday 3.
      [12, '2021-03-28T00:30:00Z', true],
      [13, '2021-03-28T01:30:00Z', false],
      // Open from local Wed 23:15 (+02:00), still open at until: Wednesday 23 gets 45 min, Thursday 0
      // and Thursday 1 (Apr 1) a full hour each.
      [14, '2021-03-31T21:15:00Z', true],
    ]);
    const expected = shares({
      'wednesday 23': 0.75, // 45 / 60
      'thursday 0': 1, // 60 / 60
      'thursday 1': 0.875, // (45 on Mar 25 + 60 on Apr 1) / 120
      'sunday 1': 0.5, // 30 / 60
      'sunday 2': 0, // empty
      'sunday 3': 0.5, // 30 / 60
    });
    assert.deepEqual(await openingHours(db, BRUSSELS, utc('2021-04-01T00:00:00Z'), 1), expected);
  });

  it('gives an open state from before the window to every non-empty hour', async () => {
    // Open since before W, nothing in W: every S(d,h) is wholly open, but Sunday 2 is empty (spring).
    await insertOpenings(db, [[1, '2021-03-20T12:00:00Z', true]]);
    assert.deepEqual(await openingHours(db, BRUSSELS, utc('2021-04-01T00:00:00Z'), 1), shares({ 'sunday 2': 0 }, 1));
    // The same opening after until (a clock ahead) is not seen: closed all week.
    await insertOpenings(db, [[1, '2021-04-01T00:00:00Z', true]]);
    assert.deepEqual(await openingHours(db, BRUSSELS, utc('2021-04-01T00:00:00Z'), 1), shares({}));
  });

  const AUTUMN: [number, string, boolean][] = [
    // Open from local Wed 20 12:00 to Thu 28 01:00 (+02:00), closed before W when weeks=1.
    [1, '2021-10-20T10:00:00Z', true],
    [2, '2021-10-27T23:00:00Z', false],
    // Open from local 02:30 (+02:00, the first 02:00–03:00) to 02:15 (+01:00, the second): 45 min of Sunday 2.
    [3, '2021-10-31T00:30:00Z', true],
    [4, '2021-10-31T01:15:00Z', false],
    // Open from local Wed 23:30 (+01:00) until until: 30 min of Wednesday 23, Thursday 0 (Nov 4) wholly.
    [5, '2021-11-03T22:30:00Z', true],
  ];

  it('counts the autumn change exactly (weeks=1): the repeated hour is two hours long; a closed state lasts across the start', async () => {
    await insertOpenings(db, AUTUMN);
    // W = [2021-10-28T00:00Z, 2021-11-04T00:00Z): local Thu 28 02:00 (+02:00) to Thu 4 01:00 (+01:00).
    // Lengths: Thursday 0 is Nov 4 00:00–01:00 (1 h); Thursday 1 is empty (W starts at 02:00 and ends at
    // 01:00 local); Sunday 2 is 2 h (02:00–03:00 twice on Oct 31); every other hour 1 h.
    // The latest record before W (id 2) is closed.
    const expected = shares({
      'sunday 2': 0.375, // 45 / 120
      'wednesday 23': 0.5, // 30 / 60
      'thursday 0': 1, // 60 / 60
      'thursday 1': 0, // empty
    });
    assert.deepEqual(await openingHours(db, BRUSSELS, utc('2021-11-04T00:00:00Z'), 1), expected);
  });

  it('covers 104 weeks (the maximum) across four changes', async () => {
    await insertOpenings(db, AUTUMN);
    // W = [2019-11-07T00:00Z, 2021-11-04T00:00Z): local Thu 01:00 (+01:00) to Thu 01:00 (+01:00), 104 weeks
    // of wall clock. Every hour occurs 104 times (104 h = 6240 min), Sunday 2 too: 100 ordinary Sundays,
    // two spring ones without it (2020-03-29, 2021-03-28) and two autumn ones with it twice (2020-10-25, 2021-10-31).
    // Open time (min): Oct 20 12:00 → Oct 28 01:00 local is 60 min in every hour of Oct 21–26 (Thu–Tue),
    // Wed 27 (all day), Thu 28 00:00–01:00 and Wed 20 12:00–24:00; then 45 min of Sunday 2 on Oct 31;
    // then Wed Nov 3 23:30–24:00 (30) and Thu Nov 4 00:00–01:00 (60).
    const one = 0.0096; // 60 / 6240 = 0.009615…
    const expected = shares({}, one);
    for (let hour = 12; hour < 23; hour++) expected[2][hour] = 0.0192; // Wednesday 12–22: 120 / 6240 = 0.019230…
    expected[2][23] = 0.024; // Wednesday 23: (60 + 60 + 30) / 6240 = 0.0240384…
    expected[3][0] = 0.0288; // Thursday 0: (60 Oct 21 + 60 Oct 28 + 60 Nov 4) / 6240 = 0.0288461…
    expected[6][2] = 0.0168; // Sunday 2: (60 Oct 24 + 45 Oct 31) / 6240 = 0.0168269…
    assert.deepEqual(await openingHours(db, BRUSSELS, utc('2021-11-04T00:00:00Z'), 104), expected);
  });

  it('takes partial hours at both ends, a record at the very start, and repeated open records', async () => {
    // W = [2021-0603T10:20Z, 2021-06-10T10:20Z): local Thu 3 12:20 to Thu 10 12:20 (+02:00 throughout).
    // Thursday 12 is 40 min (Jun 3, 12:20–13:00) + 20 min (Jun 10, 12:00–12:20) = 60 min; every hour 60 min.
    await insertOpenings(db, [
      [6, '2021-06-01T00:00:00Z', true],
      // A record exactly at W's start decides the state there: closed.
      [5, '2021-06-03T10:20:00Z', false],
      // Open Sat 10:00, open again at 10:30 (the state stays open), closed at 11:00: Saturday 10 wholly.
      [1, '2021-06-05T08:00:00Z', true],
      [2, '2021-06-05T08:30:00Z', true],
      [3, '2021-06-05T09:00:00Z', false],
      // Open from local Thu 12:05 until until (12:20): 15 min of Thursday 12.
      [4, '2021-06-10T10:05:00Z', true],
    ]);
    const expected = shares({ 'saturday 10': 1, 'thursday 12': 0.25 }); // 60 / 60; 15 / 60
    assert.deepEqual(await openingHours(db, BRUSSELS, utc('2021-06-10T10:20:00Z'), 1), expected);
  });

  it('rounds to 4 decimals, half up, from whole microseconds', async () => {
    // W = [2021-06-03T10:00Z, 2021-06-10T10:00Z) (weeks=1, +02:00 throughout): every hour 60 min = 3.6e9 µs.
    // Friday 12 (local) open 1.8 s = 1,800,000 µs: 0.0005 exactly → 0.0005. Friday 13 open 0.18 s:
    // 0.00005 exactly → half up to 0.0001. Friday 14 open 0.179999 s: 0.0000499997… → 0.
    await insertOpenings(db, [
      [1, '2021-06-04T10:00:00Z', true],
      [2, '2021-06-04T10:00:01.800000Z', false],
      [3, '2021-06-04T11:00:00Z', true],
      [4, '2021-06-04T11:00:00.180000Z', false],
      [5, '2021-06-04T12:00:00Z', true],
      [6, '2021-06-04T12:00:00.179999Z', false],
    ]);
    const expected = shares({ 'friday 12': 0.0005, 'friday 13': 0.0001, 'friday 14': 0 });
    assert.deepEqual(await openingHours(db, BRUSSELS, utc('2021-06-10T10:00:00Z'), 1), expected);
  });
});

const WEEKS_400 = { detail: 'weeks must be an integer from 1 to 104.' };

describe('GET /api/space/hours/', () => {
  let server: TestServer;
  let admin: string;
  let door: string;
  before(async () => {
    server = await startServer({ env: { TIME_ZONE: 'Europe/Brussels' } });
    admin = (await createToken(server.database.db, 'admin', 'admin', nowUs())).secret;
    door = (await createToken(server.database.db, 'door', 'door', nowUs())).secret;
  });
  after(() => server.close());

  it('answers the last 12 weeks up to the request, all zeros before any opening', async () => {
    const beforeUs = Date.now() * 1000;
    const res = await request(server.base, '/api/space/hours/');
    const afterUs = Date.now() * 1000;
    assertJson(res, 200);
    assertRouteHeaders(res);
    const body = res.json();
    assert.deepEqual(Object.keys(body), ['weeks', 'until', 'time_zone', 'days', 'open_share']);
    assert.equal(body.weeks, 12);
    assert.equal(body.time_zone, 'Europe/Brussels');
    assert.deepEqual(body.days, DAYS);
    assert.deepEqual(body.open_share, shares({}));
    // `until` is the request's time, in the API's time format (local time and offset).
    assert.match(body.until, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?\+0[12]:00$/);
    const untilUs = parseIsoMicros(body.until)!;
    assert.ok(untilUs >= beforeUs && untilUs <= afterUs, `${body.until} between ${formatIsoUtc(beforeUs)} and ${formatIsoUtc(afterUs)}`);
    assert.equal(body.until, BRUSSELS.format(untilUs));
  });

  it('follows the openings: an open state since before the window is open in every hour', async () => {
    // Backfilled by an admin 200 weeks ago: open throughout any window of 2 to 104 weeks, in which every
    // local hour occurs at least once (a spring change takes Sunday 2 away from one week only).
    const time = formatIsoUtc(Math.floor(Date.now() / 1000) * 1_000_000 - 200 * WEEK_US);
    const posted = await request(server.base, '/api/space/openings/', {
      method: 'POST',
      headers: { authorization: `Token ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ time, is_open: true }),
    });
    assert.equal(posted.status, 201, posted.body);
    for (const [query, weeks] of [
      ['', 12],
      ['?weeks=2', 2],
      ['?weeks=104', 104],
      ['?weeks=5&weeks=12', 12],
      ['?weeks=007', 7],
    ] as const) {
      const res = await request(server.base, `/api/space/hours/${query}`);
      assertJson(res, 200);
      assert.equal(res.json().weeks, weeks, query);
      assert.deepEqual(res.json().open_share, shares({}, 1), query);
    }
  });

  it('refuses a weeks that is not an integer from 1 to 104 with 400', async () => {
    for (const value of ['0', '105', '1.5', 'abc', '', '+3', '%2B3', '%203', '3%20', '-1', '1e1', '0x10', '%EF%BC%91%EF%BC%92', '99999999999999999999', '12&weeks=0']) {
      const res = await request(server.base, `/api/space/hours/?weeks=${value}`);
      assertJson(res, 400, WEEKS_400);
      assertRouteHeaders(res);
      const head = await request(server.base, `/api/space/hours/?weeks=${value}`, { method: 'HEAD' });
      assert.equal(head.status, 400, value);
      assert.equal(head.body, '');
    }
    assertJson(await request(server.base, '/api/space/hours/?weeks'), 400, WEEKS_400);
    assertJson(await request(server.base, '/api/space/hours.json?weeks=abc'), 400, WEEKS_400);
  });

  it('takes the .json and .api suffixes and format=json|api; other formats are 404', async () => {
    for (const path of ['/api/space/hours.json', '/api/space/hours.json/', '/api/space/hours.api', '/api/space/hours/?format=json', '/api/space/hours/?format=api&weeks=3']) {
      const res = await request(server.base, path);
      assertJson(res, 200);
      assertRouteHeaders(res);
      assert.deepEqual(res.json().open_share, shares({}, 1), path);
    }
    for (const path of ['/api/space/hours.xml', '/api/space/hours/?format=xml']) {
      const res = await request(server.base, path);
      assertJson(res, 404, { detail: 'Not found.' });
      assertRouteHeaders(res);
    }
  });

  it('negotiates Accept: JSON or 406', async () => {
    assert.equal((await request(server.base, '/api/space/hours/', { headers: { accept: 'application/json' } })).status, 200);
    assert.equal((await request(server.base, '/api/space/hours/', { headers: { accept: '*/*' } })).status, 200);
    const res = await request(server.base, '/api/space/hours/', { headers: { accept: 'application/xml' } });
    assertJson(res, 406, { detail: 'Could not satisfy the request Accept header.' });
    assertRouteHeaders(res);
  });

  it('answers HEAD with the headers of GET and no body, and If-None-Match with 304', async () => {
    const get = await request(server.base, '/api/space/hours/?weeks=9');
    assertJson(get, 200);
    assert.ok(get.headers.etag, 'an ETag');
    const head = await request(server.base, '/api/space/hours/?weeks=9', { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
    assert.equal(head.headers['content-length'], String(Buffer.byteLength(get.body)));
    assert.equal(head.headers['content-type'], 'application/json');
    assertRouteHeaders(head);
    // Kept by the response cache while the openings do not change: the same entity.
    const again = await request(server.base, '/api/space/hours/?weeks=9', { headers: { 'if-none-match': get.headers.etag } });
    assert.equal(again.status, 304);
    assert.equal(again.body, '');
    assert.equal(again.headers.etag, get.headers.etag);
    assertRouteHeaders(again);
  });

  it('is built afresh after a write to the openings (the cached body is dropped with them)', async () => {
    const first = await request(server.base, '/api/space/hours/?weeks=4');
    assert.deepEqual(first.json().open_share, shares({}, 1));
    // Closed since 100 weeks ago (backfilled): closed throughout the last 4 weeks.
    const time = formatIsoUtc(Math.floor(Date.now() / 1000) * 1_000_000 - 100 * WEEK_US);
    const posted = await request(server.base, '/api/space/openings/', {
      method: 'POST',
      headers: { authorization: `Token ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ time, is_open: false }),
    });
    assert.equal(posted.status, 201, posted.body);
    const second = await request(server.base, '/api/space/hours/?weeks=4', { headers: { 'if-none-match': first.headers.etag! } });
    assertJson(second, 200);
    assert.deepEqual(second.json().open_share, shares({}));
    assert.notEqual(second.headers.etag, first.headers.etag);
  });

  it('describes itself on OPTIONS, with no actions even for an admin', async () => {
    const body = {
      name: 'Space Hours',
      description: 'The share of time the space was open, per weekday and local hour, over the last weeks (weeks=1 to 104, default 12).',
      renders: ['application/json'],
      parses: ['application/json', 'application/x-www-form-urlencoded'],
    };
    for (const headers of [{}, { authorization: `Token ${admin}` }] as Record<string, string>[]) {
      const res = await request(server.base, '/api/space/hours/', { method: 'OPTIONS', headers });
      assertJson(res, 200, body);
      assertRouteHeaders(res);
    }
  });

  it('redirects the path without its slash, keeping the query', async () => {
    const res = await request(server.base, '/api/space/hours?weeks=3');
    assert.equal(res.status, 301);
    assert.equal(res.headers.location, '/api/space/hours/?weeks=3');
    assertJson(await request(server.base, '/api/space/hours/extra/'), 404, { detail: 'Not found.' });
  });

  it('refuses writes: 401 without credentials, 403 for the door, 405 for an admin', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      assertJson(await request(server.base, '/api/space/hours/', { method }), 401, { detail: 'Authentication credentials were not provided.' });
      assertJson(await request(server.base, '/api/space/hours/', { method, headers: { authorization: `Token ${door}` } }), 403, {
        detail: 'You do not have permission to perform this action.',
      });
      const byAdmin = await request(server.base, '/api/space/hours/', { method, headers: { authorization: `Token ${admin}` } });
      assertJson(byAdmin, 405, { detail: `Method "${method}" not allowed.` });
      assertRouteHeaders(byAdmin);
    }
  });

  it('is not listed in the API root', async () => {
    const res = await request(server.base, '/api/');
    assert.deepEqual(Object.keys(res.json()), ['events', 'meetings', 'users', 'projects', 'stock/categories', 'stock/products', 'streams/urtip', 'space/openings']);
  });
});
