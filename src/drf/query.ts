/**
 * Query strings the way DRF's clients see them: parsed like Python's parse_qsl (keep blanks,
 * `+` is a space, `;` is data, invalid UTF-8 becomes U+FFFD) and rebuilt like urlencode.
 */
export type QueryPair = readonly [key: string, value: string];

const utf8 = new TextDecoder('utf-8');

/**
 * Percent-decodes one key or value as UTF-8, invalid sequences becoming U+FFFD, escapes that are
 * not `%XX` left as written (Python's unquote_plus).
 */
export function decodeComponent(text: string): string {
  if (!/[%+]/.test(text)) return text;
  const plain = text.replace(/\+/g, ' ');
  const bytes: number[] = [];
  for (let i = 0; i < plain.length; i++) {
    if (plain[i] === '%' && /^[0-9a-fA-F]{2}$/.test(plain.slice(i + 1, i + 3))) {
      bytes.push(parseInt(plain.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      // Node's parser only lets ASCII through in a URL; anything else is encoded the same way.
      for (const b of Buffer.from(plain[i], 'utf8')) bytes.push(b);
    }
  }
  return utf8.decode(Uint8Array.from(bytes));
}

export function parseQuery(raw: string): QueryPair[] {
  const pairs: QueryPair[] = [];
  if (raw === '') return pairs;
  for (const piece of raw.split('&')) {
    if (piece === '') continue;
    const eq = piece.indexOf('=');
    const key = eq === -1 ? piece : piece.slice(0, eq);
    const value = eq === -1 ? '' : piece.slice(eq + 1);
    pairs.push([decodeComponent(key), decodeComponent(value)]);
  }
  return pairs;
}

/** The last value of a key, as Django's QueryDict.get() gives it. */
export function lastValue(pairs: readonly QueryPair[], key: string): string | undefined {
  for (let i = pairs.length - 1; i >= 0; i--) if (pairs[i][0] === key) return pairs[i][1];
  return undefined;
}

/** quote_plus: only `A-Z a-z 0-9 _ . - ~` stay as they are; space becomes `+`. */
export function encodeComponent(text: string): string {
  return encodeURIComponent(text.toWellFormed())
    .replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase())
    .replace(/%20/g, '+');
}

/** Compares strings by Unicode code point, as Python does (JavaScript's `<` compares UTF-16 units). */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (astral characters) sort above every BMP character in code-point order.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/**
 * Sets (or, with null, removes) one key, sorts the pairs by key (equal keys keep their order)
 * and encodes them as a form: what DRF's replace_query_param / remove_query_param produce.
 */
export function rebuildQuery(pairs: readonly QueryPair[], key: string, value: string | null): string {
  const kept: QueryPair[] = pairs.filter(([k]) => k !== key);
  if (value !== null) kept.push([key, value]);
  return sortedQuery(kept);
}

/**
 * The pairs sorted by key (equal keys keep their order) and encoded as a form. Two queries with
 * the same result give the same page links, so they are one response (the cache's key).
 */
export function sortedQuery(pairs: readonly QueryPair[]): string {
  const sorted = [...pairs].sort((a, b) => compareCodePoints(a[0], b[0]));
  return sorted.map(([k, v]) => `${encodeComponent(k)}=${encodeComponent(v)}`).join('&');
}
