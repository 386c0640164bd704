import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isConstraintViolation, isDatabaseUnavailable } from '../db/connection.js';
import { ApiError, RETRY_AFTER_SECONDS } from '../drf/errors.js';
import type { DrfText } from '../drf/messages.js';
import { ConflictError, FieldErrors } from '../resources/write-errors.js';
import { sendError, type HtmlError } from './reply.js';
import { publicClientMessage } from './transport-errors.js';

/** An error as the contract answers it: status, JSON body, and headers to add. */
interface ErrorAnswer {
  status: number;
  body: unknown;
  headers?: Readonly<Record<string, string>>;
}

/**
 * The one error handler: every error a request ends with becomes an answer in the contract's
 * shape, by the error's type (never by its text). Anything unexpected is a 500 whose details go
 * to the log only. A person's browser gets the same status as an HTML page (htmlError). `text`
 * words DRF's messages in LANGUAGE_CODE.
 */
export function errorHandler(htmlError: HtmlError, text: DrfText) {
  return function handleError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
    const { status, body, headers } = answerOf(error, request, text);
    if (headers) reply.headers(headers);
    // Whether a 404 is a page or JSON depends on Accept: caches must know. API routes say so in
    // their own Vary already; the health check's other answers never vary.
    if (status === 404 && !reply.hasHeader('vary')) reply.header('vary', 'Accept');
    return sendError(request, reply, status, body, htmlError);
  };
}

// Worded here, once an error is answered: errors carry msgids, and successful requests never word anything.
function answerOf(error: FastifyError | Error, request: FastifyRequest, text: DrfText): ErrorAnswer {
  if (error instanceof ApiError) return { status: error.status, body: { detail: text(error.detail) }, headers: error.headers };
  if (error instanceof FieldErrors) return { status: 400, body: error.worded(text) };
  if (error instanceof ConflictError) return { status: 409, body: { detail: error.message } };
  const status = (error as { statusCode?: number }).statusCode;
  if (status !== undefined && status >= 400 && status < 500) return { status, body: { detail: text(publicClientMessage(status)) } };
  if (isConstraintViolation(error)) {
    // Our checks run under the write lock, so only a writer that bypasses it (another tool on
    // the database) can get here: a conflict to retry, not a server fault.
    request.log.warn({ err: error }, 'constraint violated');
    return { status: 409, body: { detail: 'The change conflicts with the current data; try again.' } };
  }
  if (isDatabaseUnavailable(error)) {
    request.log.warn({ err: error }, 'database unavailable');
    return { status: 503, body: { detail: 'Service temporarily unavailable.' }, headers: { 'retry-after': RETRY_AFTER_SECONDS } };
  }
  request.log.error({ err: error }, 'unexpected failure');
  return { status: 500, body: { detail: 'Internal server error.' } };
}
