import { createHmac, randomBytes } from 'node:crypto';
import type { WebhookSettings } from '../config.js';
import type { Db } from '../db/connection.js';
import { PROCESS_ORIGIN } from './process-origin.js';
import {
  claimDueDeliveries,
  countPendingDeliveries,
  enqueueDeliveries,
  nextDueUs,
  pruneDeliveries,
  recordAbandoned,
  recordDelivered,
  recordRetry,
  releaseClaim,
  urlKey,
  type DeliveryRow,
} from './webhook-outbox.js';

export interface WebhookLog {
  debug(object: object, message: string): void;
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

/** Delays between attempts: the first retry after `firstRetryMs`, then doubling up to this. */
const MAX_RETRY_DELAY_MS = 60_000;
/** Attempts under way at once in one process (a receiver that hangs holds one slot until its timeout). */
export const MAX_IN_FLIGHT = 16;
/** A process looks at the outbox at least this often: rows of other processes (killed, or redelivered by the CLI). */
export const OUTBOX_POLL_MS = 1000;
/** Delivered and abandoned rows older than the retention are pruned this often (and at start). */
const PRUNE_EVERY_MS = 3_600_000;
/** A claim outlasts an attempt (at most WEBHOOK_TIMEOUT_MS) by this much before another process may take the row. */
const LEASE_MARGIN_MS = 5000;

export const SIGNATURE_HEADER = 'x-signature-256';
export const DELIVERY_HEADER = 'x-webhook-delivery';
export const EVENT_HEADER = 'x-webhook-event';
export const USER_AGENT = 'hackerspace-api-webhooks';

/** `sha256=<hex HMAC-SHA256(secret, body)>`, GitHub's `X-Hub-Signature-256` convention. */
export function signature(secret: string, body: Buffer | string): string {
  return 'sha256=' + createHmac('sha256', secret).update(body).digest('hex');
}

/** What is sent of a change: its event's name (X-Webhook-Event), its id and its body, fixed byte for byte when recorded. */
export interface WebhookEvent {
  readonly event: string;
  readonly eventId: number;
  readonly body: Buffer;
}

/**
 * A URL fit for logs: its origin only. Receivers often carry their secret in the path (Home
 * Assistant's /api/webhook/<id>, Slack, Discord), and credentials or query values may be secret too.
 */
export function describeWebhook(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}/…`;
  } catch {
    return '(unparsable URL)';
  }
}

/**
 * fetch refuses URLs with credentials: `https://user:password@host/…` is sent to the URL without
 * them, with `Authorization: Basic` (what such a URL means to curl and most HTTP clients).
 */
function splitCredentials(url: string): { target: string; authorization: string | null } {
  const parsed = new URL(url);
  if (parsed.username === '' && parsed.password === '') return { target: url, authorization: null };
  const credentials = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
  parsed.username = '';
  parsed.password = '';
  return { target: parsed.toString(), authorization: 'Basic ' + Buffer.from(credentials, 'utf8').toString('base64') };
}

interface Target {
  /** Where to POST: the configured URL without its credentials. */
  url: string;
  authorization: string | null;
  /** For logs and the outbox: the origin only. */
  origin: string;
}

/** An attempt's outcome, as the metrics count them: a 2xx, a failure to be retried, or given up. */
export type DeliveryResult = 'delivered' | 'failed' | 'abandoned';

/**
 * POSTs every change (the space's state: the app that owns it says what a change's event is) to each configured URL, signed with the shared secret,
 * through the outbox (webhook-outbox.ts): `record` inserts the deliveries in the change's own
 * transaction (live/writes.ts calls it), and this process's worker, kicked after the commit,
 * claims and attempts them. Sending never blocks or fails the write that caused it. A delivery
 * that meets a network error, a timeout or a non-2xx answer (redirects included: they are not
 * followed) is retried with exponential backoff (WEBHOOK_FIRST_RETRY_MS, doubling up to a minute)
 * until WEBHOOK_GIVE_UP_S after its first attempt; each retry sends the byte-identical body,
 * signature and delivery id. Deliveries are independent: a receiver that was down may get an
 * older event after a newer one, and should compare ids (or `since`).
 *
 * Every serving process runs a worker, and a row is claimed by one of them at a time, so that
 * with several processes each change is delivered once per URL in the normal case; a delivery
 * left by a process that stopped or was killed is taken over by the next one (at least once: the
 * receiver dedupes with X-Webhook-Delivery). Other processes' rows are found by polling
 * (OUTBOX_POLL_MS) and at the due time of the next retry. A row whose URL is no longer in
 * WEBHOOK_URLS is abandoned when due, unattempted; without WEBHOOK_URLS nothing is claimed.
 */
export class WebhookSender<Change> {
  private readonly targets = new Map<string, Target>();
  private readonly inFlight = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private readonly listeners: ((result: DeliveryResult) => void)[] = [];
  private timer: NodeJS.Timeout | null = null;
  private wakeAtMs = Infinity;
  private passing: Promise<void> | null = null;
  private again = false;
  private started = false;
  private closed = false;
  private lastPruneMs = -Infinity;
  private outboxFailing = false;

