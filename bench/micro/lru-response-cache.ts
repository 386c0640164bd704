// The response cache on lru-cache (maxSize + sizeCalculation), with the same API and the same
// rules as src/cache/response-cache.ts: the candidate that bench/micro/response-cache.ts measures.
// lru-cache is not a dependency of the project (it was measured and not adopted), so it is not
// imported here: the benchmark loads it and hands its class to `useLruCache`, and the little of
// its API used here is declared below, so that `npm run typecheck` passes without it.
import type { Representation } from '../../src/cache/representation.js';
import { changedTables, sameVersions, type VersionSnapshot } from '../../src/db/table-versions.js';

const MAX_KEY_LENGTH = 2048;

/** The part of lru-cache's LRUCache (v11) used here. */
interface LRUCache<K, V> {
  readonly size: number;
  readonly calculatedSize: number;
  has(key: K): boolean;
  get(key: K): V | undefined;
  peek(key: K): V | undefined;
  set(key: K, value: V): unknown;
  delete(key: K): boolean;
  entries(): Generator<[K, V]>;
}
export type LRUCacheClass = new (options: { maxSize: number; sizeCalculation: (value: Box, key: string) => number }) => LRUCache<string, Box>;

let LRU: LRUCacheClass | null = null;
export function useLruCache(cls: LRUCacheClass): void {
  LRU = cls;
}

/**
 * A box per stored response: lru-cache recomputes an entry's size only when `set` is given a
 * different value, so `resize` stores a new box around the same representation.
 */
interface Box {
  representation: Representation;
  /** For LruPeekResponseCache: when it was last moved to the most recently used end. */
  touched: number;
}

export class LruResponseCache {
  /** null for a bound of zero: lru-cache wants a positive integer maxSize, and such a cache keeps nothing. */
  protected readonly entries: LRUCache<string, Box> | null;
  protected touches = 0;
  private seen: VersionSnapshot | null = null;

  constructor(maxBytes: number) {
    if (LRU === null) throw new Error('useLruCache() first');
    this.entries = maxBytes >= 1 ? new LRU({ maxSize: Math.floor(maxBytes), sizeCalculation: (box, key) => entrySize(key, box.representation) }) : null;
  }

  observe(snapshot: VersionSnapshot): void {
    if (snapshot === this.seen) return;
    const changed = this.seen === null ? [] : changedTables(this.seen, snapshot);
    this.seen = snapshot;
    if (changed.length === 0 || this.entries === null) return;
    // Deleting while lru-cache's iterator walks its list is not safe: collect, then delete.
    const stale: string[] = [];
    for (const [key, box] of this.entries.entries()) {
      if (box.representation.source.reads.some((table) => changed.includes(table))) stale.push(key);
    }
    for (const key of stale) this.entries.delete(key);
  }

  has(key: string): boolean {
    return this.entries !== null && this.entries.has(key);
  }

  /** lru-cache moves the entry to the most recently used end on every hit. */
  get(key: string, snapshot: VersionSnapshot): Representation | undefined {
    const box = this.entries?.get(key);
    if (box === undefined) return undefined;
    const { representation } = box;
    if (!sameVersions(snapshot, representation.source.reads, representation.source.versions)) {
      this.entries!.delete(key);
      return undefined;
    }
    return representation;
  }

  set(key: string, representation: Representation): void {
    const { source } = representation;
    if (this.entries === null || this.seen === null || !sameVersions(this.seen, source.reads, source.versions) || key.length > MAX_KEY_LENGTH) return;
    this.entries.set(key, { representation, touched: ++this.touches });
  }

  resize(key: string, representation: Representation): void {
    const box = this.entries?.peek(key);
    if (box?.representation !== representation) return;
    this.entries!.set(key, { representation, touched: box.touched });
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries?.size ?? 0, bytes: this.entries?.calculatedSize ?? 0 };
  }
}

/**
 * The same, with src/cache/response-cache.ts's trick for hot entries: a hit peeks (no move), and
 * moves the entry to the most recently used end only when it is not among the most recent quarter.
 */
export class LruPeekResponseCache extends LruResponseCache {
  override get(key: string, snapshot: VersionSnapshot): Representation | undefined {
    const box = this.entries?.peek(key);
    if (box === undefined) return undefined;
    const { representation } = box;
    if (!sameVersions(snapshot, representation.source.reads, representation.source.versions)) {
      this.entries!.delete(key);
      return undefined;
    }
    if (this.touches - box.touched > this.entries!.size >> 2) {
      this.entries!.get(key);
      box.touched = ++this.touches;
    }
    return representation;
  }
}

function entrySize(key: string, representation: Representation): number {
  return representation.size + key.length * 2;
}
