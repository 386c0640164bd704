import { MAX_ID } from '../db/schema.js';
import type { CollectionTable, Tables } from '../db/tables.js';

/** What the API's routes are (src/routes/api.ts declares them), and the grammar of their paths. */

/** A collection's path under `/api/`, as its table's declaration gives it (the app's tables.ts). */
export type CollectionPath = Tables[CollectionTable]['collection'];

/** The kinds of the apps' API views (drf/api-view.ts), each declared by its app (module augmentation: apps/space/api-views.ts). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by the apps' augmentations.
export interface ViewKinds {}

/** The API's own kinds of routes, and the apps' views'. */
export type RouteKind = 'root' | 'list' | 'detail' | 'schema' | keyof ViewKinds;

export interface RouteMatch {
  kind: RouteKind;
  collection: CollectionPath | null;
  /** The id segment as written (after percent-decoding), for detail routes. */
  id: string | null;
  /** The format suffix (`json` in `/api/users.json`), or null. */
  suffix: string | null;
}

export const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The pattern of an API path as DRF's router writes it: `^/api/<path>/$`, and with a format
 * suffix `^/api/<path>.<format>/?$`, matched against the percent-decoded path. `path` is a
 * regular expression; its groups come first, the suffix last.
 */
export function apiPattern(path: string, { suffixes = true } = {}): RegExp {
  return new RegExp(suffixes ? `^/api/${path}(?:/|\\.([a-z0-9]+)/?)$` : `^/api/${path}/$`);
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
