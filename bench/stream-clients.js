// The measuring side of bench/stream.js: many Server-Sent Events clients on raw TCP sockets, then
// door posts, timing each change from the post to the moment the LAST client has its event.
//
//   DOOR_TOKEN=<secret> node bench/stream-clients.js --stream http://127.0.0.1:PORT \
//       --post http://127.0.0.1:PORT2 --clients 1000 --posts 20 --server-pid PID
//
// 1. opens --clients connections to --stream's /api/space/stream/ (HTTP/1.1, a socket each, in
//    batches of 100 so that the listen backlog never overflows) and waits until every client has
//    its first event (the current state);
// 2. reads the stream server's memory from /proc/<pid>/status (VmRSS, VmHWM) before they connect
//    and with them connected;
// 3. posts --posts door reports to --post (alternating states, one at a time, 200 ms apart; each
//    must answer 201) and, for each, waits until every client got the event whose id is the new
//    opening's (the Location): a client that misses one, gets one twice or out of order, or a
//    stream that ends, is an error;
// 4. prints one line of JSON: latencies (ms) from the post's response (the whole response
//    received) and from the request's start to the last client's event, per post; memory (kB);
//    and errors (an empty list when everything went right). Exit status 1 on any error.
import http from 'node:http';
import net from 'node:net';
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';

const args = Object.fromEntries(process.argv.slice(2).reduce((pairs, arg, i, all) => (arg.startsWith('--') ? [...pairs, [arg.slice(2), all[i + 1]]] : pairs), []));
const streamBase = new URL(args.stream);
const postBase = new URL(args.post ?? args.stream);
const CLIENTS = Number(args.clients ?? 1000);
const POSTS = Number(args.posts ?? 20);
const SERVER_PID = Number(args['server-pid']);
const TOKEN = process.env.DOOR_TOKEN;
const BATCH = 100;
const EVENT_TIMEOUT_MS = 10_000;

const errors = [];
const fail = (message) => {
  if (errors.length < 20) errors.push(message);
};
if (!TOKEN) {
  process.stderr.write('DOOR_TOKEN is required\n');
  process.exit(2);
}

/** Per event id: how many clients have it, and when the first and the last got it. */
const arrivals = new Map();
let waiter = null;

function arrived(id, now) {
  let entry = arrivals.get(id);
  if (!entry) arrivals.set(id, (entry = { count: 0, first: now, last: now }));
  entry.count++;
  entry.last = now;
  if (waiter) waiter();
}

function waitForAll(id, timeoutMs) {
  return new Promise((resolve) => {
    const check = () => {
      if ((arrivals.get(id)?.count ?? 0) >= CLIENTS) {
        clearTimeout(timer);
        waiter = null;
        resolve(true);
      }
    };
    const timer = setTimeout(() => {
      waiter = null;
      resolve(false);
    }, timeoutMs);
    waiter = check;
    check();
  });
}

const sockets = [];

function openClient(index) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: streamBase.hostname, port: Number(streamBase.port) });
    sockets.push(socket);
    let headerDone = false;
    let text = '';
    let lastId = -1;
    let settled = false;
    const settle = () => {
      if (!settled) {
        settled = true;
        resolve();
      }
    };
    socket.setEncoding('utf8');
    socket.on('connect', () => {
      socket.write(`GET /api/space/stream/ HTTP/1.1\r\nHost: ${streamBase.host}\r\nAccept: text/event-stream\r\nUser-Agent: bench-stream\r\n\r\n`);
    });
    socket.on('data', (chunk) => {
      const now = performance.now();
      text += chunk;
      if (!headerDone) {
        const end = text.indexOf('\r\n\r\n');
        if (end === -1) return;
        const status = text.slice(0, text.indexOf('\r\n'));
        if (!/^HTTP\/1\.1 200 /.test(status)) {
          fail(`client ${index}: ${status}`);
          socket.destroy();
          settle();
          return;
        }
        headerDone = true;
        text = text.slice(end + 4);
      }
      // Complete events end with a blank line; chunked framing sits between them.
      const cut = text.lastIndexOf('\n\n');
      if (cut === -1) return;
      const complete = text.slice(0, cut);
      text = text.slice(cut + 2);
      for (const match of complete.matchAll(/^id: (\d+)$/gm)) {
        const id = Number(match[1]);
        if (lastId !== -1 && id <= lastId) fail(`client ${index}: event ${id} after ${lastId}`);
        lastId = id;
        arrived(id, now);
        settle();
      }
    });
    socket.on('error', (error) => {
      fail(`client ${index}: ${error.code ?? error.message}`);
      settle();
    });
    socket.on('close', () => {
      if (!closing) fail(`client ${index}: the stream ended`);
      settle();
    });
  });
}

