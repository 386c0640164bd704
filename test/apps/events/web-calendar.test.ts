/**
 * The calendar feed (web.md §5, RFC 5545): a small feed written out by hand, text escaping
 * (§3.3.11), line folding at 75 octets of UTF-8 (§3.1), the events left out, bad values, and the
 * query behind it on a real database of the engine under test, with its 180-day cutoff.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventsForCalendar, type CalendarEvent } from '../../../src/apps/events/calendar-events.js';
import { calendarFeed, calendarSinceUs, escapeText, foldLine } from '../../../src/apps/events/web/calendar.js';
import { freshDatabase, type FreshDatabase } from '../../support/server.js';

/** An instant given in UTC, as microseconds since the epoch. */
function utcUs(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
  return Date.UTC(year, month - 1, day, hour, minute, second) * 1000;
}

const NOW = utcUs(2026, 11, 25, 12);
/** 180 days before NOW (2026-11-25T12:00Z), counted on a calendar: 2026-05-29T12:00Z. */
const SINCE = utcUs(2026, 5, 29, 12);
const HOUR_US = 3_600_000_000;
const DAY_US = 24 * HOUR_US;

function event(fields: Partial<CalendarEvent> & { id: number }): CalendarEvent {
  return { title: 'Event', place: '', start_us: null, stop_us: null, description: '', status: 'r', ...fields };
}

const OPTIONS = { baseUrl: 'https://space.example/', name: 'UrLab, events', nowUs: NOW };

/** The physical lines of a feed: it must end with CRLF, and every line break must be CRLF. */
function physicalLines(feed: string): string[] {
  assert.ok(feed.endsWith('\r\n'), 'the feed ends with CRLF');
  const lines = feed.slice(0, -2).split('\r\n');
  for (const line of lines) assert.doesNotMatch(line, /[\r\n]/, `a bare CR or LF in ${JSON.stringify(line)}`);
  return lines;
}

/** RFC 5545 §3.1: unfolding removes every CRLF followed by one space or tab. */
function unfold(feed: string): string[] {
  return feed
    .replace(/\r\n[ \t]/g, '')
    .slice(0, -2)
    .split('\r\n');
}

