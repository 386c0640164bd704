import { sql, type Insertable } from 'kysely';
import type { Db } from '../../db/connection.js';
import { formatHundredths } from '../../interchange/export.js';
import { FieldReader, isPk } from '../../interchange/field-reader.js';
import { FieldError, recordError, show } from '../../interchange/import-error.js';
import type { ExportedRecord, ImportDefaults, KeptModels, KeptRecords, ModelDeclaration, ModelSpec } from '../../interchange/models.js';
import type { OriginalFit } from '../../interchange/original-fit.js';
import { chunks } from '../../interchange/upsert.js';
import { checkLedger } from './ledger.js';
import type { LedgerEntriesTable } from './schema.js';

/*
 * The original's four transaction models in the ledger (ledger.md §5). Each of the original's rows
 * is one entry (a transfer two: the sender's, which holds the original's model and pk, and the
 * receiver's), found again by (original_model, original_pk). They are kept until the import's end,
 * when every member and product of the file is written:
 *
 * - a product transaction is a purchase of quantity 1 at the product's price at import, marked so
 *   (`price_at_import`: the original keeps no price); a top-up credits its amount (its location
 *   kept); a misc transaction debits its amount (a negative one credits); a transfer debits the
 *   sender and credits the receiver, both entries naming the other and the sender's entry;
 * - every entry is recorded through the import (`channel` 'import', no recorder), at the original's
 *   `when`;
 * - the members' balances are the original's (`users.user.balance`, imported by the users app): for
 *   each member whose entries do not add up to it, ONE opening entry of the difference, so that
 *   `ledger check` finds nothing.
 *
 * The ledger is append-only, and so is the import: an entry is never edited or deleted. Importing a
 * file again adds what is new and skips what is there; a record imported before whose original
 * fields now differ is refused (the file and the ledger disagree about the past, and a person must
 * say which is right, with a correction). When the balances of the file no longer meet the entries
 * (entries made here since, a balance edited in the original), a NEW opening entry makes up the
 * difference again: the original's balance is the truth of an import.
 *
 * The export writes every entry back in the original's form. Rows that came from the original come
 * back as they were (same model, pk and fields). An entry made here becomes its closest original
 * row, with the pk `(the model's highest imported pk) + (the entry's id)`, which no imported row
 * has and which stays the same across exports until more is imported: a top-up a top-up, a
 * transfer a transfer (its sender's entry; the receiver's is that row's other side), a purchase a
 * product transaction when it is of one unit at the product's price now (the original, which values
 * a product transaction at the product's price, then agrees), and otherwise, like a spend, a
 * reversal, a correction and an opening, a misc transaction of the opposite of its effect (a
 * negative amount where it credits the member). So every member's original rows add up to the
 * balance we export, as ours do. Loaded back into the database it came from (before more was
 * imported), an export's rows of our entries are recognised by that pk and their values, and skipped:
 * export then import adds nothing.
 */

const TRANSFER = 'stock.transfertransaction';
const TOPUP = 'stock.topuptransaction';
const PRODUCT = 'stock.producttransaction';
const MISC = 'stock.misctransaction';
type TransactionModel = typeof TRANSFER | typeof TOPUP | typeof PRODUCT | typeof MISC;
const TRANSACTION_MODELS: readonly TransactionModel[] = [TRANSFER, TOPUP, PRODUCT, MISC];

/** What an opening entry says. */
const OPENING_INFO = 'opening: the balance at import less its transactions';

/** A transaction record read: the original's values, in the order of each model's `read`. */
interface Transaction {
  model: TransactionModel;
  pk: number;
  user: number;
  whenUs: number | null;
  /** A transfer's receiver, a purchase's product. */
  other: number | null;
  /** The original's amount in cents (none for a product transaction). */
  amount: number | null;
  /** A top-up's type, a misc transaction's info. */
  text: string | null;
}

/** The original's `when` (auto_now_add), or null when the record does not give it: the import's start, then. */
const when = (f: FieldReader) => f.nullableTime('when');

