#!/usr/bin/env node
// A webhook receiver for hackerspace-api that checks every delivery's signature before trusting it.
//
//   WEBHOOK_SECRET=<the service's WEBHOOK_SECRET> PORT=9000 node examples/webhook-receiver.mjs
//
// and on the service: WEBHOOK_URLS=http://127.0.0.1:9000/ WEBHOOK_SECRET=<the same secret>.
// Each verified change is printed as a JSON line; a delivery with a bad or missing signature gets
// 401 and is ignored. The service retries a delivery that does not get a 2xx answer (same body,
// same signature, same X-Webhook-Delivery), so a receiver should be idempotent: this one
// remembers the delivery ids it has seen, and ignores a change older than the newest it knows
// (deliveries are independent and a retried one may arrive after a newer one).
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { pathToFileURL } from 'node:url';

/** Whether `header` (X-Signature-256) is `sha256=<hex HMAC-SHA256(secret, rawBody)>`, compared in constant time. */
export function verifySignature(secret, rawBody, header) {
  if (typeof header !== 'string') return false;
  const expected = Buffer.from('sha256=' + createHmac('sha256', secret).update(rawBody).digest('hex'), 'utf8');
  const given = Buffer.from(header, 'utf8');
  // timingSafeEqual needs equal lengths; a length mismatch says nothing about the secret.
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const MAX_BODY_BYTES = 64 * 1024;

export function createReceiver(secret, onChange = (change) => process.stdout.write(JSON.stringify(change) + '\n')) {
  const seen = new Set();
  let newestId = -1;
  return http.createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) req.destroy();
      else chunks.push(chunk);
    });
    req.on('end', () => {
      // Verify the raw bytes as received, before parsing anything.
      const raw = Buffer.concat(chunks);
      if (!verifySignature(secret, raw, req.headers['x-signature-256'])) {
        res.writeHead(401).end();
        return;
      }
      const delivery = String(req.headers['x-webhook-delivery'] ?? '');
      const body = JSON.parse(raw.toString('utf8'));
      if (!seen.has(delivery)) {
        seen.add(delivery);
        if (seen.size > 10_000) seen.delete(seen.values().next().value);
        const stale = body.id < newestId;
        newestId = Math.max(newestId, body.id);
        onChange({ delivery, id: body.id, is_open: body.state.is_open, since: body.state.since, stale });
      }
      res.writeHead(204).end();
    });
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const secret = process.env.WEBHOOK_SECRET;
  if (!secret) {
    process.stderr.write('WEBHOOK_SECRET is required\n');
    process.exit(78);
  }
  const port = Number(process.env.PORT ?? 9000);
  const host = process.env.HOST ?? '127.0.0.1';
  createReceiver(secret).listen(port, host, () => process.stderr.write(`listening on http://${host}:${port}/\n`));
}
