// Figures of a report: each one is the rounds of one measurement, per program ("after" = the
// working tree's bundle; "before" = the --compare commit's), shown as `median (min–max)`.
import { table } from './markdown.js';
import { ceilingRatio, pairwise, spread } from './stats.js';

/**
 * A figure. values: { after: [...rounds], before: [...rounds] } (or { all: [...] } for one series
 * shared by both programs, like the ceiling's); text: a fixed cell instead. kind 'ceiling' flags a
 * ratio above 1.0 as noise. better: 'higher' or 'lower' (for the compare table).
 */
export function figure(name, values, { digits = 0, unit = '', better = 'higher', kind, text } = {}) {
  return { name, values, digits, unit, better, kind, text };
}
export const textFigure = (name, text) => figure(name, {}, { text });

function cell(f, label) {
  if (f.text !== undefined) return f.text;
  const values = f.values[label] ?? f.values.all ?? [];
  return f.kind === 'ceiling' ? ceilingRatio(values) : spread(values, f.digits, f.unit);
}

/**
 * rows: [{ label, figures: [figure...] }], every row with the same figures. One program: a wide
 * table (a column per figure). Two: a long one (a row per measured figure) with before, after and
 * after÷before (the ratio of the rounds measured in turn, median and min–max).
 */
export function render(labelTitle, rows, labels) {
  if (rows.length === 0) return '_(nothing measured)_';
  if (labels.length === 1) {
    const columns = [[labelTitle, 'l'], ...rows[0].figures.map((f) => [f.name, f.text !== undefined ? 'l' : 'r'])];
    return table(
      columns,
      rows.map((row) => [row.label, ...row.figures.map((f) => cell(f, labels[0]))]),
    );
  }
  const columns = [
    [labelTitle, 'l'],
    ['figure', 'l'],
    ['before', 'r'],
    ['after', 'r'],
    ['after ÷ before', 'r'],
    ['better', 'l'],
  ];
  const lines = [];
  for (const row of rows) {
    // Fixed cells (targets, sizes) are the after's: the verdicts say them; the table compares figures.
    for (const f of row.figures.filter((x) => x.text === undefined)) {
      const shared = !f.values.before && f.values.all;
      const ratio = shared ? '—' : spread(pairwise(f.values.after ?? [], f.values.before ?? []), 3);
      lines.push([row.label, f.name, cell(f, 'before'), cell(f, 'after'), ratio, shared ? '' : f.better === 'lower' ? 'lower ↓' : 'higher ↑']);
    }
  }
  return table(columns, lines);
}

/** A collector of rounds: add(key, label, value); get(key) → { label: [values] }. */
export class Rounds {
  #map = new Map();

  add(key, label, value) {
    if (!this.#map.has(key)) this.#map.set(key, {});
    const entry = this.#map.get(key);
    (entry[label] ??= []).push(value);
  }

  get(key) {
    return this.#map.get(key) ?? {};
  }

  /** Per label, the rounds of a ÷ the rounds of b (measured in turn): e.g. the API's req/s ÷ the ceiling's. */
  ratio(a, b, labels) {
    const x = this.get(a);
    const y = this.get(b);
    return Object.fromEntries(labels.map((l) => [l, pairwise(x[l] ?? [], y[l] ?? y.all ?? [])]));
  }
}

/**
 * With before and after: the figures where after was worse than before in every round (each
 * round's after ÷ before on the wrong side of 1), as Markdown bullet lines. A single round's
 * difference is noise as often as not; one that holds in every round is worth a look.
 */
export function worseInEveryRound(sections) {
  const lines = [];
  for (const [title, rows] of sections) {
    for (const row of rows) {
      for (const f of row.figures) {
        if (f.text !== undefined || !f.values.before || !f.values.after) continue;
        const ratios = pairwise(f.values.after, f.values.before).filter(Number.isFinite);
        if (ratios.length === 0) continue;
        const worse = f.better === 'lower' ? ratios.every((r) => r > 1) : ratios.every((r) => r < 1);
        if (worse) lines.push(`- ${title}, ${row.label}, ${f.name}: after ÷ before ${spread(ratios, 3)}`);
      }
    }
  }
  return lines.length ? lines : ['- none'];
}
