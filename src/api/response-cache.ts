/**
 * Response bodies already built, valid for one version of the data. Reads vastly outnumber
 * writes, and a page of projects can take milliseconds to build but microseconds to send again.
 * When the data version changes (any commit, from this process or another), everything is
 * dropped: correctness first; finer invalidation can come when writes are frequent.
 * Memory is bounded by bytes of body; the least recently used entries go first.
 */
const MAX_KEY_LENGTH = 2048;

/** What an entry costs: its body, and its key at two bytes a character. */
function entrySize(key: string, body: Buffer): number {
  return body.length + key.length * 2;
}

export class ResponseCache {
  private readonly entries = new Map<string, Buffer>();
  private bytes = 0;
  private version: string | null = null;

  constructor(private readonly maxBytes: number) {}

  get(key: string, version: string): Buffer | undefined {
    if (version !== this.version) {
      this.clear();
      this.version = version;
      return undefined;
    }
    const body = this.entries.get(key);
    if (body !== undefined) {
      // Map keeps insertion order: re-inserting marks the entry as recently used.
      this.entries.delete(key);
      this.entries.set(key, body);
    }
    return body;
  }

  /**
   * Stores a body built from data at least as new as `version` (read the version first). Keys
   * count towards the bound too (a URL can be 16 KB), and very long ones are not kept at all:
   * such requests are not the repeated reads a cache is for.
   */
  set(key: string, version: string, body: Buffer): void {
    const size = entrySize(key, body);
    if (version !== this.version || key.length > MAX_KEY_LENGTH || size > this.maxBytes) return;
    const previous = this.entries.get(key);
    if (previous !== undefined) this.bytes -= entrySize(key, previous);
    this.entries.set(key, body);
    this.bytes += size;
    for (const [oldKey, oldBody] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldKey);
      this.bytes -= entrySize(oldKey, oldBody);
    }
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  private clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}
