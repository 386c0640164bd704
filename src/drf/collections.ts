import type { TObject } from '@sinclair/typebox';
import type { Db } from '../db/connection.js';
import type { VersionedTable } from '../db/table-versions.js';
import * as events from '../resources/events.js';
import * as meetings from '../resources/meetings.js';
import * as openings from '../resources/openings.js';
import * as projects from '../resources/projects.js';
import type { PageWindow, RecordContext } from '../resources/record-context.js';
import * as users from '../resources/users.js';
import { FieldErrors } from '../resources/write-errors.js';
import { lastValue, type QueryPair } from './query.js';

/**
 * The API's collections, each declared once: its path under `/api/`, its resource module's
 * queries and writes, its record and writable-field schemas, DRF's view name, and the tables its
 * responses are built from. Routing, the API root, reads, writes and OPTIONS all derive from this
 * list. Adding a collection is one entry here plus its resource module.
 */
export interface Collection<Path extends string = string> {
  /** Where it lives: `/api/<path>/` and `/api/<path>/<id>/`. */
  readonly path: Path;
  /** DRF's view name: `User` gives `User List` and `User Instance` (OPTIONS). */
  readonly viewName: string;
  /** The table its records are stored in. */
  readonly table: 'users' | 'openings' | 'projects' | 'events' | 'meetings';
  /** Every table a page or record of it is built from: a write to any of them changes its responses. */
  readonly reads: readonly VersionedTable[];
  /** What a record looks like (OPTIONS describes its read-only fields from it). */
  readonly record: TObject;
  /** The fields a client may write, validated by drf/serializer.ts. */
  readonly fields: TObject;
  count(db: Db): Promise<number>;
  page(db: Db, window: PageWindow, query: readonly QueryPair[], ctx: RecordContext): Promise<unknown[]>;
  find(db: Db, id: number, ctx: RecordContext): Promise<unknown>;
  // Each collection's input is its own `fields`' type; readFields() validated it against them.
  /** Creates a record from validated fields; null where POST is not a plain create (the door's openings). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly create: ((db: Db, input: any, nowUs: number) => Promise<number>) | null;
  /** Sets the given fields; false when there is no such record. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  update(db: Db, id: number, input: any, nowUs: number): Promise<boolean>;
  /** False when there is no such record; a ConflictError while others refer to it. */
  remove(db: Db, id: number): Promise<boolean>;
}

interface Declaration<Path extends string, Row> extends Omit<Collection<Path>, 'page' | 'find'> {
  list: (db: Db, window: PageWindow, query: readonly QueryPair[]) => Promise<Row[]>;
  find: (db: Db, id: number) => Promise<Row | undefined>;
  toRecord: (row: Row, ctx: RecordContext) => unknown;
}

function collection<const Path extends string, Row>({ list, find, toRecord, ...rest }: Declaration<Path, Row>): Collection<Path> {
  return {
    ...rest,
    page: async (db, window, query, ctx) => (await list(db, window, query)).map((row) => toRecord(row, ctx)),
    find: async (db, id, ctx) => {
      const row = await find(db, id);
      return row === undefined ? undefined : toRecord(row, ctx);
    },
  };
}

/** History is about the past: a future opening would also stamp every later door report. */
export function refuseFutureTime(input: Partial<openings.OpeningInput>, nowUs: number): void {
  if (input.time !== undefined && input.time > nowUs) throw new FieldErrors({ time: ['This time is in the future.'] });
}

/** In the order of the API root's keys. */
export const COLLECTIONS = [
  collection({
    path: 'events',
    viewName: 'Event',
    table: 'events',
    // An event links to its meeting.
    reads: ['events', 'meetings'],
    record: events.EventRecord,
    fields: events.EventFields,
    count: events.countEvents,
    list: (db, window, query) => events.listEvents(db, window, events.parseEventOrdering(lastValue(query, 'ordering'))),
    find: events.findEvent,
    toRecord: events.eventRecord,
    create: (db, input: events.EventInput) => events.createEvent(db, input),
    update: (db, id, input: Partial<events.EventInput>) => events.updateEvent(db, id, input),
    remove: events.deleteEvent,
  }),
  collection({
    path: 'meetings',
    viewName: 'Meeting',
    table: 'meetings',
    reads: ['meetings', 'meeting_members', 'users'],
    record: meetings.MeetingRecord,
    fields: meetings.MeetingFields,
    count: meetings.countMeetings,
    list: meetings.listMeetings,
    find: meetings.findMeeting,
    toRecord: meetings.meetingRecord,
    create: (db, input: meetings.MeetingInput) => meetings.createMeeting(db, input),
    update: (db, id, input: Partial<meetings.MeetingInput>) => meetings.updateMeeting(db, id, input),
    remove: meetings.deleteMeeting,
  }),
  collection({
    path: 'users',
    viewName: 'User',
    table: 'users',
    // Avatars come from users' e-mail addresses.
    reads: ['users'],
    record: users.UserRecord,
    fields: users.UserFields,
    count: users.countUsers,
    list: users.listUsers,
    find: users.findUser,
    toRecord: users.userRecord,
    create: (db, input: users.UserInput, nowUs) => users.createUser(db, input, nowUs),
    update: (db, id, input: Partial<users.UserInput>, nowUs) => users.updateUser(db, id, input, nowUs),
    remove: users.deleteUser,
  }),
  collection({
    path: 'projects',
    viewName: 'Project',
    table: 'projects',
    // Participants are listed in their usernames' order.
    reads: ['projects', 'project_participants', 'users'],
    record: projects.ProjectRecord,
    fields: projects.ProjectFields,
    count: projects.countProjects,
    list: projects.listProjects,
    find: projects.findProject,
    toRecord: projects.projectRecord,
    create: (db, input: projects.ProjectInput, nowUs) => projects.createProject(db, input, nowUs),
    update: (db, id, input: Partial<projects.ProjectInput>, nowUs) => projects.updateProject(db, id, input, nowUs),
    remove: projects.deleteProject,
  }),
  collection({
    path: 'space/openings',
    viewName: 'Openings',
    table: 'openings',
    reads: ['openings'],
    record: openings.OpeningRecord,
    fields: openings.OpeningFields,
    count: openings.countOpenings,
    list: openings.listOpenings,
    find: openings.findOpening,
    toRecord: openings.openingRecord,
    // A POST is a door report, under the door's rule (handlers/door.ts).
    create: null,
    update: (db, id, input: Partial<openings.OpeningInput>, nowUs) => {
      refuseFutureTime(input, nowUs);
      return openings.updateOpening(db, id, input);
    },
    remove: openings.deleteOpening,
  }),
] as const;

export type CollectionPath = (typeof COLLECTIONS)[number]['path'];

/** The collections by path. */
export const collections = Object.fromEntries(COLLECTIONS.map((c) => [c.path, c])) as Readonly<Record<CollectionPath, Collection<CollectionPath>>>;

/** Every collection's path, in the API root's order. */
export const COLLECTION_PATHS: readonly CollectionPath[] = COLLECTIONS.map((c) => c.path);
