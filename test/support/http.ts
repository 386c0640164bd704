import http from 'node:http';

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

/**
 * A real HTTP request with full control over the path (sent byte for byte, percent-encoding
 * and all) and headers, including Host. `base` is `http://127.0.0.1:<port>`.
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
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, bytes, json: () => JSON.parse(body) });
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