export const LEDGER_MODELS: { readonly [Model in TransactionModel]: ModelDeclaration } = {
  [TRANSFER]: {
    fields: new Set(['user', 'when', 'receiver', 'amount']),
    read: (f) => ({ values: [f.reference('user'), when(f), f.reference('receiver'), f.decimal('amount', 6, 2), null] }),
    page: (db, after, limit, fit) => transactionsPage(db, TRANSFER, after, limit, fit),
  },
  [TOPUP]: {
    fields: new Set(['user', 'when', 'amount', 'topup_type']),
    read: (f) => ({ values: [f.reference('user'), when(f), null, f.decimal('amount', 6, 2), f.choice('topup_type', ['BANK', 'CASH'])] }),
    page: (db, after, limit, fit) => transactionsPage(db, TOPUP, after, limit, fit),
  },
  [PRODUCT]: {
    fields: new Set(['user', 'when', 'product']),
    read: (f) => ({ values: [f.reference('user'), when(f), f.reference('product'), null, null] }),
    page: (db, after, limit, fit) => transactionsPage(db, PRODUCT, after, limit, fit),
  },
  [MISC]: {
    fields: new Set(['user', 'when', 'amount', 'info']),
    read: (f) => ({ values: [f.reference('user'), when(f), null, f.decimal('amount', 6, 2), f.string('info')] }),
    page: (db, after, limit, fit) => transactionsPage(db, MISC, after, limit, fit),
  },
};

/** The transaction models, kept until the import's end (they share the ledger's table, and their sum meets the balances). */
export const LEDGER_KEPT: KeptModels = {
  models: new Set(TRANSACTION_MODELS),
  start: () => new LedgerImport(),
};

type NewEntry = Insertable<LedgerEntriesTable>;
/** An entry's own fields, as the import gives them (who, how and when are the import's). */
type EntryFields = Omit<NewEntry, 'user_id' | 'channel' | 'created_us' | 'recorded_by' | 'info'> & { info?: string };
/** The transaction models' `read` takes no defaults: a missing `when` is given at the end (LedgerImport.finish). */
const NO_DEFAULTS: ImportDefaults = {
  nowUs: 0,
  password: () => {
    throw new Error('a transaction has no password');
  },
};
const ROWS_PER_INSERT = 500;

class LedgerImport implements KeptRecords {
  /** By `model pk`: a record given twice counts as its last, as the other models' upsert does. */
  private readonly records = new Map<string, Transaction>();
  accept(spec: ModelSpec, pk: unknown, fields: Record<string, unknown>): void {
    if (!isPk(pk)) throw recordError(spec.model, pk, `pk must be a whole number from 1 to 2147483647, got ${show(pk)}`);
    const model = spec.model as TransactionModel;
    let values: unknown[];
    try {
      values = spec.read(new FieldReader(fields), NO_DEFAULTS, pk).values;
    } catch (error) {
      if (error instanceof FieldError) throw recordError(spec.model, pk, error.message, error.field);
      throw error;
    }
    const [user, whenUs, other, amount, text] = values as [number, number | null, number | null, number | null, string | null];
    if (model === TRANSFER && other === user) throw recordError(model, pk, 'a transfer to its own sender', 'receiver');
    this.records.set(`${model} ${pk}`, { model, pk, user, whenUs, other, amount, text });
  }

  fieldsOf(_spec: ModelSpec, _pk: number, fields: Record<string, unknown>): Record<string, unknown> {
    return fields;
  }

  async finish(db: Db, defaults: ImportDefaults): Promise<readonly string[]> {
    const records = [...this.records.values()].map((t) => ({ ...t, whenUs: t.whenUs ?? defaults.nowUs }));
    await checkReferences(db, records);
    const fresh = await withoutOurs(db, await this.withoutImported(db, records));
    const prices = await productPrices(db, fresh);
    const entry = (t: Transaction & { whenUs: number }, fields: EntryFields): NewEntry => ({
      ...fields,
      info: fields.info ?? '',
      // Every row gives every defaulted column: SQLite's multi-row VALUES has no DEFAULT.
      price_at_import: fields.price_at_import ?? 0,
      user_id: t.user,
      recorded_by: null,
      channel: 'import',
      created_us: t.whenUs,
    });
    const singles: NewEntry[] = [];
    const transfers: (Transaction & { whenUs: number })[] = [];
    for (const t of fresh) {
      const key = { original_model: t.model, original_pk: t.pk };
      if (t.model === TOPUP) singles.push(entry(t, { kind: 'topup', amount_cents: t.amount!, location: t.text, ...key }));
      else if (t.model === MISC) singles.push(entry(t, { kind: 'spend', amount_cents: -t.amount!, info: t.text!, ...key }));
      else if (t.model === PRODUCT) {
        const price = prices.get(t.other!)!;
        singles.push(entry(t, { kind: 'purchase', amount_cents: -price, product_id: t.other, unit_price_cents: price, quantity: 1, price_at_import: 1, ...key }));
      } else transfers.push(t);
    }
    for (const part of chunks(singles, ROWS_PER_INSERT)) await db.insertInto('ledger_entries').values(part).execute();
    await writeTransfers(db, transfers, entry);
    const openings = await writeOpenings(db, defaults.nowUs);
    // The file's balances are the truth (ledger.md §5): the operator learns how many were made up, never the amounts.
    return openings === 0
      ? []
      : [`the ledger: ${openings} opening ${openings === 1 ? 'entry' : 'entries'} made members' balances equal the file's (\`hackerspace-api ledger check\` agrees)`];
  }

