import type { TimeFormatter } from '../time.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/**
 * A state unchanged for longer than this is shown as stale ("No change for 12 days."): a stale
 * "open" is the most common complaint about space-status pages. assets/live.js uses the same rule.
 */
export const STALE_DAYS = 7;

/** Times as people read them, in the space's time zone. */
export class PageTimes {
  // Made with the first page that shows a time, not at start: each loads ICU data of its own.
  #absolute: Intl.DateTimeFormat | undefined;
  #relative: Intl.RelativeTimeFormat | undefined;

  constructor(
    readonly timeZone: string,
    private readonly iso: TimeFormatter,
  ) {}

  private get absolute(): Intl.DateTimeFormat {
    return (this.#absolute ??= new Intl.DateTimeFormat('en-GB', {
      timeZone: this.timeZone,
      weekday: 'short',
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
    }));
  }

  private get relative(): Intl.RelativeTimeFormat {
    return (this.#relative ??= new Intl.RelativeTimeFormat('en', { numeric: 'auto' }));
  }

  /** `Tue 25 Nov 2026, 14:00`, local to the space. */
  date(micros: number): string {
    return this.absolute.format(new Date(micros / 1000));
  }

  /** The API's own wire format (ISO 8601 with the zone's offset), for `<time datetime>`. */
  isoDate(micros: number): string {
    return this.iso.format(micros);
  }

  /** `3 hours ago`, `in 2 days`, `now`: the largest whole unit. */
  ago(micros: number, nowMs: number): string {
    const ms = micros / 1000 - nowMs;
    const abs = Math.abs(ms);
    if (abs < MINUTE_MS) return 'just now';
    if (abs < HOUR_MS) return this.relative.format(Math.trunc(ms / MINUTE_MS), 'minute');
    if (abs < DAY_MS) return this.relative.format(Math.trunc(ms / HOUR_MS), 'hour');
    return this.relative.format(Math.trunc(ms / DAY_MS), 'day');
  }
}

/** Whole days since a time (rounded down). */
export function daysSince(micros: number, nowMs: number): number {
  return Math.floor((nowMs - micros / 1000) / DAY_MS);
}
