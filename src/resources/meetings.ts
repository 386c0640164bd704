import { Type, type Static } from '@sinclair/typebox';
import type { Db } from '../db/connection.js';
import { countRecords } from './counts.js';
import type { PageWindow, RecordContext } from './record-context.js';
import { relatedUserIds } from './related-users.js';

export const MeetingRecord = Type.Object({
  id: Type.Integer(),
  event: Type.String({ format: 'uri' }),
  OJ: Type.String({ description: 'Agenda (ordre du jour)' }),
  PV: Type.String({ description: 'Minutes (procès-verbal)' }),
  members: Type.Array(Type.String({ format: 'uri' })),
  pad: Type.String(),
});
export type MeetingRecord = Static<typeof MeetingRecord>;

interface MeetingRow {
  id: number;
  event_id: number;
  agenda: string;
  minutes: string;
  pad: string;
  members: number[];
}

const columns = ['id', 'event_id', 'agenda', 'minutes', 'pad'] as const;

export function countMeetings(db: Db): Promise<number> {
  return countRecords(db, 'meetings');
}

/** Ascending id, so that pages never overlap. */
export async function listMeetings(db: Db, window: PageWindow): Promise<MeetingRow[]> {
  const rows = await db.selectFrom('meetings').select(columns).orderBy('id')
    .limit(window.limit).offset(window.offset).execute();
  return withMembers(db, rows);
}

export async function findMeeting(db: Db, id: number): Promise<MeetingRow | undefined> {
  const rows = await db.selectFrom('meetings').select(columns).where('id', '=', id).execute();
  return (await withMembers(db, rows))[0];
}

async function withMembers<T extends { id: number }>(db: Db, rows: T[]): Promise<(T & { members: number[] })[]> {
  const members = await relatedUserIds(db, 'meeting_members', 'meeting_id', rows.map((r) => r.id));
  return rows.map((row) => ({ ...row, members: members.get(row.id) ?? [] }));
}

export function meetingRecord(row: MeetingRow, ctx: RecordContext): MeetingRecord {
  return {
    id: row.id,
    event: ctx.eventUrl(row.event_id),
    OJ: row.agenda,
    PV: row.minutes,
    members: row.members.map((id) => ctx.userUrl(id)),
    pad: row.pad,
  };
}
