// Small HTTP client for the checks around the measurements (never the measurement itself: that
// is wrk's). Loopback only.
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { fail, sleep } from './log.js';
import { isAlive } from './processes.js';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * GET url with headers; resolves { status, head, headers, body } where head is the status line
 * and the header lines as received (the form bench/ceiling.js reads back), and body the bytes as
 * sent (not decompressed). status 0 when nothing answered.
 */
export function get(url, headers = {}, timeoutMs = 10_000) {
  const target = new URL(url);
  if (!LOOPBACK.has(target.hostname)) fail(`refusing to send a request off this machine: ${url}`);
  // A keep-alive request, as wrk's and curl's are: the answer then carries the same connection
  // headers as under load (Connection: close would change its size).
  const agent = new http.Agent({ keepAlive: true });
  return new Promise((resolve) => {
    const request = http.get(target, { headers, agent, timeout: timeoutMs }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => {
        const lines = [`HTTP/${res.httpVersion} ${res.statusCode} ${res.statusMessage}`];
        for (let i = 0; i < res.rawHeaders.length; i += 2) lines.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
        const head = `${lines.join('\r\n')}\r\n\r\n`;
        agent.destroy();
        resolve({ status: res.statusCode, head, headers: res.headers, body: Buffer.concat(chunks) });
      });
      res.on('error', () => resolve({ status: 0, head: '', headers: {}, body: Buffer.alloc(0) }));
    });
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', () => agent.destroy() || resolve({ status: 0, head: '', headers: {}, body: Buffer.alloc(0) }));
  });
}

/** Saves an answer as bench/ceiling.js serves it: the body in `file`, status and headers in `file`.headers. */
export function saveAnswer(file, answer) {
  fs.writeFileSync(file, answer.body);
  fs.writeFileSync(`${file}.headers`, answer.head, 'latin1');
}

/** The size of a whole answer on the wire (status line, headers, body): what wrk counts per answer. */
export const answerBytes = (answer) => Buffer.byteLength(answer.head, 'latin1') + answer.body.length;

/** Polls url until it answers 200; fails when `child` exits first or after timeoutS. */
export async function waitFor200(url, child, timeoutS, logFile) {
  const deadline = Date.now() + timeoutS * 1000;
  for (;;) {
    const { status } = await get(url, {}, 2000);
    if (status === 200) return;
    if (child && !isAlive(child)) {
      const tail = logFile && fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').split('\n').slice(-20).join('\n    ') : '';
      fail(`the process behind ${url} exited during startup${tail ? `:\n    ${tail}` : ''}`);
    }
    if (Date.now() > deadline) fail(`${url} did not answer 200 within ${timeoutS} s (last status ${status || 'none'}${logFile ? `; log ${logFile}` : ''})`);
    await sleep(5);
  }
}

/** A TCP port free on 127.0.0.1 right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}
