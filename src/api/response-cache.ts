/**
 * Response bodies already built, valid for one version of the data. Reads vastly outnumber
 * writes, and a page of projects can take milliseconds to build but microseconds to send again.
 * When the data version changes (any commit, from this process or another), everything is
 * dropped: correctness first; finer invalidation can come when writes are frequent.
 * Memory is bounded by bytes of body; the least recently used entries go first.
 */
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

  /** Stores a body built from data at least as new as `version` (read the version first). */
  set(key: string, version: string, body: Buffer): void {
    if (version !== this.version || body.length > this.maxBytes) return;
    const previous = this.entries.get(key);
    if (previous !== undefined) this.bytes -= previous.length;
    this.entries.set(key, body);
    this.bytes += body.length;
    for (const [oldKey, oldBody] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldKey);
      this.bytes -= oldBody.length;
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
