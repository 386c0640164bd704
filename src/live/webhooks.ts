import { createHmac, randomUUID } from 'node:crypto';
import type { WebhookSettings } from '../config.js';
import { spaceStatusRecord, type SpaceState } from '../resources/openings.js';
import type { TimeFormatter } from '../time.js';
import { json } from '../json.js';
import { eventIdOf } from './space-changes.js';

export interface WebhookLog {
  debug(object: object, message: string): void;
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

/** Delays between attempts: the first retry after `firstRetryMs`, then doubling up to this. */
const MAX_RETRY_DELAY_MS = 60_000;
/** Deliveries waiting for a retry, per process; past it the oldest are dropped (and logged). */
export const MAX_PENDING_DELIVERIES = 1000;

export const SIGNATURE_HEADER = 'x-signature-256';
export const DELIVERY_HEADER = 'x-webhook-delivery';
export const EVENT_HEADER = 'x-webhook-event';
export const USER_AGENT = 'hackerspace-api-webhooks';

/** `sha256=<hex HMAC-SHA256(secret, body)>`, GitHub's `X-Hub-Signature-256` convention. */
export function signature(secret: string, body: Buffer | string): string {
  return 'sha256=' + createHmac('sha256', secret).update(body).digest('hex');
}

/** The body of a webhook: `{"id": <event id>, "event": "state", "state": {"is_open": …, "since": …}}`. */
export function webhookBody(state: SpaceState, times: TimeFormatter): Buffer {
  return json({ id: eventIdOf(state), event: 'state', state: spaceStatusRecord(state, { time: (micros) => times.format(micros) }) });
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

interface Delivery {
  id: string;
  url: string;
  eventId: number;
  body: Buffer;
  headers: Record<string, string>;
  firstAttemptAt: number;
  attempts: number;
  nextDelayMs: number;
  timer: NodeJS.Timeout | null;
  controller: AbortController | null;
}

/**
 * POSTs every change of the space's state to each configured URL, signed with the shared secret.
 * Sending never blocks or fails the write that caused it: `send` only schedules. A delivery that
 * meets a network error, a timeout or a non-2xx answer (redirects included: they are not followed)
 * is retried with exponential backoff (WEBHOOK_FIRST_RETRY_MS, doubling up to a minute) until
 * WEBHOOK_GIVE_UP_S after its first attempt; each retry sends the byte-identical body, signature
 * and delivery id. Deliveries are independent: a receiver that was down may get an older event
 * after a newer one, and should compare ids (or `since`).
 *
 * Only the process that committed a change delivers it, so that with several processes each
 * change is delivered once per URL. A process that stops abandons its pending retries (logged).
 */
export class WebhookSender {
  private readonly pending = new Set<Delivery>();
  private closed = false;

  constructor(
    private readonly settings: WebhookSettings,
    private readonly times: TimeFormatter,
    private readonly log: WebhookLog,
  ) {}

  get enabled(): boolean {
    return this.settings.urls.length > 0 && this.settings.secret !== null;
  }

  /** Deliveries under way or waiting for a retry (for tests). */
  get size(): number {
    return this.pending.size;
  }

  /** Schedules the delivery of a change to every URL; returns at once. */
  send(state: SpaceState): void {
    if (!this.enabled) return;
    if (this.closed) {
      // A write that committed while the server was draining: say so, nothing else can.
      this.log.error({ id: eventIdOf(state) }, 'webhooks not sent: the service is shutting down');
      return;
    }
    const body = webhookBody(state, this.times);
    const signed = signature(this.settings.secret!, body);
    for (const url of this.settings.urls) {
      const id = randomUUID();
      const { target, authorization } = splitCredentials(url);
      const delivery: Delivery = {
        id,
        url: target,
        eventId: eventIdOf(state),
        body,
        headers: {
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          [SIGNATURE_HEADER]: signed,
          [DELIVERY_HEADER]: id,
          [EVENT_HEADER]: 'state',
          ...(authorization ? { authorization } : {}),
        },
        firstAttemptAt: Date.now(),
        attempts: 0,
        nextDelayMs: this.settings.firstRetryMs,
        timer: null,
        controller: null,
      };
      this.track(delivery);
      // Off the caller's path: the write's response is not held by even the first attempt.
      delivery.timer = setTimeout(() => void this.attempt(delivery), 0);
    }
  }

  /** Stops retrying and aborts attempts in flight; what was not delivered is logged. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.pending.size > 0) {
      this.log.warn(
        { deliveries: [...this.pending].map((d) => ({ webhook: describeWebhook(d.url), delivery: d.id, id: d.eventId, attempts: d.attempts })) },
        `webhooks: ${this.pending.size} deliver${this.pending.size === 1 ? 'y' : 'ies'} abandoned at shutdown`,
      );
    }
    for (const delivery of this.pending) {
      if (delivery.timer) clearTimeout(delivery.timer);
      delivery.controller?.abort();
    }
    this.pending.clear();
  }

  private track(delivery: Delivery): void {
    this.pending.add(delivery);
    if (this.pending.size <= MAX_PENDING_DELIVERIES) return;
    const oldest = this.pending.values().next().value!;
    this.drop(oldest);
    this.log.error(
      { webhook: describeWebhook(oldest.url), delivery: oldest.id, id: oldest.eventId, attempts: oldest.attempts },
      `webhook delivery dropped: more than ${MAX_PENDING_DELIVERIES} deliveries waiting`,
    );
  }

  private drop(delivery: Delivery): void {
    if (delivery.timer) clearTimeout(delivery.timer);
    delivery.controller?.abort();
    this.pending.delete(delivery);
  }

  private async attempt(delivery: Delivery): Promise<void> {
    delivery.timer = null;
    if (this.closed || !this.pending.has(delivery)) return;
    delivery.attempts++;
    const controller = new AbortController();
    delivery.controller = controller;
    let failure: Record<string, unknown>;
    try {
      const response = await fetch(delivery.url, {
        method: 'POST',
        headers: delivery.headers,
        body: delivery.body,
        redirect: 'manual',
        signal: AbortSignal.any([controller.signal, AbortSignal.timeout(this.settings.timeoutMs)]),
      });
      // The answer's body is of no interest: release the connection.
      await response.body?.cancel().catch(() => {});
      if (response.status >= 200 && response.status < 300) {
        this.pending.delete(delivery);
        const level = delivery.attempts > 1 ? 'info' : 'debug';
        this.log[level](
          { webhook: describeWebhook(delivery.url), delivery: delivery.id, id: delivery.eventId, attempts: delivery.attempts, status: response.status },
          'webhook delivered',
        );
        return;
      }
      failure = { status: response.status };
    } catch (error) {
      if (this.closed || !this.pending.has(delivery)) return;
      const err = error as Error & { cause?: { code?: string; message?: string } };
      failure =
        err.name === 'TimeoutError'
          ? { error: `no answer within ${this.settings.timeoutMs} ms` }
          : { error: (err.cause?.code ?? err.cause?.message ?? err.message).replaceAll(delivery.url, describeWebhook(delivery.url)) };
    } finally {
      delivery.controller = null;
    }
    if (this.closed || !this.pending.has(delivery)) return;
    const where = { webhook: describeWebhook(delivery.url), delivery: delivery.id, id: delivery.eventId, attempts: delivery.attempts, ...failure };
    const retryAt = Date.now() + delivery.nextDelayMs;
    if (retryAt - delivery.firstAttemptAt > this.settings.giveUpMs) {
      this.pending.delete(delivery);
      this.log.error(where, `webhook delivery abandoned after ${delivery.attempts} attempts`);
      return;
    }
    this.log.warn({ ...where, retryInMs: delivery.nextDelayMs }, 'webhook delivery failed; retrying');
    delivery.timer = setTimeout(() => void this.attempt(delivery), delivery.nextDelayMs);
    delivery.nextDelayMs = Math.min(delivery.nextDelayMs * 2, MAX_RETRY_DELAY_MS);
  }
}
