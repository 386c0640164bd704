import { sql } from 'kysely';
import { engineOf, type Db } from '../../../db/connection.js';
import { json } from '../../../json.js';
import { PROCESS_ORIGIN } from '../../../live/process-origin.js';
import type { WebhookEvent } from '../../../live/webhooks.js';
import type { ChangeWatcher, WriteScope } from '../../../live/writes.js';
import type { TimeFormatter } from '../../../time.js';
import { currentSpaceState, spaceStatusRecord, type SpaceState } from '../openings.js';

declare module '../../../live/writes.js' {
  interface WriteScope {
    /** The space's state when the transaction began (under the write lock). */
    readonly spaceBefore: SpaceState;
  }
}

/**
 * Changes of the space's state (the latest opening: open or closed, since when), as the push
 * stream and the webhooks publish them. A change's event id is the id of the opening that
 * describes the new state: ids only grow (PostgreSQL identities; on SQLite, nextId and migration
 * 0004), so a client that remembers the last id it saw can ask for what came after.
 *
 * The database is the only source of truth: notifications (in-process after a commit, PostgreSQL
 * NOTIFY, the SQLite poll) only say "look again", and each process reads what changed since the
 * state it last published (space-feed.ts). So a lost, duplicated or late notification can delay
 * an event but never reorder, repeat or drop one.
 */

/** The PostgreSQL channel; the payload is `{"id": …, "origin": …}` (a hint: readers re-read the database). */
export const SPACE_CHANNEL = 'space_state';

/** The event id of a state: its opening's id, 0 before the first opening. */
export function eventIdOf(state: SpaceState): number {
  return state.id ?? 0;
}

export function sameState(a: SpaceState, b: SpaceState): boolean {
  return a.id === b.id && a.isOpen === b.isOpen && a.sinceUs === b.sinceUs;
}

/**
 * Inside a write transaction that recorded opening `recordedId` (a door report, a backfill):
 * the new state when that opening is now the latest one, else null (a backfill behind the latest
 * opening changes history, not the current state). Announced on PostgreSQL (see announce).
 */
export async function spaceChangeByRecord(trx: Db, recordedId: number): Promise<SpaceState | null> {
  const after = await currentSpaceState(trx);
  if (after.id !== recordedId) return null;
  await announce(trx, after);
  return after;
}

/**
 * Inside a write transaction that edited or deleted openings: the new state when it differs from
 * `before` (read at the start of the same transaction), else null.
 */
export async function spaceChangeSince(trx: Db, before: SpaceState): Promise<SpaceState | null> {
  const after = await currentSpaceState(trx);
  if (sameState(before, after)) return null;
  await announce(trx, after);
  return after;
}

/**
 * The space's state as every write transaction watches it (live/writes.ts): read as it begins,
 * read again when it changed the openings, and `announce`d after the commit of a change.
 */
export function spaceWatcher(announce: (state: SpaceState) => void): ChangeWatcher<WriteScope, SpaceState> {
  return {
    tables: ['openings'],
    before: async (trx) => ({ spaceBefore: await currentSpaceState(trx) }),
    since: (trx, { spaceBefore }) => spaceChangeSince(trx, spaceBefore),
    announce,
  };
}

/** The body of a webhook: `{"id": <event id>, "event": "state", "state": {"is_open": …, "since": …}}`. */
export function webhookBody(state: SpaceState, times: TimeFormatter): Buffer {
  return json({ id: eventIdOf(state), event: 'state', state: spaceStatusRecord(state, { time: (micros) => times.format(micros) }) });
}

/** A change's webhook (live/webhooks.ts): the event `state`, the change's event id, the body above. */
export function webhookEvent(state: SpaceState, times: TimeFormatter): WebhookEvent {
  return { event: 'state', eventId: eventIdOf(state), body: webhookBody(state, times) };
}

/**
 * PostgreSQL delivers a NOTIFY issued in a transaction when, and only if, that transaction
 * commits, to every session listening on the channel (every serving process; space-feed.ts).
 * SQLite has no such thing: other processes poll (space-feed.ts), this one is told after the
 * commit by the write route.
 */
async function announce(trx: Db, state: SpaceState): Promise<void> {
  if (engineOf(trx) !== 'postgres') return;
  const payload = JSON.stringify({ id: eventIdOf(state), origin: PROCESS_ORIGIN });
  await sql`select pg_notify(${SPACE_CHANNEL}, ${payload})`.execute(trx);
}

/**
 * The changes a reader who last saw event `afterId` (and, when known, its whole state `seen`)
 * missed, oldest first, ending with `current` (read in the same snapshot): the openings recorded
 * after that one which were the space's state when recorded (a backfill behind a later opening
 * never was), at most `limit` of them (the latest). When the reader's last event is no longer
 * what the history says (an admin edited or deleted the latest opening), the current state is
 * sent at the end, so that a reader always ends on the current state. Nothing when the reader
 * is up to date.
 */
export async function changesAfter(trx: Db, afterId: number, seen: SpaceState | null, current: SpaceState, limit: number): Promise<SpaceState[]> {
  if (seen !== null ? sameState(seen, current) : afterId === eventIdOf(current)) return [];
  const rows = (await trx.selectFrom('openings').select(['id', 'time_us', 'is_open']).where('id', '>', afterId).orderBy('id', 'desc').limit(limit).execute()).reverse();
  const changes: SpaceState[] = [];
  if (rows.length > 0) {
    // The latest opening recorded before the first candidate: a candidate older than it (or than
    // any candidate before it) was a backfill. `+id` keeps SQLite on the time index, walking down
    // from the newest (a few rows) instead of sorting every row below the id.
    const before = await trx
      .selectFrom('openings')
      .select('time_us')
      .where(sql<number>`+id`, '<', rows[0].id)
      .orderBy('time_us', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    let latestUs = before === undefined ? -Infinity : Number(before.time_us);
    for (const row of rows) {
      const timeUs = Number(row.time_us);
      // Equal times: the higher id is the later opening (the order of currentSpaceState).
      if (timeUs < latestUs) continue;
      latestUs = timeUs;
      changes.push({ id: row.id, isOpen: row.is_open === 1, sinceUs: timeUs });
    }
  }
  const last = changes.at(-1);
  if (last === undefined || !sameState(last, current)) changes.push(current);
  return changes;
}
