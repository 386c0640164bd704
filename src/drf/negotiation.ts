import { notAcceptable, notFound } from './errors.js';
import { lastValue, type QueryPair } from './query.js';

/** The formats a client may name; both render JSON (the seed observed JSON for `api`). */
export type Format = 'json' | 'api';

/**
 * The format asked for by a suffix (`/api/users.json`) or, failing that, by `?format=`.
 * An unknown one is a 404, as in DRF. Returns null when none was asked for.
 */
export function requestedFormat(suffix: string | null, pairs: readonly QueryPair[]): Format | null {
  const format = suffix || lastValue(pairs, 'format') || null;
  if (format === null) return null;
  if (format !== 'json' && format !== 'api') throw notFound();
  return format;
}

/**
 * Whether an Accept header admits JSON (no header does). Not on negotiator: it refuses what the
 * contract admits (`application/json;q=0`, `application/json; charset=utf-8`, an empty header)
 * and costs 65–85 times as much on the common headers (bench/micro/negotiation.ts).
 */
export function acceptsJson(accept: string | undefined): boolean {
  if (accept === undefined || accept === '*/*' || accept === 'application/json' || accept.trim() === '') return true;
  for (const range of accept.split(',')) {
    const type = range.split(';', 1)[0].trim().toLowerCase();
    if (type === '*/*' || type === 'application/*' || type === 'application/json') return true;
  }
  return false;
}

/** Accepts any Accept header that admits JSON; anything else is a 406. */
export function checkAccept(accept: string | undefined): void {
  if (!acceptsJson(accept)) throw notAcceptable();
}

/**
 * The event stream's own negotiation: `text/event-stream`, `text/*` or `*\/*` (or no Accept);
 * anything else (`application/json` alone, `application/xml`…) is a 406, in JSON like every
 * error. A range with `q=0` admits nothing.
 */
export function checkEventStreamAccept(accept: string | undefined): void {
  if (accept === undefined || accept.trim() === '') return;
  for (const range of accept.split(',')) {
    const [media, ...parameters] = range.split(';');
    const type = media.trim().toLowerCase();
    if (type !== '*/*' && type !== 'text/*' && type !== 'text/event-stream') continue;
    const q = parameters.map((p) => /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p)?.[1]).find((v) => v !== undefined);
    if (q === undefined || Number(q) > 0) return;
  }
  throw notAcceptable();
}
