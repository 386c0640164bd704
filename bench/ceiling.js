// The ceiling for the read benchmark: a bare node:http server that answers with precomputed
// responses (the exact bytes and headers of real API pages), so the only work left is Node's
// HTTP stack. Whatever the API does on top of that costs throughput.
//
// usage: node bench/ceiling.js [--workers N] <port> <body-file>...
//
// Body file N (counting from 0) is served at /r/N with the headers saved next to it in
// <body-file>.headers (as written by curl -D); any other path answers 404. With --workers N, a
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
const SKIP = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

function response(bodyFile) {
  const body = fs.readFileSync(bodyFile);
  const headers = {};
  // The first line is the status line.
  for (const line of fs.readFileSync(`${bodyFile}.headers`, 'latin1').split(/\r?\n/).slice(1)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!SKIP.has(name)) headers[name] = line.slice(colon + 1).trim();
  }
  headers['content-length'] = String(body.length);
  return { body, headers };
}

function serve() {
  const responses = new Map(bodyFiles.map((file, i) => [`/r/${i}`, response(file)]));

  const server = http.createServer((request, res) => {
    const found = responses.get(request.url);
    if (!found) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, found.headers);
    res.end(found.body);
  });
  server.listen(Number(portArg), '127.0.0.1', () => {
    if (cluster.isWorker && cluster.worker.id !== 1) return;
    const { port } = server.address();
    for (const [path, { body }] of responses) {
      process.stdout.write(`ceiling: http://127.0.0.1:${port}${path} sends ${body.length} bytes\n`);
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
