import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';
import type { LedgerSettings } from '../../config.js';
import type { LedgerEntriesTable, LedgerKind } from './schema.js';

/**
 * The ledger (ledger.md §3): every change of a member's balance is an entry, appended and never
 * edited or deleted; the balance kept on the member (`users.balance_cents`, the original's
 * `balance`) moves in the same transaction, so the two always agree. Free of HTTP: the slate's
 * forms, the kiosk, the command line and the import all call these, each inside a write
 * transaction the caller owns (services.writes.run, which serialises writers across processes).
 */

/** Through what an entry was recorded, as the entry says. */
export type Channel = 'web' | 'kiosk' | 'cli' | 'import';

/** Who recorded an entry and through what. */
export interface Recorder {
  /** The member who recorded it (a treasurer for a correction); null for the command line and imports. */
  readonly userId: number | null;
  readonly channel: Channel;
}

/** Why the ledger refuses a change: each is a message of the stock app's catalogue (`stock.refused.<code>`). */
export type Refusal =
  | 'product-unknown'
  | 'recipient-unknown'
  | 'recipient-self'
  | 'name-invalid'
  | 'location-invalid'
  | 'debt-limit'
  | 'member-unknown'
  | 'undo-unknown'
  | 'undo-not-yours'
  | 'undo-too-late'
  | 'undo-twice'
  | 'undo-kind'
  | 'reason-invalid';

/** A change the ledger refuses; nothing was recorded. `field` is the form's field it is about, if one. */
export class LedgerRefused extends Error {
  override name = 'LedgerRefused';
  constructor(
    readonly refusal: Refusal,
    readonly field: string | null = null,
  ) {
    super(refusal);
  }
}

/** The money rules a change is checked against (config's LEDGER_*). */
export type LedgerRules = Pick<LedgerSettings, 'maxAmountCents' | 'debtLimitCents' | 'undoMinutes'>;

export type LedgerEntry = Omit<LedgerEntriesTable, 'id' | 'price_at_import'> & { id: number; price_at_import: number };

/** What a change recorded: its first entry (the sender's for a transfer), the member's balance after it, and whether the one-time key had recorded it already. */
export interface Recorded {
  readonly entry: LedgerEntry;
  readonly balanceCents: number;
  readonly repeated: boolean;
}

/** The longest a spend's name may be (the original's SpendForm). */
export const MAX_NAME_LENGTH = 100;
/** The longest one-time key we keep (forms send 22 characters). */
const MAX_KEY_LENGTH = 64;
const LOCATIONS: readonly string[] = ['BANK', 'CASH'];

interface Change {
  readonly userId: number;
  /** The form's one-time key: the same key twice records once (ledger.md §2). */
  readonly key: string | null;
  readonly by: Recorder;
  readonly nowUs: number;
}

/** A member buys a product at its price now (quantity 1 unless told); an inactive product is refused as unknown. */
export async function buy(trx: Db, rules: LedgerRules, change: Change & { productId: number; quantity?: number }): Promise<Recorded> {
  const earlier = await alreadyRecorded(trx, change);
  if (earlier !== null) return earlier;
  const product = await trx.selectFrom('stock_products').select(['id', 'price_cents']).where('id', '=', change.productId).where('active', '=', 1).executeTakeFirst();
  if (product === undefined) throw new LedgerRefused('product-unknown', 'product');
  const quantity = change.quantity ?? 1;
  return append(trx, rules, change, {
    kind: 'purchase',
    amount_cents: -product.price_cents * quantity,
    product_id: product.id,
    unit_price_cents: product.price_cents,
    quantity,
  });
}

/** A member pays a small expense from their balance (the original's "spend"). */
export async function spend(trx: Db, rules: LedgerRules, change: Change & { name: string; amountCents: number }): Promise<Recorded> {
  const earlier = await alreadyRecorded(trx, change);
  if (earlier !== null) return earlier;
  const name = change.name.trim();
  if (name === '' || [...name].length > MAX_NAME_LENGTH) throw new LedgerRefused('name-invalid', 'name');
  return append(trx, rules, change, { kind: 'spend', amount_cents: -checkedAmount(rules, change.amountCents), info: name });
}

/** A member tops up their balance by bank transfer (`BANK`) or cash (`CASH`). */
export async function topUp(trx: Db, rules: LedgerRules, change: Change & { location: string; amountCents: number }): Promise<Recorded> {
  const earlier = await alreadyRecorded(trx, change);
  if (earlier !== null) return earlier;
  if (!LOCATIONS.includes(change.location)) throw new LedgerRefused('location-invalid', 'location');
  return append(trx, rules, change, { kind: 'topup', amount_cents: checkedAmount(rules, change.amountCents), location: change.location });
}

