import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { Db } from '../src/db/connection.js';
import { clearAllData } from '../src/demo/clear.js';
import { demoRecordCount, demoSizesProblem, SMALL_DEMO, type DemoRecord, type DemoSizes } from '../src/demo/generate.js';
import { demoRecords, importRecords, loadDemo } from '../src/installed-apps.js';
import { usernameKey } from '../src/demo/names.js';
import { countRecords } from '../src/resources/counts.js';
import { parseIsoMicros } from '../src/time.js';
import { request } from './support/http.js';
import { freshDatabase, startServer } from './support/server.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '..');

const HOUR_US = 3_600_000_000;
const DAY_US = 24 * HOUR_US;
const WEEK_US = 7 * DAY_US;
/** A fixed end of history, so that the records below do not depend on when the suite runs: a Thursday evening. */
const NOW = Date.UTC(2026, 10, 26, 19, 15) * 1000;

/** "The space changed state recently": the last door report is at most this long before now. */
const RECENT_CHANGE_US = 4 * HOUR_US;

const small = [...demoRecords(SMALL_DEMO, 1, NOW)];

function fieldsOf(records: DemoRecord[], model: string): Array<Record<string, any>> {
  return records.filter((r) => r.model === model).map((r) => r.fields);
}

const users = fieldsOf(small, 'users.user');
const openings = fieldsOf(small, 'space.spacestatus');
const projects = fieldsOf(small, 'projects.project');
const events = fieldsOf(small, 'events.event');
const meetings = fieldsOf(small, 'events.meeting');
const usernames = users.map((u) => u.username as string);

describe('demoRecords: determinism and sizes', () => {
  it('gives identical records for the same sizes and seed, and different ones for another seed', () => {
    assert.deepEqual([...demoRecords(SMALL_DEMO, 42, NOW)], [...demoRecords(SMALL_DEMO, 42, NOW)]);
    assert.deepEqual([...demoRecords(SMALL_DEMO, 1, NOW)], small);
    assert.notDeepEqual([...demoRecords(SMALL_DEMO, 43, NOW)], [...demoRecords(SMALL_DEMO, 42, NOW)]);
  });

  it('honours the requested sizes, with pks 1..n per model, referenced models first', () => {
    const sizes: DemoSizes = { users: 7, openings: 123, projects: 5, events: 9, meetings: 9 };
    const records = [...demoRecords(sizes, 5)];
    assert.equal(records.length, demoRecordCount(sizes));
    const order = ['users.user', 'space.spacestatus', 'projects.project', 'events.event', 'events.meeting'];
    assert.deepEqual([...new Set(records.map((r) => r.model))], order);
    const counts = { users: 'users.user', openings: 'space.spacestatus', projects: 'projects.project', events: 'events.event', meetings: 'events.meeting' } as const;
    for (const [size, model] of Object.entries(counts)) {
      const pks = records.filter((r) => r.model === model).map((r) => r.pk);
      assert.deepEqual(
        pks,
        Array.from({ length: sizes[size as keyof DemoSizes] }, (_, i) => i + 1),
        model,
      );
    }
  });

  it('accepts zero of anything that nothing needs, and rejects impossible sizes', () => {
    assert.equal([...demoRecords({ users: 0, openings: 10, projects: 0, events: 0, meetings: 0 })].length, 10);
    assert.equal([...demoRecords({ users: 0, openings: 0, projects: 0, events: 0, meetings: 0 })].length, 0);
    assert.match(demoSizesProblem({ ...SMALL_DEMO, meetings: 31, events: 30 }) ?? '', /meetings/);
    assert.match(demoSizesProblem({ ...SMALL_DEMO, users: 0 }) ?? '', /user/);
    assert.throws(() => [...demoRecords({ ...SMALL_DEMO, meetings: 31 })], RangeError);
  });

  it('keeps the users of a seed when only the number of openings changes', () => {
    const a = [...demoRecords({ ...SMALL_DEMO, openings: 10 }, 3, NOW)].filter((r) => r.model !== 'space.spacestatus');
    const b = [...demoRecords({ ...SMALL_DEMO, openings: 500 }, 3, NOW)].filter((r) => r.model !== 'space.spacestatus');
    assert.deepEqual(a, b);
  });
});

