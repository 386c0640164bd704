import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { freshDatabase, postgresOnly, sqliteOnly } from './support/server.js';

const ROOT = path.resolve(import.meta.dirname, '..');

/*
 * Each engine's driver is loaded with the first database of that engine (db/connection.ts). pg 8
 * touches Node's fetch stack (undici) as it loads, about 23 ms of a start: a server on SQLite
 * must load neither. Checked in a process of its own (this one has loaded pg for its helpers):
 * it builds the app, answers a request, then says which modules it holds.
 */
const PROBE = `
import { createRequire } from 'node:module';
import { buildApp } from './src/app.ts';
import { configFrom } from './src/config.ts';
const app = await buildApp(configFrom({ DATABASE_URL: process.env.PROBE_DATABASE_URL, LOG_LEVEL: 'silent' }));
const response = await app.inject({ method: 'GET', url: '/api/users/' });
await app.close();
const required = Object.keys(createRequire(import.meta.url).cache);
console.log(JSON.stringify({
  status: response.statusCode,
  pg: required.some((file) => file.includes('/node_modules/pg/')),
  betterSqlite3: required.some((file) => file.includes('/node_modules/better-sqlite3/')),
  undici: process.moduleLoadList.some((name) => name.includes('undici')),
}));
`;

/** Runs the probe on a fresh database of the engine under test. */
async function probe(): Promise<{ status: number; pg: boolean; betterSqlite3: boolean; undici: boolean }> {
  const fresh = await freshDatabase();
  try {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', PROBE], {
      cwd: ROOT,
      env: { ...process.env, PROBE_DATABASE_URL: fresh.url },
    });
    return JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as Awaited<ReturnType<typeof probe>>;
  } finally {
    await fresh.cleanup();
  }
}

describe('engine drivers are loaded on demand', () => {
  it('a server on SQLite never loads pg, nor the fetch stack pg touches as it loads', sqliteOnly('the PostgreSQL pass loads pg by design'), async () => {
    const loaded = await probe();
    assert.deepEqual(loaded, { status: 200, pg: false, betterSqlite3: true, undici: false });
  });

  it('a server on PostgreSQL loads pg when it opens its database', postgresOnly('the SQLite pass must not load pg'), async () => {
    const loaded = await probe();
    assert.equal(loaded.status, 200);
    assert.equal(loaded.pg, true);
  });
});
