import type pg from 'pg';

const CLOSE_TIMEOUT_MS = 1000;

/**
 * Ends a dedicated connection (LISTEN, read lease). A server that vanished without closing the
 * connection would keep end() waiting, and a shutdown with it: give it a moment, then drop the
 * socket.
 */
export async function endClient(client: pg.Client): Promise<void> {
  const ended = client.end().catch(() => {});
  const timeout = new Promise<'timeout'>((resolve) => setTimeout(resolve, CLOSE_TIMEOUT_MS, 'timeout').unref());
  if ((await Promise.race([ended, timeout])) === 'timeout') {
    (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  }
}
