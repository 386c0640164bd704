import type { Config } from '../config.js';
import { openDatabase } from '../db/connection.js';
import { importRecords, migrate } from '../installed-apps.js';
import { writeTransaction } from '../db/write-transaction.js';
import { readFixture, type ImportReport } from '../interchange/import.js';
import { UsageError, type Command } from '../command.js';

export const importCommand: Command = {
  name: 'import',
  summary: 'Load a Django dumpdata JSON fixture (inserts or updates records by pk)',
  usage: `hackerspace-api import <file.json>

Loads a Django \`dumpdata\` fixture (a JSON array of {"model", "pk", "fields"}
records of users.user, space.spacestatus, projects.project, events.event and
events.meeting) into DATABASE_URL, creating and migrating the database if needed.

Records are inserted or updated by pk, so importing the same file twice leaves
the same data; many-to-many fields (participants, members, …) are replaced.
Every field of these five models is kept, including those the API does not
show (password hashes, names, balances, …), for \`export\` to write back;
other models and fields are skipped and counted. See docs/migration.md.

The import is all or nothing: on any error (malformed JSON, a bad value, a
reference to a record that exists neither in the file nor in the database) it
prints "import failed: <reason>" naming the record, exits with code 1 and leaves
the database unchanged.

Example:
  python manage.py dumpdata users space projects events > dump.json
  hackerspace-api import dump.json`,
  options: {},
  allowPositionals: true,
  async run(_values, positionals, config) {
    if (positionals.length !== 1) throw new UsageError('expected exactly one fixture file');
    return importFile(config, positionals[0]);
  },
};

async function importFile(config: Config, file: string): Promise<number> {
  const database = await openDatabase(config.database);
  const progress = new Progress(process.stderr);
  const started = performance.now();
  try {
    await migrate(database.db);
    const report = await writeTransaction(database.db, (trx) => importRecords(trx, readFixture(file), { onProgress: (n) => progress.update(n) }));
    progress.clear();
    process.stderr.write(formatReport(report, file, (performance.now() - started) / 1000));
    process.stderr.write(`database: ${database.location}\n`);
    return 0;
  } catch (error) {
    progress.clear();
    process.stderr.write(`import failed: ${(error as Error).message}\n`);
    return 1;
  } finally {
    await database.close();
  }
}

export function formatReport(report: ImportReport, file: string, seconds: number): string {
  const total = Object.values(report.imported).reduce((a, b) => a + b, 0);
  const lines = [`imported ${total.toLocaleString('en-US')} records from ${file} in ${seconds.toFixed(1)} s`];
  lines.push(...countTable(report.imported));
  if (Object.keys(report.skippedModels).length) lines.push('skipped models (not kept by this service):', ...countTable(report.skippedModels));
  if (Object.keys(report.skippedFields).length) lines.push('skipped fields (records that had them):', ...countTable(report.skippedFields));
  lines.push(...report.notes);
  return lines.join('\n') + '\n';
}

/** `  name  count` lines, names and right-aligned counts in columns. */
export function countTable(counts: Record<string, number>): string[] {
  const entries = Object.entries(counts);
  const width = Math.max(...entries.map(([name]) => name.length));
  const numbers = entries.map(([, n]) => n.toLocaleString('en-US'));
  const numberWidth = Math.max(...numbers.map((n) => n.length));
  return entries.map(([name], i) => `  ${name.padEnd(width)}  ${numbers[i].padStart(numberWidth)}`);
}

const PROGRESS_INTERVAL_MS = 250;

/** Records read and rate on one rewritten line, only on a terminal and a few times a second. */
class Progress {
  private readonly started = performance.now();
  private lastDrawn = 0;
  private shown = false;

  constructor(private readonly stream: NodeJS.WriteStream) {}

  update(records: number): void {
    if (!this.stream.isTTY) return;
    const now = performance.now();
    if (now - this.lastDrawn < PROGRESS_INTERVAL_MS) return;
    this.lastDrawn = now;
    const rate = records / Math.max((now - this.started) / 1000, 0.001);
    this.stream.write(`\r\x1b[Kreading: ${records.toLocaleString('en-US')} records (${Math.round(rate).toLocaleString('en-US')}/s)`);
    this.shown = true;
  }

  clear(): void {
    if (this.shown) this.stream.write('\r\x1b[K');
    this.shown = false;
  }
}
