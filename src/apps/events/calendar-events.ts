import type { Db } from '../../db/connection.js';

/** What the calendar feed (apps/events/web/calendar.ts) needs of an event. Times are microseconds since the epoch. */
export interface CalendarEvent {
  id: number;
  title: string;
  place: string;
  start_us: number | null;
  stop_us: number | null;
  description: string;
  /** `r` ready, `i` incubating. */
  status: string;
}

/**
 * The events of the calendar feed: those with a start, that start or stop at `sinceUs` or later
 * (an event still going on, or that went on until then, is kept), by start then id.
 */
export async function eventsForCalendar(db: Db, sinceUs: number): Promise<CalendarEvent[]> {
  const rows = await db
    .selectFrom('events')
    .select(['id', 'title', 'place', 'start_us', 'stop_us', 'description', 'status'])
    .where('start_us', 'is not', null)
    .where((eb) => eb.or([eb('start_us', '>=', sinceUs), eb('stop_us', '>=', sinceUs)]))
    .orderBy('start_us')
    .orderBy('id')
    .execute();
  // PostgreSQL's bigint arrives as a string.
  return rows.map((row) => ({
    id: Number(row.id),
    title: row.title,
    place: row.place,
    start_us: row.start_us === null ? null : Number(row.start_us),
    stop_us: row.stop_us === null ? null : Number(row.stop_us),
    description: row.description,
    status: row.status,
  }));
}