/** A member sends money to another active member: two entries, the sender's first, each naming the other. */
export async function transfer(trx: Db, rules: LedgerRules, change: Change & { recipientId: number; amountCents: number }): Promise<Recorded> {
  const earlier = await alreadyRecorded(trx, change);
  if (earlier !== null) return earlier;
  if (change.recipientId === change.userId) throw new LedgerRefused('recipient-self', 'recipient');
  const recipient = await trx.selectFrom('users').select('id').where('id', '=', change.recipientId).where('is_active', '=', 1).executeTakeFirst();
  if (recipient === undefined) throw new LedgerRefused('recipient-unknown', 'recipient');
  const amount = checkedAmount(rules, change.amountCents);
  const sent = await append(trx, rules, change, { kind: 'transfer', amount_cents: -amount, counterpart_id: recipient.id });
  await trx.updateTable('ledger_entries').set({ transfer_id: sent.entry.id }).where('id', '=', sent.entry.id).execute();
  await insertEntry(trx, { ...change, userId: recipient.id, key: null }, { kind: 'transfer', amount_cents: amount, counterpart_id: change.userId, transfer_id: sent.entry.id });
  return { ...sent, entry: { ...sent.entry, transfer_id: sent.entry.id } };
}

/**
 * A member undoes their own purchase, spend or transfer within `undoMinutes` (ledger.md §3): an
 * entry that reverses it, linked to it (a transfer's two entries are both reversed). Undoing
 * twice, too late, someone else's, or another kind is refused.
 */
export async function undo(trx: Db, rules: LedgerRules, change: Change & { entryId: number }): Promise<Recorded> {
  const earlier = await alreadyRecorded(trx, change);
  if (earlier !== null) return earlier;
  const entry = await entryById(trx, change.entryId);
  if (entry === undefined) throw new LedgerRefused('undo-unknown');
  if (entry.user_id !== change.userId || (entry.kind === 'transfer' && entry.amount_cents > 0)) throw new LedgerRefused('undo-not-yours');
  if (!['purchase', 'spend', 'transfer'].includes(entry.kind)) throw new LedgerRefused('undo-kind');
  if (await isReversed(trx, entry.id)) throw new LedgerRefused('undo-twice');
  if (change.nowUs - entry.created_us > rules.undoMinutes * 60_000_000) throw new LedgerRefused('undo-too-late');
  return reverse(trx, entry, '', change);
}

/**
 * A treasurer corrects any entry, at any time, with a reason (ledger.md §3): an entry that reverses
 * it, as an undo does. An entry already reversed, or a reversal, is refused.
 */
export async function correct(trx: Db, change: Omit<Change, 'userId' | 'key'> & { entryId: number; reason: string }): Promise<Recorded> {
  const reason = change.reason.trim();
  if (reason === '' || [...reason].length > 200) throw new LedgerRefused('reason-invalid', 'reason');
  const entry = await entryById(trx, change.entryId);
  if (entry === undefined) throw new LedgerRefused('undo-unknown');
  if (entry.kind === 'reversal' || entry.kind === 'correction') throw new LedgerRefused('undo-kind');
  // A transfer is corrected from either side: both of its entries are reversed.
  const first = entry.kind === 'transfer' && entry.transfer_id !== null && entry.transfer_id !== entry.id ? await entryById(trx, entry.transfer_id) : entry;
  if (first === undefined || (await isReversed(trx, first.id))) throw new LedgerRefused('undo-twice');
  return reverse(trx, first, reason, { ...change, userId: first.user_id, key: null }, 'correction');
}

/** An entry that makes a member's balance what it should be (an import's opening entry: ledger.md §5). */
export async function open(trx: Db, change: Omit<Change, 'key'> & { amountCents: number; info: string }): Promise<Recorded> {
  return append(trx, null, { ...change, key: null }, { kind: 'opening', amount_cents: change.amountCents, info: change.info });
}

/** A member's balance as kept on them, in cents; null for no such member. */
export async function balanceOf(db: Db, userId: number): Promise<number | null> {
  const row = await db.selectFrom('users').select('balance_cents').where('id', '=', userId).executeTakeFirst();
  return row === undefined ? null : Number(row.balance_cents);
}

/** A member whose kept balance is not the sum of their entries. */
export interface Disagreement {
  readonly userId: number;
  readonly username: string;
  readonly keptCents: number;
  readonly entriesCents: number;
}

/** Recomputes every balance from the ledger (`hackerspace-api ledger check`): the members whose kept balance differs, by id. */
export async function checkLedger(db: Db): Promise<Disagreement[]> {
  const rows = await db
    .selectFrom('users')
    .leftJoin(
      (eb) =>
        eb
          .selectFrom('ledger_entries')
          .select(['user_id', sql<number>`cast(sum(amount_cents) as bigint)`.as('total')])
          .groupBy('user_id')
          .as('sums'),
      (join) => join.onRef('sums.user_id', '=', 'users.id'),
    )
    .select(['users.id', 'users.username', 'users.balance_cents', 'sums.total'])
    .orderBy('users.id')
    .execute();
  return rows
    .map((row) => ({ userId: row.id, username: row.username, keptCents: Number(row.balance_cents), entriesCents: Number(row.total ?? 0) }))
    .filter((row) => row.keptCents !== row.entriesCents);
}

