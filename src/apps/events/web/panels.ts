import { eventsInterestingTo, recentMeetings, upcomingEvents, type EventSummary, type MeetingSummary } from '../pages.js';
import type { Words } from '../../../i18n/words.js';
import type { DashboardPanel } from '../../../web/dashboard.js';
import { html, type Html } from '../../../web/html.js';
import { wordsHtml } from '../../../web/words-html.js';
import { eventItem } from './list.js';

const UPCOMING_EVENTS = 10;
const RECENT_MEETINGS = 5;

/** The events' parts of the dashboard: those to come (and, for a member, those they are interested in) and the recent meetings. */
export const EVENTS_PANELS: readonly DashboardPanel[] = [
  {
    place: 'mine',
    order: 2,
    reads: [],
    build: async ({ db, viewer, nowMs, words }) => {
      const events = await eventsInterestingTo(db, viewer!.id, nowMs * 1000, UPCOMING_EVENTS);
      return {
        html: html`<section aria-labelledby="my-events-heading">
<h3 id="my-events-heading">${words.t('events.panel.mine')}</h3>
${
  events.length === 0
    ? html`<p>${wordsHtml(words, 'events.panel.mine-empty', {}, { link: (chunks) => html`<a href="/events/">${chunks}</a>` })}</p>`
    : html`<ul>${events.map((event) => eventItem(event, words))}</ul>`
}
</section>`,
      };
    },
  },
  {
    place: 'column',
    order: 1,
    reads: ['events'],
    build: async ({ db, nowMs, words }) => ({ html: eventsSection(words, await upcomingEvents(db, nowMs * 1000, UPCOMING_EVENTS)) }),
  },
  // A meeting is named after its event.
  {
    place: 'column',
    order: 2,
    reads: ['meetings', 'events'],
    build: async ({ db, words }) => ({ html: meetingsSection(words, await recentMeetings(db, RECENT_MEETINGS)) }),
  },
];

function eventsSection(words: Words, events: EventSummary[]): Html {
  const items = events.map((event) => eventItem(event, words));
  return html`<section class="events" aria-labelledby="events-heading">
<h2 id="events-heading">${words.t('events.panel.upcoming')}</h2>
${items.length > 0 ? html`<ul>${items}</ul>` : html`<p>${words.t('events.panel.no-upcoming')}</p>`}
<p>${wordsHtml(words, 'events.panel.subscribe', {}, { link: (chunks) => html`<a href="/events.ics">${chunks}</a>` })}</p>
</section>`;
}

function meetingsSection(words: Words, meetings: MeetingSummary[]): Html {
  const items = meetings.map(
    (m) => html`<li><a href="/meetings/${m.id}/">${m.title}</a>${m.start_us === null ? '' : html` <span class="when">${words.dateTime(m.start_us)}</span>`}</li>`,
  );
  return html`<section class="meetings" aria-labelledby="meetings-heading">
<h2 id="meetings-heading">${words.t('events.panel.meetings')}</h2>
${items.length === 0 ? html`<p>${words.t('events.panel.no-meeting')}</p>` : html`<ul>${items}</ul>`}
</section>`;
}
