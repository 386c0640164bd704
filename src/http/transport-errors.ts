import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { SECURITY_HEADERS } from '../drf/headers.js';
import type { DrfText } from '../drf/messages.js';
import { sendError, type HtmlError } from './reply.js';

/** A path the router cannot even decode (`/api/%zz`) is a path we have no route for. */
export function frameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply, htmlError: HtmlError, text: DrfText): FastifyReply {
  reply.headers(SECURITY_HEADERS);
  const [status, body] = error.code === 'FST_ERR_BAD_URL' ? [404, { detail: text('Not found.') }] : [400, { detail: 'Bad request.' }];
  // A browser asking for a page by a malformed URL gets the "not found" page, as for any other 404.
  return sendError(request, status === 404 ? reply.header('vary', 'Accept') : reply, status, body, htmlError);
}

/**
 * Requests Node's HTTP parser rejects (bad framing, and raw non-ASCII bytes in the request line,
 * which llhttp refuses even in its insecure mode) still get a JSON body, written on the socket.
 */
export function clientError(error: Error, socket: Socket): void {
  // An answer already under way on this socket (Node's own handler checks the same): a status
  // line now would corrupt it. The connection just closes.
  const answering = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (!socket.writable || answering?.headersSent) {
    socket.destroy();
    return;
  }
  const code = (error as { code?: string }).code;
  const [status, detail] =
    code === 'HPE_HEADER_OVERFLOW'
      ? ['431 Request Header Fields Too Large', 'Request header fields too large.']
      : code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? ['408 Request Timeout', 'Request timeout.']
        : ['400 Bad Request', 'Malformed HTTP request (characters outside ASCII must be percent-encoded).'];
  const body = JSON.stringify({ detail });
  const headers = Object.entries(SECURITY_HEADERS)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 ${status}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${headers}connection: close\r\n\r\n${body}`);
}

/** Fastify's own client errors (body too large, bad content type…): a public sentence per status (a msgid: DRF's where DRF has it). */
export function publicClientMessage(status: number): string {
  switch (status) {
    case 404:
      return 'Not found.';
    case 405:
      return 'Method not allowed.';
    case 413:
      return 'Request body is too large.';
    case 415:
      return 'Unsupported media type in request.';
    case 429:
      return 'Request was throttled.';
    default:
      return 'Bad request.';
  }
}
