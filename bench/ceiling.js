// The ceiling for the read benchmark: a bare node:http server that answers with precomputed
// responses (the exact bytes and headers of real API pages), so the only work left is Node's
// HTTP stack. Whatever the API does on top of that costs throughput.
//
// usage: node bench/ceiling.js <port> <body-file>...
//
// Body file N (counting from 0) is served at /r/N with the headers saved next to it in
// <body-file>.headers (as written by curl -D); any other path answers 404.
import fs from 'node:fs';
import http from 'node:http';

const [portArg, ...bodyFiles] = process.argv.slice(2);
if (!portArg || bodyFiles.length === 0) {
  process.stderr.write('usage: node bench/ceiling.js <port> <body-file>...\n');
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
  const { port } = server.address();
  for (const [path, { body }] of responses) {
    process.stdout.write(`ceiling: http://127.0.0.1:${port}${path} sends ${body.length} bytes\n`);
  }
});
const stop = () => server.close(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
