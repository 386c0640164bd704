import type { Config } from '../config.js';
import { openDatabase, type Db } from '../db/connection.js';
import { migrate } from '../installed-apps.js';
import { listDeliveries, requeueDelivery, type DeliveryRow, type DeliveryStatus } from '../live/webhook-outbox.js';
import { formatIsoUtc } from '../time.js';
import { columns, type Command, integerOption, UsageError } from '../command.js';

const STATUSES: readonly DeliveryStatus[] = ['pending', 'delivered', 'abandoned'];

export const webhooksCommand: Command = {
  name: 'webhooks',
  summary: 'List recent webhook deliveries, redeliver one',
  usage: `hackerspace-api webhooks [list] [--limit N] [--status pending|delivered|abandoned]
hackerspace-api webhooks redeliver ID

list        the latest deliveries, newest first (--limit, default 50): delivery id (the
            X-Webhook-Delivery header), event and its id, target (the URL's origin only: paths
            and credentials may be secret), status, attempts, created, last-attempt and finished
            times (UTC) and the last error. Delivered and abandoned deliveries are kept for
            WEBHOOK_RETENTION_DAYS.
redeliver   queues delivery ID again, under the same id and with the same body, with a fresh retry
            schedule; a running service sends it within about a second. A pending delivery is
            made due now.`,
  options: { limit: { type: 'string' }, status: { type: 'string' } },
  allowPositionals: true,
  async run(values, positionals, config) {
    const [action = 'list', ...rest] = positionals;
    if (action === 'list') {
      if (rest.length) throw new UsageError('list takes no arguments');
      const limit = integerOption(values, 'limit', 50);
      if (limit < 1) throw new UsageError('--limit must be at least 1');
      const status = values.status;
      if (status !== undefined && !STATUSES.includes(status as DeliveryStatus)) throw new UsageError(`--status expects ${STATUSES.join(', ')}, got ${JSON.stringify(status)}`);
      return withOutbox(config, async (db) => {
        process.stdout.write(formatList(await listDeliveries(db, limit, status as DeliveryStatus | undefined)));
        return 0;
      });
    }
    if (action === 'redeliver') {
      if (rest.length !== 1) throw new UsageError('redeliver takes one delivery id');
      if (values.limit !== undefined || values.status !== undefined) throw new UsageError('redeliver takes no options');
      return withOutbox(config, async (db) => {
        const row = await requeueDelivery(db, rest[0], Date.now() * 1000, config.webhooks.firstRetryMs);
        if (row === null) {
          process.stderr.write(`webhooks: no delivery ${JSON.stringify(rest[0])}\n`);
          return 1;
        }
        process.stderr.write(`queued delivery ${row.id} (${row.event} ${row.event_id} to ${row.target}; was ${row.status}) for redelivery\n`);
        return 0;
      });
    }
    throw new UsageError(`expected list or redeliver, got ${JSON.stringify(action)}`);
  },
};

async function withOutbox(config: Config, work: (db: Db) => Promise<number>): Promise<number> {
  const database = await openDatabase(config.database);
  try {
    await migrate(database.db);
    return await work(database.db);
  } finally {
    await database.close();
  }
}

function formatList(rows: DeliveryRow[]): string {
  const time = (us: number | null) => (us === null ? '-' : formatIsoUtc(Math.floor(Number(us) / 1_000_000) * 1_000_000));
  const table = [
    ['ID', 'EVENT', 'TARGET', 'STATUS', 'ATTEMPTS', 'CREATED', 'LAST ATTEMPT', 'FINISHED', 'LAST ERROR'],
    ...rows.map((r) => [
      r.id,
      `${r.event} ${r.event_id}`,
      r.target,
      r.status,
      String(r.attempts),
      time(r.created_us),
      time(r.last_attempt_us),
      time(r.finished_us),
      r.last_error ?? '-',
    ]),
  ];
  return columns(table);
}
