import { Type, type Static } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';

/**
 * Opening hours (web spec §3, `GET /api/space/hours/`): for each weekday × hour local to the
 * configured zone, the share of time the space was open over the last N weeks.
 *
 * The window is W = [until − N weeks, until). The space is open from each `is_open: true` record
 * until the next record; the last record's state lasts until `until`; the state at the start of W
 * is the latest record's before it (closed when there is none). S(d,h) is the set of instants of
 * W whose local weekday is d and local hour h; a share is the open time within S(d,h) over its
 * length, rounded to 4 decimals (0 when S(d,h) is empty).
 *
 * One indexed query reads the window's records and the latest one before it; one pass adds the
 * open intervals up. Local time is plain arithmetic between the zone's UTC-offset transitions,
 * found once per window (offsets probed a day apart, bisected to the second where they differ),
 * so that no time-zone lookup is made per record, and a 23- or 25-hour day is counted exactly.
 */

export const DEFAULT_WEEKS = 12;
export const MAX_WEEKS = 104;
export const WEEKS_MESSAGE = `weeks must be an integer from 1 to ${MAX_WEEKS}.`;
export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;

export const SpaceHoursRecord = Type.Object({
  weeks: Type.Integer({ minimum: 1, maximum: MAX_WEEKS }),
  until: Type.String({ format: 'date-time' }),
  time_zone: Type.String(),
  days: Type.Array(Type.String(), { minItems: 7, maxItems: 7 }),
  open_share: Type.Array(Type.Array(Type.Number({ minimum: 0, maximum: 1 }), { minItems: 24, maxItems: 24 }), { minItems: 7, maxItems: 7 }),
});
export type SpaceHoursRecord = Static<typeof SpaceHoursRecord>;

/** The UTC offset of a zone at an instant (time.ts TimeFormatter has it, cached). */
export interface ZoneOffsets {
  offsetSeconds(epochSeconds: number): number;
}

const SECOND_US = 1_000_000;
const HOUR_US = 3600 * SECOND_US;
const DAY_US = 24 * HOUR_US;
const WEEK_US = 7 * DAY_US;
const CELLS = 7 * 24;

/** A `weeks` query value: decimal digits only (no sign, space or fraction), 1 to 104; null otherwise. */
export function parseWeeks(text: string | undefined): number | null {
  if (text === undefined) return DEFAULT_WEEKS;
  if (!/^[0-9]{1,6}$/.test(text)) return null;
  const weeks = Number(text);
  return weeks >= 1 && weeks <= MAX_WEEKS ? weeks : null;
}

interface OpeningState {
  time_us: number | string;
  is_open: number;
}

/**
 * The records that decide the state within [startUs, untilUs): those in it, and before them the
 * latest ones before it (all those at its time, which the ordering by id settles), oldest first.
 * One statement, so one snapshot; both bounds are ranges of the (time_us, id, is_open) index.
 */
export function windowOpenings(db: Db, startUs: number, untilUs: number): Promise<OpeningState[]> {
  const before = db.selectFrom('openings').select('time_us').where('time_us', '<', startUs).orderBy('time_us', 'desc').limit(1);
  return db
    .selectFrom('openings')
    .select(['time_us', 'is_open'])
    .where('time_us', '>=', sql<number>`coalesce((${before}), ${startUs})`)
    .where('time_us', '<', untilUs)
    .orderBy('time_us')
    .orderBy('id')
    .execute();
}

/** The shares of the `weeks` weeks before `untilUs`, 7 rows (Monday first) of 24 hours, read from the database. */
export async function openingHours(db: Db, zone: ZoneOffsets, untilUs: number, weeks: number): Promise<number[][]> {
  const startUs = untilUs - weeks * WEEK_US;
  return openShares(await windowOpenings(db, startUs, untilUs), zone, startUs, untilUs);
}

/** The JSON body of `GET /api/space/hours/`. */
export function spaceHoursRecord(weeks: number, until: string, timeZone: string, openShare: number[][]): SpaceHoursRecord {
  return { weeks, until, time_zone: timeZone, days: [...WEEKDAYS], open_share: openShare };
}

/** A stretch of time during which the zone keeps one UTC offset. */
export interface OffsetSpan {
  startUs: number;
  endUs: number;
  offsetUs: number;
}