describe('calendarFeed', () => {
  it('writes a small feed exactly as RFC 5545 reads it', () => {
    const events = [
      event({ id: 3, title: 'No date yet', start_us: null }),
      event({ id: 2, title: 'Hack night', start_us: utcUs(2026, 12, 1, 19) + 500_000, stop_us: null, status: 'i' }),
      event({
        id: 1,
        title: 'Open day',
        place: 'UrLab, Brussels',
        start_us: utcUs(2026, 11, 28, 14),
        stop_us: utcUs(2026, 11, 28, 18, 30),
        description: 'Come see the lab;\r\nbring friends, and snacks.\r\n',
        status: 'r',
      }),
      event({ id: 4, title: 'Long ago', start_us: utcUs(2026, 1, 10, 19), stop_us: utcUs(2026, 1, 10, 22) }),
    ];
    const expected = [
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'PRODID:-//hackerspace-api//Events feed//EN',
      'CALSCALE:GREGORIAN',
      'X-WR-CALNAME:UrLab\\, events',
      'BEGIN:VEVENT',
      'UID:event-1@space.example',
      'DTSTAMP:20261128T140000Z',
      'DTSTART:20261128T140000Z',
      'DTEND:20261128T183000Z',
      'SUMMARY:Open day',
      'LOCATION:UrLab\\, Brussels',
      'DESCRIPTION:Come see the lab\\;\\nbring friends\\, and snacks.',
      'URL:https://space.example/events/1/',
      'STATUS:CONFIRMED',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:event-2@space.example',
      'DTSTAMP:20261201T190000Z',
      'DTSTART:20261201T190000Z',
      'DTEND:20261201T200000Z',
      'SUMMARY:Hack night',
      'LOCATION:',
      'DESCRIPTION:https://space.example/events/2/',
      'URL:https://space.example/events/2/',
      'STATUS:TENTATIVE',
      'END:VEVENT',
      'END:VCALENDAR',
    ];
    assert.equal(calendarFeed(events, OPTIONS), expected.map((line) => line + '\r\n').join(''));
  });

  it('writes an empty calendar when no event qualifies', () => {
    const expected = 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//hackerspace-api//Events feed//EN\r\nCALSCALE:GREGORIAN\r\nX-WR-CALNAME:Hackerspace\r\nEND:VCALENDAR\r\n';
    assert.equal(calendarFeed([event({ id: 1, start_us: null })], { baseUrl: 'https://space.example', name: 'Hackerspace', nowUs: NOW }), expected);
  });

  it('gives the same bytes for the same events, whatever their order and the time of the request', () => {
    const events = [event({ id: 5, start_us: utcUs(2026, 12, 24, 20) }), event({ id: 2, start_us: utcUs(2026, 12, 1, 19) }), event({ id: 9, start_us: utcUs(2026, 12, 1, 19) })];
    const first = calendarFeed(events, OPTIONS);
    assert.equal(calendarFeed([...events].reverse(), OPTIONS), first);
    assert.equal(calendarFeed(events, { ...OPTIONS, nowUs: NOW + 90 * 60_000_000 }), first);
    assert.deepEqual(
      unfold(first).filter((l) => l.startsWith('UID:')),
      ['UID:event-2@space.example', 'UID:event-9@space.example', 'UID:event-5@space.example'],
      'by start, then id',
    );
  });

  it('leaves out events without a start and events over 180 days before now', () => {
    const events = [
      event({ id: 1, start_us: null, stop_us: utcUs(2026, 12, 1) }),
      event({ id: 2, start_us: SINCE - DAY_US, stop_us: SINCE - 1 }),
      event({ id: 3, start_us: SINCE - DAY_US, stop_us: SINCE }),
      event({ id: 4, start_us: SINCE - 1, stop_us: null }),
      event({ id: 5, start_us: SINCE, stop_us: null }),
    ];
    assert.deepEqual(
      unfold(calendarFeed(events, OPTIONS)).filter((l) => l.startsWith('UID:')),
      ['UID:event-3@space.example', 'UID:event-5@space.example'],
    );
    assert.equal(calendarSinceUs(NOW), SINCE);
  });

  it('ends an event without a usable stop one hour after its start (DTEND must be later than DTSTART)', () => {
    const start = utcUs(2026, 12, 31, 23, 30);
    const cases: [stop: number | null, dtend: string][] = [
      [null, 'DTEND:20270101T003000Z'],
      [start, 'DTEND:20270101T003000Z'],
      [start + 999_999, 'DTEND:20270101T003000Z'],
      [start - HOUR_US, 'DTEND:20270101T003000Z'],
      [1e20, 'DTEND:20270101T003000Z'],
      [Number.NaN, 'DTEND:20270101T003000Z'],
      [start + 1_000_000, 'DTEND:20261231T233001Z'],
      [start + 2 * DAY_US, 'DTEND:20270102T233000Z'],
    ];
    for (const [stop, dtend] of cases) {
      const lines = unfold(calendarFeed([event({ id: 1, start_us: start, stop_us: stop })], OPTIONS));
      assert.equal(
        lines.find((l) => l.startsWith('DTSTART:')),
        'DTSTART:20261231T233000Z',
      );
      assert.equal(
        lines.find((l) => l.startsWith('DTEND:')),
        dtend,
        `stop ${stop}`,
      );
    }
  });

  it('escapes TEXT values (RFC 5545 §3.3.11) in SUMMARY, LOCATION, DESCRIPTION and the name', () => {
    const events = [event({ id: 1, start_us: utcUs(2026, 12, 1, 19), title: 'a\\b;c,d\r\ne\rf\ng: "q"', place: 'Room 1;\tfloor 2', description: 'x\u0007y\u0000z' })];
    const lines = unfold(calendarFeed(events, { ...OPTIONS, name: 'A;B\\C' }));
    assert.ok(lines.includes('X-WR-CALNAME:A\\;B\\\\C'));
    assert.ok(lines.includes('SUMMARY:a\\\\b\\;c\\,d\\ne\\nf\\ng: "q"'));
    assert.ok(lines.includes('LOCATION:Room 1\\;\tfloor 2'));
    assert.ok(lines.includes('DESCRIPTION:xyz'));
  });

  it('escapeText: one rule per character', () => {
    const cases: [string, string][] = [
      ['plain', 'plain'],
      ['\\', '\\\\'],
      [';', '\\;'],
      [',', '\\,'],
      ['\n', '\\n'],
      ['\r\n', '\\n'],
      ['a:b', 'a:b'],
      ['"', '"'],
      ['\t', '\t'],
      ['\u0001\u001f\u007f', ''],
      ['é😀', 'é😀'],
      ['\ud800', '\ufffd'],
    ];
    for (const [input, output] of cases) assert.equal(escapeText(input), output, JSON.stringify(input));
  });

  it('folds a long line at 75 octets: ASCII', () => {
    // "SUMMARY:" is 8 octets, so the first line holds 67 more; the next starts with a space and holds 74.
    const folded = foldLine('SUMMARY:' + 'a'.repeat(100));
    assert.equal(folded, 'SUMMARY:' + 'a'.repeat(67) + '\r\n ' + 'a'.repeat(33) + '\r\n');
  });

  it('folds before a multi-byte character that would cross the limit, not inside it', () => {
    // 8 + 66 = 74 octets; "é" is 2 octets (C3 A9), 76 > 75, so it starts the next line.
    assert.equal(foldLine('SUMMARY:' + 'a'.repeat(66) + 'éz'), 'SUMMARY:' + 'a'.repeat(66) + '\r\n éz\r\n');
    // 8 + 63 = 71 octets; "😀" is 4 octets: 75, it fits exactly.
    assert.equal(foldLine('SUMMARY:' + 'a'.repeat(63) + '😀b'), 'SUMMARY:' + 'a'.repeat(63) + '😀\r\n b\r\n');
    // A line of exactly 75 octets is not folded.
    assert.equal(foldLine('X:' + 'b'.repeat(73)), 'X:' + 'b'.repeat(73) + '\r\n');
  });

  it('folds long multi-byte text into lines of at most 75 octets that unfold to the value', () => {
    const title = 'Réunion générale — 会議 😀 «hackerspace», '.repeat(12);
    const description = 'Ordre du jour:\r\n' + '- 🛠️ atelier soudure; café ☕\r\n'.repeat(20);
    const feed = calendarFeed([event({ id: 7, start_us: utcUs(2026, 12, 1, 19), title, description, place: 'Salle 🚪'.repeat(30) })], OPTIONS);
    const lines = physicalLines(feed);
    for (const line of lines) {
      assert.ok(Buffer.byteLength(line, 'utf8') <= 75, `${Buffer.byteLength(line, 'utf8')} octets: ${line}`);
      assert.equal(line, line.toWellFormed(), 'no character split');
      // Encoding and decoding each physical line alone gives it back: no multi-byte sequence is cut.
      assert.equal(Buffer.from(line, 'utf8').toString('utf8'), line);
    }
    assert.ok(lines.filter((l) => l.startsWith(' ')).length > 10, 'it did fold');
    const logical = unfold(feed);
    assert.ok(logical.includes('SUMMARY:' + title.replace(/,/g, '\\,')));
    assert.ok(logical.includes('DESCRIPTION:' + ('Ordre du jour:\n' + '- 🛠️ atelier soudure; café ☕\n'.repeat(20)).trim().replace(/;/g, '\\;').replace(/\n/g, '\\n')));
    assert.ok(logical.includes('LOCATION:' + 'Salle 🚪'.repeat(30)));
  });

  it('never throws on bad values, and keeps bad ones out of the feed', () => {
    const events = [
      event({ id: 1, start_us: Number.NaN }),
      event({ id: 2, start_us: 1e20 }),
      event({ id: 3, start_us: -1e17 }),
      event({ id: 4, start_us: Number.POSITIVE_INFINITY }),
      event({ id: 5.5, start_us: utcUs(2026, 12, 1) }),
      event({ id: 6, start_us: utcUs(9999, 12, 31, 23, 30) }),
      event({ id: 7, start_us: utcUs(2026, 12, 1), title: undefined, place: null as unknown as string, description: null as unknown as string }),
      event({ id: 8, start_us: utcUs(2026, 12, 2), title: '\ud83d', status: 'x' }),
    ];
    const feed = calendarFeed(events, { baseUrl: 'https://sp ace.example/\r\nX-EVIL:1/', name: '\r\nX-EVIL:2', nowUs: Number.NaN });
    const lines = unfold(feed);
    assert.deepEqual(
      lines.filter((l) => l.startsWith('UID:')),
      ['UID:event-7@space.example', 'UID:event-8@space.example'],
    );
    assert.ok(!lines.some((l) => l.startsWith('X-EVIL')), 'no injected line');
    assert.ok(lines.includes('X-WR-CALNAME:\\nX-EVIL:2'));
    assert.ok(lines.includes('URL:https://space.example/X-EVIL:1/events/7/'));
    assert.ok(lines.includes('SUMMARY:\ufffd'));
    assert.doesNotMatch(feed, /STATUS:(?!CONFIRMED)/, 'an unknown status gets no STATUS');
    assert.doesNotThrow(() => calendarFeed([event({ id: 1, start_us: utcUs(2026, 12, 1) })], { baseUrl: 'not a url', name: '', nowUs: NOW }));
    assert.ok(unfold(calendarFeed([event({ id: 1, start_us: utcUs(2026, 12, 1) })], { baseUrl: 'not a url', name: '', nowUs: NOW })).includes('UID:event-1@localhost'));
  });
});

