import type { Db } from '../../db/connection.js';
import type { RecordFormKind } from '../../handlers/record-form-kinds.js';
import { EVENTS, MEETINGS } from './collections.js';

/** The events' forms (members.md §4): `/events/new/`, `/events/<id>/edit/` and `/events/<id>/delete/`. */
export const EVENT_FORMS: RecordFormKind = {
  kind: 'events',
  noun: 'event',
  aNoun: 'an event',
  notices: { created: 'events.notice.created', saved: 'events.notice.saved', deleted: 'events.notice.deleted' },
  collection: EVENTS,
  nameOf: eventTitle,
  // The schema's first status, the member as its organizer.
  blank: (me) =>
    new Map([
      ['status', ['r']],
      ['organizer', [me]],
    ]),
};

/** The meetings' forms: `/meetings/new/?event=<id>` (one meeting per event), `/meetings/<id>/edit/` and `/meetings/<id>/delete/`. */
export const MEETING_FORMS: RecordFormKind = {
  kind: 'meetings',
  noun: 'meeting',
  aNoun: 'a meeting',
  notices: { created: 'events.meeting.notice.created', saved: 'events.meeting.notice.saved', deleted: 'events.meeting.notice.deleted' },
  collection: MEETINGS,
  // A meeting is called after its event.
  nameOf: async (db, id) => {
    const row = await db.selectFrom('meetings').innerJoin('events', 'events.id', 'meetings.event_id').select('events.title').where('meetings.id', '=', id).executeTakeFirst();
    return row === undefined ? undefined : `Meeting of ${row.title}`;
  },
  blank: () => new Map(),
  parent: {
    field: 'event',
    kind: 'events',
    noun: 'event',
    titleOf: eventTitle,
    ofRecord: async (db, id) => (await db.selectFrom('meetings').select('event_id').where('id', '=', id).executeTakeFirst())?.event_id ?? null,
    existing: async (db, eventId) => (await db.selectFrom('meetings').select('id').where('event_id', '=', eventId).executeTakeFirst())?.id,
  },
};

async function eventTitle(db: Db, id: number): Promise<string | undefined> {
  return (await db.selectFrom('events').select('title').where('id', '=', id).executeTakeFirst())?.title;
}
