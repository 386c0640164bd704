import net from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 between the service and a real database server, for outage tests.
 * It can make the database look down (connections reset, new ones refused), or partitioned
 * (a blackhole: connections are accepted and written to, but nothing gets through in either
 * direction), and restore it — without touching the real server beyond opening and closing
 * ordinary client connections to it.
 */
export class TcpProxy {
  readonly port: number;
  private server: net.Server;
  private readonly pairs = new Set<Pair>();
  private mode: 'forward' | 'refuse' | 'blackhole' = 'forward';
  private tripwire: Tripwire | null = null;

  private constructor(
    server: net.Server,
    port: number,
    private readonly target: { host: string; port: number },
  ) {
    this.server = server;
    this.port = port;
  }

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const server = net.createServer();
    await listen(server, 0);
    const proxy = new TcpProxy(server, (server.address() as net.AddressInfo).port, target);
    server.on('connection', (socket) => proxy.accept(socket));
    return proxy;
  }

  /** Connections currently held open by the proxy (client side). */
  get connections(): number {
    return this.pairs.size;
  }

  /**
   * The server is gone: every proxied connection is reset (the client sees ECONNRESET, whether
   * or not a query is in flight) and the port stops listening (new connections: ECONNREFUSED).
   */
  async refuse(): Promise<void> {
    this.mode = 'refuse';
    this.resetAll();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Resets every proxied connection now, without changing what happens to new ones. */
  resetAll(): void {
    for (const pair of [...this.pairs]) pair.destroy(true);
  }

  /**
   * A network partition: nothing more is forwarded on existing connections (their bytes wait in
   * the kernel's buffers, as TCP would retransmit them), and new connections are accepted but
   * never reach the server. Nobody is told anything.
   */
  blackhole(): void {
    this.mode = 'blackhole';
    for (const pair of this.pairs) pair.pause();
  }

  /**
   * Arms a one-shot trigger on the service-to-server direction: the first chunk containing
   * `text` (an SQL fragment: pg sends statement text in clear) is held back and then every
   * connection is reset (`'reset'`, new connections still forwarded: a crash and instant restart)
   * or the network partitioned (`'blackhole'`, as blackhole()). This puts a failure exactly in
   * the middle of a chosen query, deterministically.
   */
  tripOn(text: string, action: 'reset' | 'blackhole'): Promise<void> {
    return new Promise((resolve) => {
      this.tripwire = { text: Buffer.from(text), action, fired: resolve };
    });
  }

  /**
   * Back to normal: listening again if refused, a partition heals (held bytes flow on), and a
   * tripwire that has not fired is disarmed.
   */
  async restore(): Promise<void> {
    const previous = this.mode;
    this.mode = 'forward';
    this.tripwire = null;
    if (previous === 'refuse') {
      this.server = net.createServer();
      this.server.on('connection', (socket) => this.accept(socket));
      await listen(this.server, this.port);
    }
    for (const pair of this.pairs) pair.resume(this.target);
  }

  async close(): Promise<void> {
    this.mode = 'refuse';
    this.resetAll();
    if (this.server.listening) await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: net.Socket): void {
    if (this.mode === 'refuse') {
      client.resetAndDestroy();
      return;
    }
    const pair = new Pair(
      client,
      () => this.pairs.delete(pair),
      (chunk) => this.inspect(chunk),
    );
    this.pairs.add(pair);
    if (this.mode === 'blackhole') pair.pause();
    else pair.resume(this.target);
  }

  /** Whether a chunk from the service may be forwarded now; false holds it back. */
  private inspect(chunk: Buffer): boolean {
    const wire = this.tripwire;
    if (wire === null || !chunk.includes(wire.text)) return true;
    this.tripwire = null;
    if (wire.action === 'reset') this.resetAll();
    else this.blackhole();
    wire.fired();
    return false;
  }
}

interface Tripwire {
  text: Buffer;
  action: 'reset' | 'blackhole';
  fired(): void;
}

/** One proxied connection: the service's socket and, once forwarding has begun, the server's. */
class Pair {
  private upstream: net.Socket | null = null;
  private paused = false;
  private closed = false;
  /** Bytes from the service held back by a tripwire, forwarded first when the pair resumes. */
  private held: Buffer[] = [];

  constructor(
    private readonly client: net.Socket,
    private readonly onClose: () => void,
    private readonly inspect: (chunk: Buffer) => boolean,
  ) {
    client.on('error', () => {});
    client.on('close', () => this.destroy(false));
  }

  pause(): void {
    this.paused = true;
    this.client.pause();
    this.upstream?.pause();
  }

  resume(target: { host: string; port: number }): void {
    if (this.closed) return;
    this.paused = false;
    if (this.upstream === null) {
      const upstream = net.connect(target);
      this.upstream = upstream;
      upstream.on('error', () => {});
      upstream.on('close', () => this.destroy(false));
      this.client.on('data', (chunk: Buffer) => {
        if (this.paused) this.held.push(chunk);
        else if (!this.inspect(chunk)) this.held.push(chunk);
        else this.write(this.client, upstream, chunk);
      });
      upstream.on('data', (chunk: Buffer) => this.write(upstream, this.client, chunk));
    }
    for (const chunk of this.held.splice(0)) this.write(this.client, this.upstream, chunk);
    this.client.resume();
    this.upstream.resume();
  }

  /** Closes both sides; `reset` sends the service a TCP RST instead of a FIN. */
  destroy(reset: boolean): void {
    if (this.closed) return;
    this.closed = true;
    if (reset && !this.client.destroyed) this.client.resetAndDestroy();
    else this.client.destroy();
    this.upstream?.destroy();
    this.onClose();
  }

  /** Copies with backpressure; a paused pair stays paused when `to` drains. */
  private write(from: net.Socket, to: net.Socket, chunk: Buffer): void {
    if (to.write(chunk)) return;
    from.pause();
    to.once('drain', () => {
      if (!this.paused) from.resume();
    });
  }
}

function listen(server: net.Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}
