import { collection } from '../../drf/collections.js';
import { lastValue } from '../../drf/query.js';
import * as events from './events.js';
import * as meetings from './meetings.js';
import type { Db } from '../../db/connection.js';
import type { MemberWrites } from '../../drf/member-writes.js';
import { hasRight, mayAddMeeting, mayEditEvent, mayEditMeeting } from '../users/index.js';

const EVENT_RIGHTS = { add: 'events.add_event', change: 'events.change_event', delete: 'events.delete_event' } as const;
const MEETING_RIGHTS = { add: 'events.add_meeting', change: 'events.change_meeting', delete: 'events.delete_meeting' } as const;

/** Members write events with the model's rights; an organizer also edits their own (members.md §3). */
const EVENT_WRITES: MemberWrites = {
  rights: EVENT_RIGHTS,
  mayCreate: (db, userId) => hasRight(db, userId, EVENT_RIGHTS.add),
  mayEdit: mayEditEvent,
  mayDelete: (db, userId) => hasRight(db, userId, EVENT_RIGHTS.delete),
  owner: { field: 'organizer', mayChoose: (db, userId) => hasRight(db, userId, EVENT_RIGHTS.change) },
};

/** Members write meetings with the model's rights; an event's organizer also adds and edits its meeting (members.md §3). */
const MEETING_WRITES: MemberWrites = {
  rights: MEETING_RIGHTS,
  addedByRecord: true,
  // An unknown event is the fields' 400, not a 403.
  mayCreate: async (db, userId, input) => {
    if (await hasRight(db, userId, MEETING_RIGHTS.add)) return true;
    const eventId = (input as { event?: number }).event;
    return eventId !== undefined && (!(await eventExists(db, eventId)) || (await mayAddMeeting(db, userId, eventId)));
  },
  mayEdit: mayEditMeeting,
  // An organizer without `change_meeting` may not move a meeting to an event they do not organize.
  mayEditTo: async (db, userId, id, input) => {
    if (await hasRight(db, userId, MEETING_RIGHTS.change)) return true;
    const eventId = (input as { event?: number }).event;
    if (eventId === undefined) return true;
    const meeting = await db.selectFrom('meetings').select('event_id').where('id', '=', id).executeTakeFirstOrThrow();
    return eventId === meeting.event_id || !(await eventExists(db, eventId)) || (await mayAddMeeting(db, userId, eventId));
  },
  mayDelete: (db, userId) => hasRight(db, userId, MEETING_RIGHTS.delete),
};

async function eventExists(db: Db, id: number): Promise<boolean> {
  return (await db.selectFrom('events').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}
import { EVENTS_TABLES } from './tables.js';

/** `/api/events/`, first in the API root. */
export const EVENTS = collection(EVENTS_TABLES, {
  viewName: 'Event',
  rootOrder: 1,
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
  memberWrites: EVENT_WRITES,
});

/** `/api/meetings/`. */
export const MEETINGS = collection(EVENTS_TABLES, {
  viewName: 'Meeting',
  rootOrder: 2,
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
  memberWrites: MEETING_WRITES,
});
