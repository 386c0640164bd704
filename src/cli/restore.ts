import { BackupError } from '../backup/backup-error.js';
import { INSTALLED_MIGRATIONS } from '../installed-apps.js';
import { restoreDatabase } from '../backup/restore.js';
import { describeTarget } from '../db/startup.js';
import { UsageError, type Command } from '../command.js';
import { countTable } from './import.js';

export const restoreCommand: Command = {
  name: 'restore',
  summary: 'Load a backup into an empty database (all or nothing)',
  usage: `hackerspace-api restore [--replace] <file>

Loads a file written by \`hackerspace-api backup\` into DATABASE_URL, in one
transaction: on any error nothing changes. Stop the service first.

  an SQLite backup      (from SQLite, or --format sqlite from PostgreSQL)
                        restores into SQLite or PostgreSQL;
  a pg_dump archive     restores into PostgreSQL only, with pg_restore, into
                        the schema it was taken from.

The database must hold no data (a new database, or one that \`serve\` only
created): otherwise restore refuses, naming the tables that hold rows, unless
--replace is given, which replaces all of its data.`,
  options: { replace: { type: 'boolean' } },
  allowPositionals: true,
  async run(values, positionals, config) {
    if (positionals.length !== 1) throw new UsageError('expected exactly one backup file');
    const [file] = positionals;
    const started = performance.now();
    try {
      const result = await restoreDatabase(config.database, file, { replace: values.replace === true, migrations: INSTALLED_MIGRATIONS });
      const seconds = (performance.now() - started) / 1000;
      const lines = [`restored ${file} (${result.kind === 'pg_dump' ? 'pg_dump archive' : 'SQLite backup'}) into ${describeTarget(config.database)} in ${seconds.toFixed(1)} s`];
      if (result.rows) lines.push(...countTable(result.rows));
      process.stderr.write(lines.join('\n') + '\n');
      return 0;
    } catch (error) {
      if (!(error instanceof BackupError)) throw error;
      process.stderr.write(`restore failed: ${error.message}\n`);
      return 1;
    }
  },
};
