/**
 * One build for concurrent requests that need the same response: after a write, every poller
 * of a page misses at once, and building the page once instead of once per poller saves CPU and
 * memory (a projects page is 600 KB of JSON). The key names the response and the versions of
 * the tables it is built from, read after each request arrived: a request joining a build whose
 * versions equal its own knows that nothing it must see was committed after that build began
 * reading, so sharing it is as fresh as building its own.
 */
export class SharedBuilds<T> {
  private readonly running = new Map<string, Promise<T>>();

  run(key: string, build: () => Promise<T>): Promise<T> {
    let pending = this.running.get(key);
    if (pending === undefined) {
      pending = build().finally(() => this.running.delete(key));
      this.running.set(key, pending);
    }
    return pending;
  }
}
