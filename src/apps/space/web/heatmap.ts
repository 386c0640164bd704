import { html, type Html } from '../../../web/html.js';

export const DAY_NAMES = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'] as const;

const CELL = 22;
const GAP = 2;
const LEFT = 40;
const TOP = 18;

/** Five steps of darkness: the cell's <title> and the table carry the exact share. */
const LEVELS = [
  { max: 0, label: 'never' },
  { max: 0.25, label: 'under 25 %' },
  { max: 0.5, label: '25–49 %' },
  { max: 0.75, label: '50–74 %' },
  { max: 1, label: '75 % or more' },
] as const;

export function levelOf(share: number): number {
  if (share <= 0) return 0;
  if (share < 0.25) return 1;
  if (share < 0.5) return 2;
  if (share < 0.75) return 3;
  return 4;
}

const hourRange = (hour: number) => `${String(hour).padStart(2, '0')}:00–${String((hour + 1) % 24).padStart(2, '0')}:00`;
const percent = (share: number) => `${Math.round(share * 100)}%`;

/** "Tuesday 19:00–20:00: open 62% of the time" (web.md §3). */
export function cellTitle(day: number, hour: number, share: number): string {
  return `${DAY_NAMES[day]} ${hourRange(hour)}: open ${percent(share)} of the time`;
}

/**
 * The opening-hours section of the dashboard: an inline SVG of 7 × 24 cells (`svg#opening-hours`,
 * a monitoring hook) each with its <title>, a legend, a one-line summary in words, and the same
 * numbers as a table for screen readers and for people who do not read colours.
 */
export function openingHoursSection(openShare: readonly (readonly number[])[], weeks: number): Html {
  const width = LEFT + 24 * CELL;
  const height = TOP + 7 * CELL;
  const cells = openShare.map((row, day) =>
    row.map(
      (share, hour) =>
        html`<rect class="cell" data-level="${levelOf(share)}" x="${LEFT + hour * CELL}" y="${TOP + day * CELL}" width="${CELL - GAP}" height="${CELL - GAP}" rx="3"><title>${cellTitle(day, hour, share)}</title></rect>`,
    ),
  );
  const hourLabels = [0, 3, 6, 9, 12, 15, 18, 21].map((hour) => html`<text class="axis" x="${LEFT + hour * CELL}" y="${TOP - 6}">${String(hour).padStart(2, '0')}</text>`);
  const dayLabels = DAY_NAMES.map((name, day) => html`<text class="axis" x="0" y="${TOP + day * CELL + CELL * 0.65}">${name.slice(0, 3)}</text>`);
  return html`<section class="hours" aria-labelledby="hours-heading">
<h2 id="hours-heading">Opening hours</h2>
<p class="hours-summary">${hoursSummary(openShare, weeks)}</p>
<svg id="opening-hours" class="heatmap" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="hours-svg-title">
<title id="hours-svg-title">Share of time open by weekday and hour over the last ${weeks} weeks (details in the table below)</title>
${hourLabels}${dayLabels}${cells}
</svg>
<ul class="legend" aria-label="Legend">${LEVELS.map((level, i) => html`<li><span class="swatch" data-level="${i}"></span> ${level.label}</li>`)}</ul>
<details class="hours-table"><summary>The same as a table</summary>
<div class="table-scroll"><table>
<caption>Share of time open, by weekday (rows) and hour (columns), last ${weeks} weeks</caption>
<thead><tr><th scope="col">Day</th>${openShare[0].map((_, hour) => html`<th scope="col">${String(hour).padStart(2, '0')}</th>`)}</tr></thead>
<tbody>${openShare.map((row, day) => html`<tr><th scope="row">${DAY_NAMES[day]}</th>${row.map((share) => html`<td>${percent(share)}</td>`)}</tr>`)}</tbody>
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
export function hoursSummary(openShare: readonly (readonly number[])[], weeks: number): string {
  const phrases: string[] = [];
  for (const part of PARTS) {
    const days = DAY_NAMES.filter((_, day) => {
      const hours = openShare[day].slice(part.from, part.to);
      return hours.filter((share) => share >= 0.5).length * 2 > hours.length;
    });
    if (days.length === 7) phrases.push(`every ${part.name.slice(0, -1)}`);
    else if (days.length > 0) phrases.push(`${listOf([...days])} ${part.name}`);
  }
  if (phrases.length > 0) return `Usually open ${listOf(phrases)}.`;
  let best = { day: 0, hour: 0, share: 0 };
  openShare.forEach((row, day) => row.forEach((share, hour) => share > best.share && (best = { day, hour, share })));
  if (best.share === 0) return `Not open at all in the last ${weeks} weeks.`;
  return `Rarely open: most often ${DAY_NAMES[best.day]} ${hourRange(best.hour)} (${percent(best.share)} of the time over the last ${weeks} weeks).`;
}

function listOf(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}
