import { sql, type ExpressionBuilder } from 'kysely';
import type { Db } from '../db/connection.js';
import type { Database } from '../db/schema.js';

/**
 * What the web pages show of the community, read straight from the tables: the dashboard's lists
 * and the detail pages' records with the names they link to. No e-mail address is ever selected.
 */

export interface UserName {
  id: number;
  username: string;
}

export interface ProjectSummary {
  id: number;
  title: string;
  status: string;
  progress: number;
  short_description: string;
  maintainer: UserName;
}

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

/**
 * One window (offset, limit) of every event — or every talk — in the list's order: ready events
 * still to come (stop in the future, or start when there is no stop, or no date yet), soonest
 * first and the undated last; then those still being prepared, in the same order; then past ones,
 * newest first.
 */
type EventsWhere = ExpressionBuilder<Database, 'events'>;

/** Over: its stop has passed, or its start when it has no stop. */
const pastAt = (nowUs: number) => (eb: EventsWhere) => eb.or([eb('stop_us', '<=', nowUs), eb.and([eb('stop_us', 'is', null), eb('start_us', '<=', nowUs)])]);

/** Not over, written out (NOT of the above would drop the undated events: NULL in SQL's logic). */
const toComeAt = (nowUs: number) => (eb: EventsWhere) =>
  eb.or([eb('stop_us', '>', nowUs), eb.and([eb('stop_us', 'is', null), eb.or([eb('start_us', '>', nowUs), eb('start_us', 'is', null)])])]);

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

/** Projects with their maintainer's name (never the e-mail address). */
function selectProjects(db: Db) {
  return db
    .selectFrom('projects')
    .innerJoin('users', 'users.id', 'projects.maintainer_id')
    .select(['projects.id', 'projects.title', 'projects.status', 'projects.progress', 'projects.short_description', 'users.id as user_id', 'users.username']);
}

type ProjectRow = Awaited<ReturnType<ReturnType<typeof selectProjects>['executeTakeFirstOrThrow']>>;

function projectSummary({ user_id, username, ...project }: ProjectRow): ProjectSummary {
  return { ...project, maintainer: { id: user_id, username } };
}

/** Every project with its maintainer's name, by id (the dashboard groups them by status). */
export async function projectSummaries(db: Db): Promise<ProjectSummary[]> {
  const rows = await selectProjects(db).orderBy('projects.id').execute();
  return rows.map(projectSummary);
}

/** The projects a member maintains or takes part in, by id. */
export async function projectsOf(db: Db, userId: number): Promise<ProjectSummary[]> {
  const rows = await selectProjects(db)
    .where((eb) =>
      eb.or([eb('projects.maintainer_id', '=', userId), eb('projects.id', 'in', eb.selectFrom('project_participants').select('project_id').where('user_id', '=', userId))]),
    )
    .orderBy('projects.id')
    .execute();
  return rows.map(projectSummary);
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

/** How many members there are, and how many of them hold a key. */
export async function memberCounts(db: Db): Promise<{ members: number; keyHolders: number }> {
  const row = await db
    .selectFrom('users')
    .select((eb) => [eb.fn.countAll<string | number>().as('members'), eb.fn.sum<string | number | null>('has_key').as('key_holders')])
    .executeTakeFirstOrThrow();
  return { members: Number(row.members), keyHolders: Number(row.key_holders ?? 0) };
}

export interface ProjectPage extends ProjectSummary {
  content: string;
  participants: UserName[];
}

export async function projectPage(db: Db, id: number): Promise<ProjectPage | undefined> {
  const row = await selectProjects(db).select('projects.content').where('projects.id', '=', id).executeTakeFirst();
  if (row === undefined) return undefined;
  const { content, ...summary } = row;
  return { ...projectSummary(summary), content, participants: await linkedUsers(db, 'project_participants', 'project_id', id) };
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

export interface MemberPage extends UserName {
  hasKey: boolean;
  /** First and last name, only when the member chose to show them (users.show_name); never the e-mail address. */
  fullName: string | null;
  /** Markdown. */
  description: string;
  maintains: { id: number; title: string }[];
  participates: { id: number; title: string }[];
}

export async function memberPage(db: Db, id: number, withProjects = true): Promise<MemberPage | undefined> {
  const user = await db.selectFrom('users').select(['id', 'username', 'has_key', 'first_name', 'last_name', 'show_name', 'description']).where('id', '=', id).executeTakeFirst();
  if (user === undefined) return undefined;
  const name = `${user.first_name} ${user.last_name}`.trim();
  // With the projects turned off (APPS), the page names none: their pages answer 404.
  const maintains = withProjects ? await db.selectFrom('projects').select(['id', 'title']).where('maintainer_id', '=', id).orderBy('id').execute() : [];
  const participates = withProjects
    ? await db
        .selectFrom('project_participants')
        .innerJoin('projects', 'projects.id', 'project_participants.project_id')
        .select(['projects.id', 'projects.title'])
        .where('project_participants.user_id', '=', id)
        .orderBy('projects.id')
        .execute()
    : [];
  return {
    id: user.id,
    username: user.username,
    hasKey: Boolean(user.has_key),
    fullName: user.show_name === 1 && name !== '' ? name : null,
    description: user.description ?? '',
    maintains,
    participates,
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

async function linkedUsers(
  db: Db,
  table: 'project_participants' | 'meeting_members' | 'event_interested',
  column: 'project_id' | 'meeting_id' | 'event_id',
  id: number,
): Promise<UserName[]> {
  // The link tables have (owner column, user_id); the cast keeps Kysely's checks on one of them.
  const rows = await db
    .selectFrom(table as 'project_participants')
    .innerJoin('users', 'users.id', 'user_id')
    .select(['users.id', 'users.username'])
    .where(column as 'project_id', '=', id)
    .orderBy('users.id')
    .execute();
  return rows;
}
