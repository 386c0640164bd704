import net from 'node:net';

/** A response read byte for byte from a socket (no client-side validation or normalisation). */
export interface RawResponse {
  httpVersion: string;
  status: number;
  /** Header names lower-cased; repeated headers joined with `, `. */
  headers: Record<string, string>;
  /** Every header line as received, in order. */
  headerLines: [name: string, value: string][];
  body: Buffer;
  text: string;
  json(): any;
}

/**
 * Sends `bytes` as they are on a fresh TCP connection to 127.0.0.1:`port` and reads until the
 * server closes the connection (send `Connection: close` or use HTTP/1.0). For requests that
 * Node's http client refuses: raw UTF-8 bytes in a path, no Host header, HTTP/1.0.
 */
export function rawExchange(port: number, bytes: Buffer | string, timeoutMs = 5000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('raw HTTP exchange timed out'));
    }, timeoutMs);
    socket.on('connect', () => socket.write(bytes));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      try {
        resolve(parseResponse(Buffer.concat(chunks)));
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

export function parseResponse(data: Buffer): RawResponse {
  const end = data.indexOf('\r\n\r\n');
  if (end === -1) throw new Error(`incomplete HTTP response: ${JSON.stringify(data.toString('latin1'))}`);
  const head = data.subarray(0, end).toString('latin1').split('\r\n');
  const statusLine = head.shift() ?? '';
  const match = /^(HTTP\/\d\.\d) (\d{3})/.exec(statusLine);
  if (!match) throw new Error(`bad status line ${JSON.stringify(statusLine)}`);
  const headerLines: [string, string][] = [];
  const headers: Record<string, string> = {};
  for (const line of head) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    headerLines.push([name, value]);
    const key = name.toLowerCase();
    headers[key] = key in headers ? `${headers[key]}, ${value}` : value;
  }
  let body = data.subarray(end + 4);
  if (headers['transfer-encoding']?.toLowerCase() === 'chunked') body = dechunk(body);
  else if (headers['content-length'] !== undefined) body = body.subarray(0, Number(headers['content-length']));
  const text = body.toString('utf8');
  return { httpVersion: match[1], status: Number(match[2]), headers, headerLines, body, text, json: () => JSON.parse(text) };
}

function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd === -1) break;
    const size = parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (!size) break;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/**
 * A GET (or other method) whose request target is sent as raw bytes: `target` may be a Buffer
 * holding unencoded UTF-8 or invalid bytes. `host` null sends no Host header.
 */
export function rawRequest(
  port: number,
  target: Buffer | string,
  options: { method?: string; host?: string | null; version?: '1.0' | '1.1'; headers?: Record<string, string> } = {},
): Promise<RawResponse> {
  const version = options.version ?? '1.1';
  const host = options.host === undefined ? `127.0.0.1:${port}` : options.host;
  const lines: string[] = [];
  if (host !== null) lines.push(`Host: ${host}`);
  for (const [name, value] of Object.entries(options.headers ?? {})) lines.push(`${name}: ${value}`);
  lines.push('Connection: close');
  const head = Buffer.concat([
    Buffer.from(`${options.method ?? 'GET'} `, 'latin1'),
    typeof target === 'string' ? Buffer.from(target, 'latin1') : target,
    Buffer.from(` HTTP/${version}\r\n${lines.join('\r\n')}\r\n\r\n`, 'latin1'),
  ]);
  return rawExchange(port, head);
}
