/**
 * Validators and conditional GETs (RFC 9110 §8.8, §13): strong entity tags derived from the body,
 * and Last-Modified from the time the data last changed.
 */

/**
 * Whether an If-None-Match header names the representation whose tag (without quotes) is
 * `opaque`. If-None-Match compares weakly (a `W/` prefix is ignored), and the variants of one
 * body in other content codings (`<tag>-gzip`, `<tag>-br`) match too: the client holds the same
 * data whichever coding it received it in.
 */
export function noneMatchHits(header: string, opaque: string): boolean {
  // The usual case: the one tag the client was sent.
  if (header.length === opaque.length + 2 && header.charCodeAt(0) === 34 && header.startsWith(opaque, 1) && header.charCodeAt(header.length - 1) === 34) return true;
  if (header.trim() === '*') return true;
  // Entity tags may contain commas, so they are read as quoted strings, not split on commas.
  const tags = /(?:W\/)?"([^"]*)"/g;
  for (let match = tags.exec(header); match !== null; match = tags.exec(header)) {
    const tag = match[1];
    if (tag === opaque || tag === `${opaque}-gzip` || tag === `${opaque}-br`) return true;
  }
  return false;
}

/** An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) for a time in milliseconds. */
export function httpDate(ms: number): string {
  return new Date(ms).toUTCString();
}

/**
 * Whether a representation last modified at `lastModifiedMs` (whole seconds) is unchanged since
 * an If-Modified-Since date. A date that does not parse is ignored (RFC 9110 §13.1.3).
 */
export function unmodifiedSince(header: string, lastModifiedMs: number): boolean {
  const since = Date.parse(header);
  return Number.isFinite(since) && lastModifiedMs <= since;
}
