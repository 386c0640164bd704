import { lastValue } from '../drf/query.js';
import { rightsOf, type Right } from '../apps/users/rights.js';
import { EVENT_LIST_PARTS, eventListing, projectSummaries, type EventListPart, type EventSummary, type ProjectSummary } from '../resources/overview.js';
import type { PageTimes } from './format.js';
import { html, type Html } from './html.js';
import { layout } from './layout.js';
import type { PageContext } from './page-context.js';
import { PROJECT_STATUS_NAMES, eventWhen } from './words.js';

/**
 * The lists, as the original has them (members.md §4): every project by status, and the events
 * (or the talks) to come then past, a page at a time. Built for a member, a list offers "New …"
 * to those who may add one.
 */

const EVENTS_PER_PAGE = 20;

/** The projects grouped by status, in the status names' order; `level` is the groups' heading level. */
export function projectGroups(projects: readonly ProjectSummary[], level: 2 | 3): Html {
  const groups = Object.entries(PROJECT_STATUS_NAMES)
    .map(([status, name]) => ({ status, name, projects: projects.filter((p) => p.status === status) }))
    .filter((group) => group.projects.length > 0);
  if (groups.length === 0) return html`<p>No project yet.</p>`;
  const card = (p: ProjectSummary) => html`<li class="card"><a href="/projects/${p.id}/">${p.title}</a>
<progress max="100" value="${p.progress}" aria-label="Progress of ${p.title}">${p.progress} %</progress> <span class="progress-text">${p.progress} %</span>
<span class="maintainer">by <a href="/members/${p.maintainer.id}/">${p.maintainer.username}</a></span></li>`;
  const heading = (text: Html) => (level === 2 ? html`<h2>${text}</h2>` : html`<h3>${text}</h3>`);
  return html`${groups.map(
    (group) => html`${heading(html`${group.name} <span class="count">(${group.projects.length})</span>`)}
<ul class="cards">${group.projects.map(card)}</ul>`,
  )}`;
}

/** A "New …" link for a member who holds the right to add one; nothing for visitors. */
async function newLink(ctx: PageContext, right: Right, href: string, label: string): Promise<Html> {
  if (ctx.viewer === null) return html``;
  const { rights } = await rightsOf(ctx.db, ctx.viewer.id);
  return rights.has(right) ? html`<p class="record-actions"><a class="button" href="${href}">${label}</a></p>` : html``;
}

/** `/projects/`: every project, by status. */
export async function projectListPage(ctx: PageContext): Promise<Buffer> {
  const [projects, add] = await Promise.all([projectSummaries(ctx.db), newLink(ctx, 'projects.add_project', '/projects/new/', 'New project')]);
  const main = html`<section class="projects" aria-labelledby="projects-heading">
<h1 id="projects-heading">Projects</h1>
${add}
${projectGroups(projects, 2)}
</section>`;
  return layout(ctx.site, { title: 'Projects', main });
}

const PART_HEADINGS: Readonly<Record<EventListPart, string>> = { upcoming: 'Upcoming', incubating: 'Being prepared', past: 'Past' };

/** The list's page number (`?page=`, 1 when absent), or null for one that is not a page number. */
function pageNumber(ctx: PageContext): number | null {
  const text = lastValue(ctx.query, 'page');
  if (text === undefined) return 1;
  return /^[1-9][0-9]{0,8}$/.test(text) ? Number(text) : null;
}

/** `/events/` and `/events/talks/`: to come, being prepared, then past; undefined (404) for a page past the last. */
export async function eventListPage(ctx: PageContext, talks: boolean): Promise<Buffer | undefined> {
  const page = pageNumber(ctx);
  if (page === null) return undefined;
  const path = talks ? '/events/talks/' : '/events/';
  const [listing, add] = await Promise.all([
    eventListing(ctx.db, ctx.nowMs * 1000, { offset: (page - 1) * EVENTS_PER_PAGE, limit: EVENTS_PER_PAGE }, talks),
    newLink(ctx, 'events.add_event', '/events/new/', 'New event'),
  ]);
  const total = EVENT_LIST_PARTS.reduce((sum, part) => sum + listing.counts[part], 0);
  const pages = Math.max(1, Math.ceil(total / EVENTS_PER_PAGE));
  if (page > pages) return undefined;
  const title = talks ? 'Talks' : 'Events';
  const sections = EVENT_LIST_PARTS.filter((part) => listing.events[part].length > 0).map(
    (part) => html`<section aria-labelledby="${part}-heading">
<h2 id="${part}-heading">${PART_HEADINGS[part]} <span class="count">(${listing.counts[part]})</span></h2>
<ul class="event-list">${listing.events[part].map((event) => eventItem(event, ctx.times))}</ul>
</section>`,
  );
  const pageLink = (n: number) => (n === 1 ? path : `${path}?page=${n}`);
  const pager = [
    page > 1 ? html`<a rel="prev" href="${pageLink(page - 1)}">Previous page</a>` : html``,
    pages > 1 ? html`<span>Page ${page} of ${pages}</span>` : html``,
    page < pages ? html`<a rel="next" href="${pageLink(page + 1)}">Next page</a>` : html``,
  ];
  const main = html`<section aria-labelledby="events-heading">
<h1 id="events-heading">${title}</h1>
<p>${talks ? html`The events marked as talks. <a href="/events/">All events</a>` : html`<a href="/events/talks/">Talks only</a>`} · <a href="/events.ics">Subscribe to the calendar</a></p>
${add}
${total === 0 ? html`<p>${talks ? 'No talk yet.' : 'No event yet.'}</p>` : sections}
${pages > 1 ? html`<nav class="pager" aria-label="Pages">${pager}</nav>` : ''}
</section>`;
  return layout(ctx.site, { title: page === 1 ? title : `${title}, page ${page}`, main });
}

/** An event in a list: its title, when and where. */
export function eventItem(event: EventSummary, times: PageTimes): Html {
  return html`<li><a href="/events/${event.id}/">${event.title}</a> <span class="when">${eventWhen(event, times)}</span>${event.place ? html` <span class="place">· ${event.place}</span>` : ''}</li>`;
}
