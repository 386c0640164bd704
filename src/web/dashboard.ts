import type { Db } from '../db/connection.js';
import { openingHours, DEFAULT_WEEKS } from '../apps/space/opening-hours.js';
import { currentSpaceState, type SpaceState } from '../apps/space/openings.js';
import {
  eventsInterestingTo,
  memberCounts,
  projectsOf,
  projectSummaries,
  recentMeetings,
  upcomingEvents,
  type EventSummary,
  type MeetingSummary,
  type ProjectSummary,
} from '../resources/overview.js';
import { DAY_MS, daysSince, STALE_DAYS, type PageTimes } from './format.js';
import { openingHoursSection } from '../apps/space/web/heatmap.js';
import { html, type Html } from './html.js';
import { layout } from './layout.js';
import { eventItem, projectGroups } from './lists.js';
import type { PageContext } from './page-context.js';
import { PROJECT_STATUS_NAMES } from './words.js';

const UPCOMING_EVENTS = 10;
const RECENT_MEETINGS = 5;

/** The dashboard at `/` (web.md §3): the state first, then the opening hours, events, projects, meetings and members. */
export async function dashboardPage(ctx: PageContext): Promise<Buffer> {
  const { db, site, times, zone, nowMs } = ctx;
  const nowUs = nowMs * 1000;
  const [mine, state, openShare, events, projects, meetings, members] = await Promise.all([
    ctx.viewer === null ? html`` : memberSection(db, ctx.viewer.id, nowUs, times),
    currentSpaceState(db),
    openingHours(db, zone, nowUs, DEFAULT_WEEKS),
    upcomingEvents(db, nowUs, UPCOMING_EVENTS),
    projectSummaries(db),
    recentMeetings(db, RECENT_MEETINGS),
    memberCounts(db),
  ]);
  const main = html`${stateSection(state, times, nowMs)}
${mine}
${openingHoursSection(openShare, DEFAULT_WEEKS)}
<div class="columns">
${eventsSection(events, times)}
${meetingsSection(meetings, times)}
${membersSection(members)}
</div>
${projectsSection(projects)}`;
  return layout(site, { title: stateWord(state), main, scripts: ['live.js'] });
}

/**
 * For a member (members.md §4): their projects and the events to come they are interested in,
 * before what everyone sees. Their dashboard is built for them, never cached.
 */
async function memberSection(db: Db, userId: number, nowUs: number, times: PageTimes): Promise<Html> {
  const [projects, events] = await Promise.all([projectsOf(db, userId), eventsInterestingTo(db, userId, nowUs, UPCOMING_EVENTS)]);
  return html`<section class="mine" aria-labelledby="mine-heading">
<h2 id="mine-heading">Yours</h2>
<div class="columns">
<section aria-labelledby="my-projects-heading">
<h3 id="my-projects-heading">Your projects</h3>
${projects.length === 0 ? html`<p>You take part in no project yet. <a href="/projects/">See the projects</a>.</p>` : html`<ul>${projects.map((p) => html`<li><a href="/projects/${p.id}/">${p.title}</a> <span class="count">${PROJECT_STATUS_NAMES[p.status] ?? p.status}</span></li>`)}</ul>`}
</section>
<section aria-labelledby="my-events-heading">
<h3 id="my-events-heading">Events you are interested in</h3>
${events.length === 0 ? html`<p>None to come. <a href="/events/">See the events</a>.</p>` : html`<ul>${events.map((event) => eventItem(event, times))}</ul>`}
</section>
</div>
</section>`;
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
  const items = events.map((event) => eventItem(event, times));
  return html`<section class="events" aria-labelledby="events-heading">
<h2 id="events-heading">Upcoming events</h2>
${items.length > 0 ? html`<ul>${items}</ul>` : html`<p>No upcoming event.</p>`}
<p><a href="/events.ics">Subscribe to the calendar</a> (iCalendar feed)</p>
</section>`;
}

function projectsSection(projects: ProjectSummary[]): Html {
  return html`<section class="projects" aria-labelledby="projects-heading">
<h2 id="projects-heading">Projects</h2>
${projectGroups(projects, 3)}
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
