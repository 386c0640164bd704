import { Type, type Static } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';
import { countRecords } from '../../resources/counts.js';
import type { PageWindow, RecordContext } from '../../resources/record-context.js';
import { ConflictError, DOES_NOT_EXIST, FieldErrors } from '../../resources/write-errors.js';
import { choice, dateTime, missingIds, nullable, relation, text, nextId } from '../../resources/write-schema.js';

export const EVENT_STATUSES = ['r', 'i'] as const;

export const EventRecord = Type.Object({
  id: Type.Integer(),
  place: Type.String(),
  start: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  stop: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  title: Type.String(),
  status: Type.Union(EVENT_STATUSES.map((s) => Type.Literal(s))),
  description: Type.String(),
  organizer: Type.Union([Type.String({ format: 'uri' }), Type.Null()]),
  meeting: Type.Union([Type.String({ format: 'uri' }), Type.Null()]),
  picture: Type.Union([Type.String({ format: 'uri' }), Type.Null()]),
});
export type EventRecord = Static<typeof EventRecord>;

/** What a client may write; the picture is a stored file, not writable through the API. */
export const EventFields = Type.Object({
  title: text('Title', { maxLength: 300, notBlank: true }),
  place: Type.Optional(text('Place', { maxLength: 300 })),
  start: Type.Optional(nullable(dateTime('Start'))),
  stop: Type.Optional(nullable(dateTime('Stop'))),
  status: choice('Status', { r: 'ready', i: 'incubating' }),
  description: Type.Optional(text('Description')),
  organizer: Type.Optional(nullable(relation('Organizer', 'users'))),
});
export type EventInput = Static<typeof EventFields>;

/** One `ordering=` term: a field and its direction. */
export interface EventOrder {
  field: 'start' | 'stop';
  descending: boolean;
}

export const DEFAULT_EVENT_ORDER: readonly EventOrder[] = [
  { field: 'start', descending: false },
  { field: 'stop', descending: false },
];

/**
 * DRF's OrderingFilter: comma-separated terms, `-` for descending, unknown fields ignored,
 * the default when nothing valid remains. A field named twice keeps its first direction.
 */
export function parseEventOrdering(value: string | undefined): readonly EventOrder[] {
  if (value === undefined) return DEFAULT_EVENT_ORDER;
  const terms: EventOrder[] = [];
  for (const raw of value.split(',')) {
    const term = raw.trim();
    const descending = term.startsWith('-');
    const field = descending ? term.slice(1) : term;
    if ((field === 'start' || field === 'stop') && !terms.some((t) => t.field === field)) {
      terms.push({ field, descending });
    }
  }
  return terms.length > 0 ? terms : DEFAULT_EVENT_ORDER;
}

const columns = [
  'events.id',
  'events.title',
  'events.place',
  'events.start_us',
  'events.stop_us',
  'events.status',
  'events.organizer_id',
  'events.description',
  'events.picture',
  'meetings.id as meeting_id',
] as const;

function selectEvents(db: Db) {
  return db.selectFrom('events').leftJoin('meetings', 'meetings.event_id', 'events.id').select(columns);
}

type EventRow = Awaited<ReturnType<ReturnType<typeof selectEvents>['executeTakeFirstOrThrow']>>;

export function countEvents(db: Db): Promise<number> {
  return countRecords(db, 'events');
}

/** A missing time sorts before any time, on every engine (hence the explicit NULLS clauses). */
export function listEvents(db: Db, window: PageWindow, order: readonly EventOrder[]): Promise<EventRow[]> {
  let query = selectEvents(db);
  for (const term of order) {
    const column = term.field === 'start' ? 'events.start_us' : 'events.stop_us';
    query = query.orderBy(column, term.descending ? sql`desc nulls last` : sql`asc nulls first`);
  }
  return query.orderBy('events.id').limit(window.limit).offset(window.offset).execute();
}

export function findEvent(db: Db, id: number): Promise<EventRow | undefined> {
  return selectEvents(db).where('events.id', '=', id).executeTakeFirst();
}

export function eventRecord(row: EventRow, ctx: RecordContext): EventRecord {
  return {
    id: row.id,
    place: row.place,
    start: row.start_us === null ? null : ctx.time(Number(row.start_us)),
    stop: row.stop_us === null ? null : ctx.time(Number(row.stop_us)),
    title: row.title,
    status: row.status as EventRecord['status'],
    description: row.description,
    organizer: row.organizer_id === null ? null : ctx.userUrl(row.organizer_id),
    meeting: row.meeting_id === null ? null : ctx.meetingUrl(row.meeting_id),
    picture: row.picture ? ctx.mediaUrl(row.picture) : null,
  };
}

async function checkOrganizer(db: Db, input: Partial<EventInput>): Promise<void> {
  if (input.organizer != null && (await missingIds(db, 'users', [input.organizer])).size > 0) {
    throw new FieldErrors({ organizer: [DOES_NOT_EXIST] });
  }
}

export async function createEvent(db: Db, input: EventInput): Promise<number> {
  await checkOrganizer(db, input);
  const { id } = await db
    .insertInto('events')
    .values({
      id: await nextId(db, 'events'),
      title: input.title,
      place: input.place ?? '',
      start_us: input.start ?? null,
      stop_us: input.stop ?? null,
      status: input.status,
      organizer_id: input.organizer ?? null,
      description: input.description ?? '',
      // What the original's ORM stores for "no file".
      picture: '',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

/** Sets the given fields; false when there is no such event. */
export async function updateEvent(db: Db, id: number, input: Partial<EventInput>): Promise<boolean> {
  const exists = await db.selectFrom('events').select('id').where('id', '=', id).executeTakeFirst();
  if (!exists) return false;
  await checkOrganizer(db, input);
  const { start, stop, organizer, ...rest } = input;
  const values = {
    ...rest,
    ...(start !== undefined ? { start_us: start } : {}),
    ...(stop !== undefined ? { stop_us: stop } : {}),
    ...(organizer !== undefined ? { organizer_id: organizer } : {}),
  };
  if (Object.keys(values).length > 0) await db.updateTable('events').set(values).where('id', '=', id).execute();
  return true;
}

/** Refused while a meeting records this event: the meeting would be left without one. */
export async function deleteEvent(db: Db, id: number): Promise<boolean> {
  const meeting = await db.selectFrom('meetings').select('id').where('event_id', '=', id).executeTakeFirst();
  if (meeting) throw new ConflictError(`Meeting ${meeting.id} records this event; delete the meeting or give it another event first.`);
  await db.deleteFrom('event_interested').where('event_id', '=', id).execute();
  const result = await db.deleteFrom('events').where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
