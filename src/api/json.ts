import type { FastifyReply } from 'fastify';

/** Compact JSON, U+2028/U+2029 escaped as DRF's renderer does. */
export function json(body: unknown): Buffer {
  let text = JSON.stringify(body);
  if (/[\u2028\u2029]/.test(text)) text = text.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
  return Buffer.from(text);
}

/** `application/json` exactly: a Buffer payload keeps Fastify from adding a charset. */
export function sendBody(reply: FastifyReply, body: Buffer): FastifyReply {
  return reply.header('content-type', 'application/json').send(body);
}

export function sendJson(reply: FastifyReply, body: unknown): FastifyReply {
  return sendBody(reply, json(body));
}

/** Headers on every response, whatever its route or status. */
export const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
  'cross-origin-opener-policy': 'same-origin',
  'x-frame-options': 'DENY',
} as const;
