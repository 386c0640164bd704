import type { Db } from '../db/connection.js';
import type { TimeFormatter } from '../time.js';
import type { PageTimes } from './format.js';
import type { Site } from './layout.js';

/** What a page is built with: the database, the site, times, and the request's base URL and time. */
export interface PageContext {
  db: Db;
  site: Site;
  times: PageTimes;
  zone: TimeFormatter;
  base: string;
  nowMs: number;
}
