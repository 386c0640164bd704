import { streamRandom, type Random } from './random.js';

/**
 * The door history: instants in microseconds, strictly increasing, from 2013 up to the moment the
 * demo is generated. The last weeks follow a weekly routine (evenings and weekends), as the
 * dashboard's heatmap of a living space shows; the years before are spread evenly so that they
 * cross every DST change of that period, plus instants placed exactly on and around the changes,
 * where a time-zone conversion that is off by one shows.
 */

export const SECOND = 1_000_000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export const HISTORY_START_US = Date.UTC(2013, 8, 2, 17, 0, 0) * 1000;

/** The moments a demo can end at: after a year of history, and before ISO 8601 years need five digits. */
export const EARLIEST_NOW_US = Date.UTC(2015, 0, 1) * 1000;
export const LATEST_NOW_US = Date.UTC(9999, 0, 1) * 1000;

/** Why the history cannot end at this moment, or null when it can. */
export function demoNowProblem(nowUs: number): string | null {
  if (!Number.isSafeInteger(nowUs) || nowUs < EARLIEST_NOW_US || nowUs >= LATEST_NOW_US) {
    return 'now must be an instant from 2015-01-01T00:00:00Z to 9998-12-31T23:59:59Z';
  }
  return null;
}

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
export function dstMarks(count: number, endUs: number): number[] {
  const priority: number[] = [];
  const europe2021 = europeanMarks(2021);
  // The whole seconds on each side of the changes first, then their neighbours.
  priority.push(europe2021[1], europe2021[3], europe2021[6], europe2021[8]);
  priority.push(...europe2021.filter((t) => !priority.includes(t)));
  const startYear = new Date(HISTORY_START_US / 1000).getUTCFullYear();
  const endYear = new Date(endUs / 1000).getUTCFullYear();
  for (let year = startYear; year <= endYear; year++) {
    if (year !== 2021) priority.push(...europeanMarks(year));
    priority.push(...americanMarks(year));
  }
  const inRange = priority.filter((t) => t > HISTORY_START_US && t < endUs);
  return inRange.slice(0, Math.floor(count / 4)).sort((a, b) => a - b);
}

/** Ordinary instants before `endUs`: one per equal slot of the history, at a random point of its first 90%, so they increase without keeping a list. */
function* ordinaryTimes(rng: Random, count: number, endUs: number): Generator<number> {
  const slot = (endUs - HISTORY_START_US) / Math.max(count, 1);
  for (let i = 0; i < count; i++) {
    const base = HISTORY_START_US + Math.floor(i * slot);
    yield doorPrecision(rng, base + Math.floor(rng.next() * slot * 0.9));
  }
}

/** Mostly whole seconds, as a door sensor posts them; some carry milliseconds or microseconds, as the original's clients sent. */
function doorPrecision(rng: Random, raw: number): number {
  const roll = rng.below(20);
  if (roll === 0) return raw;
  if (roll === 1) return raw - (raw % 1000);
  return raw - (raw % SECOND);
}

/**
 * `count` strictly increasing instants before `endUs`: the ordinary ones merged with the marks. A
 * mark wins a tie and any instant that would not increase is nudged by a microsecond, so the marks
 * stay exact and the order stays strict whatever the density.
 */