describe('demoRecords: users', () => {
  it('has the usernames that break naive code', () => {
    assert.ok(usernames.includes(' leadingspace'));
    assert.ok(
      usernames.some((n) => n.codePointAt(0)! > 0xffff),
      'a name starting above U+FFFF',
    );
    assert.ok(
      usernames.some((n) => /^.+\p{Extended_Pictographic}.+$/u.test(n) && n.codePointAt(0)! <= 0xffff),
      'an emoji inside a name',
    );
    assert.ok(usernames.includes('jane.doe@example.org'));
    assert.ok(
      usernames.some((n) => /^\d/.test(n)),
      'a leading digit',
    );
    assert.ok(
      usernames.some((n) => /^\p{Lu}/u.test(n)),
      'an upper-case initial',
    );
    assert.ok(
      usernames.some((n) => /^\p{Ll}/u.test(n)),
      'a lower-case initial',
    );
    for (const script of ['Cyrillic', 'Greek', 'Han']) {
      assert.ok(
        usernames.some((n) => new RegExp(`\\p{Script=${script}}`, 'u').test(n)),
        script,
      );
    }
    assert.ok(usernames.some((n) => n.includes('é')) && usernames.some((n) => n.includes('ü')));
  });

  it('has unique usernames, exactly and case-insensitively, even for many users', () => {
    const many = fieldsOf([...demoRecords({ users: 5000, openings: 0, projects: 0, events: 0, meetings: 0 })], 'users.user').map((u) => u.username as string);
    for (const names of [usernames, many]) {
      assert.equal(new Set(names).size, names.length);
      assert.equal(new Set(names.map((n) => n.toLowerCase())).size, names.length);
      assert.equal(new Set(names.map((n) => n.toUpperCase())).size, names.length);
      assert.equal(new Set(names.map(usernameKey)).size, names.length);
    }
  });

  it('gives every user an e-mail address, in mixed case and sometimes non-ASCII, and some a key', () => {
    for (const u of users) assert.match(u.email, /^[^@\s]+@[^@\s]+$/u);
    assert.ok(users.some((u) => u.email !== u.email.toLowerCase()));
    assert.ok(users.some((u) => [...u.email].some((c) => c.charCodeAt(0) > 0x7f)));
    assert.ok(users.some((u) => u.has_key === true) && users.some((u) => u.has_key === false));
  });
});

describe('demoRecords: openings', () => {
  const times = openings.map((o) => parseIsoMicros(o.time)!);

  it('are strictly increasing UTC times that alternate open and closed, starting open', () => {
    for (const o of openings) assert.match(o.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z$/);
    for (let i = 1; i < times.length; i++) assert.ok(times[i] > times[i - 1], `opening ${i + 1} after ${i}`);
    openings.forEach((o, i) => assert.equal(o.is_open, i % 2 === 0));
  });

  it('span years up to 2026, crossing many DST changes, with times exactly on them', () => {
    assert.ok(openings[0].time < '2015', openings[0].time);
    assert.ok(openings.at(-1)!.time.startsWith('2026'), openings.at(-1)!.time);
    const set = new Set(openings.map((o) => o.time));
    for (const t of ['2021-03-28T00:59:59Z', '2021-03-28T01:00:00Z', '2021-10-31T00:59:59Z', '2021-10-31T01:00:00Z']) {
      assert.ok(set.has(t), t);
    }
    // Closing in October: 00:30Z and 01:30Z are the same wall-clock time in Brussels.
    assert.ok(set.has('2021-10-31T00:30:00Z') && set.has('2021-10-31T01:30:00Z'));
  });

  it('are mostly whole seconds, some with microseconds', () => {
    const fractional = openings.filter((o) => o.time.includes('.')).length;
    assert.ok(fractional > 0 && fractional < openings.length / 4, `${fractional} fractional`);
  });

  it('stay strictly increasing at scale', () => {
    let previous = -Infinity;
    let count = 0;
    for (const r of demoRecords({ users: 0, openings: 200_000, projects: 0, events: 0, meetings: 0 })) {
      const t = parseIsoMicros(r.fields.time as string)!;
      assert.ok(t > previous);
      previous = t;
      count++;
    }
    assert.equal(count, 200_000);
  });
});

