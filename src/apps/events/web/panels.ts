import { eventsInterestingTo, recentMeetings, upcomingEvents, type EventSummary, type MeetingSummary } from '../pages.js';
import type { DashboardPanel } from '../../../web/dashboard.js';
import type { PageTimes } from '../../../web/format.js';
import { html, type Html } from '../../../web/html.js';
import { eventItem } from './list.js';

const UPCOMING_EVENTS = 10;
const RECENT_MEETINGS = 5;

/** The events' parts of the dashboard: those to come (and, for a member, those they are interested in) and the recent meetings. */
export const EVENTS_PANELS: readonly DashboardPanel[] = [
  {
    place: 'mine',
    order: 2,
    reads: [],
    build: async ({ db, viewer, nowMs, times }) => {
      const events = await eventsInterestingTo(db, viewer!.id, nowMs * 1000, UPCOMING_EVENTS);
      return {
        html: html`<section aria-labelledby="my-events-heading">
<h3 id="my-events-heading">Events you are interested in</h3>
${events.length === 0 ? html`<p>None to come. <a href="/events/">See the events</a>.</p>` : html`<ul>${events.map((event) => eventItem(event, times))}</ul>`}
</section>`,
      };
    },
  },
  {
    place: 'column',
    order: 1,
    reads: ['events'],
    build: async ({ db, nowMs, times }) => ({ html: eventsSection(await upcomingEvents(db, nowMs * 1000, UPCOMING_EVENTS), times) }),
  },
  // A meeting is named after its event.
  { place: 'column', order: 2, reads: ['meetings', 'events'], build: async ({ db, times }) => ({ html: meetingsSection(await recentMeetings(db, RECENT_MEETINGS), times) }) },
];

function eventsSection(events: EventSummary[], times: PageTimes): Html {
  const items = events.map((event) => eventItem(event, times));
  return html`<section class="events" aria-labelledby="events-heading">
<h2 id="events-heading">Upcoming events</h2>
${items.length > 0 ? html`<ul>${items}</ul>` : html`<p>No upcoming event.</p>`}
<p><a href="/events.ics">Subscribe to the calendar</a> (iCalendar feed)</p>
</section>`;
}

function meetingsSection(meetings: MeetingSummary[], times: PageTimes): Html {
  const items = meetings.map(
    (m) => html`<li><a href="/meetings/${m.id}/">${m.title}</a>${m.start_us === null ? '' : html` <span class="when">${times.date(m.start_us)}</span>`}</li>`,
  );
  return html`<section class="meetings" aria-labelledby="meetings-heading">
<h2 id="meetings-heading">Recent meetings</h2>
${items.length === 0 ? html`<p>No meeting yet.</p>` : html`<ul>${items}</ul>`}
</section>`;
}
