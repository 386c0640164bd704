import { sql, type ExpressionBuilder } from 'kysely';
import type { Db } from '../../db/connection.js';
import type { Database } from '../../db/schema.js';
import type { UserName } from '../../web/details.js';

/**
 * What the web pages show of the events and meetings, read straight from the tables: the dashboard's
 * lists, the events' list and the detail pages' records with the names they link to. No e-mail address is ever selected.
 */

export interface EventSummary {
  id: number;
  title: string;
  place: string;
  start_us: number | null;
  stop_us: number | null;
}

export interface MeetingSummary {
  id: number;
  event_id: number;
  title: string;
  start_us: number | null;
}

/** Events still to come (stop in the future, or start when there is no stop) that are ready, soonest first. */
export async function upcomingEvents(db: Db, nowUs: number, limit: number): Promise<EventSummary[]> {
  const rows = await db
    .selectFrom('events')
    .select(['id', 'title', 'place', 'start_us', 'stop_us'])
    .where('status', '=', 'r')
    .where((eb) => eb.or([eb('stop_us', '>', nowUs), eb.and([eb('stop_us', 'is', null), eb('start_us', '>', nowUs)])]))
    .orderBy('start_us')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map(eventSummary);
}

/** The events of a list page (`/events/`, `/events/talks/`), with their status. */
export interface ListedEvent extends EventSummary {
  status: string;
}

/** The parts of the events' list, in its order: ready events to come, those being prepared, then past ones. */
export const EVENT_LIST_PARTS = ['upcoming', 'incubating', 'past'] as const;
export type EventListPart = (typeof EVENT_LIST_PARTS)[number];

export interface EventListing {
  /** How many events each part holds. */
  counts: Record<EventListPart, number>;
  /** The window's events, by part. */
  events: Record<EventListPart, ListedEvent[]>;
}

type EventsWhere = ExpressionBuilder<Database, 'events'>;

/** Over: its stop has passed, or its start when it has no stop. */
const pastAt = (nowUs: number) => (eb: EventsWhere) => eb.or([eb('stop_us', '<=', nowUs), eb.and([eb('stop_us', 'is', null), eb('start_us', '<=', nowUs)])]);

/** Not over, written out (NOT of the above would drop the undated events: NULL in SQL's logic). */
const toComeAt = (nowUs: number) => (eb: EventsWhere) =>
  eb.or([eb('stop_us', '>', nowUs), eb.and([eb('stop_us', 'is', null), eb.or([eb('start_us', '>', nowUs), eb('start_us', 'is', null)])])]);

/**
 * One window (offset, limit) of every event — or every talk — in the list's order: ready events
 * still to come (stop in the future, or start when there is no stop, or no date yet), soonest
 * first and the undated last; then those still being prepared, in the same order; then past ones,
 * newest first.
 */
export async function eventListing(db: Db, nowUs: number, window: { offset: number; limit: number }, talksOnly: boolean): Promise<EventListing> {
  const part = (which: EventListPart) => {
    let query = db.selectFrom('events');
    if (talksOnly) query = query.where('is_talk', '=', 1);
    if (which === 'past') return query.where(pastAt(nowUs));
    return query.where(toComeAt(nowUs)).where('status', which === 'upcoming' ? '=' : '<>', 'r');
  };
  const counts = {} as Record<EventListPart, number>;
  const events = {} as Record<EventListPart, ListedEvent[]>;
  let { offset, limit } = window;
  for (const which of EVENT_LIST_PARTS) {
    const row = await part(which)
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow();
    counts[which] = Number(row.n);
    events[which] = [];
    if (offset >= counts[which]) {
      offset -= counts[which];
      continue;
    }
    if (limit === 0) continue;
    const direction = which === 'past' ? sql`desc nulls last` : sql`asc nulls last`;
    const rows = await part(which)
      .select(['id', 'title', 'place', 'start_us', 'stop_us', 'status'])
      .orderBy('start_us', direction)
      .orderBy('id', which === 'past' ? 'desc' : 'asc')
      .offset(offset)
      .limit(limit)
      .execute();
    events[which] = rows.map((row) => ({ ...eventSummary(row), status: row.status }));
    limit -= rows.length;
    offset = 0;
  }
  return { counts, events };
}
/** The events still to come that a member said they are interested in, soonest first (the undated last). */
export async function eventsInterestingTo(db: Db, userId: number, nowUs: number, limit: number): Promise<EventSummary[]> {
  const rows = await db
    .selectFrom('events')
    .select(['id', 'title', 'place', 'start_us', 'stop_us'])
    .where('id', 'in', db.selectFrom('event_interested').select('event_id').where('user_id', '=', userId))
    .where(toComeAt(nowUs))
    .orderBy('start_us', sql`asc nulls last`)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map(eventSummary);
}

