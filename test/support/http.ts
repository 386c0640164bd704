import assert from 'node:assert/strict';
import http from 'node:http';
import { responseProblem } from './openapi.js';
import { until } from './wait.js';

export interface HttpResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The body's bytes as received (compressed bodies stay compressed). */
  bytes: Buffer;
  json(): any;
}

export interface HttpRequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/** Answers that did not fit the OpenAPI document, reported again when the test process ends. */
const undocumented: string[] = [];
process.on('exit', () => {
  if (undocumented.length === 0) return;
  process.stderr.write(`\n${undocumented.length} response(s) did not fit the OpenAPI document (GET /api/schema/):\n${undocumented.join('\n')}\n`);
  process.exitCode = 1;
});

/**
 * A real HTTP request with full control over the path (sent byte for byte, percent-encoding
 * and all) and headers, including Host. `base` is `http://127.0.0.1:<port>`. Every answer of the
 * service's documented paths is checked against its OpenAPI document (support/openapi.ts): one
 * that does not fit it rejects, naming the method, path, status and what does not fit.
 */
export function request(base: string, path: string, options: HttpRequestOptions = {}): Promise<HttpResponse> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method: options.method ?? 'GET',
        path,
        // An explicit length: Node would otherwise send a GET/HEAD body without any framing.
        headers: options.body === undefined ? options.headers : { 'content-length': String(Buffer.byteLength(options.body)), ...options.headers },
        agent: false,
        insecureHTTPParser: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const bytes = Buffer.concat(chunks);
          const body = bytes.toString('utf8');
          const status = res.statusCode ?? 0;
          const problem = responseProblem(options.method ?? 'GET', path, { status, headers: res.headers, bytes });
          if (problem !== null) {
            undocumented.push(problem);
            reject(new Error(`Undocumented answer: ${problem}`));
            return;
          }
          resolve({ status, headers: res.headers, body, bytes, json: () => JSON.parse(body) });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/** GET and parse JSON, asserting nothing: the caller checks status and body. */
export async function getJson(base: string, path: string, headers?: Record<string, string>) {
  const res = await request(base, path, { headers });
  return { ...res, data: res.body ? JSON.parse(res.body) : undefined };
}

/** Status, `Content-Type: application/json` exactly, and (when given) the exact body; `what` names the request in failures. */
export function assertJson(res: HttpResponse, status: number, body?: unknown, what = ''): void {
  assert.equal(res.status, status, `${what} status (body ${res.body.slice(0, 200)})`);
  assert.equal(res.headers['content-type'], 'application/json', `${what} content-type`);
  if (body !== undefined) assert.deepEqual(res.json(), body, `${what} body`);
}

/** The id at the end of an answer's Location (`…/api/users/31/`, `…/31/?format=json`, `…/31.json`). */
export function idOf(res: HttpResponse): number {
  const location = String(res.headers.location);
  const m = /\/(\d+)(?:\/|\.[a-z]+$)(?:\?.*)?$/.exec(location);
  assert.ok(m, `an id in Location ${location} (${res.status} ${res.body.slice(0, 200)})`);
  return Number(m[1]);
}

/** The route headers of a read-only API route: `Allow: GET, HEAD, OPTIONS` and Accept in Vary. */
export function assertRouteHeaders(res: HttpResponse): void {
  assert.equal(res.headers.allow, 'GET, HEAD, OPTIONS');
  assert.match(String(res.headers.vary), /\bAccept\b/);
}

/**
 * Waits until the sample data's last change is old enough for Last-Modified to be sent (it is,
 * once that change is LAST_MODIFIED_SETTLE_MS old), on answers built for the purpose: answers a
 * moment apart are then comparable, header for header.
 */
export async function untilDataSettled(base: string): Promise<void> {
  let settle = 0;
  for (const path of ['/api/projects/', '/api/space/openings/', '/api/events/', '/api/meetings/', '/api/users/']) {
    const settled = async () => (await request(base, `${path}?settled=${++settle}`)).headers['last-modified'] !== undefined;
    await until(settled, `Last-Modified on ${path}`, undefined, 100);
  }
}
