// The ceiling for the read benchmark: a bare node:http server that answers every request with
// one precomputed response (the bytes of a real API page, and optionally its headers), so the
// only work left is Node's HTTP stack. Whatever the API does on top of that costs throughput.
//
// usage: node bench/ceiling.js <port> <body-file> [<headers-file as written by curl -D>]
import fs from 'node:fs';
import http from 'node:http';

const [portArg, bodyFile, headersFile] = process.argv.slice(2);
if (!portArg || !bodyFile) {
  process.stderr.write('usage: node bench/ceiling.js <port> <body-file> [<headers-file>]\n');
  process.exit(2);
}

const body = fs.readFileSync(bodyFile);
// Node adds these itself (or they describe this one connection), so they are not copied.
const SKIP = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);
const headers = { 'content-type': 'application/json' };
if (headersFile) {
  for (const line of fs.readFileSync(headersFile, 'latin1').split(/\r?\n/).slice(1)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!SKIP.has(name)) headers[name] = line.slice(colon + 1).trim();
  }
}
headers['content-length'] = String(body.length);

const server = http.createServer((_request, response) => {
  response.writeHead(200, headers);
  response.end(body);
});
server.listen(Number(portArg), '127.0.0.1', () => {
  process.stdout.write(`ceiling: ${body.length} bytes on 127.0.0.1:${server.address().port}\n`);
});
const stop = () => server.close(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
