import type { Random } from './random.js';

/**
 * The door history: instants in microseconds, strictly increasing, spread over a dozen years so
 * that they cross every DST change of that period, plus instants placed exactly on and around the
 * changes, where a time-zone conversion that is off by one shows.
 */

export const SECOND = 1_000_000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export const HISTORY_START_US = Date.UTC(2013, 8, 2, 17, 0, 0) * 1000;
export const HISTORY_END_US = Date.UTC(2026, 0, 31, 22, 0, 0) * 1000;

/** Day of month of the last (or n-th) Sunday, the rule both the EU and the US use. */
function lastSunday(year: number, month: number): number {
  const last = new Date(Date.UTC(year, month + 1, 0));
  return last.getUTCDate() - last.getUTCDay();
}

function nthSunday(year: number, month: number, n: number): number {
  const first = new Date(Date.UTC(year, month, 1)).getUTCDay();
  return 1 + ((7 - first) % 7) + 7 * (n - 1);
}

function at(year: number, month: number, day: number, hourUtc: number): number {
  return Date.UTC(year, month, day, hourUtc) * 1000;
}

/** EU changes are at 01:00 UTC; around each: the last whole second, half a second before, and ±30 min (one wall-clock time twice in autumn). */
function europeanMarks(year: number): number[] {
  const changes = [at(year, 2, lastSunday(year, 2), 1), at(year, 9, lastSunday(year, 9), 1)];
  return changes.flatMap((t) => [t - 30 * MINUTE, t - SECOND, t - SECOND / 2, t, t + 30 * MINUTE]);
}

/** US Eastern changes: second Sunday of March at 07:00 UTC, first Sunday of November at 06:00 UTC. */
function americanMarks(year: number): number[] {
  const changes = [at(year, 2, nthSunday(year, 2, 2), 7), at(year, 10, nthSunday(year, 10, 1), 6)];
  return changes.flatMap((t) => [t - SECOND, t]);
}

/**
 * The marked instants a history of `count` openings includes, sorted. 2021's European changes
 * come first in priority so that even a small history has them; at most a quarter of the
 * history is marks, the rest is ordinary traffic.
 */
export function dstMarks(count: number): number[] {
  const priority: number[] = [];
  const europe2021 = europeanMarks(2021);
  // The whole seconds on each side of the changes first, then their neighbours.
  priority.push(europe2021[1], europe2021[3], europe2021[6], europe2021[8]);
  priority.push(...europe2021.filter((t) => !priority.includes(t)));
  const startYear = new Date(HISTORY_START_US / 1000).getUTCFullYear();
  const endYear = new Date(HISTORY_END_US / 1000).getUTCFullYear();
  for (let year = startYear; year <= endYear; year++) {
    if (year !== 2021) priority.push(...europeanMarks(year));
    priority.push(...americanMarks(year));
  }
  const inRange = priority.filter((t) => t > HISTORY_START_US && t < HISTORY_END_US);
  return inRange.slice(0, Math.floor(count / 4)).sort((a, b) => a - b);
}

/**
 * Ordinary instants: one per equal slot of the history, at a random point of its first 90%,
 * so they increase without keeping a list. Mostly whole seconds, as a door sensor posts them;
 * some carry milliseconds or microseconds, as the original's clients sent.
 */
function* ordinaryTimes(rng: Random, count: number): Generator<number> {
  const slot = (HISTORY_END_US - HISTORY_START_US) / Math.max(count, 1);
  for (let i = 0; i < count; i++) {
    const base = HISTORY_START_US + Math.floor(i * slot);
    const raw = base + Math.floor(rng.next() * slot * 0.9);
    const roll = rng.below(20);
    if (roll === 0) yield raw;
    else if (roll === 1) yield raw - (raw % 1000);
    else yield raw - (raw % SECOND);
  }
}

/**
 * `count` strictly increasing instants: the ordinary ones merged with the marks. A mark wins a
 * tie and any instant that would not increase is nudged by a microsecond, so the marks stay
 * exact and the order stays strict whatever the density.
 */
export function* openingTimes(rng: Random, count: number): Generator<number> {
  const marks = dstMarks(count);
  const ordinary = ordinaryTimes(rng, count - marks.length);
  let next = ordinary.next();
  let m = 0;
  let previous = -Infinity;
  for (let produced = 0; produced < count; produced++) {
    let candidate: number;
    if (m < marks.length && (next.done || marks[m] <= next.value)) candidate = marks[m++];
    else {
      candidate = next.value as number;
      next = ordinary.next();
    }
    previous = Math.max(candidate, previous + 1);
    yield previous;
  }
}

/** How long an opening lasts is not modelled: records simply alternate, starting open. */
export function isOpenAt(index: number): boolean {
  return index % 2 === 0;
}
