import { Type, type Static } from '@sinclair/typebox';
import type { Db } from '../../db/connection.js';
import { countRecords } from '../../resources/counts.js';
import { OpeningPositions } from './opening-positions.js';
import type { PageWindow, RecordContext } from '../../resources/record-context.js';
import { FieldErrors } from '../../resources/write-errors.js';
import { boolean, dateTime, nextId } from '../../resources/write-schema.js';

export const OpeningRecord = Type.Object({
  time: Type.String({ format: 'date-time' }),
  is_open: Type.Boolean(),
});
export type OpeningRecord = Static<typeof OpeningRecord>;

/** What a client may write. Only admins may give `time`; the door records the current time. */
export const OpeningFields = Type.Object({
  time: Type.Optional(dateTime('Time')),
  is_open: boolean('Is open'),
});
export type OpeningInput = Static<typeof OpeningFields>;

interface OpeningRow {
  time_us: number;
  is_open: number;
}

export function countOpenings(db: Db): Promise<number> {
  return countRecords(db, 'openings');
}

/**
 * Below this offset, stepping through index entries costs less than locating the start through
 * the bucket counts.
 */
export const DIRECT_OFFSET_LIMIT = 2000;

export { OpeningPositions, type OpeningPosition } from './opening-positions.js';

/**
 * Newest first; equal times by descending id. Served from the (time_us, id, is_open) index. A
 * deep page starts from the time bucket that holds its first row (OpeningPositions), so that
 * only the rows before it within that bucket are stepped over, not every newer opening.
 */
export async function listOpenings(db: Db, window: PageWindow): Promise<OpeningRow[]> {
  let before: number | null = null;
  let skip = window.offset;
  if (window.offset >= DIRECT_OFFSET_LIMIT) {
    const start = await (window.openingPositions ?? new OpeningPositions()).locate(db, window.offset);
    if (start === undefined) return [];
    ({ before, skip } = start);
  }
  let query = db.selectFrom('openings').select(['time_us', 'is_open']);
  if (before !== null) query = query.where('time_us', '<', before);
  return query.orderBy('time_us', 'desc').orderBy('id', 'desc').limit(window.limit).offset(skip).execute();
}

export function findOpening(db: Db, id: number): Promise<OpeningRow | undefined> {
  return db.selectFrom('openings').select(['time_us', 'is_open']).where('id', '=', id).executeTakeFirst();
}

export function openingRecord(row: OpeningRow, ctx: RecordContext): OpeningRecord {
  return { time: ctx.time(Number(row.time_us)), is_open: row.is_open === 1 };
}

/** The outcome of a door report: the opening that now describes that moment, and whether it is new. */
export interface RecordedOpening {
  id: number;
  created: boolean;
  row: OpeningRow;
}

/**
 * The door's rule: a report is recorded only when it differs from the space's current state (the
 * latest opening), so repeated reports never duplicate history. Run it in a write transaction
 * (db/write-transaction.ts) and read `nowUs` inside it, so that two reports cannot both see the
 * old state nor land out of order. A clock that stepped back is not allowed to put the new record
 * behind the latest one.
 */
export async function recordDoorReport(db: Db, isOpen: boolean, nowUs: number, current?: SpaceState): Promise<RecordedOpening> {
  if (current === undefined) return recordUnlessSame(db, isOpen, nowUs, Number.MAX_SAFE_INTEGER);
  // The caller read the current state in this transaction already: the latest opening.
  const latest = current.id === null ? undefined : { id: current.id, time_us: current.sinceUs!, is_open: current.isOpen ? 1 : 0 };
  return recordAfter(db, latest, isOpen, nowUs);
}

export const NEXT_CHANGE_SAME = 'The next recorded change after this time already sets this state: correct that record instead.';

/**
 * A change at a given past time (an admin filling in history): recorded unless the space was
 * already in that state at that time (200, nothing new); refused when the next record sets the
 * same state, which would leave two changes to one state in a row.
 */
export async function backfillOpening(db: Db, isOpen: boolean, timeUs: number): Promise<RecordedOpening> {
  const recorded = await recordUnlessSame(db, isOpen, timeUs, timeUs);
  if (!recorded.created) return recorded;
  const next = await db
    .selectFrom('openings')
    .select(['is_open'])
    .where((eb) => eb.or([eb('time_us', '>', timeUs), eb.and([eb('time_us', '=', timeUs), eb('id', '>', recorded.id)])]))
    .orderBy('time_us')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  if (next && (next.is_open === 1) === isOpen) throw new FieldErrors({ time: [NEXT_CHANGE_SAME] });
  return recorded;
}

async function recordUnlessSame(db: Db, isOpen: boolean, timeUs: number, notAfterUs: number): Promise<RecordedOpening> {
  const before = await db
    .selectFrom('openings')
    .select(['id', 'time_us', 'is_open'])
    .where('time_us', '<=', notAfterUs)
    .orderBy('time_us', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return recordAfter(db, before, isOpen, timeUs);
}

/** Records a change at `timeUs` after the opening `before` (the latest one not after it), unless it sets the same state. */
async function recordAfter(db: Db, before: { id: number; time_us: number | string; is_open: number } | undefined, isOpen: boolean, timeUs: number): Promise<RecordedOpening> {
  if (before && (before.is_open === 1) === isOpen) {
    return { id: before.id, created: false, row: { time_us: Number(before.time_us), is_open: before.is_open } };
  }
  const time = before ? Math.max(timeUs, Number(before.time_us)) : timeUs;
  const row = await db
    .insertInto('openings')
    .values({ id: await nextId(db, 'openings'), time_us: time, is_open: isOpen ? 1 : 0 })
    .returning(['id', 'time_us', 'is_open'])
    .executeTakeFirstOrThrow();
  return { id: row.id, created: true, row: { time_us: Number(row.time_us), is_open: row.is_open } };
}

/** Sets the given fields; false when there is no such opening. */
export async function updateOpening(db: Db, id: number, input: Partial<OpeningInput>): Promise<boolean> {
  const values: { time_us?: number; is_open?: number } = {};
  if (input.time !== undefined) values.time_us = input.time;
  if (input.is_open !== undefined) values.is_open = input.is_open ? 1 : 0;
  if (Object.keys(values).length === 0) return (await findOpening(db, id)) !== undefined;
  const result = await db.updateTable('openings').set(values).where('id', '=', id).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function deleteOpening(db: Db, id: number): Promise<boolean> {
  const result = await db.deleteFrom('openings').where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** The space's current state: the latest opening's, or unknown (nulls) before the first one. */
export const SpaceStatusRecord = Type.Object({
  is_open: Type.Union([Type.Boolean(), Type.Null()]),
  since: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
export type SpaceStatusRecord = Static<typeof SpaceStatusRecord>;

export interface SpaceState {
  /** The latest opening's id (a change's event id), or null before the first opening. */
  id: number | null;
  isOpen: boolean | null;
  sinceUs: number | null;
}

export async function currentSpaceState(db: Db): Promise<SpaceState> {
  const latest = await db.selectFrom('openings').select(['id', 'time_us', 'is_open']).orderBy('time_us', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
  return latest ? { id: latest.id, isOpen: latest.is_open === 1, sinceUs: Number(latest.time_us) } : { id: null, isOpen: null, sinceUs: null };
}

export function spaceStatusRecord(state: SpaceState, ctx: Pick<RecordContext, 'time'>): SpaceStatusRecord {
  return { is_open: state.isOpen, since: state.sinceUs === null ? null : ctx.time(state.sinceUs) };
}
