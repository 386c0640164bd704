import type { DashboardPanel } from '../../../web/dashboard.js';
import { DAY_MS, daysSince, STALE_DAYS, type PageTimes } from '../../../web/format.js';
import { html, type Html } from '../../../web/html.js';
import { DEFAULT_WEEKS, openingHours } from '../opening-hours.js';
import { currentSpaceState, type SpaceState } from '../openings.js';
import { openingHoursSection } from './heatmap.js';

/** The space's parts of the dashboard: its state, large and first (the page's title), and when it is usually open. */
export const SPACE_PANELS: readonly DashboardPanel[] = [
  {
    place: 'state',
    order: 0,
    reads: ['openings'],
    build: async ({ db, times, nowMs }) => {
      const state = await currentSpaceState(db);
      return { html: stateSection(state, times, nowMs), title: stateWord(state) };
    },
  },
  {
    place: 'before',
    order: 0,
    reads: ['openings'],
    build: async ({ db, zone, nowMs }) => ({ html: openingHoursSection(await openingHours(db, zone, nowMs * 1000, DEFAULT_WEEKS), DEFAULT_WEEKS) }),
  },
];

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