/** A member's entries, newest first. */
export function entriesOf(db: Db, userId: number, window: { offset: number; limit: number }): Promise<LedgerEntry[]> {
  return db.selectFrom('ledger_entries').selectAll().where('user_id', '=', userId).orderBy('id', 'desc').offset(window.offset).limit(window.limit).execute();
}

/** How many entries a member has. */
export async function countEntriesOf(db: Db, userId: number): Promise<number> {
  const row = await db
    .selectFrom('ledger_entries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The ids among these entries that have been reversed. */
export async function reversedAmong(db: Db, entryIds: readonly number[]): Promise<ReadonlySet<number>> {
  if (entryIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('ledger_entries')
    .select('reverses_id')
    .where('reverses_id', 'in', [...entryIds])
    .execute();
  return new Set(rows.map((row) => row.reverses_id!));
}

export async function entryById(db: Db, id: number): Promise<LedgerEntry | undefined> {
  if (!Number.isSafeInteger(id) || id < 1 || id > 2 ** 31 - 1) return undefined;
  return db.selectFrom('ledger_entries').selectAll().where('id', '=', id).executeTakeFirst();
}

function checkedAmount(rules: LedgerRules, cents: number): number {
  // The forms read amounts with readAmount (money.ts); a caller that did not is stopped here.
  if (!Number.isSafeInteger(cents) || cents <= 0 || cents > rules.maxAmountCents) throw new RangeError(`an amount of ${cents} cents is out of bounds`);
  return cents;
}

/** What the one-time key recorded before, answered as it was then (ledger.md §2); null when it is new. */
async function alreadyRecorded(trx: Db, change: Change): Promise<Recorded | null> {
  if (change.key === null) return null;
  if (change.key.length > MAX_KEY_LENGTH) throw new RangeError('a one-time key is at most 64 characters');
  const entry = await trx.selectFrom('ledger_entries').selectAll().where('user_id', '=', change.userId).where('request_key', '=', change.key).executeTakeFirst();
  if (entry === undefined) return null;
  return { entry, balanceCents: (await balanceOf(trx, change.userId))!, repeated: true };
}

type EntryFields = Partial<Omit<LedgerEntriesTable, 'id' | 'user_id' | 'recorded_by' | 'channel' | 'request_key' | 'created_us' | 'price_at_import'>> & {
  kind: LedgerKind;
  amount_cents: number;
};

/** Appends one entry and moves the balance with it; a debit that would take the balance below LEDGER_DEBT_LIMIT is refused. */
async function append(trx: Db, rules: LedgerRules | null, change: Change, fields: EntryFields): Promise<Recorded> {
  const { entry, balanceCents } = await insertEntry(trx, change, fields);
  const limit = rules?.debtLimitCents ?? null;
  // The transaction is rolled back by the throw: nothing was recorded.
  if (limit !== null && fields.amount_cents < 0 && balanceCents < limit) throw new LedgerRefused('debt-limit');
  return { entry, balanceCents, repeated: false };
}

async function insertEntry(trx: Db, change: Change, fields: EntryFields): Promise<{ entry: LedgerEntry; balanceCents: number }> {
  const moved = await trx
    .updateTable('users')
    .set((eb) => ({ balance_cents: eb('balance_cents', '+', fields.amount_cents) }))
    .where('id', '=', change.userId)
    .returning('balance_cents')
    .executeTakeFirst();
  if (moved === undefined) throw new LedgerRefused('member-unknown');
  const entry = await trx
    .insertInto('ledger_entries')
    .values({
      info: '',
      ...fields,
      user_id: change.userId,
      recorded_by: change.by.userId,
      channel: change.by.channel,
      request_key: change.key,
      created_us: change.nowUs,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { entry, balanceCents: Number(moved.balance_cents) };
}

async function isReversed(db: Db, entryId: number): Promise<boolean> {
  return (await db.selectFrom('ledger_entries').select('id').where('reverses_id', '=', entryId).executeTakeFirst()) !== undefined;
}

/** The entries that reverse `entry` (and, for a transfer, its other half), each linked to what it reverses. */
async function reverse(trx: Db, entry: LedgerEntry, reason: string, change: Change, kind: 'reversal' | 'correction' = 'reversal'): Promise<Recorded> {
  const first = await insertEntry(trx, { ...change, userId: entry.user_id }, { kind, amount_cents: -entry.amount_cents, reverses_id: entry.id, info: reason });
  if (entry.kind === 'transfer') {
    const other = await trx
      .selectFrom('ledger_entries')
      .selectAll()
      .where('transfer_id', '=', entry.transfer_id ?? entry.id)
      .where('id', '!=', entry.id)
      .executeTakeFirst();
    if (other !== undefined)
      await insertEntry(trx, { ...change, userId: other.user_id, key: null }, { kind, amount_cents: -other.amount_cents, reverses_id: other.id, info: reason });
  }
  return { entry: first.entry, balanceCents: first.balanceCents, repeated: false };
}
