import { destination, pino, type Logger as PinoLogger } from 'pino';
import type { LogLevel } from './config.js';

/**
 * The logger for the moments when there is no Fastify logger: before the app exists (waiting for
 * the database) and in the cluster primary. It is pino, as Fastify's is, so log collectors parse
 * every line the same way.
 */
export type Logger = Pick<PinoLogger, 'fatal' | 'error' | 'warn' | 'info'>;

export function createLogger(level: LogLevel): Logger {
  return pino({ level });
}

/** The logger of a command whose standard output is its answer (`user link` prints the link alone there): its lines go to standard error. */
export function createStderrLogger(level: LogLevel): Logger {
  return pino({ level }, destination({ dest: 2, sync: true }));
}

const SECRET_PARAMETER = /([?&;](?:secret|token|key|password|api_key|access_token|code|state)=)[^&;#]*/gi;
const TOKEN_SECRET = /hs_[A-Za-z0-9_-]+/g;
// A set-password link's token is its path (apps/users/links.ts); only its page of thanks, `done`, is no secret.
const SET_PASSWORD_TOKEN = /(\/accounts\/set-password\/)(?!done\/)[^/?#]+/gi;

/**
 * A request target fit for a log line: secrets some clients put in URLs (an old door script's
 * `?secret=…`, a token pasted into a query, the authorization code and state of a single
 * sign-on's callback) are replaced, whatever the path, and so is a set-password link's token.
 */
export function redactUrl(url: string | undefined): string | undefined {
  return url?.replace(SECRET_PARAMETER, '$1[redacted]').replace(TOKEN_SECRET, 'hs_[redacted]').replace(SET_PASSWORD_TOKEN, '$1[redacted]');
}

/** Fastify's request serializer, with the URL redacted. */
export function serializeRequest(request: { method: string; url: string; host?: string; ip?: string; socket?: { remotePort?: number } }) {
  return { method: request.method, url: redactUrl(request.url), host: request.host, remoteAddress: request.ip, remotePort: request.socket?.remotePort };
}