describe('demoRecords: projects, events, meetings', () => {
  const userPks = new Set(small.filter((r) => r.model === 'users.user').map((r) => r.pk));
  const eventPks = new Set(small.filter((r) => r.model === 'events.event').map((r) => r.pk));

  it('projects: CRLF Markdown, empty content and participants, maintainers among participants', () => {
    assert.ok(
      projects.some((p) => p.content.length > 10_000 && p.content.includes('\r\n')),
      'long CRLF content',
    );
    for (const p of projects) assert.doesNotMatch(p.content, /(?<!\r)\n/, 'no bare LF');
    assert.ok(projects.some((p) => p.content === ''));
    assert.ok(projects.some((p) => p.participants.length === 0));
    assert.ok(projects.some((p) => p.participants.includes(p.maintainer)));
    for (const p of projects) {
      assert.ok('adfip'.includes(p.status) && p.status.length === 1);
      assert.ok(Number.isInteger(p.progress) && p.progress >= 0 && p.progress <= 100);
      assert.ok(userPks.has(p.maintainer));
      assert.equal(new Set(p.participants).size, p.participants.length);
      for (const id of p.participants) assert.ok(userPks.has(id));
      assert.ok(p.modified >= p.created);
    }
  });

  it('events: both statuses, null times, pictures empty and with spaces and accents', () => {
    assert.ok(events.some((e) => e.start === null));
    assert.ok(events.some((e) => e.start !== null && e.stop === null));
    assert.deepEqual(new Set(events.map((e) => e.status)), new Set(['r', 'i']));
    assert.ok(events.some((e) => e.picture === ''));
    assert.ok(events.some((e) => e.picture === 'event_pictures/affiche été 2019.png'));
    for (const e of events) {
      assert.ok(userPks.has(e.organizer));
      if (e.start !== null && e.stop !== null) assert.ok(parseIsoMicros(e.stop)! >= parseIsoMicros(e.start)!);
    }
  });

  it('meetings: one per event at most, agendas starting with a line break, empty minutes and members', () => {
    assert.ok(meetings.length <= events.length);
    assert.equal(new Set(meetings.map((m) => m.event)).size, meetings.length);
    for (const m of meetings) assert.ok(eventPks.has(m.event));
    assert.ok(meetings.some((m) => m.OJ.startsWith('\r\n')));
    assert.ok(meetings.some((m) => m.PV === ''));
    assert.ok(meetings.some((m) => m.members.length === 0));
    assert.ok(meetings.some((m) => /^https:\/\/pad\./.test(m.pad)));
    for (const m of meetings) for (const id of m.members) assert.ok(userPks.has(id));
  });
});

/** Open records' times and states, oldest first. */
function doorHistory(records: DemoRecord[]): Array<{ us: number; open: boolean }> {
  return fieldsOf(records, 'space.spacestatus').map((o) => ({ us: parseIsoMicros(o.time)!, open: o.is_open as boolean }));
}

/** Whether the space was open at each of `instants` (ascending): the state of the latest report at or before it, closed before any. */
function openAt(history: Array<{ us: number; open: boolean }>, instants: number[]): boolean[] {
  let next = 0;
  let open = false;
  return instants.map((t) => {
    while (next < history.length && history[next].us <= t) open = history[next++].open;
    return open;
  });
}

