import type { TObject } from '@sinclair/typebox';
import type { Db } from '../db/connection.js';
import type { VersionedTable } from '../db/table-versions.js';
import { TABLES, type CollectionTable } from '../db/tables.js';
import * as events from '../resources/events.js';
import * as meetings from '../resources/meetings.js';
import * as openings from '../resources/openings.js';
import * as projects from '../resources/projects.js';
import type { PageWindow, RecordContext } from '../resources/record-context.js';
import * as users from '../resources/users.js';
import { FieldErrors } from '../resources/write-errors.js';
import { lastValue, type QueryPair } from './query.js';

/**
 * The API's collections, each declared once: its table (whose declaration in db/tables.ts gives
 * its path under `/api/`), its resource module's queries and writes, its record and writable-field
 * schemas, DRF's view name, and the tables its responses are built from. Routing, the API root,
 * reads, writes and OPTIONS all derive from this list. Every table declared with a `collection`
 * must have its entry here (the compiler names a missing one).
 */
export interface Collection<Path extends string = string, Table extends CollectionTable = CollectionTable> {
  /** Where it lives: `/api/<path>/` and `/api/<path>/<id>/` (its table's `collection`). */
  readonly path: Path;
  /** DRF's view name: `User` gives `User List` and `User Instance` (OPTIONS). */
  readonly viewName: string;
  /** The table its records are stored in. */
  readonly table: Table;
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

interface Declaration<Table extends CollectionTable, Row> extends Omit<Collection<string, Table>, 'path' | 'page' | 'find'> {
  list: (db: Db, window: PageWindow, query: readonly QueryPair[]) => Promise<Row[]>;
  find: (db: Db, id: number) => Promise<Row | undefined>;
  toRecord: (row: Row, ctx: RecordContext) => unknown;
}

/** A table's collection path, as db/tables.ts declares it. */
type PathOf<Table extends CollectionTable> = (typeof TABLES)[Table]['collection'];

function collection<const Table extends CollectionTable, Row>({ list, find, toRecord, ...rest }: Declaration<Table, Row>): Collection<PathOf<Table>, Table> {
  return {
    ...rest,
    path: TABLES[rest.table].collection,
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

/** The compiler names a table declared with a collection that has no entry above. */
type AssertNone<T extends never> = T;
export type EveryCollectionListed = AssertNone<Exclude<CollectionTable, (typeof COLLECTIONS)[number]['table']>>;

/** The collections by path. */
export const collections = Object.fromEntries(COLLECTIONS.map((c) => [c.path, c])) as Readonly<Record<CollectionPath, Collection<CollectionPath>>>;

/** Every collection's path, in the API root's order. */
export const COLLECTION_PATHS: readonly CollectionPath[] = COLLECTIONS.map((c) => c.path);
