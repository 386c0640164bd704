// The writer of bench/read.js's mixed load: door reports at a steady pace, each followed at once
// by reads that must already show it.
//
//   MIXED_TOKEN=<door token secret> node bench/mixed.js [--seconds 10] [--interval-ms 100] \
//     <writer base URL> [<other base URL>...]
//
// The token's secret comes from the environment only (never a file, never the command line). The
// base URLs are http://127.0.0.1:PORT of `serve` processes on the same database: the first one
// gets the posts ("same process"), every one is read back ("cross-process" for the others).
//
// Every interval (a fixed schedule from the start; a late cycle starts the next one at once):
//   1. on every server: GET /api/space/openings/ (the first page), keeping its ETag and the
//      newest opening (results[0]);
//   2. POST /api/space/openings/ {"is_open": <the opposite of that newest state>} to the writer,
//      with Authorization: Token <secret>: a change, which must be answered 201 with the record;
//   3. at once, on every server: GET the first page again (plain), and GET it with
//      If-None-Match: <the ETag that server sent in step 1>. Both must answer 200 (a 304 says
//      "nothing changed": stale) with results[0] equal to the record just posted (same time and
//      is_open). Anything else is a stale read. When a server sent no ETag in step 1, its
//      conditional GET cannot be made: counted as skipped.
// Requests go over kept-alive connections (node:http, one agent), without Accept-Encoding.
//
// Prints one line of JSON at the end:
//   {"posts":N,"created":N,"late_cycles":N,"post_p50_ms":x,"post_p99_ms":x,"seconds":x,
//    "servers":[{"url":…,"role":"writer"|"other","reads":N,"stale":N,"conditional":N,
//                "conditional_304":N,"conditional_stale":N,"conditional_skipped":N,"etags":N}],
//    "errors":N,"examples":[…]}
// and exits 0 when every post was 201 and no read was stale or failed, 1 otherwise.
import http from 'node:http';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    'interval-ms': { type: 'string', default: '100' },
  },
  allowPositionals: true,
});
const seconds = Number(values.seconds);
const intervalMs = Number(values['interval-ms']);
const secret = process.env.MIXED_TOKEN;
if (!secret || positionals.length === 0 || !(seconds > 0) || !(intervalMs > 0)) {
  process.stderr.write('usage: MIXED_TOKEN=<secret> node bench/mixed.js [--seconds S] [--interval-ms MS] <writer base URL> [<other base URL>...]\n');
  process.exit(2);
}
for (const base of positionals) {
  const { hostname, protocol } = new URL(base);
  if (protocol !== 'http:' || !['127.0.0.1', 'localhost', '[::1]'].includes(hostname)) {
    process.stderr.write(`mixed.js: only loopback http:// servers, got ${base}\n`);
    process.exit(2);
  }
}

const PATH = '/api/space/openings/';
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

/** One request; resolves with status, headers and the body as text. */
function call(base, method, headers = {}, body = undefined) {
  return new Promise((resolve, reject) => {
    const request = http.request(new URL(PATH, base), { method, agent, headers: { accept: 'application/json', ...headers }, timeout: 10_000 }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error(`${method} ${base}${PATH}: no answer in 10 s`)));
    request.on('error', reject);
    request.end(body);
  });
}

function newest(text) {
  const page = JSON.parse(text);
  const first = page?.results?.[0];
  if (!first || typeof first.time !== 'string' || typeof first.is_open !== 'boolean') throw new Error(`not a page of openings: ${text.slice(0, 200)}`);
  return first;
}

const servers = positionals.map((url, i) => ({
  url,
  role: i === 0 ? 'writer' : 'other',
  reads: 0,
  stale: 0,
  conditional: 0,
  conditional_304: 0,
  conditional_stale: 0,
  conditional_skipped: 0,
  etags: 0,
}));
const examples = [];
let errors = 0;
const note = (what) => {
  if (examples.length < 10) examples.push(what);
  process.stderr.write(`mixed.js: ${JSON.stringify(what)}\n`);
};

const postMs = [];
let posts = 0;
let created = 0;
let late = 0;

