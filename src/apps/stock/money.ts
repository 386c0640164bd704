/**
 * Money as the slate keeps it (ledger.md §3): integers of cents everywhere, shown and exchanged as
 * the original's decimal strings (`"1.50"`). No floating point touches an amount.
 */

/** Why a typed amount is refused; the form says it in the member's language. */
export type AmountProblem = 'amount-invalid' | 'amount-not-positive' | 'amount-too-large';

/**
 * An amount as a member types it (`1,50`, `1.5`, `12`): a point or a comma, two decimals at most,
 * more than 0 and at most `maxCents`. Cents, or the problem.
 */
export function readAmount(text: string, maxCents: number): { cents: number } | { problem: AmountProblem } {
  const m = /^\s*\+?(\d{0,9})(?:[.,](\d{0,2}))?\s*$/.exec(text);
  if (m === null || (m[1] === '' && (m[2] ?? '') === '')) return { problem: 'amount-invalid' };
  const cents = Number(m[1] || '0') * 100 + Number((m[2] ?? '').padEnd(2, '0'));
  if (cents <= 0) return { problem: 'amount-not-positive' };
  if (cents > maxCents) return { problem: 'amount-too-large' };
  return { cents };
}

/** Cents as the original writes a DecimalField(…, 2): `150` → `"1.50"`, `-6` → `"-0.06"`. */
export function formatCents(cents: number): string {
  const abs = Math.abs(cents);
  return `${cents < 0 ? '-' : ''}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** The original's decimal string (`"1.50"`, `"-0.06"`, `"3"`) in cents; null when it is not one. */
export function centsOfDecimal(text: string): number | null {
  const m = /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(text.trim());
  if (m === null) return null;
  const cents = Number(m[2]) * 100 + Number((m[3] ?? '').padEnd(2, '0'));
  return m[1] === '-' ? -cents : cents;
}