describe('demoRecords: a history that ends now', () => {
  it('gives byte-identical data for the same seed and now, and another history for another now', () => {
    const text = (seed: number, now: number) => JSON.stringify([...demoRecords(SMALL_DEMO, seed, now)]);
    assert.equal(text(7, NOW), text(7, NOW));
    assert.notEqual(text(7, NOW + DAY_US), text(7, NOW));
  });

  it('changed state within the last few hours, with nothing recorded after now', () => {
    // A Thursday evening, a Wednesday morning, a Monday night in summer time, and a moment early in the history.
    const nows = [NOW, Date.UTC(2027, 2, 3, 10, 0) * 1000, Date.UTC(2026, 2, 30, 4, 30) * 1000, Date.UTC(2015, 0, 1, 12, 0, 0, 123) * 1000];
    for (const now of nows) {
      for (const openings of [1, 2, 20, 3000, 3001]) {
        for (let seed = 1; seed <= 8; seed++) {
          const history = doorHistory([...demoRecords({ users: 0, openings, projects: 0, events: 0, meetings: 0 }, seed, now)]);
          const last = history.at(-1)!.us;
          const where = `now ${new Date(now / 1000).toISOString()}, ${openings} openings, seed ${seed}: last change ${new Date(last / 1000).toISOString()}`;
          assert.equal(history.length, openings, where);
          assert.ok(last < now && last >= now - RECENT_CHANGE_US, where);
        }
      }
    }
  });

  it('was open in each of the last 12 weeks, evenings and weekends far more than weekday working hours', () => {
    const step = 10 * 60_000_000;
    const instants = Array.from({ length: (12 * WEEK_US) / step }, (_, i) => NOW - 12 * WEEK_US + i * step);
    const open = openAt(doorHistory(small), instants);
    const share = (keep: (t: Date) => boolean) => {
      const chosen = instants.map((t, i) => [new Date(t / 1000), open[i]] as const).filter(([t]) => keep(t));
      return chosen.filter(([, o]) => o).length / chosen.length;
    };
    for (let week = 0; week < 12; week++) {
      const from = NOW - (12 - week) * WEEK_US;
      assert.ok(share((t) => t.getTime() * 1000 >= from && t.getTime() * 1000 < from + WEEK_US) > 0, `open some time in week ${week + 1} of 12`);
    }
    const weekend = (t: Date) => t.getUTCDay() === 0 || t.getUTCDay() === 6;
    const eveningsAndWeekends = share((t) => (weekend(t) && t.getUTCHours() >= 12 && t.getUTCHours() < 22) || (!weekend(t) && t.getUTCHours() >= 18));
    const workingHours = share((t) => !weekend(t) && t.getUTCHours() >= 8 && t.getUTCHours() < 17);
    assert.ok(eveningsAndWeekends > 0.3, `evenings and weekends: open ${eveningsAndWeekends}`);
    assert.ok(eveningsAndWeekends > 3 * workingHours, `evenings and weekends ${eveningsAndWeekends}, working hours ${workingHours}`);
    assert.ok(share(() => true) < 0.5, 'a space in use, not one left open');
  });

  it('has ready events in the coming weeks, one meeting to come and recent ones with minutes', () => {
    const startOf = (e: Record<string, any>) => (e.start === null ? null : parseIsoMicros(e.start)!);
    const coming = events.filter((e) => e.status === 'r' && startOf(e) !== null && startOf(e)! > NOW && startOf(e)! <= NOW + 6 * WEEK_US);
    assert.ok(coming.length >= 3, `${coming.length} ready events in the next six weeks`);
    const eventStart = new Map(small.filter((r) => r.model === 'events.event').map((r) => [r.pk, startOf(r.fields)]));
    const meetingStarts = meetings.map((m) => ({ start: eventStart.get(m.event)!, minutes: m.PV as string }));
    assert.equal(meetingStarts.filter((m) => m.start !== null && m.start > NOW).length, 1, 'one meeting to come');
    const recentWithMinutes = meetingStarts.filter((m) => m.start !== null && m.start <= NOW && m.start > NOW - 13 * WEEK_US && m.minutes !== '');
    assert.ok(recentWithMinutes.length >= 3, `${recentWithMinutes.length} meetings with minutes in the last three months`);
  });

  it('has projects created before now and modified since, some of them lately', () => {
    for (const p of projects) assert.ok(p.created <= p.modified && parseIsoMicros(p.modified)! < NOW, `${p.created} ${p.modified}`);
    assert.ok(projects.filter((p) => parseIsoMicros(p.modified)! > NOW - 13 * WEEK_US).length >= 3, 'some modified in the last three months');
  });

  it('makes a dashboard that looks alive when generated now', async () => {
    const server = await startServer({ records: [...demoRecords(SMALL_DEMO, 1, Date.now() * 1000)] });
    try {
      const res = await request(server.base, '/');
      assert.equal(res.status, 200);
      assert.match(res.body, /class="state-relative">(\d+ minutes?|\d+ hours?) ago</);
      assert.doesNotMatch(res.body, />No change for/);
      assert.match(res.body, /class="hours-summary">(Usually|Rarely) open /);
      const upcoming = /<h2 id="events-heading">Upcoming events<\/h2>\n<ul>(.*?)<\/ul>/s.exec(res.body);
      assert.ok(upcoming && (upcoming[1].match(/<li>/g) ?? []).length >= 3, 'three upcoming events or more');
    } finally {
      await server.close();
    }
  });
});

