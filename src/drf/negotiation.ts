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

/** The two media types an API route offers, in the route's order (the first wins a tie). */
export type Media = 'json' | 'html';
const OFFERED: readonly { media: Media; type: string; subtype: string }[] = [
  { media: 'json', type: 'application', subtype: 'json' },
  { media: 'html', type: 'text', subtype: 'html' },
];

// Clients send a handful of distinct headers (a browser sends one, always the same): each is parsed once.
const preferred = new Map<string, Media | null>();
const MAX_REMEMBERED = 256;

/**
 * The media type an Accept header picks among JSON and HTML (web.md §1): the highest q-value; on
 * equal q the more specific match (`text/html` beats `text/*` and `*\/*`); then the range listed
 * first in the header; then the route's order (JSON). Null when it admits neither (406). No
 * header, an empty one, `*\/*` and `application/json` pick JSON, exactly as before HTML existed.
 * Not on negotiator: it refuses what the contract admits (a charset, an empty header) and costs 65–85 times as much.
 */
export function preferredMedia(accept: string | undefined): Media | null {
  if (accept === undefined || accept === '*/*' || accept === 'application/json') return 'json';
  let media = preferred.get(accept);
  if (media === undefined) {
    media = parsePreference(accept);
    if (preferred.size >= MAX_REMEMBERED) preferred.clear();
    preferred.set(accept, media);
  }
  return media;
}

interface Match {
  q: number;
  /** 2 for an exact type, 1 for `type/*`, 0 for `*\/*`. */
  specificity: number;
  /** The range's position in the header. */
  position: number;
}

function parsePreference(accept: string): Media | null {
  if (accept.trim() === '') return 'json';
  const matches: (Match | null)[] = OFFERED.map(() => null);
  accept.split(',').forEach((range, position) => {
    const [media, ...parameters] = range.split(';');
    const parts = media.trim().toLowerCase().split('/');
    if (parts.length !== 2) return;
    const [type, subtype] = parts;
    OFFERED.forEach((offer, i) => {
      const specificity = type === offer.type && subtype === offer.subtype ? 2 : type === offer.type && subtype === '*' ? 1 : type === '*' && subtype === '*' ? 0 : -1;
      if (specificity < 0) return;
      const best = matches[i];
      // The most specific range that matches a type sets its q (RFC 9110 §12.5.1).
      if (best === null || specificity > best.specificity) matches[i] = { q: qualityOf(parameters), specificity, position };
    });
  });
  let pick: Media | null = null;
  let pickMatch: Match | null = null;
  OFFERED.forEach((offer, i) => {
    const match = matches[i];
    if (match === null || match.q <= 0) return;
    if (pickMatch === null || isBetter(match, pickMatch)) {
      pick = offer.media;
      pickMatch = match;
    }
  });
  // The contract admits JSON on any range that names it, q=0 included (as DRF does): kept as it was.
  return pick ?? (matches[0] !== null ? 'json' : null);
}

function isBetter(a: Match, b: Match): boolean {
  if (a.q !== b.q) return a.q > b.q;
  if (a.specificity !== b.specificity) return a.specificity > b.specificity;
  return a.position < b.position;
}

/** A range's q-value: 1 when absent; a malformed one counts as 1, as the JSON rule always did (DRF ignores it). */
function qualityOf(parameters: string[]): number {
  for (const parameter of parameters) {
    const m = /^\s*q\s*=\s*(.*?)\s*$/i.exec(parameter);
    if (m === null) continue;
    const q = Number(m[1]);
    return /^[0-9.]+$/.test(m[1]) && Number.isFinite(q) ? Math.min(q, 1) : 1;
  }
  return 1;
}

/** Accepts any Accept header that admits JSON or HTML; anything else is a 406. */
export function checkAccept(accept: string | undefined): void {
  if (preferredMedia(accept) === null) throw notAcceptable();
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
