import { MAX_ID } from '../db/schema.js';
import { COLLECTIONS, type CollectionPath } from './collections.js';

/**
 * The route table, matched the way Django matches DRF's router patterns: against the
 * percent-decoded path, with an optional format suffix, and with the trailing-slash redirect.
 * A collection's routes come from its declaration (collections.ts).
 */

export type RouteKind = 'root' | 'list' | 'detail' | 'status' | 'hours' | 'stream' | 'schema';

export interface RouteMatch {
  kind: RouteKind;
  collection: CollectionPath | null;
  /** The id segment as written (after percent-decoding), for detail routes. */
  id: string | null;
  /** The format suffix (`json` in `/api/users.json`), or null. */
  suffix: string | null;
}

export const ALLOW: Record<RouteKind, string> = {
  root: 'GET, HEAD, OPTIONS',
  list: 'GET, POST, HEAD, OPTIONS',
  detail: 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS',
  status: 'GET, HEAD, OPTIONS',
  hours: 'GET, HEAD, OPTIONS',
  stream: 'GET, HEAD, OPTIONS',
  schema: 'GET, HEAD, OPTIONS',
};

/** The methods that write, per kind of route (the others only read). */
export const WRITE_METHODS: Record<RouteKind, ReadonlySet<string>> = {
  root: new Set(),
  list: new Set(['POST']),
  detail: new Set(['PUT', 'PATCH', 'DELETE']),
  status: new Set(),
  hours: new Set(),
  stream: new Set(),
  schema: new Set(),
};

export const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

const collection = COLLECTIONS.map((c) => c.path).join('|');
const PATTERNS: { kind: RouteKind; regex: RegExp }[] = [
  { kind: 'root', regex: /^\/api\/(?:\.([a-z0-9]+)\/?)?$/ },
  { kind: 'list', regex: new RegExp(`^/api/(${collection})(?:/|\\.([a-z0-9]+)/?)$`) },
  { kind: 'detail', regex: new RegExp(`^/api/(${collection})/([^/.]+)(?:/|\\.([a-z0-9]+)/?)$`) },
  // The space's current state (read-only): `/api/space/status/`.
  { kind: 'status', regex: /^\/api\/space\/status(?:\/|\.([a-z0-9]+)\/?)$/ },
  // The share of time the space was open per weekday and hour (read-only): `/api/space/hours/`.
  { kind: 'hours', regex: /^\/api\/space\/hours(?:\/|\.([a-z0-9]+)\/?)$/ },
  // The push stream of the space's state (Server-Sent Events, api/stream.ts): no format suffix.
  { kind: 'stream', regex: /^\/api\/space\/stream\/$/ },
  // The API described in OpenAPI 3.1 (openapi/document.ts): `/api/schema/`; not listed in the root.
  { kind: 'schema', regex: /^\/api\/schema(?:\/|\.([a-z0-9]+)\/?)$/ },
];

/**
 * Each route's template, made once from the registry: `/api/users/` and `/api/users/:id/` (a
 * format suffix answers the same route). A label that never grows with the URLs clients send
 * (the metrics' `route`).
 */
const TEMPLATES: Record<Exclude<RouteKind, 'list' | 'detail'>, string> = {
  root: '/api/',
  status: '/api/space/status/',
  hours: '/api/space/hours/',
  stream: '/api/space/stream/',
  schema: '/api/schema/',
};
const COLLECTION_TEMPLATES = new Map(COLLECTIONS.map(({ path }) => [path as string, { list: `/api/${path}/`, detail: `/api/${path}/:id/` }]));

export function routeTemplate(route: Pick<RouteMatch, 'kind' | 'collection'>): string {
  if (route.kind === 'list' || route.kind === 'detail') return COLLECTION_TEMPLATES.get(route.collection!)![route.kind];
  return TEMPLATES[route.kind];
}

export function matchRoute(path: string): RouteMatch | null {
  for (const { kind, regex } of PATTERNS) {
    const m = regex.exec(path);
    if (!m) continue;
    if (kind !== 'list' && kind !== 'detail') return { kind, collection: null, id: null, suffix: m[1] ?? null };
    if (kind === 'list') return { kind, collection: m[1] as CollectionPath, id: null, suffix: m[2] ?? null };
    return { kind, collection: m[1] as CollectionPath, id: m[2], suffix: m[3] ?? null };
  }
  return null;
}

/** Django's unquote of a path: invalid escapes stay as they are; invalid UTF-8 leaves the path undecodable. */
export function decodePath(rawPath: string): string | null {
  try {
    return decodeURIComponent(rawPath.replace(/%(?![0-9a-fA-F]{2})/g, '%25'));
  } catch {
    return null;
  }
}

/** A path id: a decimal integer with optional surrounding spaces, `+` and leading zeros. */
export function parseId(text: string): number | null {
  if (!/^\s*\+?[0-9]+\s*$/.test(text)) return null;
  const id = Number(text.trim());
  return id >= 1 && id <= MAX_ID ? id : null;
}
