import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { configFrom, type Config } from '../../src/config.js';
import { openDatabase, type DatabaseHandle } from '../../src/db/connection.js';
import { importRecords, migrate as migrateToLatest } from '../../src/installed-apps.js';
import pg from 'pg';
import type { MailerOptions } from '../../src/apps/users/mail.js';
import type { DiscoveryTiming } from '../../src/apps/users/oidc-client.js';

/** The sample dumpdata fixture, kept in the repository so that the suite runs from any checkout. */
export const SAMPLE_FIXTURE = path.resolve(import.meta.dirname, '../fixtures/sample-dumpdata.json');

export function sampleRecords(): unknown[] {
  return JSON.parse(fs.readFileSync(SAMPLE_FIXTURE, 'utf8'));
}

/** The engine this run of the suite tests: `TEST_ENGINE=postgres` (see scripts/test.mjs), else SQLite. */
export const TEST_ENGINE: 'sqlite' | 'postgres' = process.env.TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';

/**
 * node:test options for a test about PostgreSQL itself (a server to lose, credentials to refuse):
 * run in the PostgreSQL pass of `npm test`, reported as skipped with `why` in the SQLite pass, so
 * that both passes declare the same tests. Give it to every `it` of such a test: node:test does
 * not declare the tests of a skipped `describe`, and runs its hooks anyway, so a describe of
 * PostgreSQL-only tests stays unskipped and its hooks check `.skip` before touching anything.
 */
export function postgresOnly(why: string): { skip: string | false } {
  return { skip: TEST_ENGINE === 'postgres' ? false : `PostgreSQL only: ${why}` };
}

/** The same for a test that only applies to SQLite: skipped, with `why`, in the PostgreSQL pass. */
export function sqliteOnly(why: string): { skip: string | false } {
  return { skip: TEST_ENGINE === 'sqlite' ? false : `SQLite only: ${why}` };
}

export interface FreshDatabase {
  handle: DatabaseHandle;
  /** DATABASE_URL for this database, for child processes and second connections. */
  url: string;
  /** A temporary directory for the test's own files, removed by cleanup(). */
  dir: string;
  cleanup(): Promise<void>;
}

/**
 * A fresh, migrated database of the engine under test: a SQLite file in its own temporary
 * directory, or a PostgreSQL schema of its own in the run's database (TEST_POSTGRES_URL).
 */
export async function freshDatabase(options: { migrate?: boolean } = {}): Promise<FreshDatabase> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hackerspace-api-test-'));
  const { url, drop } = TEST_ENGINE === 'postgres' ? await postgresSchema() : { url: `sqlite:${path.join(dir, 'test.sqlite')}`, drop: async () => {} };
  const handle = await openDatabase(configFrom({ DATABASE_URL: url }).database);
  if (options.migrate !== false) await migrateToLatest(handle.db);
  return {
    handle,
    url,
    dir,
    async cleanup() {
      await handle.close();
      await drop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresSchema(): Promise<{ url: string; drop: () => Promise<void> }> {
  const base = process.env.TEST_POSTGRES_URL;
  if (!base) throw new Error('TEST_ENGINE=postgres needs TEST_POSTGRES_URL (npm test sets both)');
  const schema = `t_${process.pid}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    await admin.query(`create schema ${schema}`);
  } finally {
    await admin.end();
  }
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: base });
      await client.connect();
      try {
        await client.query(`drop schema ${schema} cascade`);
      } finally {
        await client.end();
      }
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
  /** DATABASE_URL of the server's database. */
  url: string;
  close(): Promise<void>;
}

/**
 * Builds the app in-process on a fresh database of the engine under test, loads `records` (dumpdata records) through
 * the real importer, and listens on a free port of 127.0.0.1. With `logs`, the service logs at
 * info level (what an operator sees) into that array, one parsed line each. `mailer`: a CA for
 * the mailer to trust (the tests' SMTP server), with SMTP_URL in `env`. `port`: a port chosen
 * beforehand (a redirect URI registered at a test OpenID provider names it); `oidcTiming`: how
 * soon discovery is tried again.
 */
export async function startServer(
  options: { records?: unknown[]; env?: Record<string, string>; logs?: Record<string, unknown>[]; mailer?: MailerOptions; port?: number; oidcTiming?: DiscoveryTiming } = {},
): Promise<TestServer> {
  const fresh = await freshDatabase();
  const config = configFrom({ DATABASE_URL: fresh.url, LOG_LEVEL: 'silent', ...options.env });
  if (options.records) {
    const records = options.records;
    await fresh.handle.db.transaction().execute((trx) => importRecords(trx, records));
  }
  const logs = options.logs;
  const logger = logs ? { level: 'info', stream: { write: (line: string) => logs.push(JSON.parse(line) as Record<string, unknown>) } } : false;
  const app = await buildApp(config, { database: fresh.handle, logger, mailer: options.mailer, oidcTiming: options.oidcTiming });
  await app.listen({ host: '127.0.0.1', port: options.port ?? 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    config,
    app,
    database: fresh.handle,
    url: fresh.url,
    async close() {
      await app.close();
      await fresh.cleanup();
    },
  };
}

/** A fresh database (freshDatabase) holding the sample data. */
export async function withSampleData(): Promise<FreshDatabase> {
  const fresh = await freshDatabase();
  const records = sampleRecords();
  await fresh.handle.db.transaction().execute((trx) => importRecords(trx, records));
  return fresh;
}
