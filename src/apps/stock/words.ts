import type STOCK_MESSAGES from './locale/en.json';
import type { KeysOf, MessageKey } from '../../i18n/words.js';
import type { Refusal } from './ledger.js';
import type { AmountProblem } from './money.js';

declare module '../../i18n/words.js' {
  // The stock app's words, in its catalogues beside this module.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- its members are the catalogue's keys.
  interface MessageKeys extends KeysOf<typeof STOCK_MESSAGES> {}
}

/** The stock app's catalogues, one `<language>.json` each. */
export const STOCK_LOCALE = new URL('./locale/', import.meta.url);

/** Why the ledger refused a change, in words (ledger.ts `Refusal`). */
export const REFUSAL_WORDS: Readonly<Record<Refusal, MessageKey>> = {
  'product-unknown': 'stock.refused.product-unknown',
  'recipient-unknown': 'stock.refused.recipient-unknown',
  'recipient-self': 'stock.refused.recipient-self',
  'name-invalid': 'stock.refused.name-invalid',
  'location-invalid': 'stock.refused.location-invalid',
  'debt-limit': 'stock.refused.debt-limit',
  'member-unknown': 'stock.refused.member-unknown',
  'undo-unknown': 'stock.refused.undo-unknown',
  'undo-not-yours': 'stock.refused.undo-not-yours',
  'undo-too-late': 'stock.refused.undo-too-late',
  'undo-twice': 'stock.refused.undo-twice',
  'undo-kind': 'stock.refused.undo-kind',
  'reason-invalid': 'stock.refused.reason-invalid',
};

/** Why a typed amount was refused, in words (money.ts `AmountProblem`). */
export const AMOUNT_WORDS: Readonly<Record<AmountProblem, MessageKey>> = {
  'amount-invalid': 'stock.amount.amount-invalid',
  'amount-not-positive': 'stock.amount.amount-not-positive',
  'amount-too-large': 'stock.amount.amount-too-large',
};
