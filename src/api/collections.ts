import type { Db } from '../db/connection.js';
import type { VersionedTable } from '../db/table-versions.js';
import type { PageWindow, RecordContext } from '../resources/record-context.js';
import { countEvents, eventRecord, findEvent, listEvents, parseEventOrdering } from '../resources/events.js';
import { countMeetings, findMeeting, listMeetings, meetingRecord } from '../resources/meetings.js';
import { countOpenings, findOpening, listOpenings, openingRecord } from '../resources/openings.js';
import { countProjects, findProject, listProjects, projectRecord } from '../resources/projects.js';
import { countUsers, findUser, listUsers, userRecord } from '../resources/users.js';
import { lastValue, type QueryPair } from './query.js';
import type { CollectionPath } from './routes.js';

/** What the HTTP layer needs of a resource, whatever the resource. */
export interface Collection {
  /** DRF's view name: `User` gives `User List` and `User Instance`. */
  readonly viewName: string;
  /** Every table a page or record of it is built from: a write to any of them changes its responses. */
  readonly reads: readonly VersionedTable[];
  count(db: Db): Promise<number>;
  page(db: Db, window: PageWindow, query: readonly QueryPair[], ctx: RecordContext): Promise<unknown[]>;
  find(db: Db, id: number, ctx: RecordContext): Promise<unknown | undefined>;
}

function collection<Row>(
  viewName: string,
  reads: readonly VersionedTable[],
  count: (db: Db) => Promise<number>,
  list: (db: Db, window: PageWindow, query: readonly QueryPair[]) => Promise<Row[]>,
  find: (db: Db, id: number) => Promise<Row | undefined>,
  toRecord: (row: Row, ctx: RecordContext) => unknown,
): Collection {
  return {
    viewName,
    reads,
    count,
    page: async (db, window, query, ctx) => (await list(db, window, query)).map((row) => toRecord(row, ctx)),
    find: async (db, id, ctx) => {
      const row = await find(db, id);
      return row === undefined ? undefined : toRecord(row, ctx);
    },
  };
}

export const collections: Record<CollectionPath, Collection> = {
  // Avatars come from users' e-mail addresses.
  users: collection('User', ['users'], countUsers, listUsers, findUser, userRecord),
  'space/openings': collection('Openings', ['openings'], countOpenings, listOpenings, findOpening, openingRecord),
  // Participants are listed in their usernames' order.
  projects: collection('Project', ['projects', 'project_participants', 'users'], countProjects, listProjects, findProject, projectRecord),
  meetings: collection('Meeting', ['meetings', 'meeting_members', 'users'], countMeetings, listMeetings, findMeeting, meetingRecord),
  events: collection(
    'Event',
    // An event links to its meeting.
    ['events', 'meetings'],
    countEvents,
    (db, window, query) => listEvents(db, window, parseEventOrdering(lastValue(query, 'ordering'))),
    findEvent,
    eventRecord,
  ),
};
