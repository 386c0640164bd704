import type { Db } from '../db/connection.js';
import { openingHours, DEFAULT_WEEKS } from '../resources/opening-hours.js';
import { currentSpaceState, type SpaceState } from '../resources/openings.js';
import { memberCounts, projectSummaries, recentMeetings, upcomingEvents, type EventSummary, type MeetingSummary, type ProjectSummary } from '../resources/overview.js';
import type { TimeFormatter } from '../time.js';
import { DAY_MS, daysSince, STALE_DAYS, type PageTimes } from './format.js';
import { openingHoursSection } from './heatmap.js';
import { html, type Html } from './html.js';
import { layout, type Site } from './layout.js';
import { PROJECT_STATUS_NAMES, eventWhen } from './words.js';

const UPCOMING_EVENTS = 10;
const RECENT_MEETINGS = 5;

/** The dashboard at `/` (web.md §3): the state first, then the opening hours, events, projects, meetings and members. */
export async function dashboardPage(db: Db, site: Site, times: PageTimes, zone: TimeFormatter, nowMs: number): Promise<Buffer> {
  const nowUs = nowMs * 1000;
  const [state, openShare, events, projects, meetings, members] = await Promise.all([
    currentSpaceState(db),
    openingHours(db, zone, nowUs, DEFAULT_WEEKS),
    upcomingEvents(db, nowUs, UPCOMING_EVENTS),
    projectSummaries(db),
    recentMeetings(db, RECENT_MEETINGS),
    memberCounts(db),
  ]);
  const main = html`${stateSection(state, times, nowMs)}
${openingHoursSection(openShare, DEFAULT_WEEKS)}
<div class="columns">
${eventsSection(events, times)}
${meetingsSection(meetings, times)}
${membersSection(members)}
</div>
${projectsSection(projects)}`;
  return layout(site, { title: stateWord(state), main, live: true });
}

function stateWord(state: SpaceState): string {
  return state.isOpen === null ? 'Unknown' : state.isOpen ? 'Open' : 'Closed';
}

/** The state, large and first, with the #space-state[data-open] hook that monitoring scripts read (absent while unknown). */
function stateSection(state: SpaceState, times: PageTimes, nowMs: number): Html {
  const open = state.isOpen === null ? '' : html` data-open="${String(state.isOpen)}"`;
  let since: Html;
  if (state.sinceUs === null) since = html`<p class="state-since">Nothing has been recorded yet: the door has never reported.</p>`;
  else {
    const stale = nowMs - state.sinceUs / 1000 > STALE_DAYS * DAY_MS;
    since = html`<p class="state-since">since <span class="state-absolute">${times.date(state.sinceUs)}</span> (<time datetime="${times.isoDate(state.sinceUs)}" class="state-relative">${times.ago(state.sinceUs, nowMs)}</time>)</p>
<p class="state-stale"${stale ? '' : html` hidden`}>${stale ? `No change for ${daysSince(state.sinceUs, nowMs)} days.` : ''}</p>`;
  }
  return html`<section id="space-state" class="state"${open} data-time-zone="${times.timeZone}" aria-labelledby="state-heading">
<h1 id="state-heading" class="state-word" aria-live="polite">${stateWord(state)}</h1>
${since}
</section>`;
}

function eventsSection(events: EventSummary[], times: PageTimes): Html {
  const items = events.map(
    (event) =>
      html`<li><a href="/events/${event.id}/">${event.title}</a> <span class="when">${eventWhen(event, times)}</span>${event.place ? html` <span class="place">· ${event.place}</span>` : ''}</li>`,
  );
  return html`<section class="events" aria-labelledby="events-heading">
<h2 id="events-heading">Upcoming events</h2>
${items.length > 0 ? html`<ul>${items}</ul>` : html`<p>No upcoming event.</p>`}
<p><a href="/events.ics">Subscribe to the calendar</a> (iCalendar feed)</p>
</section>`;
}

function projectsSection(projects: ProjectSummary[]): Html {
  const groups = Object.entries(PROJECT_STATUS_NAMES)
    .map(([status, name]) => ({ name, projects: projects.filter((p) => p.status === status) }))
    .filter((group) => group.projects.length > 0);
  const card = (p: ProjectSummary) => html`<li class="card"><a href="/projects/${p.id}/">${p.title}</a>
<progress max="100" value="${p.progress}" aria-label="Progress of ${p.title}">${p.progress} %</progress> <span class="progress-text">${p.progress} %</span>
<span class="maintainer">by <a href="/members/${p.maintainer.id}/">${p.maintainer.username}</a></span></li>`;
  return html`<section class="projects" aria-labelledby="projects-heading">
<h2 id="projects-heading">Projects</h2>
${groups.length === 0 ? html`<p>No project yet.</p>` : ''}
${groups.map(
  (group) => html`<h3>${group.name} <span class="count">(${group.projects.length})</span></h3>
<ul class="cards">${group.projects.map(card)}</ul>`,
)}
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

function membersSection({ members, keyHolders }: { members: number; keyHolders: number }): Html {
  return html`<section class="members" aria-labelledby="members-heading">
<h2 id="members-heading">Members</h2>
<p class="members-count">${members} ${members === 1 ? 'member' : 'members'}, ${keyHolders} of whom ${keyHolders === 1 ? 'holds' : 'hold'} a key.</p>
</section>`;
}
