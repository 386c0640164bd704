import { parseQuery, type QueryPair } from './query.js';

/** A request target split once, for routing, the cache key and the page links alike. */
export interface Target {
  /** The path as sent (percent-encoded): links repeat it. */
  readonly rawPath: string;
  readonly rawQuery: string;
  readonly query: QueryPair[];
}

export function parseTarget(url: string): Target {
  const q = url.indexOf('?');
  if (q === -1) return { rawPath: url, rawQuery: '', query: [] };
  const rawQuery = url.slice(q + 1);
  return { rawPath: url.slice(0, q), rawQuery, query: parseQuery(rawQuery) };
}
