import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { clearAllData } from '../src/demo/clear.js';
import { demoRecordCount, demoRecords, demoSizesProblem, SMALL_DEMO, type DemoRecord, type DemoSizes } from '../src/demo/generate.js';
import { loadDemo } from '../src/demo/load.js';
import { usernameKey } from '../src/demo/names.js';
import { importRecords } from '../src/interchange/import.js';
import { countRecords } from '../src/resources/counts.js';
import { parseIsoMicros } from '../src/time.js';
import { freshDatabase } from './support/server.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '..');

const small = [...demoRecords(SMALL_DEMO)];

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
    assert.deepEqual([...demoRecords(SMALL_DEMO, 42)], [...demoRecords(SMALL_DEMO, 42)]);
    assert.deepEqual([...demoRecords(SMALL_DEMO)], small);
    assert.notDeepEqual([...demoRecords(SMALL_DEMO, 43)], [...demoRecords(SMALL_DEMO, 42)]);
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
    const a = [...demoRecords({ ...SMALL_DEMO, openings: 10 }, 3)].filter((r) => r.model !== 'space.spacestatus');
    const b = [...demoRecords({ ...SMALL_DEMO, openings: 500 }, 3)].filter((r) => r.model !== 'space.spacestatus');
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
    assert.ok(users.some((u) => /[^\x00-\x7f]/.test(u.email)));
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

describe('loading the demo', () => {
  it('imports cleanly through the real importer', async () => {
    const fresh = await freshDatabase();
    try {
      const db = fresh.handle.db;
      const report = await db.transaction().execute((trx) => importRecords(trx, demoRecords(SMALL_DEMO)));
      assert.deepEqual(report.imported, {
        'users.user': SMALL_DEMO.users,
        'space.spacestatus': SMALL_DEMO.openings,
        'projects.project': SMALL_DEMO.projects,
        'events.event': SMALL_DEMO.events,
        'events.meeting': SMALL_DEMO.meetings,
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
      const env = { ...process.env, DATABASE_URL: fresh.url, LOG_LEVEL: 'silent' };
      const cli = (...args: string[]) =>
        run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'demo', ...args], { cwd: ROOT, env }).then(
          ({ stderr }) => ({ code: 0, stderr }),
          (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
        );
      const first = await cli('--users', '5', '--openings', '20', '--projects', '2', '--events', '3', '--meetings', '3');
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stderr, /loaded 5 users, 20 openings/);
      const second = await cli();
      assert.equal(second.code, 1);
      assert.match(second.stderr, /--replace/);
      const third = await cli('--replace', '--seed', '9');
      assert.equal(third.code, 0, third.stderr);
      assert.equal(await countRecords(fresh.handle.db, 'users'), SMALL_DEMO.users);
    } finally {
      await fresh.cleanup();
    }
  });
});