function* olderTimes(rng: Random, count: number, endUs: number): Generator<number> {
  const marks = dstMarks(count, endUs);
  const ordinary = ordinaryTimes(rng, count - marks.length, endUs);
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

/** Records alternate, starting open: record `index` opens the space when this is true, closes it otherwise. */
export function isOpenAt(index: number): boolean {
  return index % 2 === 0;
}

/** How far back the history follows the weekly routine: the dashboard's 12 weeks, and some before. */
const ROUTINE_WEEKS = 16;

/**
 * The week of a living space, by UTC weekday (0 is Sunday, as getUTCDay): the chance of a session
 * that day, its usual start (hour of the day, in UTC, the default TIME_ZONE) and length in hours.
 * Two fixed weekday evenings, quieter other evenings, long Saturdays.
 */
const WEEK_ROUTINE = [
  { chance: 0.6, start: 14, hours: 4 },
  { chance: 0.3, start: 18.5, hours: 3 },
  { chance: 0.9, start: 18, hours: 5 },
  { chance: 0.35, start: 18.5, hours: 3.5 },
  { chance: 0.85, start: 18, hours: 5 },
  { chance: 0.55, start: 19, hours: 5 },
  { chance: 0.8, start: 13, hours: 7 },
] as const;

/** Someone sometimes drops by at lunchtime on a weekday, gone before the evening's session. */
const WEEKDAY_DAYTIME = { chance: 0.15, start: 12, hours: 3 } as const;

/** The wobble around a usual start, and around a usual length. */
const START_SPREAD = 45 * MINUTE;
const LENGTH_SPREAD = HOUR;

interface Session {
  open: number;
  close: number;
}

function session(rng: Random, dayStartUs: number, usual: { start: number; hours: number }): Session {
  const open = dayStartUs + usual.start * HOUR + Math.round((rng.next() * 2 - 1) * START_SPREAD);
  const length = usual.hours * HOUR + Math.round((rng.next() * 2 - 1) * LENGTH_SPREAD);
  return { open: doorPrecision(rng, open), close: doorPrecision(rng, open + length) };
}

/** The sessions of one UTC day, in order: drawn from the seed and the day alone, so a day's history does not change with `now`. */
function daySessions(seed: number, day: number): Session[] {
  const rng = streamRandom(seed, `door day ${day}`);
  const dayStartUs = day * DAY;
  const weekday = new Date(dayStartUs / 1000).getUTCDay();
  const sessions: Session[] = [];
  if (weekday !== 0 && weekday !== 6 && rng.chance(WEEKDAY_DAYTIME.chance)) sessions.push(session(rng, dayStartUs, WEEKDAY_DAYTIME));
  const usual = WEEK_ROUTINE[weekday];
  if (rng.chance(usual.chance)) sessions.push(session(rng, dayStartUs, usual));
  return sessions;
}

/** The last change is this long before `now` at most (and at least LAST_CHANGE_MIN): the space is in use. */
const LAST_CHANGE_MAX = 3 * HOUR;
const LAST_CHANGE_MIN = 20 * MINUTE;
/** The routine's sessions end at least this long before the last one starts. */
const LAST_SESSION_GAP = 30 * MINUTE;

/**
 * The routine's records up to `now`, oldest first, alternating and starting open, ending with a
 * change shortly before `now`: a session that has just ended, or (when `endsOpen`) just begun.
 */
function routineTimes(seed: number, nowUs: number, endsOpen: boolean): number[] {
  const rng = streamRandom(seed, 'door now');
  const lastChange = nowUs - LAST_CHANGE_MIN - rng.below((LAST_CHANGE_MAX - LAST_CHANGE_MIN) / SECOND) * SECOND;
  const lastOpen = endsOpen ? lastChange : lastChange - rng.between(1, 4) * HOUR - rng.below(60) * MINUTE;
  const times: number[] = [];
  const today = Math.floor(nowUs / DAY);
  for (let day = today - ROUTINE_WEEKS * 7; day <= today; day++) {
    for (const { open, close } of daySessions(seed, day)) {
      if (close + LAST_SESSION_GAP <= lastOpen) times.push(open, close);
    }
  }
  times.push(lastOpen);
  if (!endsOpen) times.push(lastChange);
  return times;
}

/**
 * `count` strictly increasing instants before `nowUs`, the door history of `isOpenAt`: the
 * routine's last `count` records, preceded when there are more by the older ones, which end where
 * the routine begins. Same seed, count and now, same instants.
 */
export function* openingTimes(seed: number, count: number, nowUs: number): Generator<number> {
  if (count === 0) return;
  const routine = routineTimes(seed, nowUs, isOpenAt(count - 1));
  // Both lists alternate from open and end in the same state, so their lengths share count's parity.
  const older = count - routine.length;
  if (older > 0) yield* olderTimes(streamRandom(seed, 'openings'), older, routine[0]);
  yield* routine.slice(Math.max(0, -older));
}
