import { collection } from '../../drf/collections.js';
import { lastValue } from '../../drf/query.js';
import * as events from './events.js';
import * as meetings from './meetings.js';
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
});