/** The latest meetings, by their event's start (newest first), with the event's title. */
export async function recentMeetings(db: Db, limit: number): Promise<MeetingSummary[]> {
  const rows = await db
    .selectFrom('meetings')
    .innerJoin('events', 'events.id', 'meetings.event_id')
    .select(['meetings.id', 'meetings.event_id', 'events.title', 'events.start_us'])
    .orderBy('events.start_us', 'desc')
    .orderBy('meetings.id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ id: r.id, event_id: r.event_id, title: r.title, start_us: r.start_us === null ? null : Number(r.start_us) }));
}

export interface EventPage extends EventSummary {
  status: string;
  description: string;
  organizer: UserName | null;
  meeting_id: number | null;
}

export async function eventPage(db: Db, id: number): Promise<EventPage | undefined> {
  const row = await db
    .selectFrom('events')
    .leftJoin('users', 'users.id', 'events.organizer_id')
    .leftJoin('meetings', 'meetings.event_id', 'events.id')
    .select([
      'events.id',
      'events.title',
      'events.place',
      'events.start_us',
      'events.stop_us',
      'events.status',
      'events.description',
      'users.id as user_id',
      'users.username',
      'meetings.id as meeting_id',
    ])
    .where('events.id', '=', id)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  return {
    ...eventSummary(row),
    status: row.status,
    description: row.description,
    organizer: row.user_id === null || row.username === null ? null : { id: row.user_id, username: row.username },
    meeting_id: row.meeting_id,
  };
}

export interface MeetingPage extends MeetingSummary {
  agenda: string;
  minutes: string;
  pad: string;
  ongoing: boolean;
  members: UserName[];
}

export async function meetingPage(db: Db, id: number): Promise<MeetingPage | undefined> {
  const row = await db
    .selectFrom('meetings')
    .innerJoin('events', 'events.id', 'meetings.event_id')
    .select(['meetings.id', 'meetings.event_id', 'meetings.agenda', 'meetings.minutes', 'meetings.pad', 'meetings.ongoing', 'events.title', 'events.start_us'])
    .where('meetings.id', '=', id)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  return {
    id: row.id,
    event_id: row.event_id,
    title: row.title,
    start_us: row.start_us === null ? null : Number(row.start_us),
    agenda: row.agenda,
    minutes: row.minutes,
    pad: row.pad,
    ongoing: Boolean(row.ongoing),
    members: await linkedUsers(db, 'meeting_members', 'meeting_id', id),
  };
}

function eventSummary(row: { id: number; title: string; place: string; start_us: number | null; stop_us: number | null }): EventSummary {
  return {
    id: row.id,
    title: row.title,
    place: row.place,
    start_us: row.start_us === null ? null : Number(row.start_us),
    stop_us: row.stop_us === null ? null : Number(row.stop_us),
  };
}

/** The members interested in an event (shown to members only: it is not in the API's event record). */
export function interestedIn(db: Db, eventId: number): Promise<UserName[]> {
  return linkedUsers(db, 'event_interested', 'event_id', eventId);
}

async function linkedUsers(db: Db, table: 'meeting_members' | 'event_interested', column: 'meeting_id' | 'event_id', id: number): Promise<UserName[]> {
  // The link tables have (owner column, user_id); the cast keeps Kysely's checks on one of them.
  const rows = await db
    .selectFrom(table as 'meeting_members')
    .innerJoin('users', 'users.id', 'user_id')
    .select(['users.id', 'users.username'])
    .where(column as 'meeting_id', '=', id)
    .orderBy('users.id')
    .execute();
  return rows;
}
