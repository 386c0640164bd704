import { Type, type Static } from '@sinclair/typebox';
import type { Db } from '../../db/connection.js';
import { countRecords } from '../../resources/counts.js';
import type { PageWindow, RecordContext } from '../../resources/record-context.js';
import { relatedUserIds } from '../users/index.js';
import { DOES_NOT_EXIST, throwIfAny, type FieldMessages } from '../../resources/write-errors.js';
import { missingIds, relation, relations, replaceLinkedUsers, text, url, nextId } from '../../resources/write-schema.js';

export const MeetingRecord = Type.Object({
  id: Type.Integer(),
  event: Type.String({ format: 'uri' }),
  OJ: Type.String({ description: 'Agenda (ordre du jour)' }),
  PV: Type.String({ description: 'Minutes (procès-verbal)' }),
  members: Type.Array(Type.String({ format: 'uri' })),
  pad: Type.String(),
});
export type MeetingRecord = Static<typeof MeetingRecord>;

export const MeetingFields = Type.Object({
  event: relation('Event', 'events'),
  OJ: Type.Optional(text('Agenda')),
  PV: Type.Optional(text('Minutes')),
  members: Type.Optional(relations('Members', 'users')),
  pad: Type.Optional(url('Pad', 200)),
});
export type MeetingInput = Static<typeof MeetingFields>;

export const EVENT_HAS_MEETING = 'meeting with this event already exists.';

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
  const rows = await db.selectFrom('meetings').select(columns).orderBy('id').limit(window.limit).offset(window.offset).execute();
  return withMembers(db, rows);
}

export async function findMeeting(db: Db, id: number): Promise<MeetingRow | undefined> {
  const rows = await db.selectFrom('meetings').select(columns).where('id', '=', id).execute();
  return (await withMembers(db, rows))[0];
}

async function withMembers<T extends { id: number }>(db: Db, rows: T[]): Promise<(T & { members: number[] })[]> {
  const members = await relatedUserIds(
    db,
    'meeting_members',
    'meeting_id',
    rows.map((r) => r.id),
  );
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

async function checkReferences(db: Db, input: Partial<MeetingInput>, exceptId: number | null): Promise<void> {
  const errors: FieldMessages = {};
  if (input.event !== undefined) {
    if ((await missingIds(db, 'events', [input.event])).size > 0) errors.event = [DOES_NOT_EXIST];
    else {
      // An event has at most one meeting (the original's OneToOneField).
      const other = await db.selectFrom('meetings').select('id').where('event_id', '=', input.event).executeTakeFirst();
      if (other && other.id !== exceptId) errors.event = [EVENT_HAS_MEETING];
    }
  }
  if (input.members !== undefined && (await missingIds(db, 'users', input.members)).size > 0) errors.members = [DOES_NOT_EXIST];
  throwIfAny(errors);
}

export async function createMeeting(db: Db, input: MeetingInput): Promise<number> {
  await checkReferences(db, input, null);
  const { id } = await db
    .insertInto('meetings')
    .values({
      id: await nextId(db, 'meetings'),
      event_id: input.event,
      agenda: input.OJ ?? '',
      minutes: input.PV ?? '',
      pad: input.pad ?? '',
      ongoing: 0,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await replaceLinkedUsers(db, 'meeting_members', 'meeting_id', id, input.members ?? []);
  return id;
}

/** Sets the given fields (members replaced as a whole); false when there is no such meeting. */
export async function updateMeeting(db: Db, id: number, input: Partial<MeetingInput>): Promise<boolean> {
  const exists = await db.selectFrom('meetings').select('id').where('id', '=', id).executeTakeFirst();
  if (!exists) return false;
  await checkReferences(db, input, id);
  const values: { event_id?: number; agenda?: string; minutes?: string; pad?: string } = {};
  if (input.event !== undefined) values.event_id = input.event;
  if (input.OJ !== undefined) values.agenda = input.OJ;
  if (input.PV !== undefined) values.minutes = input.PV;
  if (input.pad !== undefined) values.pad = input.pad;
  if (Object.keys(values).length > 0) await db.updateTable('meetings').set(values).where('id', '=', id).execute();
  if (input.members !== undefined) await replaceLinkedUsers(db, 'meeting_members', 'meeting_id', id, input.members);
  return true;
}

export async function deleteMeeting(db: Db, id: number): Promise<boolean> {
  await db.deleteFrom('meeting_members').where('meeting_id', '=', id).execute();
  const result = await db.deleteFrom('meetings').where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
