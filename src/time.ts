/**
 * Instants are stored as integer microseconds since the Unix epoch (exact on every engine,
 * and Django keeps microseconds). This module turns them into the contract's wire format and
 * parses the ISO 8601 times found in fixtures.
 */

const OFFSET_BUCKET_SECONDS = 900;
const OFFSET_CACHE_LIMIT = 100_000;

/** Formats instants in one IANA zone, caching UTC offsets per 15-minute bucket. */
export class TimeFormatter {
  #parts: Intl.DateTimeFormat | undefined;
  private readonly offsets = new Map<number, number>();
  /**
   * UTC (the default zone) is always at offset 0 and needs no time-zone data: a process whose
   * zone is UTC never makes an Intl.DateTimeFormat for the API, the first of which costs 15–20 ms
   * (ICU loads its data).
   */
  private readonly utc: boolean;

  constructor(readonly timeZone: string) {
    this.utc = timeZone === 'UTC';
  }

  private get parts(): Intl.DateTimeFormat {
    return (this.#parts ??= new Intl.DateTimeFormat('en-US', {
      timeZone: this.timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      era: 'short',
    }));
  }

  /** `2021-03-28T03:00:00+02:00`, with `.ffffff` only when the microseconds are not zero. */
  format(micros: number): string {
    const seconds = Math.floor(micros / 1_000_000);
    const fraction = micros - seconds * 1_000_000;
    const offset = this.offsetSeconds(seconds);
    const wall = new Date((seconds + offset) * 1000);
    let text =
      pad(wall.getUTCFullYear(), 4) +
      '-' +
      pad(wall.getUTCMonth() + 1, 2) +
      '-' +
      pad(wall.getUTCDate(), 2) +
      'T' +
      pad(wall.getUTCHours(), 2) +
      ':' +
      pad(wall.getUTCMinutes(), 2) +
      ':' +
      pad(wall.getUTCSeconds(), 2);
    if (fraction !== 0) text += '.' + pad(fraction, 6);
    return text + formatOffset(offset);
  }

  /** The zone's offset from UTC, in seconds, at a given instant. */
  offsetSeconds(epochSeconds: number): number {
    if (this.utc) return 0;
    const bucket = Math.floor(epochSeconds / OFFSET_BUCKET_SECONDS);
    const cached = this.offsets.get(bucket);
    if (cached !== undefined) return cached;
    const start = bucket * OFFSET_BUCKET_SECONDS;
    const first = this.computeOffset(start);
    const last = this.computeOffset(start + OFFSET_BUCKET_SECONDS - 1);
    // A transition inside this bucket: the offset depends on the exact second, so don't cache it.
    if (first !== last) return this.computeOffset(epochSeconds);
    if (this.offsets.size >= OFFSET_CACHE_LIMIT) this.offsets.clear();
    this.offsets.set(bucket, first);
    return first;
  }

  private computeOffset(epochSeconds: number): number {
    const fields: Record<string, string> = {};
    for (const part of this.parts.formatToParts(new Date(epochSeconds * 1000))) fields[part.type] = part.value;
    let year = Number(fields.year);
    if (fields.era === 'BC' || fields.era === 'B') year = 1 - year;
    const wall = utcMillis(year, Number(fields.month), Number(fields.day), Number(fields.hour), Number(fields.minute), Number(fields.second));
    return Math.round(wall / 1000) - epochSeconds;
  }
}

