import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isConstraintViolation, isDatabaseUnavailable } from '../db/connection.js';
import { ApiError, RETRY_AFTER_SECONDS } from '../drf/errors.js';
import { ConflictError, FieldErrors } from '../resources/write-errors.js';
import { sendJson } from './reply.js';
import { publicClientMessage } from './transport-errors.js';

/**
 * The one error handler: every error a request ends with becomes an answer in the contract's
 * shape, by the error's type (never by its text). Anything unexpected is a 500 whose details go
 * to the log only.
 */
export function handleError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof ApiError) {
    return sendJson(reply.code(error.status).headers(error.headers), { detail: error.detail });
  }
  if (error instanceof FieldErrors) return sendJson(reply.code(400), error.errors);
  if (error instanceof ConflictError) return sendJson(reply.code(409), { detail: error.message });
  const status = (error as { statusCode?: number }).statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    return sendJson(reply.code(status), { detail: publicClientMessage(status) });
  }
  if (isConstraintViolation(error)) {
    // Our checks run under the write lock, so only a writer that bypasses it (another tool on
    // the database) can get here: a conflict to retry, not a server fault.
    request.log.warn({ err: error }, 'constraint violated');
    return sendJson(reply.code(409), { detail: 'The change conflicts with the current data; try again.' });
  }
  if (isDatabaseUnavailable(error)) {
    request.log.warn({ err: error }, 'database unavailable');
    return sendJson(reply.code(503).header('retry-after', RETRY_AFTER_SECONDS), { detail: 'Service temporarily unavailable.' });
  }
  request.log.error({ err: error }, 'unexpected failure');
  return sendJson(reply.code(500), { detail: 'Internal server error.' });
}
