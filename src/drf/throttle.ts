/**
 * Counts failed authentications per client address in a sliding window: beyond `limit` in
 * `windowMs`, a client presenting credentials is refused until its oldest failure ages out.
 * In memory, per process (several processes each allow `limit`); addresses are bounded.
 */
export class FailureThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly limit = 10,
    private readonly windowMs = 60_000,
    private readonly maxClients = 10_000,
  ) {}

  /** Seconds the client must wait before presenting credentials again, or 0. */
  waitSeconds(client: string, nowMs: number): number {
    const recent = this.recent(client, nowMs);
    if (recent.length < this.limit) return 0;
    return Math.max(1, Math.ceil((recent[recent.length - this.limit] + this.windowMs - nowMs) / 1000));
  }

  recordFailure(client: string, nowMs: number): void {
    const recent = this.recent(client, nowMs);
    recent.push(nowMs);
    // Only the newest `limit` failures matter for the wait; keep memory per client bounded.
    if (recent.length > this.limit) recent.splice(0, recent.length - this.limit);
    this.failures.delete(client);
    this.failures.set(client, recent);
    if (this.failures.size > this.maxClients) this.failures.delete(this.failures.keys().next().value!);
  }

  private recent(client: string, nowMs: number): number[] {
    const times = this.failures.get(client);
    if (!times) return [];
    const kept = times.filter((t) => t > nowMs - this.windowMs);
    if (kept.length === 0) this.failures.delete(client);
    else if (kept.length !== times.length) this.failures.set(client, kept);
    return kept;
  }
}