describe('loading the demo', () => {
  it('imports cleanly through the real importer', async () => {
    const fresh = await freshDatabase();
    try {
      const db = fresh.handle.db;
      const report = await db.transaction().execute((trx) => importRecords(trx, demoRecords(SMALL_DEMO, 1, NOW)));
      assert.deepEqual(report.imported, {
        'contenttypes.contenttype': 0,
        'auth.permission': 0,
        'auth.group': 0,
        'users.user': SMALL_DEMO.users,
        'space.spacestatus': SMALL_DEMO.openings,
        'projects.project': SMALL_DEMO.projects,
        'events.event': SMALL_DEMO.events,
        'events.meeting': SMALL_DEMO.meetings,
        // The demo has no slate (yet): the stock app's models, counted all the same.
        ...Object.fromEntries(
          [
            'stock.category',
            'stock.product',
            'stock.transfertransaction',
            'stock.topuptransaction',
            'stock.producttransaction',
            'stock.misctransaction',
            'stock.fundzone',
            'stock.paymenttransaction',
            'stock.refundtransaction',
          ].map((model) => [model, 0]),
        ),
      });
      assert.deepEqual([report.skippedModels, report.skippedFields], [{}, {}], 'only fields the importer reads');
      for (const table of ['users', 'openings', 'projects', 'events', 'meetings'] as const) {
        assert.equal(await countRecords(db, table), SMALL_DEMO[table], table);
      }
      const spaced = await db.selectFrom('users').select('id').where('username', '=', ' leadingspace').executeTakeFirst();
      assert.ok(spaced, 'the leading space survives');
      const boundary = await db.selectFrom('openings').select('is_open').where('time_us', '=', 1616893200_000000).executeTakeFirst(); // 2021-03-28T01:00:00Z (`date -u -d … +%s`)
      assert.ok(boundary, 'the DST-boundary opening is stored at its exact instant');
    } finally {
      await fresh.cleanup();
    }
  });

  it('refuses a non-empty database unless asked to replace it, and replaces in one go', async () => {
    const fresh = await freshDatabase();
    try {
      const db = fresh.handle.db;
      const sizes: DemoSizes = { users: 6, openings: 40, projects: 3, events: 4, meetings: 2 };
      assert.equal((await loadDemo(db, sizes, 1)).loaded, true);
      const refused = await loadDemo(db, SMALL_DEMO, 2);
      assert.equal(refused.loaded, false);
      assert.equal(await countRecords(db, 'users'), 6, 'nothing changed');
      const replaced = await loadDemo(db, SMALL_DEMO, 2, { replace: true });
      assert.equal(replaced.loaded, true);
      assert.equal(await countRecords(db, 'users'), SMALL_DEMO.users);
      assert.equal(await countRecords(db, 'openings'), SMALL_DEMO.openings);
      await clearAllData(db);
      for (const table of ['users', 'openings', 'projects', 'events', 'meetings'] as const) {
        assert.equal(await countRecords(db, table), 0, table);
      }
      assert.equal((await db.selectFrom('project_participants').select('user_id').execute()).length, 0);
    } finally {
      await fresh.cleanup();
    }
  });

  it('`demo` command: loads, refuses a second time with exit code 1, then --replace works', async () => {
    const fresh = await freshDatabase();
    try {
      const cli = demoCli(fresh.url);
      const first = await cli('--users', '5', '--openings', '20', '--projects', '2', '--events', '3', '--meetings', '3');
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stderr, /loaded 5 users, 20 openings/);
      const second = await cli();
      assert.equal(second.code, 1);
      assert.match(second.stderr, /--replace/);
      const before = Date.now() * 1000;
      const third = await cli('--replace', '--seed', '9');
      const after = Date.now() * 1000;
      assert.equal(third.code, 0, third.stderr);
      assert.equal(await countRecords(fresh.handle.db, 'users'), SMALL_DEMO.users);
      const last = await lastOpeningUs(fresh.handle.db);
      assert.ok(last >= before - RECENT_CHANGE_US && last < after, `without --now the history ends at the current time: last change ${new Date(last / 1000).toISOString()}`);
    } finally {
      await fresh.cleanup();
    }
  });

  it('`demo --now` ends the history at that moment, and refuses a moment that is not an instant', async () => {
    const fresh = await freshDatabase();
    try {
      const cli = demoCli(fresh.url);
      const loaded = await cli('--now', '2026-11-26T20:15:00+01:00');
      assert.equal(loaded.code, 0, loaded.stderr);
      assert.match(loaded.stderr, /now 2026-11-26T19:15:00Z/);
      const last = await lastOpeningUs(fresh.handle.db);
      assert.ok(last >= NOW - RECENT_CHANGE_US && last < NOW, new Date(last / 1000).toISOString());
      for (const bad of ['yesterday', '2026-11-26T19:15:00', '2026-02-30T10:00:00Z', '2010-01-01T00:00:00Z']) {
        const refused = await cli('--replace', '--now', bad);
        assert.equal(refused.code, 2, `${bad}: ${refused.stderr}`);
        assert.match(refused.stderr, /--now/);
      }
      assert.equal(await lastOpeningUs(fresh.handle.db), last, 'a refused --now changes nothing');
    } finally {
      await fresh.cleanup();
    }
  });
});

/** Runs `hackerspace-api demo` on a database, resolving to its exit code and standard error. */
function demoCli(databaseUrl: string) {
  const env = { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' };
  return (...args: string[]) =>
    run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'demo', ...args], { cwd: ROOT, env }).then(
      ({ stderr }) => ({ code: 0, stderr }),
      (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
    );
}

async function lastOpeningUs(db: Db): Promise<number> {
  const row = await db.selectFrom('openings').select('time_us').orderBy('time_us', 'desc').limit(1).executeTakeFirstOrThrow();
  return Number(row.time_us);
}