  /** The records not imported before; one imported before with other values is refused (the ledger edits nothing). */
  private async withoutImported<T extends Transaction>(db: Db, records: readonly T[]): Promise<T[]> {
    const fresh: T[] = [];
    for (const model of TRANSACTION_MODELS) {
      const ofModel = records.filter((t) => t.model === model);
      for (const part of chunks(ofModel, ROWS_PER_INSERT)) {
        const rows = await db
          .selectFrom('ledger_entries')
          .select(['original_pk', 'user_id', 'created_us', 'amount_cents', 'product_id', 'counterpart_id', 'location', 'info'])
          .where('original_model', '=', model)
          .where(
            'original_pk',
            'in',
            part.map((t) => t.pk),
          )
          .execute();
        const imported = new Map(rows.map((row) => [Number(row.original_pk), row]));
        for (const t of part) {
          const before = imported.get(t.pk);
          if (before === undefined) fresh.push(t);
          else if (!sameTransaction(t, before)) {
            throw recordError(model, t.pk, 'was imported before with other values; the ledger never edits an entry (correct it on the slate, or import the file it came from)');
          }
        }
      }
    }
    return fresh;
  }
}

/**
 * The records that are not our own entries coming back: an export writes an entry made here with
 * the pk `(the model's highest imported pk) + (its id)`, so a record of that pk whose values are
 * the entry's is that entry (an export loaded back into the database it came from, before anything
 * more was imported), and is skipped.
 */
async function withoutOurs<T extends Transaction & { whenUs: number }>(db: Db, records: readonly T[]): Promise<T[]> {
  const ours = new Set<T>();
  for (const model of TRANSACTION_MODELS) {
    const offset = await highestImported(db, model);
    const candidates = new Map(records.filter((t) => t.model === model && t.pk > offset).map((t) => [t.pk - offset, t]));
    for (const ids of chunks([...candidates.keys()], ROWS_PER_INSERT)) {
      const entries = await db
        .selectFrom('ledger_entries')
        .select(['id', 'user_id', 'kind', 'created_us', 'amount_cents', 'product_id', 'quantity', 'counterpart_id', 'transfer_id', 'location'])
        .where('original_model', 'is', null)
        .where('id', 'in', ids)
        .execute();
      for (const e of entries) {
        const t = candidates.get(e.id)!;
        const amount = Number(e.amount_cents);
        if (e.user_id !== t.user || Number(e.created_us) !== t.whenUs) continue;
        const same =
          model === TRANSFER
            ? e.kind === 'transfer' && e.transfer_id === e.id && e.counterpart_id === t.other && -amount === t.amount
            : model === TOPUP
              ? e.kind === 'topup' && amount === t.amount && e.location === t.text
              : model === PRODUCT
                ? e.kind === 'purchase' && e.quantity === 1 && e.product_id === t.other
                : e.kind !== 'topup' && e.kind !== 'transfer' && -amount === t.amount;
        if (same) ours.add(t);
      }
    }
  }
  return records.filter((t) => !ours.has(t));
}

async function highestImported(db: Db, model: TransactionModel): Promise<number> {
  const highest = await db
    .selectFrom('ledger_entries')
    .select((eb) => eb.fn.max('original_pk').as('pk'))
    .where('original_model', '=', model)
    .executeTakeFirst();
  return Number(highest?.pk ?? 0);
}

