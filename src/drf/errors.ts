import { message } from '../resources/write-errors.js';
import { englishText, type Detail } from './messages.js';

/**
 * The one error type of the HTTP layer: a status, a public message (DRF's msgid and values, worded
 * in LANGUAGE_CODE by the error handler), and headers to add.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: Detail,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(englishText(detail));
    this.name = 'ApiError';
  }
}

/** Seconds a client should wait before retrying a 503 (health check and API alike). */
export const RETRY_AFTER_SECONDS = '5';

export const notFound = () => new ApiError(404, 'Not found.');
export const invalidPage = () => new ApiError(404, 'Invalid page.');
export const notAcceptable = () => new ApiError(406, 'Could not satisfy the request Accept header.');
export const notAuthenticated = () => new ApiError(401, 'Authentication credentials were not provided.', { 'www-authenticate': 'Token' });
export const invalidToken = () => new ApiError(401, 'Invalid token.', { 'www-authenticate': 'Token' });
export const forbidden = () => new ApiError(403, 'You do not have permission to perform this action.');
export const methodNotAllowed = (method: string, headers: Record<string, string> = {}) => new ApiError(405, message('Method "{method}" not allowed.', { method }), headers);
/** DRF's Throttled: its sentence, then the wait's (ngettext's choice between two msgids). */
export const throttled = (wait: number) =>
  new ApiError(429, ['Request was throttled.', message(wait === 1 ? 'Expected available in {wait} second.' : 'Expected available in {wait} seconds.', { wait })], {
    'retry-after': String(wait),
  });
/** Shutting down, or the database cannot answer: come back shortly. */
export const unavailable = (headers: Record<string, string> = {}) => new ApiError(503, 'Service temporarily unavailable.', { 'retry-after': RETRY_AFTER_SECONDS, ...headers });
