import { formatIsoUtc, parseIsoMicros } from '../time.js';

const ZERO = 0x30;
const MICROS_PER_DAY = 86_400_000_000;

/**
 * parseIsoMicros with a fast path for the shape Django and our export write
 * (`2015-01-07T06:35:19.369318Z`): a million openings are a million times, and the general
 * regular-expression parser is then the largest cost of an import. Anything else, and any
 * year before 1000, goes to parseIsoMicros, so both always agree.
 */
export function parseFixtureTime(text: string): number | null {
  return parseCanonicalUtc(text) ?? parseIsoMicros(text);
}

/** `YYYY-MM-DDTHH:MM:SS[.f{1,9}]Z` to microseconds, or null when the text has another shape. */
export function parseCanonicalUtc(text: string): number | null {
  const n = text.length;
  if (n < 20 || n > 30 || text.charCodeAt(n - 1) !== 0x5a /* Z */) return null;
  if (text.charCodeAt(4) !== 0x2d || text.charCodeAt(7) !== 0x2d || text.charCodeAt(10) !== 0x54 || text.charCodeAt(13) !== 0x3a || text.charCodeAt(16) !== 0x3a) return null;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hour = digits(text, 11, 2);
  const minute = digits(text, 14, 2);
  const second = digits(text, 17, 2);
  if (year < 1000 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 59) return null;
  const fraction = fractionMicros(text, n);
  if (fraction < 0) return null;
  return daysFromCivil(year, month, day) * MICROS_PER_DAY + ((hour * 60 + minute) * 60 + second) * 1_000_000 + fraction;
}

/** A run of ASCII digits as a number, or -1 if any character is not a digit. */
function digits(text: string, start: number, count: number): number {
  let value = 0;
  for (let i = start; i < start + count; i++) {
    const d = text.charCodeAt(i) - ZERO;
    if (d < 0 || d > 9) return -1;
    value = value * 10 + d;
  }
  return value;
}

/** The `.ffffff` part (1 to 9 digits, truncated to microseconds) between the seconds and `Z`. */
function fractionMicros(text: string, n: number): number {
  if (n === 20) return 0;
  if (text.charCodeAt(19) !== 0x2e /* . */ || n === 21) return -1;
  const count = n - 21;
  const value = digits(text, 20, count);
  if (value < 0) return -1;
  return count <= 6 ? value * 10 ** (6 - count) : Math.trunc(value / 10 ** (count - 6));
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/**
 * formatIsoUtc with the date computed once per day: exports write openings in pk order, which is
 * mostly time order, so consecutive times tend to share their day and only the clock changes.
 */
export class FixtureTimeFormatter {
  private day = Number.NaN;
  private datePrefix = '';

  format(micros: number): string {
    const day = Math.floor(micros / MICROS_PER_DAY);
    if (day !== this.day) {
      this.day = day;
      this.datePrefix = formatIsoUtc(day * MICROS_PER_DAY).slice(0, 11);
    }
    // Years outside 0000-9999 have another shape: leave them to formatIsoUtc.
    if (this.datePrefix.length !== 11 || this.datePrefix.charCodeAt(10) !== 0x54) return formatIsoUtc(micros);
    const inDay = micros - day * MICROS_PER_DAY;
    const seconds = Math.floor(inDay / 1_000_000);
    const fraction = inDay - seconds * 1_000_000;
    const clock = two(Math.floor(seconds / 3600)) + ':' + two(Math.floor(seconds / 60) % 60) + ':' + two(seconds % 60);
    return this.datePrefix + clock + (fraction ? '.' + String(fraction).padStart(6, '0') : '') + 'Z';
  }
}

function two(value: number): string {
  return value < 10 ? '0' + value : String(value);
}
