import { openDatabase } from '../db/connection.js';
import { migrate } from '../installed-apps.js';
import { listAudit } from '../resources/audit.js';
import { formatIsoUtc } from '../time.js';
import { columns, type Command, integerOption, UsageError } from '../command.js';

export const auditCommand: Command = {
  name: 'audit',
  summary: 'List the writes made through the API (newest first)',
  usage: `hackerspace-api audit [--limit N] [--json]

Lists the audit log: every change made through the API, newest first, with its time (UTC), the
token's name, the method, the path, the record's id and the status answered. Never secrets or
e-mail addresses: bodies are not logged.

--limit N   at most N entries (default 50)
--json      one JSON object per line instead of a table`,
  options: { limit: { type: 'string' }, json: { type: 'boolean' } },
  async run(values, positionals, config) {
    if (positionals.length) throw new UsageError('audit takes no positional arguments');
    const limit = integerOption(values, 'limit', 50);
    if (limit < 1) throw new UsageError('--limit must be at least 1');
    const database = await openDatabase(config.database);
    try {
      await migrate(database.db);
      const entries = await listAudit(database.db, limit);
      if (values.json) {
        for (const e of entries) {
          process.stdout.write(
            JSON.stringify({ id: e.id, time: formatIsoUtc(e.timeUs), token: e.tokenName, method: e.method, path: e.path, record: e.recordId, status: e.status }) + '\n',
          );
        }
        return 0;
      }
      const rows = [
        ['ID', 'TIME', 'TOKEN', 'METHOD', 'PATH', 'RECORD', 'STATUS'],
        ...entries.map((e) => [String(e.id), formatIsoUtc(e.timeUs), e.tokenName, e.method, e.path, e.recordId === null ? '-' : String(e.recordId), String(e.status)]),
      ];
      process.stdout.write(columns(rows));
      return 0;
    } finally {
      await database.close();
    }
  },
};
