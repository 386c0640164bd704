import { lastValue } from '../../../drf/query.js';
import { EVENT_LIST_PARTS, eventListing, type EventListPart, type EventSummary } from '../pages.js';
import type { MessageKey, Words } from '../../../i18n/words.js';
import { html, type Html } from '../../../web/html.js';
import { layout } from '../../../web/layout.js';
import type { PageContext } from '../../../web/page-context.js';
import { wordsHtml } from '../../../web/words-html.js';
import { eventWhen } from './words.js';
import { newLink } from '../../users/index.js';

/**
 * The events' lists, as the original has them (members.md §4): the events (or the talks) to come,
 * being prepared, then past, a page at a time; built for a member who may add one, they offer
 * "New event".
 */

const EVENTS_PER_PAGE = 20;

const PART_HEADINGS: Readonly<Record<EventListPart, MessageKey>> = { upcoming: 'events.list.upcoming', incubating: 'events.list.incubating', past: 'events.list.past' };

/** The list's page number (`?page=`, 1 when absent), or null for one that is not a page number. */
function pageNumber(ctx: PageContext): number | null {
  const text = lastValue(ctx.query, 'page');
  if (text === undefined) return 1;
  return /^[1-9][0-9]{0,8}$/.test(text) ? Number(text) : null;
}

/** `/events/` and `/events/talks/`: to come, being prepared, then past; undefined (404) for a page past the last. */
export async function eventListPage(ctx: PageContext, talks: boolean): Promise<Buffer | undefined> {
  const { words } = ctx;
  const page = pageNumber(ctx);
  if (page === null) return undefined;
  const path = talks ? '/events/talks/' : '/events/';
  const [listing, add] = await Promise.all([
    eventListing(ctx.db, ctx.nowMs * 1000, { offset: (page - 1) * EVENTS_PER_PAGE, limit: EVENTS_PER_PAGE }, talks),
    newLink(ctx, 'events.add_event', '/events/new/', words.t('events.form.new')),
  ]);
  const total = EVENT_LIST_PARTS.reduce((sum, part) => sum + listing.counts[part], 0);
  const pages = Math.max(1, Math.ceil(total / EVENTS_PER_PAGE));
  if (page > pages) return undefined;
  const title = talks ? words.t('events.talks.title') : words.t('events.list.title');
  const sections = EVENT_LIST_PARTS.filter((part) => listing.events[part].length > 0).map(
    (part) => html`<section aria-labelledby="${part}-heading">
<h2 id="${part}-heading">${words.t(PART_HEADINGS[part])} <span class="count">${words.t('events.list.count', { count: listing.counts[part] })}</span></h2>
<ul class="event-list">${listing.events[part].map((event) => eventItem(event, words))}</ul>
</section>`,
  );
  const pageLink = (n: number) => (n === 1 ? path : `${path}?page=${n}`);
  const pager = [
    page > 1 ? html`<a rel="prev" href="${pageLink(page - 1)}">${words.t('events.list.previous')}</a>` : html``,
    pages > 1 ? html`<span>${words.t('events.list.page-of', { page, pages })}</span>` : html``,
    page < pages ? html`<a rel="next" href="${pageLink(page + 1)}">${words.t('events.list.next')}</a>` : html``,
  ];
  const main = html`<section aria-labelledby="events-heading">
<h1 id="events-heading">${title}</h1>
<p>${
    talks
      ? wordsHtml(words, 'events.talks.intro', {}, { all: (chunks) => html`<a href="/events/">${chunks}</a>` })
      : html`<a href="/events/talks/">${words.t('events.talks.only')}</a>`
  } · <a href="/events.ics">${words.t('events.list.subscribe')}</a></p>
${add}
${total === 0 ? html`<p>${talks ? words.t('events.talks.empty') : words.t('events.list.empty')}</p>` : sections}
${pages > 1 ? html`<nav class="pager" aria-label="${words.t('events.list.pages')}">${pager}</nav>` : ''}
</section>`;
  const pageTitle = page === 1 ? title : talks ? words.t('events.talks.title-page', { page }) : words.t('events.list.title-page', { page });
  return layout(ctx.site, { title: pageTitle, main });
}

/** An event in a list: its title, when and where. */
export function eventItem(event: EventSummary, words: Words): Html {
  return html`<li><a href="/events/${event.id}/">${event.title}</a> <span class="when">${eventWhen(event, words)}</span>${event.place ? html` <span class="place">· ${event.place}</span>` : ''}</li>`;
}
