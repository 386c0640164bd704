import type { DashboardPanel } from '../../../web/dashboard.js';
import { DAY_MS, daysSince, STALE_DAYS } from '../../../web/format.js';
import { html, type Html } from '../../../web/html.js';
import type { PageContext } from '../../../web/page-context.js';
import { wordsHtml } from '../../../web/words-html.js';
import type { Words } from '../../../i18n/words.js';
import { DEFAULT_WEEKS, openingHours } from '../opening-hours.js';
import { currentSpaceState, type SpaceState } from '../openings.js';
import { openingHoursSection } from './heatmap.js';

/** The space's parts of the dashboard: its state, large and first (the page's title), and when it is usually open. */
export const SPACE_PANELS: readonly DashboardPanel[] = [
  {
    place: 'state',
    order: 0,
    reads: ['openings'],
    build: async (ctx) => {
      const state = await currentSpaceState(ctx.db);
      return { html: stateSection(state, ctx), title: stateWord(state, ctx.words) };
    },
  },
  {
    place: 'before',
    order: 0,
    reads: ['openings'],
    build: async ({ db, zone, nowMs, words }) => ({ html: openingHoursSection(words, await openingHours(db, zone, nowMs * 1000, DEFAULT_WEEKS), DEFAULT_WEEKS) }),
  },
];

function stateWord(state: SpaceState, words: Words): string {
  return state.isOpen === null ? words.t('space.state.unknown') : state.isOpen ? words.t('space.state.open') : words.t('space.state.closed');
}

const MINUTE_MS = 60_000;

/** `just now` under a minute (as assets/live.js says it), else `3 hours ago`. */
function agoOf(words: Words, micros: number, nowMs: number): string {
  return Math.abs(nowMs - micros / 1000) < MINUTE_MS ? words.t('space.state.just-now') : words.ago(micros, nowMs);
}

/**
 * The words assets/live.js shows when the state changes, from the catalogue (the script has none
 * of its own): the state words, "just now", the stale note with `{days}` for the script to fill,
 * the locale its Intl formats use, and the pseudo-language's wrapping of a formatted value.
 */
function liveWords(words: Words): Html {
  const zero = new Intl.NumberFormat(words.locale).format(0);
  const [wrapOpen = '', wrapClose = ''] = words.number(0).split(zero);
  return html` data-locale="${words.locale}" data-word-open="${words.t('space.state.open')}" data-word-closed="${words.t('space.state.closed')}" data-word-unknown="${words.t('space.state.unknown')}" data-just-now="${words.t('space.state.just-now')}" data-stale-text="${words.t('space.state.stale', { days: '{days}' })}" data-wrap-open="${wrapOpen}" data-wrap-close="${wrapClose}"`;
}

/** The state, large and first, with the #space-state[data-open] hook that monitoring scripts read (absent while unknown). */
function stateSection(state: SpaceState, { words, zone, nowMs }: PageContext): Html {
  const open = state.isOpen === null ? '' : html` data-open="${String(state.isOpen)}"`;
  let since: Html;
  if (state.sinceUs === null) {
    // The "since" line is there, hidden, for the live script to fill when the first report comes.
    since = html`<p class="state-none">${words.t('space.state.never')}</p>
<p class="state-since" hidden>${wordsHtml(
      words,
      'space.state.since',
      { absolute: '', relative: '' },
      { date: (chunks) => html`<span class="state-absolute">${chunks}</span>`, ago: (chunks) => html`<time class="state-relative">${chunks}</time>` },
    )}</p>
<p class="state-stale" hidden></p>`;
  } else {
    const sinceUs = state.sinceUs;
    const stale = nowMs - sinceUs / 1000 > STALE_DAYS * DAY_MS;
    since = html`<p class="state-since">${wordsHtml(
      words,
      'space.state.since',
      { absolute: words.dateTime(sinceUs), relative: agoOf(words, sinceUs, nowMs) },
      {
        date: (chunks) => html`<span class="state-absolute">${chunks}</span>`,
        ago: (chunks) => html`<time datetime="${zone.format(sinceUs)}" class="state-relative">${chunks}</time>`,
      },
    )}</p>
<p class="state-stale"${stale ? '' : html` hidden`}>${stale ? words.t('space.state.stale', { days: String(daysSince(sinceUs, nowMs)) }) : ''}</p>`;
  }
  return html`<section id="space-state" class="state"${open} data-time-zone="${zone.timeZone}"${liveWords(words)} aria-labelledby="state-heading">
<h1 id="state-heading" class="state-word" aria-live="polite">${stateWord(state, words)}</h1>
${since}
</section>`;
}