async function cycle(n) {
  // 1. What every server shows before the post.
  const before = [];
  for (const server of servers) {
    const r = await call(server.url, 'GET');
    if (r.status !== 200) throw new Error(`GET ${server.url}${PATH} answered ${r.status} before post ${n}`);
    const etag = r.headers.etag;
    if (etag) server.etags++;
    before.push({ etag, newest: newest(r.text) });
  }
  // 2. The post: a change from the writer's newest state.
  const isOpen = !before[0].newest.is_open;
  const t0 = performance.now();
  const posted = await call(servers[0].url, 'POST', { authorization: `Token ${secret}`, 'content-type': 'application/json' }, JSON.stringify({ is_open: isOpen }));
  postMs.push(performance.now() - t0);
  posts++;
  if (posted.status !== 201) {
    errors++;
    note({ post: n, problem: `POST answered ${posted.status}, expected 201 (a change)`, body: posted.text.slice(0, 200) });
    return;
  }
  created++;
  const record = JSON.parse(posted.text);
  if (record.is_open !== isOpen || typeof record.time !== 'string') {
    errors++;
    note({ post: n, problem: 'the 201 body is not the posted opening', body: posted.text.slice(0, 200) });
    return;
  }
  // 3. Read it back at once, everywhere.
  const same = (first) => first.time === record.time && first.is_open === record.is_open;
  for (const [i, server] of servers.entries()) {
    const plain = await call(server.url, 'GET');
    server.reads++;
    if (plain.status !== 200) {
      errors++;
      note({ post: n, server: server.role, problem: `GET answered ${plain.status}` });
    } else if (!same(newest(plain.text))) {
      server.stale++;
      note({ post: n, server: server.role, problem: 'stale GET: results[0] is not the opening just posted', posted: record, got: newest(plain.text) });
    }
    const { etag } = before[i];
    if (!etag) {
      server.conditional_skipped++;
      continue;
    }
    const conditional = await call(server.url, 'GET', { 'if-none-match': etag });
    server.conditional++;
    if (conditional.status === 304) {
      server.conditional_304++;
      server.conditional_stale++;
      note({ post: n, server: server.role, problem: `If-None-Match ${etag} (the ETag before the post) answered 304 after the post` });
    } else if (conditional.status !== 200) {
      errors++;
      note({ post: n, server: server.role, problem: `conditional GET answered ${conditional.status}` });
    } else if (!same(newest(conditional.text))) {
      server.conditional_stale++;
      note({ post: n, server: server.role, problem: 'stale conditional GET: results[0] is not the opening just posted', posted: record, got: newest(conditional.text) });
    } else if (conditional.headers.etag === etag) {
      server.conditional_stale++;
      note({ post: n, server: server.role, problem: `the new page came with the old ETag ${etag}` });
    }
  }
}

const start = performance.now();
const cycles = Math.max(1, Math.round((seconds * 1000) / intervalMs));
let failure = null;
for (let n = 0; n < cycles; n++) {
  const due = start + n * intervalMs;
  const wait = due - performance.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  else if (n > 0) late++;
  try {
    await cycle(n + 1);
  } catch (error) {
    failure = error;
    break;
  }
}
const elapsed = (performance.now() - start) / 1000;
agent.destroy();

const sorted = [...postMs].sort((a, b) => a - b);
const pct = (p) => (sorted.length ? sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] : 0);
if (failure) {
  errors++;
  note({ problem: `stopped: ${failure.message}` });
}
console.log(
  JSON.stringify({
    posts,
    created,
    late_cycles: late,
    seconds: Number(elapsed.toFixed(2)),
    interval_ms: intervalMs,
    post_p50_ms: Number(pct(50).toFixed(2)),
    post_p99_ms: Number(pct(99).toFixed(2)),
    servers,
    errors,
    examples,
  }),
);
const stale = servers.reduce((sum, s) => sum + s.stale + s.conditional_stale, 0);
process.exit(errors === 0 && stale === 0 && created === posts && posts > 0 ? 0 : 1);
