import type { Db } from '../db/connection.js';
import { recordError, type ImportError } from './import-error.js';
import type { ModelSpec, UniqueSpec } from './models.js';
import { chunks, MAX_PARAMETERS, rawQuery, type PendingRow } from './upsert.js';

/**
 * Which pk holds each value of a unique column among the records read so far, so that a clash
 * inside the file is reported with both pks. A record that changes its value frees the old one.
 */
export class UniqueKeys {
  private readonly pkByKey = new Map<unknown, number>();
  private readonly keyByPk = new Map<number, unknown>();

  /** Records `key` for `pk`; returns the other pk that already holds it, if any. */
  claim(key: unknown, pk: number): number | undefined {
    const holder = this.pkByKey.get(key);
    if (holder !== undefined && holder !== pk) return holder;
    const previous = this.keyByPk.get(pk);
    if (previous !== undefined && previous !== key) this.pkByKey.delete(previous);
    this.pkByKey.set(key, pk);
    this.keyByPk.set(pk, key);
    return undefined;
  }
}

/**
 * The first row of a batch whose unique value belongs to another row already in the database.
 * SQLite's unique constraints are not deferrable, so the insert would fail, without saying which
 * record. A holder that the same batch gives another value first (a rename) frees the value.
 * Returns the error to throw, or null.
 */
export async function findUniqueConflict(db: Db, spec: ModelSpec, rows: readonly PendingRow[]): Promise<ImportError | null> {
  const unique = spec.unique;
  if (!unique) return null;
  const batch = new BatchKeys(rows, unique.index);
  for (const keys of chunks(batch.keys(), MAX_PARAMETERS)) {
    const sql = `select "id", "${unique.column}" as "key" from "${spec.table}" where "${unique.column}" in (${keys.map(() => '?').join(', ')})`;
    const { rows: existing } = await db.executeQuery<{ id: number; key: unknown }>(rawQuery(db, sql, keys));
    const clash = batch.firstClash(existing);
    if (clash) return clashError(spec, unique, clash.pk, clash.key, clash.holder, 'database');
  }
  return null;
}

/** A batch's unique values, and the order in which the multi-row insert will apply its rows. */
class BatchKeys {
  private readonly pkByKey = new Map<unknown, number>();
  private readonly positionByPk = new Map<number, number>();

  constructor(
    private readonly rows: readonly PendingRow[],
    private readonly index: number,
  ) {
    rows.forEach((row, position) => {
      this.pkByKey.set(row.values[index], row.pk);
      this.positionByPk.set(row.pk, position);
    });
  }

  keys(): unknown[] {
    return [...this.pkByKey.keys()];
  }

  firstClash(existing: readonly { id: number; key: unknown }[]): { pk: number; key: unknown; holder: number } | null {
    let first: { pk: number; key: unknown; holder: number } | null = null;
    for (const { id: holder, key } of existing) {
      const pk = this.pkByKey.get(key);
      if (pk === undefined || pk === holder || this.renamedBefore(holder, pk, key)) continue;
      if (first === null || pk < first.pk) first = { pk, key, holder };
    }
    return first;
  }

  /** Whether the batch moves `holder` off `key` before it inserts `pk` with it. */
  private renamedBefore(holder: number, pk: number, key: unknown): boolean {
    const holderAt = this.positionByPk.get(holder);
    return holderAt !== undefined && this.rows[holderAt].values[this.index] !== key && holderAt < this.positionByPk.get(pk)!;
  }
}

export function clashError(spec: ModelSpec, unique: UniqueSpec, pk: number, key: unknown, holder: number, where: 'file' | 'database'): ImportError {
  return recordError(spec.model, pk, unique.describe(key, holder, where), unique.field);
}
