import type { Db } from '../db/connection.js';
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
  count(db: Db): Promise<number>;
  page(db: Db, window: PageWindow, query: readonly QueryPair[], ctx: RecordContext): Promise<unknown[]>;
  find(db: Db, id: number, ctx: RecordContext): Promise<unknown | undefined>;
}

function collection<Row>(
  viewName: string,
  count: (db: Db) => Promise<number>,
  list: (db: Db, window: PageWindow, query: readonly QueryPair[]) => Promise<Row[]>,
  find: (db: Db, id: number) => Promise<Row | undefined>,
  toRecord: (row: Row, ctx: RecordContext) => unknown,
): Collection {
  return {
    viewName,
    count,
    page: async (db, window, query, ctx) => (await list(db, window, query)).map((row) => toRecord(row, ctx)),
    find: async (db, id, ctx) => {
      const row = await find(db, id);
      return row === undefined ? undefined : toRecord(row, ctx);
    },
  };
}

export const collections: Record<CollectionPath, Collection> = {
  users: collection('User', countUsers, listUsers, findUser, userRecord),
  'space/openings': collection('Openings', countOpenings, listOpenings, findOpening, openingRecord),
  projects: collection('Project', countProjects, listProjects, findProject, projectRecord),
  meetings: collection('Meeting', countMeetings, listMeetings, findMeeting, meetingRecord),
  events: collection(
    'Event',
    countEvents,
    (db, window, query) => listEvents(db, window, parseEventOrdering(lastValue(query, 'ordering'))),
    findEvent,
    eventRecord,
  ),
};
