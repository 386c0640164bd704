import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import type { MetricsSettings } from '../config.js';

export const METRICS_PATH = '/metrics';

export interface ListenerLog {
  info(object: object, message: string): void;
  error(object: object, message: string): void;
}

export interface MetricsListener {
  /** `host:port` as bound. */
  address: string;
  close(): Promise<void>;
}

/**
 * The Prometheus listener (METRICS_HOST:METRICS_PORT): `GET /metrics` answers `scrape()`, in
 * Prometheus's text format; nothing else is served here, and nothing of this is served on the
 * API's port. A failed scrape is a 500 with the reason in the log only.
 */
export async function listenMetrics(settings: MetricsSettings, scrape: () => Promise<string>, log: ListenerLog): Promise<MetricsListener> {
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== METRICS_PATH) return plain(response, 404, `Not found: the metrics are at ${METRICS_PATH}\n`);
    if (request.method !== 'GET' && request.method !== 'HEAD') return plain(response, 405, 'Method not allowed\n', { allow: 'GET, HEAD' });
    scrape().then(
      (body) => {
        response.writeHead(200, { 'content-type': Registry.PROMETHEUS_CONTENT_TYPE, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
        response.end(request.method === 'HEAD' ? undefined : body);
      },
      (error: Error) => {
        log.error({ err: { message: error.message } }, 'metrics: the scrape failed');
        plain(response, 500, 'The metrics could not be collected; the log says why\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port, settings.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { address, port } = server.address() as AddressInfo;
  const where = `${address.includes(':') ? `[${address}]` : address}:${port}`;
  log.info({ metrics: where }, `metrics: http://${where}${METRICS_PATH}`);
  return {
    address: where,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Prometheus keeps its connection open between scrapes.
        server.closeAllConnections();
      }),
  };
}

function plain(response: http.ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  response.end(text);
}
