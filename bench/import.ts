/**
 * Times an import of a generated fixture of openings (default 1,000,000) into a fresh SQLite
 * file, then an export of it, and prints seconds.
 *
 *   node --import tsx bench/import.ts [openings]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { openDatabase } from '../src/db/connection.js';
import { migrateToLatest } from '../src/db/migrations.js';
import { exportFixture } from '../src/interchange/export.js';
import { importRecords, readFixture } from '../src/interchange/import.js';
import { formatIsoUtc } from '../src/time.js';

const openings = Number(process.argv[2] ?? 1_000_000);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hackerspace-bench-import-'));

/** Openings a few minutes to an hour apart, with microseconds, as Django writes them. */
async function generate(file: string, count: number): Promise<void> {
  const out = fs.createWriteStream(file);
  let micros = Date.UTC(2015, 0, 1) * 1000;
  let lines: string[] = [];
  out.write('[\n');
  for (let pk = 1; pk <= count; pk++) {
    micros += 60_000_000 + Math.floor(Math.random() * 3_600_000_000);
    lines.push(`{"model": "space.spacestatus", "pk": ${pk}, "fields": {"time": "${formatIsoUtc(micros)}", "is_open": ${pk % 2 === 1}}}`);
    if (lines.length === 10_000 || pk === count) {
      if (!out.write(lines.join(',\n') + (pk === count ? '\n' : ',\n'))) await once(out, 'drain');
      lines = [];
    }
  }
  out.end(']\n');
  await once(out, 'close');
}

async function main(): Promise<void> {
  const fixture = path.join(dir, 'openings.json');
  await generate(fixture, openings);
  const size = fs.statSync(fixture).size;
  const database = await openDatabase({ engine: 'sqlite', path: path.join(dir, 'bench.sqlite') });
  try {
    await migrateToLatest(database.db);
    let started = performance.now();
    const report = await database.db.transaction().execute((trx) => importRecords(trx, readFixture(fixture)));
    const importSeconds = (performance.now() - started) / 1000;
    if (report.imported['space.spacestatus'] !== openings) throw new Error('not every opening was imported');

    started = performance.now();
    const out = fs.createWriteStream(path.join(dir, 'export.json'));
    await exportFixture(database.db, out);
    out.end();
    await once(out, 'close');
    const exportSeconds = (performance.now() - started) / 1000;

    const rate = (seconds: number) => Math.round(openings / seconds).toLocaleString('en-US');
    console.log(`fixture: ${openings.toLocaleString('en-US')} openings, ${(size / 1e6).toFixed(1)} MB`);
    console.log('| step   | seconds | records/s |');
    console.log('|--------|---------|-----------|');
    console.log(`| import | ${importSeconds.toFixed(2).padStart(7)} | ${rate(importSeconds).padStart(9)} |`);
    console.log(`| export | ${exportSeconds.toFixed(2).padStart(7)} | ${rate(exportSeconds).padStart(9)} |`);
    console.log(`peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
  } finally {
    await database.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
