// Statistics and number formatting. Every figure a report shows is a set of rounds: the median,
// with the lowest and the highest.

/** { median, min, max, n } of a list of numbers (the median of an even count: the mean of the middle two). */
export function summarize(values) {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  const n = sorted.length;
  if (n === 0) return { median: NaN, min: NaN, max: NaN, n: 0 };
  const median = n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  return { median, min: sorted[0], max: sorted[n - 1], n };
}

export const median = (values) => summarize(values).median;

/** A number with `digits` decimals ("—" when it is not a number). */
export function num(value, digits = 0) {
  return Number.isFinite(value) ? value.toFixed(digits) : '—';
}

/** `median (min–max)`, each with `digits` decimals and the unit after the median. */
export function spread(values, digits = 0, unit = '') {
  const s = summarize(values);
  if (s.n === 0) return '—';
  const u = unit ? ` ${unit}` : '';
  if (s.n === 1) return `${num(s.median, digits)}${u}`;
  return `${num(s.median, digits)}${u} (${num(s.min, digits)}–${num(s.max, digits)})`;
}

/** Element-wise a[i] / b[i] (the rounds of two series measured in turn). */
export function pairwise(a, b) {
  const out = [];
  for (let i = 0; i < Math.min(a.length, b.length); i++) out.push(b[i] > 0 ? a[i] / b[i] : NaN);
  return out;
}

/**
 * A ratio against the node:http ceiling. Above 1.0 the API would be faster than Node's bare HTTP
 * stack sending precomputed bytes: that is noise of the machine, not a result, and it is shown so.
 */
export function ceilingRatio(values) {
  const s = summarize(values);
  const text = spread(values, 3);
  return s.median > 1 ? `${text} ⚠ noise (above the ceiling)` : text;
}

/**
 * The verdict of a ratio against the ceiling with a target "≥ target": the median decides. A
 * median above 1.0 does not count by itself: it is read as "at the ceiling" (1.0), and said so.
 */
export function ceilingVerdict(values, target) {
  const s = summarize(values);
  if (!Number.isFinite(s.median)) return { ok: false, text: 'MISSED (not measured)' };
  if (s.median > 1) return { ok: 1 >= target, text: 'ok (at the ceiling: above 1.0 is noise)' };
  return s.median >= target ? { ok: true, text: 'ok' } : { ok: false, text: 'MISSED' };
}
