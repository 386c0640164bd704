import { createHash, randomUUID } from 'node:crypto';
import { sql, type Selectable, type Updateable } from 'kysely';
import { engineOf, type Db } from '../db/connection.js';
import type { WebhookDeliveriesTable } from '../db/schema.js';

/**
 * The webhook outbox: every delivery (one change to one URL) is a row of webhook_deliveries,
 * inserted in the transaction of the change (live/writes.ts), so that it is committed with the
 * change or not at all. Serving processes claim due rows one process at a time (a lease, so that
 * a process killed mid-attempt lets go), deliver them (webhooks.ts) and record the outcome; rows
 * delivered or abandoned are kept for WEBHOOK_RETENTION_DAYS, then pruned. Times are the
 * process's clock in microseconds, as elsewhere.
 */

export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type DeliveryStatus = WebhookDeliveriesTable['status'];

/** What the outbox keeps of a URL: its SHA-256, never the URL (its path or credentials may be secret). */
export function urlKey(url: string): string {
  return createHash('sha256').update(url).digest('hex');
}

export interface NewDeliveries {
  event: string;
  eventId: number;
  body: string;
  /** The configured URLs, with the origin to show for each. */
  targets: readonly { url: string; origin: string }[];
  nowUs: number;
  firstRetryMs: number;
}

/** Inside the change's transaction: one pending row per URL, each under a delivery id of its own. */
export async function enqueueDeliveries(trx: Db, d: NewDeliveries): Promise<void> {
  if (d.targets.length === 0) return;
  await trx
    .insertInto('webhook_deliveries')
    .values(
      d.targets.map((target) => ({
        id: randomUUID(),
        event: d.event,
        event_id: d.eventId,
        body: d.body,
        url_key: urlKey(target.url),
        target: target.origin,
        status: 'pending' as const,
        attempts: 0,
        created_us: d.nowUs,
        next_attempt_us: d.nowUs,
        next_delay_ms: d.firstRetryMs,
      })),
    )
    .execute();
}

/**
 * Claims up to `limit` due deliveries for `owner` until `leaseUntilUs`, atomically: a row is due
 * when pending, its next attempt has come and nobody's lease on it holds. One statement on both
 * engines: SQLite runs it under the database's write lock (processes sharing the file take turns);
 * PostgreSQL skips rows another process is claiming at this very moment (FOR UPDATE SKIP LOCKED),
 * and re-checks the lease of a row claimed since its snapshot. Returns the claimed rows, with
 * first_attempt_us set.
 */
export async function claimDueDeliveries(db: Db, owner: string, nowUs: number, leaseUntilUs: number, limit: number): Promise<DeliveryRow[]> {
  const lock = engineOf(db) === 'postgres' ? sql`for update skip locked` : sql``;
  const { rows } = await sql<DeliveryRow>`update webhook_deliveries
    set claimed_by = ${owner}, claimed_until_us = ${leaseUntilUs}, first_attempt_us = coalesce(first_attempt_us, ${nowUs})
    where id in (select id from webhook_deliveries
      where status = 'pending' and next_attempt_us <= ${nowUs} and (claimed_until_us is null or claimed_until_us <= ${nowUs})
      order by next_attempt_us limit ${limit} ${lock})
    returning *`.execute(db);
  return rows;
}

/** When the next pending delivery becomes due (a claimed one: when its lease ends), in µs; null when none is pending. */
export async function nextDueUs(db: Db): Promise<number | null> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select(sql<number | null>`min(case when claimed_until_us > next_attempt_us then claimed_until_us else next_attempt_us end)`.as('due'))
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return row?.due == null ? null : Number(row.due);
}

/**
 * Records an outcome and releases the claim, only while `owner` still holds it (a claim that
 * expired may be another process's now); false when it no longer does. `attemptUs`: when an
 * attempt was made, counted with it; null when none was.
 */
async function settleClaim(db: Db, id: string, owner: string, outcome: Updateable<WebhookDeliveriesTable>, attemptUs: number | null): Promise<boolean> {
  let update = db.updateTable('webhook_deliveries').set({ ...outcome, claimed_by: null, claimed_until_us: null });
  if (attemptUs !== null) update = update.set((eb) => ({ attempts: eb('attempts', '+', 1), last_attempt_us: attemptUs }));
  const result = await update.where('id', '=', id).where('claimed_by', '=', owner).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** A delivery the receiver took (a 2xx). */
export function recordDelivered(db: Db, id: string, owner: string, nowUs: number): Promise<boolean> {
  return settleClaim(db, id, owner, { status: 'delivered', finished_us: nowUs }, nowUs);
}

/** A failed attempt, due again at `nextAttemptUs`. */
export function recordRetry(db: Db, id: string, owner: string, nowUs: number, error: string, nextAttemptUs: number, nextDelayMs: number): Promise<boolean> {
  return settleClaim(db, id, owner, { last_error: error, next_attempt_us: nextAttemptUs, next_delay_ms: nextDelayMs }, nowUs);
}

/** `attempted`: whether an attempt was made (false: the URL is no longer configured). */
export function recordAbandoned(db: Db, id: string, owner: string, nowUs: number, error: string, attempted: boolean): Promise<boolean> {
  return settleClaim(db, id, owner, { status: 'abandoned', last_error: error, finished_us: nowUs }, attempted ? nowUs : null);
}

/** An attempt interrupted by a shutdown: the row is due again at once, for any process. */
export async function releaseClaim(db: Db, id: string, owner: string): Promise<void> {
  await settleClaim(db, id, owner, {}, null);
}

/**
 * Deliveries not yet delivered nor abandoned (due, waiting for a retry, or under way), over all
 * processes: for the metrics' "pending" gauge. One indexed count.
 */
export async function countPendingDeliveries(db: Db): Promise<number> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Deletes the deliveries delivered or abandoned before `beforeUs`; returns how many. */
export async function pruneDeliveries(db: Db, beforeUs: number): Promise<number> {
  const result = await db.deleteFrom('webhook_deliveries').where('status', '<>', 'pending').where('finished_us', '<', beforeUs).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The latest deliveries, newest first (for `hackerspace-api webhooks`). */
export async function listDeliveries(db: Db, limit: number, status?: DeliveryStatus): Promise<DeliveryRow[]> {
  let query = db.selectFrom('webhook_deliveries').selectAll().orderBy('created_us', 'desc').orderBy('id', 'desc').limit(limit);
  if (status !== undefined) query = query.where('status', '=', status);
  return query.execute();
}

/**
 * Queues delivery `id` again, under the same id, with a fresh retry schedule (its attempts keep
 * counting); a pending one is made due now, its claim (an attempt under way) left alone. Returns
 * the row as it was, or null when there is no such delivery.
 */
export async function requeueDelivery(db: Db, id: string, nowUs: number, firstRetryMs: number): Promise<DeliveryRow | null> {
  const row = await db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
  if (row === undefined) return null;
  if (row.status === 'pending') {
    await db.updateTable('webhook_deliveries').set({ next_attempt_us: nowUs }).where('id', '=', id).where('status', '=', 'pending').execute();
  } else {
    await db
      .updateTable('webhook_deliveries')
      .set({
        status: 'pending',
        next_attempt_us: nowUs,
        next_delay_ms: firstRetryMs,
        first_attempt_us: null,
        finished_us: null,
        claimed_by: null,
        claimed_until_us: null,
      })
      .where('id', '=', id)
      .execute();
  }
  return row;
}
