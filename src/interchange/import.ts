import type { Db } from '../db/connection.js';
import { syncIdentities } from '../db/identities.js';
import { FieldReader, isPk } from './field-reader.js';
import { FieldError, ImportError, recordError, show } from './import-error.js';
import { unusablePassword } from '../db/unusable-password.js';
import type { ImportDefaults, InstalledModels, KeptModels, KeptRecords, ModelSpec } from './models.js';
import { removeOrganizerStandIns } from './organizer-stand-in.js';
import { findMissingReference } from './references.js';
import { clashError, findUniqueConflict, UniqueKeys } from './unique-keys.js';
import { batchRows, upsertRows, type PendingRow } from './upsert.js';

export { ImportError } from './import-error.js';
export { readFixture } from './fixture-reader.js';

export interface ImportReport {
  /** Records written per model (every model, in Django's order). */
  imported: Record<string, number>;
  /** Records of models this service does not keep, per model label. */
  skippedModels: Record<string, number>;
  /** Ignored fields of known models, per `model.field`, counted once per record. */
  skippedFields: Record<string, number>;
  /** What the apps' kept models say the operator should know (the slate's opening entries). */
  notes: string[];
}

export interface ImportOptions {
  /** Called every few thousand records and once at the end, with the number of records read. */
  onProgress?: (recordsRead: number) => void;
  /** When the records were made, for those that do not say (microseconds; default: now, to the millisecond). */
  nowUs?: number;
}

const PROGRESS_EVERY = 4096;

/**
 * Upserts dumpdata records of the installed models (the composition's) by pk. The CALLER owns the transaction: call as
 * `writeTransaction(db, trx => importRecords(trx, models, records))` (db/write-transaction.ts: it also
 * keeps API writes from interleaving), so that an ImportError (which
 * names the model and pk) leaves the database as it was. References are checked after the last
 * record, so records may come in any order and may refer to rows already in the database.
 */
export async function importRecords(db: Db, models: InstalledModels, records: Iterable<unknown> | AsyncIterable<unknown>, options: ImportOptions = {}): Promise<ImportReport> {
  const importer = new Importer(db, models, { nowUs: options.nowUs ?? Date.now() * 1000, password: unusablePassword });
  let read = 0;
  for await (const record of records) {
    read++;
    const full = importer.accept(record, read);
    if (full) await importer.flush(full);
    if (read % PROGRESS_EVERY === 0) options.onProgress?.(read);
  }
  const report = await importer.finish();
  options.onProgress?.(read);
  return report;
}

/** The state of one import: counts, pending batches per model, unique values seen. */
class Importer {
  private readonly imported: Map<string, number>;
  private readonly skippedModels = new Map<string, number>();
  private readonly skippedFields = new Map<string, number>();
  private readonly batches = new Map<ModelSpec, Map<number, PendingRow>>();
  private readonly uniqueKeys = new Map<ModelSpec, UniqueKeys>();
  /** The records that apps keep until the end, each with the models it keeps. */
  private readonly kept: readonly { models: KeptModels['models']; records: KeptRecords }[];

  constructor(
    private readonly db: Db,
    private readonly models: InstalledModels,
    private readonly defaults: ImportDefaults,
  ) {
    this.imported = new Map([...models.specs.keys()].map((model) => [model, 0]));
    this.kept = models.kept.map((kept) => ({ models: kept.models, records: kept.start() }));
  }

