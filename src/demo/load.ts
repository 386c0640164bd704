import type { Db } from '../db/connection.js';
import { countedTablesOf, type CountedTable } from '../db/tables.js';
import { writeTransaction } from '../db/write-transaction.js';
import { importRecords, type ImportReport } from '../interchange/import.js';
import type { InstalledModels } from '../interchange/models.js';
import { clearAllData, nonEmptyCollections } from './clear.js';
import { demoRecords, type DemoChoices, type DemoSizes } from './generate.js';

export interface LoadDemoOptions {
  /** Delete whatever the database holds first; without it, a non-empty database is left alone. */
  replace?: boolean;
  /** Where the history ends, in microseconds since the epoch (default: the current time). */
  nowUs?: number;
  onProgress?: (recordsRead: number) => void;
}

export type LoadDemoOutcome =
  | { loaded: true; report: ImportReport; replaced: Array<{ collection: CountedTable; count: number }>; seconds: number }
  | { loaded: false; existing: Array<{ collection: CountedTable; count: number }> };

/**
 * Loads the demo through the real importer, in one transaction with the optional wipe: either
 * the database ends up holding exactly the demo, or it is unchanged. The emptiness check is in
 * the same transaction so nothing can slip in between the check and the load.
 */
export async function loadDemo(db: Db, models: InstalledModels, choices: DemoChoices, sizes: DemoSizes, seed: number, options: LoadDemoOptions = {}): Promise<LoadDemoOutcome> {
  const started = performance.now();
  return writeTransaction(db, async (trx): Promise<LoadDemoOutcome> => {
    const existing = await nonEmptyCollections(trx, countedTablesOf(models.tables));
    if (existing.length > 0 && !options.replace) return { loaded: false, existing };
    if (existing.length > 0) await clearAllData(trx);
    const records = demoRecords(choices, sizes, seed, options.nowUs ?? Date.now() * 1000);
    const report = await importRecords(trx, models, records, { onProgress: options.onProgress });
    return { loaded: true, report, replaced: existing, seconds: (performance.now() - started) / 1000 };
  });
}