  constructor(
    private readonly db: Db,
    private readonly settings: WebhookSettings,
    /** A change's event, as its app spells it. */
    private readonly eventOf: (change: Change) => WebhookEvent,
    private readonly log: WebhookLog,
    /** Whose claims are this worker's: unique per process, and per app in a process (tests run several). */
    private readonly owner: string = `${PROCESS_ORIGIN}-${randomBytes(4).toString('hex')}`,
  ) {
    for (const url of settings.urls) {
      const { target, authorization } = splitCredentials(url);
      this.targets.set(urlKey(url), { url: target, authorization, origin: describeWebhook(url) });
    }
  }

  get enabled(): boolean {
    return this.settings.urls.length > 0 && this.settings.secret !== null;
  }

  /** Attempts under way in this process (for tests). */
  get size(): number {
    return this.inFlight.size;
  }

  /**
   * In the transaction of a change: its deliveries, one row per URL, so that they commit with the
   * change or not at all. The body is fixed here, byte for byte.
   */
  readonly record = async (trx: Db, change: Change): Promise<void> => {
    if (!this.enabled) return;
    const { event, eventId, body } = this.eventOf(change);
    await enqueueDeliveries(trx, {
      event,
      eventId,
      body: body.toString('utf8'),
      targets: [...this.settings.urls].map((url) => ({ url, origin: describeWebhook(url) })),
      nowUs: Date.now() * 1000,
      firstRetryMs: this.settings.firstRetryMs,
    });
  };

  /** Counts each attempt's outcome (the metrics); `listener` must neither throw nor wait. */
  onResult(listener: (result: DeliveryResult) => void): void {
    this.listeners.push(listener);
  }

  /** Starts the worker: what earlier processes left in the outbox is due at once. */
  start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    void this.pass();
  }

  /** After this process committed a change: its deliveries are due now. */
  kick(): void {
    if (this.started && !this.closed) void this.pass();
  }

  /**
   * Stops the worker and aborts the attempts under way, whose rows are released at once for the
   * next process; nothing is lost (the rows stay pending in the outbox), and that is logged.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.passing;
    const attempts = [...this.inFlight.values()];
    for (const attempt of attempts) attempt.controller.abort();
    await Promise.all(attempts.map((a) => a.done));
    if (!this.started || !this.enabled) return;
    try {
      const pending = await countPendingDeliveries(this.db);
      if (pending > 0) this.log.info({ pending }, `webhooks: ${pending} deliver${pending === 1 ? 'y' : 'ies'} left pending in the outbox at shutdown`);
    } catch {
      // The database is gone: nothing to say about the outbox.
    }
  }

  /** One look at the outbox (never two at once: a kick during a pass makes it look again). */
  private pass(): Promise<void> {
    if (this.passing) {
      this.again = true;
      return this.passing;
    }
    this.passing = (async () => {
      do {
        this.again = false;
        await this.claimAndSchedule();
      } while (this.again && !this.closed);
    })().finally(() => (this.passing = null));
    return this.passing;
  }

  private async claimAndSchedule(): Promise<void> {
    // Without WEBHOOK_URLS the worker only prunes: pending rows wait for a configuration with their URL.
    let wake = this.enabled ? Date.now() + OUTBOX_POLL_MS : Date.now() + PRUNE_EVERY_MS;
    try {
      const now = Date.now();
      if (now - this.lastPruneMs >= PRUNE_EVERY_MS) {
        this.lastPruneMs = now;
        const pruned = await pruneDeliveries(this.db, (now - this.settings.retentionMs) * 1000);
        if (pruned > 0) this.log.info({ pruned }, `webhooks: ${pruned} finished deliveries older than the retention pruned`);
      }
      let due = this.enabled ? await nextDueUs(this.db) : null;
      const free = MAX_IN_FLIGHT - this.inFlight.size;
      // Only a look when nothing is due: the claim is a write (on SQLite it takes the write lock).
      if (due !== null && due <= now * 1000 && free > 0 && !this.closed) {
        const leaseMs = this.settings.timeoutMs + LEASE_MARGIN_MS;
        for (const row of await claimDueDeliveries(this.db, this.owner, now * 1000, (now + leaseMs) * 1000, free)) this.begin(row);
        due = await nextDueUs(this.db);
      }
      // Rows due now that found no free slot wait for an attempt to end (which looks again).
      if (due !== null && (due / 1000 > Date.now() || this.inFlight.size < MAX_IN_FLIGHT)) wake = Math.min(wake, due / 1000);
      if (this.outboxFailing) this.log.info({}, 'webhooks: the outbox can be read again');
      this.outboxFailing = false;
    } catch (error) {
      // A database outage: said once, and tried again at the next poll.
      if (!this.outboxFailing && !this.closed) this.log.error({ err: error }, 'webhooks: could not read the outbox; trying again');
      this.outboxFailing = true;
    }
    this.wakeAt(wake);
  }

