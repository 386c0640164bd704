import { backupDatabase, type BackupFormat } from '../backup/backup.js';
import { INSTALLED_MIGRATIONS } from '../installed-apps.js';
import { BackupError } from '../backup/backup-error.js';
import { describeTarget } from '../db/startup.js';
import { UsageError, type Command } from '../command.js';
import { countTable } from './import.js';

const FORMATS: readonly BackupFormat[] = ['auto', 'sqlite', 'pg_dump'];

export const backupCommand: Command = {
  name: 'backup',
  summary: 'Write a consistent copy of the database to a file, while the service runs',
  usage: `hackerspace-api backup [--format auto|sqlite|pg_dump] <file>

Writes a consistent copy of all of DATABASE_URL's data (every table: users,
openings, …, tokens (hashed), the audit log) while the service keeps running
and writing. Load it back with \`hackerspace-api restore <file>\`.

  SQLite        an SQLite database file, made with SQLite's online backup API:
                one self-contained file, openable with \`sqlite3\`.
  PostgreSQL    --format auto (default): a pg_dump archive (custom format) of
                the service's schema when pg_dump is installed, else as
                --format sqlite: an SQLite file copied from one snapshot
                (REPEATABLE READ), which restores into either engine.

The copy is written beside <file> under a temporary name and renamed when
complete: a failed backup leaves no partial file. An existing <file> is
replaced only by a complete new backup. Exit code 0 on success, 1 on failure.`,
  options: { format: { type: 'string' } },
  allowPositionals: true,
  async run(values, positionals, config) {
    if (positionals.length !== 1) throw new UsageError('expected exactly one output file');
    const format = (values.format ?? 'auto') as BackupFormat;
    if (!FORMATS.includes(format)) throw new UsageError(`--format expects ${FORMATS.join(', ')}, got ${JSON.stringify(values.format)}`);
    const [file] = positionals;
    const started = performance.now();
    try {
      const result = await backupDatabase(config.database, file, format, INSTALLED_MIGRATIONS);
      const seconds = (performance.now() - started) / 1000;
      if (result.note) process.stderr.write(`${result.note}\n`);
      const lines = [
        `backed up ${describeTarget(config.database)} to ${file} (${result.format === 'pg_dump' ? 'pg_dump archive' : 'SQLite database'}, ${result.bytes.toLocaleString('en-US')} bytes) in ${seconds.toFixed(1)} s`,
      ];
      if (result.rows) lines.push(...countTable(result.rows));
      process.stderr.write(lines.join('\n') + '\n');
      return 0;
    } catch (error) {
      if (!(error instanceof BackupError)) throw error;
      process.stderr.write(`backup failed: ${error.message}\n`);
      return 1;
    }
  },
};
