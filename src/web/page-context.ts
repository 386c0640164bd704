import type { Db } from '../db/connection.js';
import type { Words } from '../i18n/words.js';
import type { QueryPair } from '../drf/query.js';
import type { TimeFormatter } from '../time.js';
import type { Site } from './layout.js';

/** The member a page is built for: never kept by a cache (handlers/pages.ts). */
export interface PageViewer {
  id: number;
  username: string;
  /** The CSRF token of the page's forms (request/csrf.ts, keyed by the session). */
  csrf: string;
}

/** What a page is built with: the database, the site, times, the request's base URL, query and time, and who looks at it. */
export interface PageContext {
  db: Db;
  site: Site;
  /** The page's words: its language's messages, dates and numbers (the same as `site.words`). */
  words: Words;
  zone: TimeFormatter;
  base: string;
  nowMs: number;
  /** The query as sent (a list's `page`). */
  query: readonly QueryPair[];
  /** The member the page is built for, or null for the page every visitor shares (and the cache keeps). */
  viewer: PageViewer | null;
}
