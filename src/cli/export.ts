import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import { openDatabase, type Db } from '../db/connection.js';
import { exportFixture, migrate } from '../installed-apps.js';
import { UsageError, type Command } from '../command.js';
import { countTable } from './import.js';

export const exportCommand: Command = {
  name: 'export',
  summary: 'Write all data as a Django dumpdata JSON fixture (to a file or stdout)',
  usage: `hackerspace-api export [file.json]

Writes every record of DATABASE_URL as a Django \`dumpdata\` fixture: a JSON
array of {"model", "pk", "fields"} records (users.user, space.spacestatus,
projects.project, events.event, events.meeting), by pk within each model.
Every field of the original's models is written, including those the API does
not show. The file can be loaded back with \`hackerspace-api import\` or with
Django's \`manage.py loaddata\` into the original: what its schema cannot hold
(a user without an e-mail address, an event without an organizer, a username
over 30 characters, …) is written as docs/migration.md says.

Without a file, the fixture goes to stdout and nothing else does; the report
goes to stderr. A file is written under a temporary name and renamed when
complete, so an interrupted export never leaves a truncated file behind.`,
  options: {},
  allowPositionals: true,
  async run(_values, positionals, config) {
    if (positionals.length > 1) throw new UsageError('expected at most one output file');
    return exportTo(config, positionals[0]);
  },
};

async function exportTo(config: Config, file: string | undefined): Promise<number> {
  const database = await openDatabase(config.database);
  const started = performance.now();
  try {
    await migrate(database.db);
    const counts = file === undefined ? await exportFixture(database.db, process.stdout) : await exportToFile(database.db, file);
    process.stderr.write(formatCounts(counts, file ?? 'stdout', (performance.now() - started) / 1000));
    return 0;
  } catch (error) {
    process.stderr.write(`export failed: ${(error as Error).message}\n`);
    return 1;
  } finally {
    await database.close();
  }
}

/** Written beside the target, synced and renamed at the end: the file is complete or absent. */
async function exportToFile(db: Db, file: string): Promise<Record<string, number>> {
  const partial = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.partial`);
  const out = fs.createWriteStream(partial, { flags: 'wx' });
  try {
    const counts = await exportFixture(db, out);
    await new Promise<void>((resolve, reject) => {
      out.once('error', reject);
      out.once('close', resolve);
      out.end();
    });
    await syncFile(partial);
    await fs.promises.rename(partial, file);
    return counts;
  } catch (error) {
    out.destroy();
    await fs.promises.rm(partial, { force: true });
    throw error;
  }
}

/** Flushes the file to disk, so that the rename never exposes a file whose data is not there yet. */
async function syncFile(file: string): Promise<void> {
  const handle = await fs.promises.open(file, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function formatCounts(counts: Record<string, number>, target: string, seconds: number): string {
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  return [`exported ${total.toLocaleString('en-US')} records to ${target} in ${seconds.toFixed(1)} s`, ...countTable(counts)].join('\n') + '\n';
}