describe('eventsForCalendar (real database)', () => {
  let fresh: FreshDatabase;
  before(async () => {
    fresh = await freshDatabase();
    const row = (id: number, title: string, start_us: number | null, stop_us: number | null) => ({
      id,
      title,
      place: `Place ${id}`,
      start_us,
      stop_us,
      status: id % 2 === 0 ? 'i' : 'r',
      organizer_id: null,
      description: `About ${id}`,
      picture: null,
    });
    await fresh.handle.db
      .insertInto('events')
      .values([
        row(1, 'stops after the cutoff', SINCE - 10 * DAY_US, SINCE + HOUR_US),
        row(2, 'stopped just before the cutoff', SINCE - 10 * DAY_US, SINCE - 1),
        row(3, 'started a day before, no stop', SINCE - DAY_US, null),
        row(4, 'starts at the cutoff', SINCE, null),
        row(5, 'no start', null, SINCE + DAY_US),
        row(6, 'later, lower id', SINCE + 5 * DAY_US, null),
        row(7, 'later, higher id', SINCE + 5 * DAY_US, SINCE + 5 * DAY_US + HOUR_US),
        row(8, 'stop before its start', SINCE + DAY_US, SINCE - 5 * DAY_US),
        row(9, 'stops exactly at the cutoff', SINCE - DAY_US, SINCE),
      ])
      .execute();
  });
  after(async () => {
    await fresh?.cleanup();
  });

  it('returns events with a start that start or stop at the cutoff or later, by start then id', async () => {
    const events = await eventsForCalendar(fresh.handle.db, SINCE);
    assert.deepEqual(events, [
      { id: 1, title: 'stops after the cutoff', place: 'Place 1', start_us: SINCE - 10 * DAY_US, stop_us: SINCE + HOUR_US, description: 'About 1', status: 'r' },
      { id: 9, title: 'stops exactly at the cutoff', place: 'Place 9', start_us: SINCE - DAY_US, stop_us: SINCE, description: 'About 9', status: 'r' },
      { id: 4, title: 'starts at the cutoff', place: 'Place 4', start_us: SINCE, stop_us: null, description: 'About 4', status: 'i' },
      { id: 8, title: 'stop before its start', place: 'Place 8', start_us: SINCE + DAY_US, stop_us: SINCE - 5 * DAY_US, description: 'About 8', status: 'i' },
      { id: 6, title: 'later, lower id', place: 'Place 6', start_us: SINCE + 5 * DAY_US, stop_us: null, description: 'About 6', status: 'i' },
      { id: 7, title: 'later, higher id', place: 'Place 7', start_us: SINCE + 5 * DAY_US, stop_us: SINCE + 5 * DAY_US + HOUR_US, description: 'About 7', status: 'r' },
    ]);
  });

  it('gives an empty list when everything is older than the cutoff', async () => {
    assert.deepEqual(await eventsForCalendar(fresh.handle.db, SINCE + 365 * DAY_US), []);
  });

  it('feeds the calendar: the query and the feed agree on the 180 days', async () => {
    const events = await eventsForCalendar(fresh.handle.db, calendarSinceUs(NOW));
    const feed = calendarFeed(events, OPTIONS);
    assert.equal(calendarFeed(events, OPTIONS), feed);
    assert.deepEqual(
      unfold(feed).filter((l) => l.startsWith('UID:')),
      [1, 9, 4, 8, 6, 7].map((id) => `UID:event-${id}@space.example`),
    );
    // Event 8's stop is before its start: it lasts an hour from its start (2026-05-30T12:00Z).
    const lines = unfold(feed);
    const at = lines.indexOf('UID:event-8@space.example');
    assert.deepEqual(lines.slice(at + 2, at + 4), ['DTSTART:20260530T120000Z', 'DTEND:20260530T130000Z']);
  });
});
