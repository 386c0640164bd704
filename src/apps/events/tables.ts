import type { Database } from '../../db/schema.js';
import type { TableDeclaration } from '../../db/table-declaration.js';

/** The events app's tables, declared once (db/table-declaration.ts); in Django's dependency order, join tables after their owner. */
export const EVENTS_TABLES = {
  events: {
    columns: ['id', 'title', 'place', 'start_us', 'stop_us', 'status', 'organizer_id', 'description', 'picture', 'is_talk'],
    counted: true,
    versioned: true,
    collection: 'events',
    model: 'events.event',
    foreignKeys: [{ column: 'organizer_id', references: 'users', onDelete: 'restrict' }],
    indexes: ['events_start_stop', 'events_organizer'],
  },
  event_interested: {
    columns: ['event_id', 'user_id'],
    link: { owner: 'event_id', target: 'user_id' },
    foreignKeys: [
      { column: 'event_id', references: 'events', onDelete: 'cascade' },
      { column: 'user_id', references: 'users', onDelete: 'cascade' },
    ],
    indexes: ['event_interested_user'],
  },
  meetings: {
    columns: ['id', 'event_id', 'agenda', 'minutes', 'pad', 'ongoing'],
    counted: true,
    versioned: true,
    collection: 'meetings',
    model: 'events.meeting',
    foreignKeys: [{ column: 'event_id', references: 'events', onDelete: 'restrict' }],
  },
  meeting_members: {
    columns: ['meeting_id', 'user_id'],
    versioned: true,
    link: { owner: 'meeting_id', target: 'user_id' },
    foreignKeys: [
      { column: 'meeting_id', references: 'meetings', onDelete: 'cascade' },
      { column: 'user_id', references: 'users', onDelete: 'cascade' },
    ],
    indexes: ['meeting_members_user'],
  },
} as const satisfies { readonly [T in 'events' | 'event_interested' | 'meetings' | 'meeting_members']: TableDeclaration<Database[T]> };

/** The events app's tables, added to every table's declaration (db/tables.ts). */
declare module '../../db/tables.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the declaration merges EventsTables's members into Tables.
  interface Tables extends EventsTables {}
}
type EventsTables = typeof EVENTS_TABLES;
