/** The one error type of the HTTP layer: a status, a public message, and headers to add. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(detail);
    this.name = 'ApiError';
  }
}

export const notFound = () => new ApiError(404, 'Not found.');
export const invalidPage = () => new ApiError(404, 'Invalid page.');
export const notAcceptable = () => new ApiError(406, 'Could not satisfy the request Accept header.');
export const notAuthenticated = () =>
  new ApiError(401, 'Authentication credentials were not provided.', { 'www-authenticate': 'Token' });
export const invalidToken = () => new ApiError(401, 'Invalid token.', { 'www-authenticate': 'Token' });
export const methodNotAllowed = (method: string, headers: Record<string, string> = {}) =>
  new ApiError(405, `Method "${method}" not allowed.`, headers);
