import { Type, type Static } from '@sinclair/typebox';
import type { Db } from '../db/connection.js';
import { countRecords } from './counts.js';
import type { PageWindow, RecordContext } from './record-context.js';

export const OpeningRecord = Type.Object({
  time: Type.String({ format: 'date-time' }),
  is_open: Type.Boolean(),
});
export type OpeningRecord = Static<typeof OpeningRecord>;

interface OpeningRow {
  time_us: number;
  is_open: number;
}

export function countOpenings(db: Db): Promise<number> {
  return countRecords(db, 'openings');
}

/** Newest first; equal times by descending id. Served from the (time_us, id, is_open) index. */
export function listOpenings(db: Db, window: PageWindow): Promise<OpeningRow[]> {
  return db.selectFrom('openings').select(['time_us', 'is_open'])
    .orderBy('time_us', 'desc').orderBy('id', 'desc')
    .limit(window.limit).offset(window.offset).execute();
}

export function findOpening(db: Db, id: number): Promise<OpeningRow | undefined> {
  return db.selectFrom('openings').select(['time_us', 'is_open']).where('id', '=', id).executeTakeFirst();
}

export function openingRecord(row: OpeningRow, ctx: RecordContext): OpeningRecord {
  return { time: ctx.time(Number(row.time_us)), is_open: row.is_open === 1 };
}
