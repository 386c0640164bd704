import type { Generated } from 'kysely';

/** Booleans are 0/1 integers (SQLite has no boolean type) and instants are integer microseconds since the epoch (time.ts). */

export interface EventsTable {
  id: Generated<number>;
  title: string;
  place: string;
  start_us: number | null;
  stop_us: number | null;
  status: string;
  organizer_id: number | null;
  description: string;
  /** Stored path below the media root; '' or null when the event has no picture. */
  picture: string | null;
  is_talk: Generated<number>;
}

export interface EventInterestedTable {
  event_id: number;
  user_id: number;
}

export interface MeetingsTable {
  id: Generated<number>;
  event_id: number;
  /** The original's `OJ` (ordre du jour). */
  agenda: string;
  /** The original's `PV` (procès-verbal). */
  minutes: string;
  pad: string;
  ongoing: number;
}

export interface MeetingMembersTable {
  meeting_id: number;
  user_id: number;
}

/** The events app's tables, added to the Database type every query is checked against (db/schema.ts). */
declare module '../../db/schema.js' {
  interface Database {
    events: EventsTable;
    event_interested: EventInterestedTable;
    meetings: MeetingsTable;
    meeting_members: MeetingMembersTable;
  }
}
