import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/api/app.js';
import { configFrom, type Config } from '../../src/config.js';
import { openDatabase, type DatabaseHandle } from '../../src/db/connection.js';
import { migrateToLatest } from '../../src/db/migrations.js';
import { importRecords } from '../../src/interchange/import.js';

/** A copy of ../shared/data/sample-dumpdata.json, so that the suite runs from any checkout. */
export const SAMPLE_FIXTURE = path.resolve(import.meta.dirname, '../fixtures/sample-dumpdata.json');

export function sampleRecords(): unknown[] {
  return JSON.parse(fs.readFileSync(SAMPLE_FIXTURE, 'utf8'));
}

/** A fresh, migrated SQLite database file in its own temporary directory. */
export async function freshDatabase(): Promise<{ handle: DatabaseHandle; file: string; dir: string; cleanup(): Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hackerspace-api-test-'));
  const file = path.join(dir, 'test.sqlite');
  const handle = openDatabase({ engine: 'sqlite', path: file });
  await migrateToLatest(handle.db);
  return {
    handle,
    file,
    dir,
    async cleanup() {
      await handle.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface TestServer {
  /** `http://127.0.0.1:<port>` */
  base: string;
  port: number;
  config: Config;
  app: FastifyInstance;
  database: DatabaseHandle;
  close(): Promise<void>;
}

/**
 * Builds the app in-process on a fresh SQLite file, loads `records` (dumpdata records) through
 * the real importer, and listens on a free port of 127.0.0.1.
 */
export async function startServer(options: { records?: unknown[]; env?: Record<string, string> } = {}): Promise<TestServer> {
  const fresh = await freshDatabase();
  const config = configFrom({ DATABASE_URL: `sqlite:${fresh.file}`, LOG_LEVEL: 'silent', ...options.env });
  if (options.records) {
    const records = options.records;
    await fresh.handle.db.transaction().execute((trx) => importRecords(trx, records));
  }
  const app = await buildApp(config, { database: fresh.handle, logger: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    config,
    app,
    database: fresh.handle,
    async close() {
      await app.close();
      await fresh.cleanup();
    },
  };
}