  private wakeAt(ms: number): void {
    if (this.closed || !this.started) return;
    if (this.timer && ms >= this.wakeAtMs) return;
    if (this.timer) clearTimeout(this.timer);
    this.wakeAtMs = ms;
    // At least a millisecond: a timer may fire a little early, before the row is due.
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.wakeAtMs = Infinity;
        void this.pass();
      },
      Math.max(1, ms - Date.now()),
    );
    this.timer.unref();
  }

  private begin(row: DeliveryRow): void {
    const controller = new AbortController();
    const done = this.attempt(row, controller)
      .catch((error: unknown) => {
        // The outcome could not be recorded: the lease runs out and the row is attempted again.
        this.log.error({ err: error, webhook: row.target, delivery: row.id, id: row.event_id }, 'webhooks: could not record a delivery attempt');
      })
      .finally(() => {
        this.inFlight.delete(row.id);
        // A slot is free: rows that waited for one are due.
        if (this.inFlight.size === MAX_IN_FLIGHT - 1) this.kick();
      });
    this.inFlight.set(row.id, { controller, done });
  }

  private emit(result: DeliveryResult): void {
    for (const listener of this.listeners) {
      try {
        listener(result);
      } catch (error) {
        this.log.error({ err: error }, 'webhooks: a result listener threw');
      }
    }
  }

  private async attempt(row: DeliveryRow, controller: AbortController): Promise<void> {
    const target = this.targets.get(row.url_key);
    const where = { webhook: row.target, delivery: row.id, id: Number(row.event_id) };
    if (this.closed) return releaseClaim(this.db, row.id, this.owner);
    if (target === undefined) {
      if (await recordAbandoned(this.db, row.id, this.owner, Date.now() * 1000, 'its URL is no longer in WEBHOOK_URLS', false)) {
        this.log.warn(where, 'webhook delivery abandoned: its URL is no longer in WEBHOOK_URLS');
        this.emit('abandoned');
      }
      return;
    }
    const body = Buffer.from(row.body, 'utf8');
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      [SIGNATURE_HEADER]: signature(this.settings.secret!, body),
      [DELIVERY_HEADER]: row.id,
      [EVENT_HEADER]: row.event,
      ...(target.authorization ? { authorization: target.authorization } : {}),
    };
    const attempts = row.attempts + 1;
    let failure: { status: number } | { error: string };
    try {
      const response = await fetch(target.url, {
        method: 'POST',
        headers,
        body,
        redirect: 'manual',
        signal: AbortSignal.any([controller.signal, AbortSignal.timeout(this.settings.timeoutMs)]),
      });
      // The answer's body is of no interest: release the connection.
      await response.body?.cancel().catch(() => {});
      if (response.status >= 200 && response.status < 300) {
        if (await recordDelivered(this.db, row.id, this.owner, Date.now() * 1000)) {
          this.log[attempts > 1 ? 'info' : 'debug']({ ...where, attempts, status: response.status }, 'webhook delivered');
          this.emit('delivered');
        }
        return;
      }
      failure = { status: response.status };
    } catch (error) {
      // Aborted by a shutdown: not an attempt; the row is due again for the next process.
      if (this.closed) return releaseClaim(this.db, row.id, this.owner);
      const err = error as Error & { cause?: { code?: string; message?: string } };
      failure =
        err.name === 'TimeoutError'
          ? { error: `no answer within ${this.settings.timeoutMs} ms` }
          : { error: (err.cause?.code ?? err.cause?.message ?? err.message).replaceAll(target.url, target.origin) };
    }
    const nowMs = Date.now();
    const lastError = 'status' in failure ? `HTTP ${failure.status}` : failure.error.slice(0, 500);
    const retryAtMs = nowMs + row.next_delay_ms;
    if (retryAtMs - Number(row.first_attempt_us) / 1000 > this.settings.giveUpMs) {
      if (await recordAbandoned(this.db, row.id, this.owner, nowMs * 1000, lastError, true)) {
        this.log.error({ ...where, attempts, ...failure }, `webhook delivery abandoned after ${attempts} attempts`);
        this.emit('abandoned');
      }
      return;
    }
    if (await recordRetry(this.db, row.id, this.owner, nowMs * 1000, lastError, retryAtMs * 1000, Math.min(row.next_delay_ms * 2, MAX_RETRY_DELAY_MS))) {
      this.log.warn({ ...where, attempts, ...failure, retryInMs: row.next_delay_ms }, 'webhook delivery failed; retrying');
      this.emit('failed');
      this.wakeAt(retryAtMs);
    }
  }
}