/** Whether an entry imported before holds this record's original values. */
function sameTransaction(
  t: Transaction,
  e: { user_id: number; created_us: number; amount_cents: number; product_id: number | null; counterpart_id: number | null; location: string | null; info: string },
): boolean {
  if (e.user_id !== t.user || Number(e.created_us) !== t.whenUs) return false;
  const amount = Number(e.amount_cents);
  switch (t.model) {
    case TRANSFER:
      return e.counterpart_id === t.other && -amount === t.amount;
    case TOPUP:
      return amount === t.amount && e.location === t.text;
    case PRODUCT:
      return e.product_id === t.other;
    case MISC:
      return -amount === t.amount && e.info === t.text;
  }
}

/** Every member and product the records name exists (in the file or the database), or the first record that names one that does not. */
async function checkReferences(db: Db, records: readonly Transaction[]): Promise<void> {
  const users = await existing(db, 'users', [...new Set(records.flatMap((t) => (t.model === TRANSFER ? [t.user, t.other!] : [t.user])))]);
  const products = await existing(db, 'stock_products', [...new Set(records.filter((t) => t.model === PRODUCT).map((t) => t.other!))]);
  const sorted = [...records].sort((a, b) => TRANSACTION_MODELS.indexOf(a.model) - TRANSACTION_MODELS.indexOf(b.model) || a.pk - b.pk);
  for (const t of sorted) {
    const missing = (field: string, target: string, pk: number) =>
      recordError(t.model, t.pk, `refers to ${target} pk ${pk}, which is neither in the file nor in the database`, field);
    if (!users.has(t.user)) throw missing('user', 'users.user', t.user);
    if (t.model === TRANSFER && !users.has(t.other!)) throw missing('receiver', 'users.user', t.other!);
    if (t.model === PRODUCT && !products.has(t.other!)) throw missing('product', 'stock.product', t.other!);
  }
}

async function existing(db: Db, table: 'users' | 'stock_products', ids: readonly number[]): Promise<ReadonlySet<number>> {
  const found = new Set<number>();
  for (const part of chunks(ids, ROWS_PER_INSERT)) {
    for (const row of await db.selectFrom(table).select('id').where('id', 'in', part).execute()) found.add(row.id);
  }
  return found;
}

/** The price now of every product the new purchases name, in cents. */
async function productPrices(db: Db, records: readonly Transaction[]): Promise<ReadonlyMap<number, number>> {
  const ids = [...new Set(records.filter((t) => t.model === PRODUCT).map((t) => t.other!))];
  const prices = new Map<number, number>();
  for (const part of chunks(ids, ROWS_PER_INSERT)) {
    for (const row of await db.selectFrom('stock_products').select(['id', 'price_cents']).where('id', 'in', part).execute()) prices.set(row.id, Number(row.price_cents));
  }
  return prices;
}

/** A transfer's two entries: the sender's (with the original's key, naming itself as the transfer), then the receiver's. */
async function writeTransfers(
  db: Db,
  transfers: readonly (Transaction & { whenUs: number })[],
  entry: (t: Transaction & { whenUs: number }, fields: EntryFields) => NewEntry,
): Promise<void> {
  for (const part of chunks(transfers, ROWS_PER_INSERT)) {
    await db
      .insertInto('ledger_entries')
      .values(part.map((t) => entry(t, { kind: 'transfer', amount_cents: -t.amount!, counterpart_id: t.other, original_model: TRANSFER, original_pk: t.pk })))
      .execute();
    const senders = await db
      .selectFrom('ledger_entries')
      .select(['id', 'original_pk'])
      .where('original_model', '=', TRANSFER)
      .where(
        'original_pk',
        'in',
        part.map((t) => t.pk),
      )
      .execute();
    const idOf = new Map(senders.map((row) => [Number(row.original_pk), row.id]));
    for (const ids of chunks([...idOf.values()], ROWS_PER_INSERT)) {
      await db
        .updateTable('ledger_entries')
        .set({ transfer_id: sql<number>`id` })
        .where('id', 'in', ids)
        .execute();
    }
    await db
      .insertInto('ledger_entries')
      .values(part.map((t) => ({ ...entry(t, { kind: 'transfer', amount_cents: t.amount!, counterpart_id: t.user, transfer_id: idOf.get(t.pk)! }), user_id: t.other! })))
      .execute();
  }
}

