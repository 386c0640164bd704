import { linked, optionalTime } from '../../interchange/export.js';
import { link, type ModelDeclarations } from '../../interchange/models.js';
import { EVENT_STATUSES } from './events.js';
import { EVENTS_TABLES } from './tables.js';

const INTERESTED = link('interested', EVENTS_TABLES, 'event_interested');
const MEMBERS = link('members', EVENTS_TABLES, 'meeting_members');

/** The original's models the events app imports and exports: the events and their meetings. */
export const EVENTS_MODELS: ModelDeclarations<typeof EVENTS_TABLES> = {
  'events.event': {
    fields: new Set(['title', 'place', 'start', 'stop', 'status', 'organizer', 'description', 'picture', 'interested', 'is_talk']),
    read: (f) => ({
      values: [
        f.string('title'),
        f.string('place', ''),
        f.nullableTime('start'),
        f.nullableTime('stop'),
        f.choice('status', EVENT_STATUSES),
        f.nullableReference('organizer'),
        f.string('description', ''),
        f.path('picture', 100),
        f.boolean('is_talk', false),
      ],
      links: [f.references('interested')],
    }),
    links: [INTERESTED],
    page: async (db, after, limit, fit) => {
      const rows = await db.selectFrom('events').selectAll().where('id', '>', after).orderBy('id').limit(limit).execute();
      const interested = await linked(
        db,
        INTERESTED,
        rows.map((r) => r.id),
      );
      const times = fit.times;
      return rows.map((r) => ({
        pk: r.id,
        fields: {
          title: fit.text(r.title, 300),
          place: fit.text(r.place, 300),
          start: optionalTime(times, r.start_us),
          stop: optionalTime(times, r.stop_us),
          status: r.status,
          organizer: r.organizer_id ?? fit.organizerStandInPk(),
          description: r.description,
          picture: r.picture === null ? null : fit.text(r.picture, 100),
          interested: interested.get(r.id) ?? [],
          is_talk: r.is_talk === 1,
        },
      }));
    },
  },

  'events.meeting': {
    fields: new Set(['event', 'OJ', 'PV', 'members', 'pad', 'ongoing']),
    read: (f) => ({
      values: [f.reference('event'), f.string('OJ', ''), f.string('PV', ''), f.string('pad', ''), f.boolean('ongoing', false)],
      links: [f.references('members')],
    }),
    links: [MEMBERS],
    unique: {
      field: 'event',
      column: 'event_id',
      index: 0,
      describe: (value, otherPk, where) =>
        `events.event pk ${String(value)} already has a meeting (events.meeting pk ${otherPk} ${where === 'file' ? 'in this file' : 'in the database'}); an event has at most one meeting`,
    },
    page: async (db, after, limit, fit) => {
      const rows = await db.selectFrom('meetings').selectAll().where('id', '>', after).orderBy('id').limit(limit).execute();
      const members = await linked(
        db,
        MEMBERS,
        rows.map((r) => r.id),
      );
      return rows.map((r) => ({
        pk: r.id,
        fields: {
          event: r.event_id,
          OJ: r.agenda,
          PV: r.minutes,
          members: members.get(r.id) ?? [],
          pad: fit.text(r.pad, 200),
          ongoing: r.ongoing === 1,
        },
      }));
    },
  },
};
