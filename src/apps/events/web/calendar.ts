/**
 * The events as an iCalendar feed (RFC 5545), for `GET /events.ics` (web.md §5). Pure: the same
 * events and options give the same bytes, so the feed can carry an entity tag. Nothing in the
 * output comes from the clock: `nowUs` only decides which events are old enough to leave out.
 *
 * Choices the RFC leaves to us:
 * - `UID` is `event-<id>@<host of baseUrl>`: stable per event for as long as the site keeps its
 *   host name.
 * - `DTEND` when an event has no stop (or a stop not after its start, or out of range): one hour
 *   after the start.
 *   Omitting `DTEND` would make the event end when it starts (RFC 5545 §3.6.1: a DATE-TIME
 *   DTSTART without DTEND or DURATION ends at that same instant), and DTEND equal to DTSTART is
 *   not allowed (§3.8.2.2: DTEND must be later); web.md asks for a DTEND on every event, and an
 *   hour shows as a visible block in calendar apps.
 * - `DTSTAMP` (§3.8.7.2: without METHOD, when the event was last revised in the store) is the
 *   event's start: the database keeps no revision times, and the wall clock would change the
 *   bytes, and so the entity tag, on every request.
 * - `DESCRIPTION` is the Markdown source as it was written (it reads well as text); the event's
 *   page URL when there is none.
 * - `STATUS` is `CONFIRMED` for a ready event and `TENTATIVE` for an incubating one.
 * - Times are in UTC, to the second (microseconds dropped). An event whose times cannot be
 *   written with a four-digit year is left out rather than written wrongly.
 */
import type { CalendarEvent } from '../calendar-events.js';

export type { CalendarEvent } from '../calendar-events.js';

/** How far back the feed goes: events that started or stopped in the last 180 days, and any later. */
export const CALENDAR_PAST_DAYS = 180;
const DAY_US = 86_400_000_000;
const DEFAULT_DURATION_SECONDS = 3600;
const MAX_OCTETS = 75;
const PRODID = '-//hackerspace-api//Events feed//EN';
/** Not in a URI value: control characters and white space. */
// eslint-disable-next-line no-control-regex
const BASE_UNSAFE = /[\u0000-\u0020\u007f]/g;
/** Not in a TEXT value (TSAFE-CHAR): control characters other than the tab (line breaks are turned into `\n` first). */
// eslint-disable-next-line no-control-regex
const TEXT_UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f]/g;

export interface CalendarOptions {
  /** The site's base URL, without a trailing slash (one is removed if present): `https://space.example`. */
  baseUrl: string;
  /** The calendar's name, shown by calendar apps (X-WR-CALNAME). */
  name: string;
  /** The time of the request, in microseconds since the epoch: the 180-day window ends here. */
  nowUs: number;
}

/** The oldest instant an event may start or stop at and still be in the feed built at `nowUs` (for the query). */
export function calendarSinceUs(nowUs: number): number {
  return nowUs - CALENDAR_PAST_DAYS * DAY_US;
}

