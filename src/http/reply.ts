import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ReadAnswer } from '../cache/read-answer.js';
import { json } from '../json.js';
import { HTML_TYPE } from '../web/layout.js';

/** `application/json` exactly: a Buffer payload keeps Fastify from adding a charset. */
export function sendBody(reply: FastifyReply, body: Buffer): FastifyReply {
  return reply.header('content-type', 'application/json').send(body);
}

export function sendJson(reply: FastifyReply, body: unknown): FastifyReply {
  return sendBody(reply, json(body));
}

/** An HTML page with its status; the route's headers (CSP, Allow, private) are set already. */
export function sendPage(reply: FastifyReply, status: number, body: Buffer): FastifyReply {
  return reply.code(status).header('content-type', HTML_TYPE).send(body);
}

/** 303 See Other: after a form, the browser GETs the next page. */
export function seeOther(reply: FastifyReply, location: string): FastifyReply {
  return reply.code(303).header('location', location).send();
}

/** Sends a read's answer through the framework (the fast path writes it to Node's response itself). */
export function sendAnswer(reply: FastifyReply, answer: ReadAnswer): FastifyReply {
  reply.code(answer.status).headers(answer.headers);
  return answer.status === 304 ? reply.send() : reply.send(answer.body);
}

/** The HTML form of an error for a person's browser, or null for the contract's JSON (web/error-pages.ts). */
export type HtmlError = (request: FastifyRequest, reply: FastifyReply, status: number, body: unknown) => Buffer | null;

/** An error's answer: the page a browser gets (htmlError), else the contract's JSON. */
export function sendError(request: FastifyRequest, reply: FastifyReply, status: number, body: unknown, htmlError: HtmlError): FastifyReply {
  reply.code(status);
  const page = htmlError(request, reply, status, body);
  if (page === null) return sendJson(reply, body);
  if (!reply.hasHeader('vary')) reply.header('vary', 'Accept');
  return reply.header('content-type', 'text/html; charset=utf-8').send(page);
}