function memory(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rss_kb: kb('VmRSS'), hwm_kb: kb('VmHWM') };
  } catch {
    return { rss_kb: null, hwm_kb: null };
  }
}

function post(isOpen) {
  return new Promise((resolve) => {
    const body = JSON.stringify({ is_open: isOpen });
    const start = performance.now();
    const req = http.request(
      {
        host: postBase.hostname,
        port: postBase.port,
        path: '/api/space/openings/',
        method: 'POST',
        agent: false,
        headers: { authorization: `Token ${TOKEN}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => {
          const end = performance.now();
          const id = Number(/\/(\d+)\/$/.exec(res.headers.location ?? '')?.[1]);
          resolve({ status: res.statusCode, id, start, end, body: text });
        });
      },
    );
    req.on('error', (error) => resolve({ status: 0, error: error.message, start, end: performance.now() }));
    req.end(body);
  });
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
}

let closing = false;
const idle = memory(SERVER_PID);
const connectStart = performance.now();
for (let i = 0; i < CLIENTS; i += BATCH) {
  await Promise.all(Array.from({ length: Math.min(BATCH, CLIENTS - i) }, (_, j) => openClient(i + j)));
}
const connectMs = performance.now() - connectStart;
const initialIds = [...arrivals.entries()];
const initial = initialIds.reduce((sum, [, e]) => sum + e.count, 0);
if (initial !== CLIENTS) fail(`${initial} of ${CLIENTS} clients got the current state on connect`);
// The state's last opening tells which post comes next.
let isOpen;
await new Promise((r) => setTimeout(r, 1000));
const connected = memory(SERVER_PID);

const samples = [];
if (errors.length === 0) {
  const latest = await new Promise((resolve) => {
    http.get({ host: streamBase.hostname, port: streamBase.port, path: '/api/space/openings/?page_size=1', agent: false }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve(JSON.parse(text).results[0]?.is_open ?? false));
    });
  });
  isOpen = latest;
  for (let i = 0; i < POSTS && errors.length === 0; i++) {
    isOpen = !isOpen;
    const result = await post(isOpen);
    if (result.status !== 201 || !Number.isFinite(result.id)) {
      fail(`post ${i + 1}: ${result.status} ${result.error ?? result.body}`);
      break;
    }
    if (!(await waitForAll(result.id, EVENT_TIMEOUT_MS))) {
      fail(`post ${i + 1}: only ${arrivals.get(result.id)?.count ?? 0} of ${CLIENTS} clients got event ${result.id} within ${EVENT_TIMEOUT_MS / 1000} s`);
      break;
    }
    const entry = arrivals.get(result.id);
    samples.push({
      id: result.id,
      post_ms: result.end - result.start,
      from_response_ms: entry.last - result.end,
      from_request_ms: entry.last - result.start,
      first_from_request_ms: entry.first - result.start,
    });
    await new Promise((r) => setTimeout(r, 200));
  }
}
const after = memory(SERVER_PID);
closing = true;
for (const socket of sockets) socket.destroy();

const round = (x) => (x === undefined ? null : Math.round(x * 100) / 100);
const pick = (key) => samples.map((s) => s[key]);
process.stdout.write(
  JSON.stringify({
    clients: CLIENTS,
    posts: samples.length,
    connect_ms: round(connectMs),
    p50_from_response_ms: round(percentile(pick('from_response_ms'), 50)),
    p99_from_response_ms: round(percentile(pick('from_response_ms'), 99)),
    max_from_response_ms: round(Math.max(...pick('from_response_ms'))),
    p50_from_request_ms: round(percentile(pick('from_request_ms'), 50)),
    p99_from_request_ms: round(percentile(pick('from_request_ms'), 99)),
    p50_post_ms: round(percentile(pick('post_ms'), 50)),
    rss_idle_kb: idle.rss_kb,
    rss_connected_kb: connected.rss_kb,
    rss_after_kb: after.rss_kb,
    hwm_kb: after.hwm_kb,
    samples: samples.map((s) => Object.fromEntries(Object.entries(s).map(([k, v]) => [k, round(v)]))),
    errors,
  }) + '\n',
);
process.exit(errors.length === 0 ? 0 : 1);
