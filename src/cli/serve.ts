import { buildApp } from '../api/app.js';
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/connection.js';
import { migrateToLatest } from '../db/migrations.js';
import { countRecords } from '../resources/counts.js';
import { listen } from '../server.js';
import type { Command } from './command.js';

export const serveCommand: Command = {
  name: 'serve',
  summary: 'Start the HTTP API (creates and migrates the database on first start)',
  usage: `hackerspace-api serve

Starts the API on HOST:PORT (default 127.0.0.1:8000) using DATABASE_URL
(default sqlite:data/hackerspace.sqlite). The database is created and migrated
automatically. Stop with Ctrl-C or SIGTERM; requests in flight finish first.`,
  options: {},
  async run() {
    await serve();
  },
};

/** Shared by `serve` and `demo --serve`. */
export async function serve(): Promise<void> {
  const config = loadConfig();
  const database = openDatabase(config.database);
  await migrateToLatest(database.db);
  const app = await buildApp(config, { database });
  app.addHook('onClose', () => database.close());
  const users = await countRecords(database.db, 'users');
  const openings = await countRecords(database.db, 'openings');
  app.log.info({ database: database.location, users, openings }, `database: ${database.location}`);
  if (users === 0 && openings === 0) {
    app.log.info('the database is empty: load data with `npx hackerspace-api import <dumpdata.json>` or `npx hackerspace-api demo`');
  }
  await listen(app, config);
}
