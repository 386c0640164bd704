const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/**
 * A state unchanged for longer than this is shown as stale ("No change for 12 days."): a stale
 * "open" is the most common complaint about space-status pages. assets/live.js uses the same rule.
 */
export const STALE_DAYS = 7;

/** Whole days since a time (rounded down). */
export function daysSince(micros: number, nowMs: number): number {
  return Math.floor((nowMs - micros / 1000) / DAY_MS);
}
