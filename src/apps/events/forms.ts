import type { Db } from '../../db/connection.js';
import type { RecordFormKind } from '../../handlers/record-form-kinds.js';
import { EVENTS, MEETINGS } from './collections.js';
import { EVENT_STATUS_NAMES } from './web/words.js';

/** The events' forms (members.md §4): `/events/new/`, `/events/<id>/edit/` and `/events/<id>/delete/`. */
export const EVENT_FORMS: RecordFormKind = {
  kind: 'events',
  words: {
    new: 'events.form.new',
    edit: 'events.form.edit',
    notSaved: 'events.form.not-saved',
    changed: 'events.form.changed',
    deleteThis: 'events.form.delete-this',
    deleteQuestion: 'events.form.delete-question',
    deleteTitle: 'events.form.delete-title',
    notFound: 'events.form.not-found',
    mayNotAdd: 'events.form.may-not-add',
    mayNotEdit: 'events.form.may-not-edit',
    mayNotDelete: 'events.form.may-not-delete',
    inUse: 'events.form.in-use',
    fields: {
      title: 'events.field.title',
      place: 'events.field.place',
      start: 'events.field.start',
      stop: 'events.field.stop',
      status: 'events.field.status',
      description: 'events.field.description',
      organizer: 'events.field.organizer',
    },
    choices: { status: EVENT_STATUS_NAMES },
  },
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
  words: {
    new: 'events.meeting.form.new',
    edit: 'events.meeting.form.edit',
    notSaved: 'events.meeting.form.not-saved',
    changed: 'events.meeting.form.changed',
    deleteThis: 'events.meeting.form.delete-this',
    deleteQuestion: 'events.meeting.form.delete-question',
    deleteTitle: 'events.meeting.form.delete-title',
    notFound: 'events.meeting.form.not-found',
    mayNotAdd: 'events.meeting.form.may-not-add',
    mayNotEdit: 'events.meeting.form.may-not-edit',
    mayNotDelete: 'events.meeting.form.may-not-delete',
    fields: {
      event: 'events.meeting.field.event',
      OJ: 'events.meeting.field.OJ',
      PV: 'events.meeting.field.PV',
      members: 'events.meeting.field.members',
      pad: 'events.meeting.field.pad',
    },
  },
  notices: { created: 'events.meeting.notice.created', saved: 'events.meeting.notice.saved', deleted: 'events.meeting.notice.deleted' },
  collection: MEETINGS,
  // A meeting is called after its event (its words say "the meeting of …").
  nameOf: async (db, id) =>
    (await db.selectFrom('meetings').innerJoin('events', 'events.id', 'meetings.event_id').select('events.title').where('meetings.id', '=', id).executeTakeFirst())?.title,
  blank: () => new Map(),
  parent: {
    field: 'event',
    kind: 'events',
    notFound: 'events.form.not-found',
    titleOf: eventTitle,
    ofRecord: async (db, id) => (await db.selectFrom('meetings').select('event_id').where('id', '=', id).executeTakeFirst())?.event_id ?? null,
    existing: async (db, eventId) => (await db.selectFrom('meetings').select('id').where('event_id', '=', eventId).executeTakeFirst())?.id,
  },
};

async function eventTitle(db: Db, id: number): Promise<string | undefined> {
  return (await db.selectFrom('events').select('title').where('id', '=', id).executeTakeFirst())?.title;
}
