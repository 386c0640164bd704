// The ceiling for the read benchmark: a bare node:http server that answers with precomputed
// responses (the exact bytes and headers of real API pages), so the only work left is Node's
// HTTP stack. Whatever the API does on top of that costs throughput.
//
// usage: node bench/ceiling.js [--workers N] <port> <body-file>...
//
// Body file N (counting from 0) is served at /r/N with the status and headers saved next to it
// in <body-file>.headers (as written by curl -D: the status line, then the headers); any other
// path answers 404. The status is the saved one: a saved `304 Not Modified` is answered 304 with
// the headers the API sent on its 304 and no body (the body file is then empty), like the API's
// answer to a matching If-None-Match; compressed bodies are sent as saved (Content-Encoding and
// all), since curl -D without --compressed keeps the bytes that went over the wire. With --workers N, a
// node:cluster primary forks N workers that share the port (to compare with `serve --workers N`);
// SIGTERM to the primary stops them all.
import cluster from 'node:cluster';
import fs from 'node:fs';
import http from 'node:http';

let args = process.argv.slice(2);
let workers = 0;
if (args[0] === '--workers') {
  workers = Number(args[1]);
  args = args.slice(2);
}
const [portArg, ...bodyFiles] = args;
if (!portArg || bodyFiles.length === 0 || !Number.isInteger(workers) || workers < 0) {
  process.stderr.write('usage: node bench/ceiling.js [--workers N] <port> <body-file>...\n');
  process.exit(2);
}

// Node adds these itself (or they describe one connection), so they are not copied.
const SKIP = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);
// Answers that never have a body (RFC 9110): their Content-Length, if any, is copied as sent.
const NO_BODY = new Set([204, 304]);

function response(bodyFile) {
  const body = fs.readFileSync(bodyFile);
  const [statusLine, ...lines] = fs.readFileSync(`${bodyFile}.headers`, 'latin1').split(/\r?\n/);
  const match = /^HTTP\/[0-9.]+ (\d{3})/.exec(statusLine);
  if (!match) throw new Error(`${bodyFile}.headers: no HTTP status line`);
  const status = Number(match[1]);
  if (NO_BODY.has(status) && body.length > 0) throw new Error(`${bodyFile}: a ${status} answer has no body, but the file is not empty`);
  const headers = {};
  for (const line of lines) {
    if (line === '') break; // the end of the header block
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!SKIP.has(name)) headers[name] = line.slice(colon + 1).trim();
  }
  if (!NO_BODY.has(status)) headers['content-length'] = String(body.length);
  return { status, body, headers };
}

function serve() {
  const responses = new Map(bodyFiles.map((file, i) => [`/r/${i}`, response(file)]));

  const server = http.createServer((request, res) => {
    const found = responses.get(request.url);
    if (!found) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(found.status, found.headers);
    if (NO_BODY.has(found.status)) res.end();
    else res.end(found.body);
  });
  server.listen(Number(portArg), '127.0.0.1', () => {
    if (cluster.isWorker && cluster.worker.id !== 1) return;
    const { port } = server.address();
    for (const [path, { status, body }] of responses) {
      process.stdout.write(`ceiling: http://127.0.0.1:${port}${path} answers ${status} with ${body.length} bytes of body\n`);
    }
  });
  const stop = () => server.close(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

function primary() {
  for (let i = 0; i < workers; i++) cluster.fork();
  let stopping = false;
  cluster.on('exit', (worker, code, signal) => {
    if (!stopping) {
      process.stderr.write(`ceiling: worker ${worker.process.pid} exited (${signal ?? code})\n`);
      process.exitCode = 1;
    }
    if (Object.keys(cluster.workers).length === 0) process.exit();
  });
  const stop = () => {
    stopping = true;
    for (const worker of Object.values(cluster.workers)) worker.process.kill('SIGTERM');
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

if (workers > 0 && cluster.isPrimary) primary();
else serve();