/** Date.UTC without its quirk of reading years 0–99 as 1900–1999. */
function utcMillis(year: number, month: number, day: number, hour: number, minute: number, second: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  return date.getTime();
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

function formatOffset(offsetSeconds: number): string {
  const sign = offsetSeconds < 0 ? '-' : '+';
  const abs = Math.abs(offsetSeconds);
  const hours = Math.floor(abs / 3600);
  const minutes = Math.floor((abs % 3600) / 60);
  const seconds = abs % 60;
  // Historical local mean times have second offsets; Python prints them as +HH:MM:SS too.
  return sign + pad(hours, 2) + ':' + pad(minutes, 2) + (seconds ? ':' + pad(seconds, 2) : '');
}

const ISO_PATTERN = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*(Z|[+-]\d{2}(?::?\d{2}(?::?\d{2})?)?)$/i;

/**
 * Parses an ISO 8601 date-time that carries its UTC offset (`Z` or `±HH:MM`) to microseconds.
 * Returns null for anything else, including a time without an offset, which would be ambiguous.
 */
export function parseIsoMicros(text: string): number | null {
  const m = ISO_PATTERN.exec(text.trim());
  if (!m) return null;
  const [, y, mo, d, h, mi, s = '0', frac = '', zone] = m;
  const year = Number(y),
    month = Number(mo),
    day = Number(d);
  const hour = Number(h),
    minute = Number(mi),
    second = Number(s);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  const ms = utcMillis(year, month, day, hour, minute, second);
  const check = new Date(ms);
  if (check.getUTCDate() !== day || check.getUTCMonth() !== month - 1) return null;
  let offset = 0;
  if (zone.toUpperCase() !== 'Z') {
    const digits = zone.slice(1).replace(/:/g, '');
    offset = Number(digits.slice(0, 2)) * 3600 + Number(digits.slice(2, 4) || '0') * 60 + Number(digits.slice(4, 6) || '0');
    if (offset >= 24 * 3600) return null;
    if (zone[0] === '-') offset = -offset;
  }
  const micros = Number((frac + '000000').slice(0, 6));
  return (ms / 1000 - offset) * 1_000_000 + micros;
}

/** UTC ISO 8601 for fixtures: `2015-01-07T06:35:19.369318Z`, fraction only when present. */
export function formatIsoUtc(micros: number): string {
  const seconds = Math.floor(micros / 1_000_000);
  const fraction = micros - seconds * 1_000_000;
  const base = new Date(seconds * 1000).toISOString().slice(0, 19);
  return base + (fraction ? '.' + pad(fraction, 6) : '') + 'Z';
}

const LOCAL_PATTERN = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?$/i;
const formatters = new Map<string, TimeFormatter>();

/**
 * Parses an ISO 8601 date-time without an offset as a wall-clock time in `timeZone` (as Django
 * reads a naive time in the current zone, fold=0). Returns null for anything else.
 */
export function parseLocalMicros(text: string, timeZone: string): number | null {
  const reading = readLocalTime(text, timeZone);
  if (reading === null) return null;
  // Twice on the clock (autumn): the first occurrence, as Python's fold=0. Skipped by the clock
  // (spring): read with the offset before the change, as Python does.
  const offset = reading.offsets.length === 0 ? reading.before : Math.max(...reading.offsets);
  return reading.wallMicros - offset * 1_000_000;
}

/**
 * A wall-clock time typed in `timeZone` (a form's `datetime-local`), read strictly (members.md
 * §4): the instant it names, or why it names none: the clocks skip it (spring) or show it twice
 * (autumn). Null when the text is no local date-time.
 */
export function localInstant(text: string, timeZone: string): { micros: number } | { problem: 'skipped' | 'repeated' } | null {
  const reading = readLocalTime(text, timeZone);
  if (reading === null) return null;
  if (reading.offsets.length === 0) return { problem: 'skipped' };
  if (reading.offsets.length > 1) return { problem: 'repeated' };
  return { micros: reading.wallMicros - reading.offsets[0] * 1_000_000 };
}

/** The wall time as if in UTC, and the zone's offsets (seconds) under which it is shown on the clock: none, one or two. */
function readLocalTime(text: string, timeZone: string): { wallMicros: number; offsets: number[]; before: number } | null {
  const trimmed = text.trim();
  if (!LOCAL_PATTERN.test(trimmed)) return null;
  const wallMicros = parseIsoMicros(trimmed + 'Z');
  if (wallMicros === null) return null;
  let formatter = formatters.get(timeZone);
  if (!formatter) formatters.set(timeZone, (formatter = new TimeFormatter(timeZone)));
  const zone = formatter;
  const wallSeconds = Math.floor(wallMicros / 1_000_000);
  // The offsets in force a day before and after cover both sides of any transition near it.
  const before = zone.offsetSeconds(wallSeconds - 86_400);
  const after = zone.offsetSeconds(wallSeconds + 86_400);
  const offsets = [...new Set([before, after])].filter((o) => zone.offsetSeconds(wallSeconds - o) === o);
  return { wallMicros, offsets, before };
}
