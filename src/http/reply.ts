import type { FastifyReply } from 'fastify';
import type { ReadAnswer } from '../cache/read-answer.js';
import { json } from '../json.js';

/** `application/json` exactly: a Buffer payload keeps Fastify from adding a charset. */
export function sendBody(reply: FastifyReply, body: Buffer): FastifyReply {
  return reply.header('content-type', 'application/json').send(body);
}

export function sendJson(reply: FastifyReply, body: unknown): FastifyReply {
  return sendBody(reply, json(body));
}

/** Sends a read's answer through the framework (the fast path writes it to Node's response itself). */
export function sendAnswer(reply: FastifyReply, answer: ReadAnswer): FastifyReply {
  reply.code(answer.status).headers(answer.headers);
  return answer.status === 304 ? reply.send() : reply.send(answer.body);
}
