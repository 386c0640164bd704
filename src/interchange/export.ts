import type { Db } from '../db/connection.js';
import { FixtureTimeFormatter } from './fixture-time.js';
import { FixtureWriter } from './fixture-writer.js';
import type { ExportedRecord, InstalledModels, LinkSpec, ModelSpec } from './models.js';
import { OriginalFit } from './original-fit.js';
import { rawQuery } from './upsert.js';

/** Rows per query: keyset pages keep memory constant however large a table is. */
const PAGE_SIZE = 2000;

/**
 * Writes all data as a Django dumpdata JSON array, streamed in constant memory, in Django's model
 * order and by pk within a model. Everything is read in one transaction, so the file is a
 * consistent snapshot even while the service keeps writing. Returns the records written per
 * model. The stream is not ended: it belongs to the caller.
 */
export async function exportFixture(db: Db, models: InstalledModels, out: NodeJS.WritableStream): Promise<Record<string, number>> {
  if (db.isTransaction) return writeFixture(db, models, out);
  // REPEATABLE READ: one snapshot for the whole file on PostgreSQL too (SQLite's transactions already are).
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute((trx) => writeFixture(trx, models, out));
}

async function writeFixture(db: Db, models: InstalledModels, out: NodeJS.WritableStream): Promise<Record<string, number>> {
  const writer = new FixtureWriter(out);
  const fit = await OriginalFit.prepare(db);
  const counts: Record<string, number> = {};
  for (const [model, spec] of models.specs) {
    counts[model] = 0;
    for await (const page of pages(db, spec, fit)) {
      for (const record of page) {
        if (writer.record(model, record.pk, record.fields)) await writer.flush();
      }
      counts[model] += page.length;
    }
    const extra = model === 'users.user' ? fit.organizerStandIn() : undefined;
    if (extra) {
      writer.record(model, extra.pk, extra.fields);
      counts[model]++;
    }
  }
  await writer.finish();
  return counts;
}

async function* pages(db: Db, spec: ModelSpec, fit: OriginalFit): AsyncGenerator<ExportedRecord[]> {
  let after = 0;
  for (;;) {
    const page = await spec.page(db, after, PAGE_SIZE, fit);
    yield page;
    if (page.length < PAGE_SIZE) return;
    after = page[page.length - 1].pk;
  }
}

/** An instant as a fixture writes it, or null. */
export function optionalTime(times: FixtureTimeFormatter, micros: number | null): string | null {
  return micros === null ? null : times.format(Number(micros));
}

/** A DecimalField(…, 2) as Django writes it: "40.00", "-0.06". */
export function formatHundredths(value: number): string {
  const abs = Math.abs(value);
  return `${value < 0 ? '-' : ''}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** The target pks of a many-to-many field for a page of owners, in pk order. */
export async function linked(db: Db, link: LinkSpec, ownerIds: number[]): Promise<Map<number, number[]>> {
  const grouped = new Map<number, number[]>();
  if (ownerIds.length === 0) return grouped;
  const { table, ownerColumn: owner, targetColumn: target } = link;
  const rows = await db.executeQuery<{ owner: number; target: number }>(
    rawQuery(db, `select "${owner}" as "owner", "${target}" as "target" from "${table}" where "${owner}" in (${ownerIds.map(() => '?').join(', ')}) order by 1, 2`, ownerIds),
  );
  for (const row of rows.rows) {
    const list = grouped.get(row.owner);
    if (list) list.push(row.target);
    else grouped.set(row.owner, [row.target]);
  }
  return grouped;
}