/** For every member whose entries do not add up to their balance (the original's, imported), one opening entry of the difference; how many. */
async function writeOpenings(db: Db, nowUs: number): Promise<number> {
  const openings: NewEntry[] = (await checkLedger(db)).map((member) => ({
    user_id: member.userId,
    kind: 'opening',
    amount_cents: member.keptCents - member.entriesCents,
    info: OPENING_INFO,
    price_at_import: 0,
    recorded_by: null,
    channel: 'import',
    created_us: nowUs,
  }));
  for (const part of chunks(openings, ROWS_PER_INSERT)) await db.insertInto('ledger_entries').values(part).execute();
  return openings.length;
}

/*
 * The export. Each model's page is its imported rows by their original pk, then the entries made
 * here that the model writes, by `(highest imported pk) + (entry id)`.
 */

interface EntryRow {
  id: number;
  user_id: number;
  kind: string;
  amount_cents: number;
  product_id: number | null;
  unit_price_cents: number | null;
  quantity: number | null;
  location: string | null;
  info: string;
  counterpart_id: number | null;
  reverses_id: number | null;
  created_us: number;
  original_pk: number | null;
  product_name: string | null;
}

async function transactionsPage(db: Db, model: TransactionModel, after: number, limit: number, fit: OriginalFit): Promise<ExportedRecord[]> {
  const offset = await highestImported(db, model);
  const base = db
    .selectFrom('ledger_entries as e')
    .leftJoin('stock_products as p', 'p.id', 'e.product_id')
    .select([
      'e.id',
      'e.user_id',
      'e.kind',
      'e.amount_cents',
      'e.product_id',
      'e.unit_price_cents',
      'e.quantity',
      'e.location',
      'e.info',
      'e.counterpart_id',
      'e.reverses_id',
      'e.created_us',
      'e.original_pk',
      'p.name as product_name',
    ]);
  const imported: EntryRow[] =
    after < offset ? await base.where('e.original_model', '=', model).where('e.original_pk', '>', after).orderBy('e.original_pk').limit(limit).execute() : [];
  const records = imported.map((row) => ({ pk: Number(row.original_pk), fields: fieldsOf(model, row, fit) }));
  if (records.length === limit) return records;
  // A purchase is a product transaction when the original would value it as we do: one unit at the product's price now.
  const asProduct = sql<boolean>`e.kind = 'purchase' and e.quantity = 1 and e.unit_price_cents = p.price_cents`;
  const made = base
    .where('e.original_model', 'is', null)
    .where('e.id', '>', Math.max(0, after - offset))
    .where((eb) => {
      switch (model) {
        case TRANSFER:
          return eb.and([eb('e.kind', '=', 'transfer'), eb('e.transfer_id', '=', eb.ref('e.id'))]);
        case TOPUP:
          return eb('e.kind', '=', 'topup');
        case PRODUCT:
          return eb.and([asProduct]);
        case MISC:
          return eb.or([eb('e.kind', 'in', ['spend', 'reversal', 'correction', 'opening']), eb.and([eb('e.kind', '=', 'purchase'), eb.not(eb.parens(asProduct))])]);
      }
    })
    .orderBy('e.id')
    .limit(limit - records.length);
  for (const row of await made.execute()) records.push({ pk: offset + row.id, fields: fieldsOf(model, row, fit) });
  return records;
}

/** An entry as a row of the original's model (Django's field order: the abstract Transaction's, then the model's). */
function fieldsOf(model: TransactionModel, e: EntryRow, fit: OriginalFit): Record<string, unknown> {
  const head = { user: e.user_id, when: fit.times.format(Number(e.created_us)) };
  const amount = Number(e.amount_cents);
  switch (model) {
    case TRANSFER:
      return { ...head, receiver: e.counterpart_id, amount: formatHundredths(-amount) };
    case TOPUP:
      return { ...head, amount: formatHundredths(amount), topup_type: e.location };
    case PRODUCT:
      return { ...head, product: e.product_id };
    case MISC:
      return { ...head, amount: formatHundredths(-amount), info: miscInfo(e) };
  }
}

/** What a misc transaction written for an entry of ours says: a spend's name, or what the entry was. */
function miscInfo(e: EntryRow): string {
  switch (e.kind) {
    case 'purchase':
      return `${e.product_name ?? `product ${e.product_id}`} ×${e.quantity} at ${formatHundredths(Number(e.unit_price_cents))}`;
    case 'reversal':
    case 'correction':
      return `${e.kind} of entry ${e.reverses_id}${e.info === '' ? '' : `: ${e.info}`}`;
    default:
      return e.info;
  }
}
