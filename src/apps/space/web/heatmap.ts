import type { MessageKey, Words } from '../../../i18n/words.js';
import { html, type Html } from '../../../web/html.js';

/** The days of a row, Monday first: the `day` of the catalogue's day names. */
export const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;

const CELL = 22;
const GAP = 2;
const LEFT = 40;
const TOP = 18;

/** Five steps of darkness: the cell's <title> and the table carry the exact share. */
const LEVELS: readonly MessageKey[] = [
  'space.hours.level.never',
  'space.hours.level.quarter',
  'space.hours.level.half',
  'space.hours.level.three-quarters',
  'space.hours.level.most',
];

export function levelOf(share: number): number {
  if (share <= 0) return 0;
  if (share < 0.25) return 1;
  if (share < 0.5) return 2;
  if (share < 0.75) return 3;
  return 4;
}

const hourRange = (hour: number) => `${String(hour).padStart(2, '0')}:00–${String((hour + 1) % 24).padStart(2, '0')}:00`;
/** The share as a whole percentage (ICU rounds it as Math.round did). */
const percentOf = (share: number) => Math.round(share * 100) / 100;

const dayName = (words: Words, day: number) => words.t('space.hours.day', { day: DAYS[day] });

/** "Tuesday 19:00–20:00: open 62% of the time" (web.md §3). */
export function cellTitle(words: Words, day: number, hour: number, share: number): string {
  return words.t('space.hours.cell', { day: dayName(words, day), hours: hourRange(hour), share: percentOf(share) });
}

/**
 * The opening-hours section of the dashboard: an inline SVG of 7 × 24 cells (`svg#opening-hours`,
 * a monitoring hook) each with its <title>, a legend, a one-line summary in words, and the same
 * numbers as a table for screen readers and for people who do not read colours.
 */
export function openingHoursSection(words: Words, openShare: readonly (readonly number[])[], weeks: number): Html {
  const width = LEFT + 24 * CELL;
  const height = TOP + 7 * CELL;
  const cells = openShare.map((row, day) =>
    row.map(
      (share, hour) =>
        html`<rect class="cell" data-level="${levelOf(share)}" x="${LEFT + hour * CELL}" y="${TOP + day * CELL}" width="${CELL - GAP}" height="${CELL - GAP}" rx="3"><title>${cellTitle(words, day, hour, share)}</title></rect>`,
    ),
  );
  const hourLabels = [0, 3, 6, 9, 12, 15, 18, 21].map((hour) => html`<text class="axis" x="${LEFT + hour * CELL}" y="${TOP - 6}">${String(hour).padStart(2, '0')}</text>`);
  const dayLabels = DAYS.map((day, i) => html`<text class="axis" x="0" y="${TOP + i * CELL + CELL * 0.65}">${words.t('space.hours.day-short', { day })}</text>`);
  return html`<section class="hours" aria-labelledby="hours-heading">
<h2 id="hours-heading">${words.t('space.hours.heading')}</h2>
<p class="hours-summary">${hoursSummary(words, openShare, weeks)}</p>
<svg id="opening-hours" class="heatmap" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="hours-svg-title">
<title id="hours-svg-title">${words.t('space.hours.svg-title', { weeks })}</title>
${hourLabels}${dayLabels}${cells}
</svg>
<ul class="legend" aria-label="${words.t('space.hours.legend')}">${LEVELS.map((level, i) => html`<li><span class="swatch" data-level="${i}"></span> ${words.t(level)}</li>`)}</ul>
<details class="hours-table"><summary>${words.t('space.hours.table')}</summary>
<div class="table-scroll"><table>
<caption>${words.t('space.hours.caption', { weeks })}</caption>
<thead><tr><th scope="col">${words.t('space.hours.day-header')}</th>${openShare[0].map((_, hour) => html`<th scope="col">${String(hour).padStart(2, '0')}</th>`)}</tr></thead>
<tbody>${openShare.map((row, day) => html`<tr><th scope="row">${dayName(words, day)}</th>${row.map((share) => html`<td>${words.t('space.hours.percent', { share: percentOf(share) })}</td>`)}</tr>`)}</tbody>
</table></div>
</details>
</section>`;
}

const PARTS = [
  { name: 'mornings', from: 6, to: 12 },
  { name: 'afternoons', from: 12, to: 18 },
  { name: 'evenings', from: 18, to: 24 },
  { name: 'nights', from: 0, to: 6 },
] as const;

/**
 * One line in words: the parts of the week when the space is usually open (at least half of the
 * time in most hours of a day part), e.g. "Usually open Tuesday and Thursday evenings".
 */
export function hoursSummary(words: Words, openShare: readonly (readonly number[])[], weeks: number): string {
  const list = new Intl.ListFormat(words.locale, { style: 'long', type: 'conjunction' });
  const phrases: string[] = [];
  for (const part of PARTS) {
    const days = DAYS.flatMap((_, day) => {
      const hours = openShare[day].slice(part.from, part.to);
      return hours.filter((share) => share >= 0.5).length * 2 > hours.length ? [dayName(words, day)] : [];
    });
    if (days.length === 7) phrases.push(words.t('space.hours.every', { part: part.name }));
    else if (days.length > 0) phrases.push(words.t('space.hours.part', { days: list.format(days), part: part.name }));
  }
  if (phrases.length > 0) return words.t('space.hours.usually', { times: list.format(phrases) });
  let best = { day: 0, hour: 0, share: 0 };
  openShare.forEach((row, day) => row.forEach((share, hour) => share > best.share && (best = { day, hour, share })));
  if (best.share === 0) return words.t('space.hours.closed', { weeks });
  return words.t('space.hours.rarely', { day: dayName(words, best.day), hours: hourRange(best.hour), share: percentOf(best.share), weeks });
}
