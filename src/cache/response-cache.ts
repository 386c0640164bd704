import { changedTables, sameVersions, type VersionSnapshot } from '../db/table-versions.js';
import type { Representation } from './representation.js';

/**
 * Responses already built, each valid while the tables it was built from keep their versions.
 * Reads vastly outnumber writes: a page of projects takes milliseconds to build and microseconds
 * to send again. A write drops exactly the responses built from the tables it changed (a door
 * post leaves the users' pages alone), as soon as any request sees the new versions; a response
 * is never served under versions other than its own. Memory is bounded by bytes (bodies in every
 * coding, and keys); the least recently used entries go first. A body that shows the time (the
 * dashboard's "3 hours ago", the opening hours up to now) also ends at its `expiresMs`.
 *
 * Not on lru-cache: it made a cached read about twice as slow (71 → 138 ns) and a write's purge three times.
 */
const MAX_KEY_LENGTH = 2048;

interface Entry {
  representation: Representation;
  /** What the entry was counted for in `bytes`: it grows when a compressed variant is added. */
  accounted: number;
  /** When it was last moved to the most recently used end (a count of such moves). */
  touched: number;
}

export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  private seen: VersionSnapshot | null = null;
  private touches = 0;
  /**
   * Cached reads answered from a kept response (by the fast path or CachedBodies), and those that
   * built theirs or waited for a build: one count per request, read by the metrics.
   */
  readonly reads = { hits: 0, misses: 0 };

  constructor(private readonly maxBytes: number) {}

  /** Takes note of the tables' current versions, dropping what was built from tables that changed. */
  observe(snapshot: VersionSnapshot): void {
    if (snapshot === this.seen) return;
    const changed = this.seen === null ? [] : changedTables(this.seen, snapshot);
    this.seen = snapshot;
    if (changed.length === 0) return;
    for (const [key, entry] of this.entries) {
      if (entry.representation.source.reads.some((table) => changed.includes(table))) this.delete(key, entry);
    }
  }

  /** False with RESPONSE_CACHE_MB=0: nothing is ever kept. */
  get enabled(): boolean {
    return this.maxBytes > 0;
  }

  /** Whether a response is kept for a key, whatever versions it was built from. */
  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** The response for a key, if it was built from the tables as they are in `snapshot`. */
  get(key: string, snapshot: VersionSnapshot): Representation | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    const { representation } = entry;
    const { source } = representation;
    if (!sameVersions(snapshot, source.reads, source.versions) || (source.expiresMs !== 0 && Date.now() >= source.expiresMs)) {
      this.delete(key, entry);
      return undefined;
    }
    // Map keeps insertion order: re-inserting marks the entry as recently used. An entry already
    // among the most recently used quarter stays where it is, so a hot entry is not moved on every hit.
    if (this.touches - entry.touched > this.entries.size >> 2) {
      this.entries.delete(key);
      this.entries.set(key, entry);
      entry.touched = ++this.touches;
    }
    return representation;
  }

  /**
   * Keeps a response, unless the tables it was built from have changed since (a newer snapshot
   * was observed while it was being built), its key is very long (such requests are not the
   * repeated reads a cache is for) or it alone exceeds the bound.
   */
  set(key: string, representation: Representation): void {
    const { source } = representation;
    if (this.seen === null || !sameVersions(this.seen, source.reads, source.versions) || key.length > MAX_KEY_LENGTH) return;
    const size = entrySize(key, representation);
    if (size > this.maxBytes) return;
    const previous = this.entries.get(key);
    if (previous !== undefined) this.delete(key, previous);
    this.entries.set(key, { representation, accounted: size, touched: ++this.touches });
    this.bytes += size;
    this.evict();
  }

  /** Counts what a kept response has grown by (a compressed variant made after it was stored). */
  resize(key: string, representation: Representation): void {
    const entry = this.entries.get(key);
    if (entry === undefined || entry.representation !== representation) return;
    const size = entrySize(key, representation);
    this.bytes += size - entry.accounted;
    entry.accounted = size;
    this.evict();
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  private evict(): void {
    for (const [key, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.delete(key, entry);
    }
  }

  private delete(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.bytes -= entry.accounted;
  }
}

/** What an entry costs: its bodies, and its key at two bytes a character. */
function entrySize(key: string, representation: Representation): number {
  return representation.size + key.length * 2;
}
