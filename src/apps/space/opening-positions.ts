import type { Db } from '../../db/connection.js';
import { COARSE_BUCKET_BITS, FINE_BUCKET_BITS } from '../../db/migrations.js';

declare module '../../resources/record-context.js' {
  interface PagePositions {
    /** Where deep pages of openings start, kept between requests (openings.ts); optional. */
    openingPositions?: OpeningPositions;
  }
}

/*
 * Where deep pages of openings start (listOpenings in openings.ts), carried between requests in
 * the services' page positions (record-context.ts PagePositions). Apart from openings.ts, which
 * re-exports it.
 */

/** Where the opening at an offset (newest first) is: skip `skip` rows among those older than `before`. */
export interface OpeningPosition {
  before: number;
  skip: number;
}

interface Bucket {
  bucket: number;
  n: number;
  /** Openings in newer buckets of the same level. */
  newer: number;
}

/** The bucket counts of one version of the openings, read as they are needed. */
interface BucketIndex {
  version: number;
  coarse: Bucket[];
  /** The fine buckets of each coarse bucket read so far. */
  fine: Map<number, Bucket[]>;
}

const SPAN = 2 ** (COARSE_BUCKET_BITS - FINE_BUCKET_BITS);
const FINE_WIDTH = 2 ** FINE_BUCKET_BITS;

/**
 * Finds where the opening at an offset is, newest first, from the per-bucket counts that
 * triggers keep exact (migration 0005), backfills and deletions included: the coarse buckets
 * (2^42 µs, about 51 days) pick one, then its at most 64 fine buckets (2^36 µs, about 19 hours).
 * The counts read are kept for as long as the openings keep their version (read in the caller's
 * transaction, so they always match the rows it reads): after the first deep page, another
 * one costs one tiny query more than the first page.
 */
export class OpeningPositions {
  private index: BucketIndex | null = null;

  async locate(db: Db, offset: number): Promise<OpeningPosition | undefined> {
    const row = await db.selectFrom('table_versions').select('version').where('name', '=', 'openings').executeTakeFirst();
    const version = Number(row?.version ?? 0);
    let index = this.index;
    if (index === null || index.version !== version) {
      const rows = await db.selectFrom('opening_buckets').select(['bucket', 'n']).where('level', '=', 1).orderBy('bucket', 'desc').execute();
      index = { version, coarse: withNewer(rows), fine: new Map() };
      this.index = index;
    }
    const coarse = find(index.coarse, offset);
    if (coarse === undefined) return undefined;
    let fine = index.fine.get(coarse.bucket);
    if (fine === undefined) {
      const rows = await db
        .selectFrom('opening_buckets')
        .select(['bucket', 'n'])
        .where('level', '=', 0)
        .where('bucket', '>=', coarse.bucket * SPAN)
        .where('bucket', '<', (coarse.bucket + 1) * SPAN)
        .orderBy('bucket', 'desc')
        .execute();
      fine = withNewer(rows, coarse.newer);
      index.fine.set(coarse.bucket, fine);
    }
    const bucket = find(fine, offset);
    return bucket === undefined ? undefined : { before: (bucket.bucket + 1) * FINE_WIDTH, skip: offset - bucket.newer };
  }
}

/** Running sums over buckets in descending order. */
function withNewer(rows: ReadonlyArray<{ bucket: number; n: number }>, start = 0): Bucket[] {
  let newer = start;
  return rows.map((row) => {
    const bucket = { bucket: Number(row.bucket), n: Number(row.n), newer };
    newer += bucket.n;
    return bucket;
  });
}

/** The bucket holding an offset (binary search on the running sums), or undefined past the last. */
function find(buckets: readonly Bucket[], offset: number): Bucket | undefined {
  let low = 0;
  let high = buckets.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const bucket = buckets[middle];
    if (offset < bucket.newer) high = middle - 1;
    else if (offset >= bucket.newer + bucket.n) low = middle + 1;
    else return bucket;
  }
  return undefined;
}
