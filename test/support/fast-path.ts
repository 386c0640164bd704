/**
 * Which path answered a request, as the service's own info log tells it: the fast path logs
 * "request completed from the response cache" (cache/fast-path.ts), the framework "request
 * completed". For a server started with `startServer({ logs })`.
 */
import assert from 'node:assert/strict';
import { request, untilDataSettled, type HttpResponse } from './http.js';
import { sampleRecords, startServer, type TestServer } from './server.js';
import { until } from './wait.js';

const FAST = 'request completed from the response cache';
const FULL = 'request completed';

export type Answered = HttpResponse & { path: 'fast' | 'full' };

/** A server on the sample records, logging at info level, and a way to tell which path answered each request. */
export interface ObservedServer {
  server: TestServer;
  /**
   * Sends a request to `base` (the server's own by default, or a proxy in front of it), and
   * tells which path answered it, from the log line of its completion. One request at a time.
   */
  send(path: string, headers?: Record<string, string>, options?: { method?: string; base?: string }): Promise<Answered>;
}

export async function observedServer(env: Record<string, string>): Promise<ObservedServer> {
  const logs: Record<string, unknown>[] = [];
  const server = await startServer({ records: sampleRecords(), env, logs });
  const completions = () => logs.filter((line) => line.msg === FAST || line.msg === FULL);
  await untilDataSettled(server.base);
  return {
    server,
    async send(path, headers = {}, { method = 'GET', base = server.base } = {}) {
      const seen = completions().length;
      const res = await request(base, path, { method, headers });
      await until(() => completions().length > seen, `the log line of ${method} ${path}`);
      const lines = completions();
      assert.equal(lines.length, seen + 1, 'one request, one completion');
      return { ...res, path: lines[seen].msg === FAST ? 'fast' : 'full' };
    },
  };
}

/** Headers of two answers, without the ones that differ by nature (the date, the connection). */
export function comparable(res: HttpResponse): Record<string, unknown> {
  const { date: _date, connection: _connection, 'keep-alive': _keepAlive, ...rest } = res.headers;
  return rest;
}

/**
 * Requests `path` with `headers` three times: the first answer built by the full path, then GET
 * and HEAD from the fast path, with the same headers and bytes. Returns the first answer.
 */
export async function assertFastRepeat(o: ObservedServer, path: string, headers: Record<string, string>, base?: string): Promise<HttpResponse> {
  const built = await o.send(path, headers, { base });
  assert.equal(built.status, 200, `${path}: ${built.body.slice(0, 200)}`);
  assert.equal(built.path, 'full', `${path}: the first read is built`);
  for (const method of ['GET', 'HEAD']) {
    const cached = await o.send(path, headers, { method, base });
    assert.equal(cached.path, 'fast', `${method} ${path}: repeated, answered by the fast path`);
    assert.equal(cached.status, 200);
    assert.deepEqual(comparable(cached), comparable(built), `${method} ${path}: the same headers as the full path`);
    assert.deepEqual(cached.bytes, method === 'HEAD' ? Buffer.alloc(0) : built.bytes, `${method} ${path}: the same bytes`);
  }
  return built;
}

/** Every link of a body to the API or its media (JSON strings that are such a URL, and nothing else). */
export function apiLinks(body: string): string[] {
  return [...body.matchAll(/"(https?:\/\/[^"\s]*\/(?:api|media)\/[^"\s]*)"/g)].map((m) => m[1]);
}
