import type { Generated } from 'kysely';

/** Booleans are 0/1 integers (SQLite has no boolean type) and instants are integer microseconds since the epoch (time.ts). */

export interface OpeningsTable {
  id: Generated<number>;
  time_us: number;
  is_open: number;
}

/** Openings per time bucket (time_us >> 36 at level 0, >> 42 at level 1), kept by triggers. */
export interface OpeningBucketsTable {
  level: number;
  bucket: number;
  n: number;
}

/** The space app's tables, added to the Database type every query is checked against (db/schema.ts). */
declare module '../../db/schema.js' {
  interface Database {
    openings: OpeningsTable;
    opening_buckets: OpeningBucketsTable;
  }
}