/** The feed: `BEGIN:VCALENDAR` to `END:VCALENDAR`, CRLF line ends, folded lines. */
export function calendarFeed(events: readonly CalendarEvent[], options: CalendarOptions): string {
  const base = cleanBase(options.baseUrl);
  const host = hostOf(base);
  const since = Number.isFinite(options.nowUs) ? calendarSinceUs(options.nowUs) : Number.NEGATIVE_INFINITY;
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', `PRODID:${PRODID}`, 'CALSCALE:GREGORIAN', `X-WR-CALNAME:${escapeText(options.name)}`];
  const kept: { event: CalendarEvent; startUs: number; start: number; end: number }[] = [];
  for (const event of events) {
    const startUs = event.start_us;
    const start = seconds(startUs);
    const stop = seconds(event.stop_us);
    if (startUs === null || start === null || !Number.isSafeInteger(event.id)) continue;
    if (!(startUs >= since || (event.stop_us ?? Number.NaN) >= since)) continue;
    const end = stop !== null && stop > start && utc(stop) !== null ? stop : start + DEFAULT_DURATION_SECONDS;
    if (utc(start) === null || utc(end) === null) continue;
    kept.push({ event, startUs, start, end });
  }
  // The query's order (start, then id), whatever order the events came in: the same events give the same bytes.
  kept.sort((a, b) => a.startUs - b.startUs || a.event.id - b.event.id);
  for (const { event, start, end } of kept) {
    const url = `${base}/events/${event.id}/`;
    const description = normaliseText(event.description ?? '').trim();
    lines.push(
      'BEGIN:VEVENT',
      `UID:${escapeText(`event-${event.id}@${host}`)}`,
      `DTSTAMP:${utc(start)}`,
      `DTSTART:${utc(start)}`,
      `DTEND:${utc(end)}`,
      `SUMMARY:${escapeText(event.title ?? '')}`,
      `LOCATION:${escapeText(event.place ?? '')}`,
      `DESCRIPTION:${escapeText(description === '' ? url : description)}`,
      `URL:${url}`,
    );
    if (event.status === 'r') lines.push('STATUS:CONFIRMED');
    else if (event.status === 'i') lines.push('STATUS:TENTATIVE');
    lines.push('END:VEVENT');
  }
  lines.push('END:VCALENDAR');
  return lines.map(foldLine).join('');
}

/** Whole seconds since the epoch, or null for no time or a value that is not one. */
function seconds(micros: number | null | undefined): number | null {
  if (typeof micros !== 'number' || !Number.isFinite(micros)) return null;
  return Math.floor(micros / 1_000_000);
}

/** `YYYYMMDDTHHMMSSZ` (RFC 5545 §3.3.5, form 2), or null outside years 0000 to 9999. */
function utc(epochSeconds: number): string | null {
  const date = new Date(epochSeconds * 1000);
  const year = date.getUTCFullYear();
  if (Number.isNaN(year) || year < 0 || year > 9999) return null;
  return (
    pad(year, 4) + pad(date.getUTCMonth() + 1, 2) + pad(date.getUTCDate(), 2) + 'T' + pad(date.getUTCHours(), 2) + pad(date.getUTCMinutes(), 2) + pad(date.getUTCSeconds(), 2) + 'Z'
  );
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/** The base URL without control characters, white space or trailing slashes (a URI value is not escaped, so nothing may break its line). */
function cleanBase(baseUrl: string): string {
  return String(baseUrl ?? '')
    .replace(BASE_UNSAFE, '')
    .replace(/\/+$/, '');
}

function hostOf(base: string): string {
  try {
    return new URL(base).hostname || 'localhost';
  } catch {
    return 'localhost';
  }
}

/** Well-formed Unicode, `\n` for every line break, no control characters but the tab (TSAFE-CHAR, RFC 5545 §3.3.11). */
function normaliseText(value: string): string {
  return String(value ?? '')
    .toWellFormed()
    .replace(/\r\n?/g, '\n')
    .replace(TEXT_UNSAFE, '');
}

/** A TEXT value (RFC 5545 §3.3.11): backslash, semicolon and comma escaped, line breaks as `\n`. */
export function escapeText(value: string): string {
  return normaliseText(value).replace(/[\\;,\n]/g, (c) => (c === '\n' ? '\\n' : '\\' + c));
}

/**
 * One content line, CRLF-terminated and folded (RFC 5545 §3.1): no physical line longer than 75
 * octets of UTF-8, the continuation lines starting with a space, never inside a character.
 */
export function foldLine(line: string): string {
  const text = line.toWellFormed();
  let out = '';
  let octets = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char, 'utf8');
    if (octets + size > MAX_OCTETS) {
      out += '\r\n ';
      octets = 1;
    }
    out += char;
    octets += size;
  }
  return out + '\r\n';
}
