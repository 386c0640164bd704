import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { Representation } from '../cache/representation.js';
import type { ReadOptions } from '../cache/read-answer.js';

/** Where the stylesheet and the script live: beside this module in src/, beside the bundle in dist/ (scripts/build.mjs copies them). */
const ASSET_DIR = new URL('./assets/', import.meta.url);

const TYPES: Record<string, string> = { css: 'text/css; charset=utf-8', js: 'text/javascript; charset=utf-8', svg: 'image/svg+xml' };
const FILES = ['style.css', 'live.js', 'icon.svg'] as const;
export type AssetName = (typeof FILES)[number];

/** A hashed name never changes content: browsers and proxies keep it for a year without asking again. */
export const ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';

export const ASSET_PREFIX = '/assets/';

/**
 * The web pages' static files (style.css, live.js, icon.svg), read once at start and served under
 * content-hashed names (`/assets/style.3f2a9c1b0d.css`), so that a new release is fetched at once
 * and an unchanged file never again.
 */
export class Assets {
  private readonly byUrl = new Map<string, Representation>();
  private readonly urls = new Map<string, string>();
  readonly options: ReadOptions;

  constructor(compressMinBytes: number) {
    this.options = { cacheControl: ASSET_CACHE_CONTROL, compressMinBytes };
    for (const name of FILES) {
      const body = fs.readFileSync(new URL(name, ASSET_DIR));
      const dot = name.lastIndexOf('.');
      const extension = name.slice(dot + 1);
      const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
      const url = `${ASSET_PREFIX}${name.slice(0, dot)}.${hash}.${extension}`;
      const source = { reads: [], versions: [], changedUs: 0, headers: { allow: 'GET, HEAD', vary: 'Accept-Encoding' }, type: TYPES[extension], expiresMs: 0 };
      this.byUrl.set(url, new Representation(body, source));
      this.urls.set(name, url);
    }
  }

  /** The URL of a file by its plain name (`style.css`). */
  url(name: AssetName): string {
    return this.urls.get(name)!;
  }

  /** The file at a request path, or undefined. */
  at(path: string): Representation | undefined {
    return this.byUrl.get(path);
  }
}
