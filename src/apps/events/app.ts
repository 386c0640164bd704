import type { AppDeclaration } from '../../http/app-declaration.js';
import { EVENTS_LOCALE } from './words.js';
import { EVENTS_PANELS } from './web/panels.js';
import type { Route } from '../../http/route.js';
import { originalPaths, originalRecordAddress } from '../../routes/original-addresses.js';
import { detailRoute, METHODS, pageRoute, PAGE_HEADERS, pattern } from '../../routes/pages.js';
import { formRoutes } from '../../routes/record-forms.js';
import { HTML_TYPE } from '../../web/layout.js';
import { eventListPage } from './web/list.js';
import { eventDetail, meetingDetail } from './web/details.js';
import { EVENT_FORMS, MEETING_FORMS } from './forms.js';
import { recordNotices } from '../../web/notices.js';
import { FORM_MEMBERS, takingPartRoutes } from '../users/index.js';
import { eventsForCalendar } from './calendar-events.js';
import { EVENTS, MEETINGS } from './collections.js';
import { calendarFeed, calendarSinceUs } from './web/calendar.js';
import { EVENTS_MODELS } from './interchange.js';
import { EVENTS_TABLES } from './tables.js';

/**
 * The events and their meetings (members.md §4): `/api/events/`, `/api/meetings/`, the lists,
 * pages and forms, and the calendar feed. The original's `events` app. This module is its one
 * public face.
 */

const PAGES: readonly Route[] = [
  // The lists; before the pages, whose `/events/<id>/` would match `/events/talks/`.
  ...[false, true].map((talks) =>
    pageRoute(talks ? 'talks' : 'events', talks ? '/events/talks/' : '/events/', pattern(talks ? /^\/events\/talks\/$/ : /^\/events\/$/), {
      reads: ['events'],
      type: HTML_TYPE,
      headers: PAGE_HEADERS,
      // An event moves from "upcoming" to "past" as time goes by: rebuilt at least every minute.
      maxAgeMs: 60_000,
      build: (ctx) => eventListPage(ctx, talks),
    }),
  ),
  // A meeting's page names its event's title.
  detailRoute('meetings', [...MEETINGS.reads, 'events'], meetingDetail),
  // An event's page names its organizer.
  detailRoute('events', [...EVENTS.reads, 'users'], eventDetail),
  // `/events/urlab.ics` is the original service's path, for installations migrating from it.
  pageRoute(
    'calendar',
    '/events.ics',
    pattern(/^\/events(?:\/urlab)?\.ics$/),
    {
      reads: ['events'],
      type: 'text/calendar; charset=utf-8',
      headers: { allow: METHODS.join(', '), vary: 'Accept-Encoding' },
      // The feed keeps the last 180 days: its window moves by the hour at most.
      maxAgeMs: 3_600_000,
      build: async ({ db, site, base, nowMs }) => {
        const events = await eventsForCalendar(db, calendarSinceUs(nowMs * 1000));
        return Buffer.from(calendarFeed(events, { baseUrl: base, name: site.name, nowUs: nowMs * 1000 }));
      },
    },
    false,
  ),
];

export const eventsApp: AppDeclaration = {
  name: 'events',
  locale: EVENTS_LOCALE,
  needs: ['users'],
  migrations: {},
  tables: EVENTS_TABLES,
  models: EVENTS_MODELS,
  optional: true,
  collections: [EVENTS, MEETINGS],
  routes: [
    // The original's addresses of the pages and forms (members.md §4), each a 301 to ours.
    originalPaths('original new event', ['/events/add', '/events/add/'], '/events/new/'),
    originalRecordAddress('original event edit', '/events/edit', (id) => `/events/${id}/edit/`),
    originalRecordAddress('original event interested', '/events/interested', (id) => `/events/${id}/`),
    originalRecordAddress('original event not interested', '/events/not_interested', (id) => `/events/${id}/`),
    originalRecordAddress('original new meeting', '/events/add_meeting', (id) => `/meetings/new/?event=${id}`),
    originalRecordAddress('original meeting edit', '/events/edit_meeting', (id) => `/meetings/${id}/edit/`),
    // The forms before the pages: `/events/new/` is no event's page.
    ...formRoutes(EVENT_FORMS, FORM_MEMBERS),
    ...formRoutes(MEETING_FORMS, FORM_MEMBERS),
    ...PAGES,
    ...takingPartRoutes('events'),
  ],
  panels: EVENTS_PANELS,
  notices: { ...recordNotices(EVENT_FORMS), ...recordNotices(MEETING_FORMS) },
  nav: [
    { href: '/events/', label: 'events.nav', order: 20 },
    { href: '/events.ics', label: 'events.nav.calendar', order: 90, calendar: 'events.nav' },
  ],
};
