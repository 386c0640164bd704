import { openDatabase } from '../db/connection.js';
import { migrate } from '../installed-apps.js';
import type { Command } from '../command.js';

export const migrateCommand: Command = {
  name: 'migrate',
  summary: 'Create or update the database schema',
  usage: `hackerspace-api migrate

Applies any pending schema migrations to DATABASE_URL. Safe to run repeatedly.`,
  options: {},
  async run(_values, _positionals, config) {
    const database = await openDatabase(config.database);
    try {
      const applied = await migrate(database.db);
      process.stderr.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'already up to date\n');
      process.stderr.write(`database: ${database.location}\n`);
    } finally {
      await database.close();
    }
  },
};