/**
 * The zone's offsets over [startUs, endUs), as consecutive spans. The offset is probed a day
 * apart; where two probes differ, the second of the change is bisected (offsets change on whole
 * seconds). Two changes within one day that cancel out would go unseen: no zone has them.
 */
export function offsetSpans(zone: ZoneOffsets, startUs: number, endUs: number): OffsetSpan[] {
  const spans: OffsetSpan[] = [];
  const offsetAt = (us: number) => zone.offsetSeconds(Math.floor(us / SECOND_US));
  const lastUs = endUs - 1;
  let from = startUs;
  let current = offsetAt(from);
  let t = from;
  while (t < lastUs) {
    const probe = Math.min(t + DAY_US, lastUs);
    if (offsetAt(probe) === current) {
      t = probe;
      continue;
    }
    // The offset at second `lo` is `current`, at second `hi` it is not.
    let lo = Math.floor(t / SECOND_US);
    let hi = Math.floor(probe / SECOND_US);
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (zone.offsetSeconds(mid) === current) lo = mid;
      else hi = mid;
    }
    const changeUs = hi * SECOND_US;
    spans.push({ startUs: from, endUs: changeUs, offsetUs: current * SECOND_US });
    from = t = changeUs;
    current = zone.offsetSeconds(hi);
  }
  spans.push({ startUs: from, endUs, offsetUs: current * SECOND_US });
  return spans;
}

/**
 * The pure computation: the shares over W = [startUs, untilUs) given the records that decide the
 * state in it (windowOpenings: oldest first, any before W first).
 */
export function openShares(records: readonly OpeningState[], zone: ZoneOffsets, startUs: number, untilUs: number): number[][] {
  const spans = offsetSpans(zone, startUs, untilUs);
  const length = new Float64Array(CELLS);
  const open = new Float64Array(CELLS);
  new LocalHours(spans, length).add(startUs, untilUs);
  const opened = new LocalHours(spans, open);
  let isOpen = false;
  let sinceUs = startUs;
  for (const record of records) {
    const timeUs = Number(record.time_us);
    if (timeUs > startUs) {
      if (timeUs >= untilUs) break;
      if (isOpen) opened.add(sinceUs, timeUs);
      sinceUs = timeUs;
    }
    isOpen = record.is_open === 1;
  }
  if (isOpen) opened.add(sinceUs, untilUs);
  const rows: number[][] = [];
  for (let day = 0; day < 7; day++) {
    const row: number[] = [];
    for (let hour = 0; hour < 24; hour++) {
      const cell = day * 24 + hour;
      row.push(length[cell] === 0 ? 0 : roundedShare(open[cell], length[cell]));
    }
    rows.push(row);
  }
  return rows;
}

/**
 * Adds intervals of UTC time, given in increasing order, to the cells of their local weekday and
 * hour (Monday 00:00 first), in microseconds: within an offset span, local time is UTC time plus
 * the offset, and its hours are whole multiples of an hour since the epoch (a Thursday).
 */
class LocalHours {
  private span = 0;

  constructor(
    private readonly spans: readonly OffsetSpan[],
    private readonly cells: Float64Array,
  ) {}

  add(fromUs: number, toUs: number): void {
    const { spans, cells } = this;
    let a = fromUs;
    while (a < toUs) {
      while (this.span < spans.length - 1 && spans[this.span].endUs <= a) this.span++;
      const { endUs, offsetUs } = spans[this.span];
      const b = Math.min(toUs, endUs);
      let local = a + offsetUs;
      const localEnd = b + offsetUs;
      let hour = Math.floor(local / HOUR_US);
      while (local < localEnd) {
        const next = Math.min((hour + 1) * HOUR_US, localEnd);
        const day = Math.floor(hour / 24);
        // 1970-01-01 was a Thursday: weekday 3 counting from Monday.
        cells[((((day + 3) % 7) + 7) % 7) * 24 + (hour - day * 24)] += next - local;
        local = next;
        hour++;
      }
      a = b;
    }
  }
}

/** part / whole to 4 decimals, exactly (half up), from integer microseconds. */
function roundedShare(part: number, whole: number): number {
  const numerator = BigInt(part) * 10_000n;
  const denominator = BigInt(whole);
  let units = numerator / denominator;
  if (2n * (numerator % denominator) >= denominator) units++;
  return Number(units) / 10_000;
}