  /** Validates one record and queues its row; returns the model whose batch is now full, if any. */
  accept(record: unknown, index: number): ModelSpec | null {
    const { label, pk, fields } = readEnvelope(record, index);
    const spec = this.models.specs.get(label) ?? this.models.specs.get(djangoLabel(label));
    if (!spec) {
      increment(this.skippedModels, label);
      return null;
    }
    const keeper = this.kept.find((kept) => kept.models.has(spec.model));
    if (keeper !== undefined) {
      // Written at the end, once all are known (their natural keys resolve against each other).
      if (!isPlainObject(fields)) throw recordError(spec.model, pk, `"fields" must be an object, got ${show(fields)}`);
      this.countSkippedFields(spec, fields);
      keeper.records.accept(spec, pk, fields);
      increment(this.imported, spec.model);
      return null;
    }
    if (!isPk(pk)) throw recordError(spec.model, pk, `pk must be a whole number from 1 to 2147483647, got ${show(pk)}`);
    if (!isPlainObject(fields)) throw recordError(spec.model, pk, `"fields" must be an object, got ${show(fields)}`);
    this.countSkippedFields(spec, fields);
    const own = this.kept.reduce((given, kept) => kept.records.fieldsOf(spec, pk, given), fields);
    const row: PendingRow = { pk, ...readRow(spec, pk, own, this.defaults) };
    this.claimUnique(spec, row);
    const batch = this.batchOf(spec);
    batch.set(pk, row);
    increment(this.imported, spec.model);
    return batch.size >= batchRows(spec) ? spec : null;
  }

  async flush(spec: ModelSpec): Promise<void> {
    const batch = this.batchOf(spec);
    const rows = [...batch.values()];
    batch.clear();
    const conflict = await findUniqueConflict(this.db, spec, rows);
    if (conflict) throw conflict;
    await upsertRows(this.db, spec, rows);
  }

  async finish(): Promise<ImportReport> {
    for (const spec of this.models.specs.values()) await this.flush(spec);
    const notes: string[] = [];
    for (const kept of this.kept) notes.push(...((await kept.records.finish(this.db, this.defaults)) ?? []));
    const missing = await findMissingReference(this.db, this.models);
    if (missing) throw missing;
    const standIns = await removeOrganizerStandIns(this.db);
    if (standIns > 0) this.imported.set('users.user', this.imported.get('users.user')! - standIns);
    await syncIdentities(this.db, this.models.tables);
    return {
      imported: Object.fromEntries(this.imported),
      skippedModels: Object.fromEntries(this.skippedModels),
      skippedFields: Object.fromEntries(this.skippedFields),
      notes,
    };
  }

  private countSkippedFields(spec: ModelSpec, fields: Record<string, unknown>): void {
    for (const name of Object.keys(fields)) {
      if (!spec.fields.has(name)) increment(this.skippedFields, `${spec.model}.${name}`);
    }
  }

  private claimUnique(spec: ModelSpec, row: PendingRow): void {
    if (!spec.unique) return;
    let keys = this.uniqueKeys.get(spec);
    if (!keys) this.uniqueKeys.set(spec, (keys = new UniqueKeys()));
    const key = row.values[spec.unique.index];
    const holder = keys.claim(key, row.pk);
    if (holder !== undefined) throw clashError(spec, spec.unique, row.pk, key, holder, 'file');
  }

  private batchOf(spec: ModelSpec): Map<number, PendingRow> {
    let batch = this.batches.get(spec);
    if (!batch) this.batches.set(spec, (batch = new Map<number, PendingRow>()));
    return batch;
  }
}

function readEnvelope(record: unknown, index: number): { label: string; pk: unknown; fields: unknown } {
  if (!isPlainObject(record)) {
    throw new ImportError(`record ${index}: expected an object with "model", "pk" and "fields", got ${show(record)}`);
  }
  const { model, pk, fields } = record;
  if (typeof model !== 'string') {
    throw new ImportError(`record ${index} (pk ${show(pk)}): "model" must be a string such as "users.user", got ${show(model)}`, { pk });
  }
  return { label: model, pk, fields };
}

function readRow(spec: ModelSpec, pk: number, fields: Record<string, unknown>, defaults: ImportDefaults) {
  try {
    return spec.read(new FieldReader(fields, spec.privateFields), defaults, pk);
  } catch (error) {
    if (error instanceof FieldError) throw recordError(spec.model, pk, error.message, error.field);
    throw error;
  }
}

/** Django looks models up with the model name lower-cased (`users.User` is `users.user`). */
function djangoLabel(label: string): string {
  const dot = label.indexOf('.');
  return dot === -1 ? label : label.slice(0, dot) + label.slice(dot).toLowerCase();
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function increment(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}
