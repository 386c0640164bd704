import { DatabaseError } from 'pg-protocol';

/*
 * Which errors mean "PostgreSQL can't answer right now": asked of every error a request meets, on
 * either engine, so without the driver (pg-driver.ts). pg's DatabaseError is pg-protocol's class,
 * which pg re-exports.
 */

/** SQLSTATE classes: 08 connection exception, 53 insufficient resources, 57 operator intervention (incl. statement timeout). */
const UNAVAILABLE_SQLSTATE = /^(08|53|57)/;
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/**
 * pg reports its own client-side timeouts and dropped connections with plain Errors that carry
 * no code; these fixed sentences are the only way to tell them apart: query_timeout, the pool's
 * wait for a free client, the client's own connect timeout, a connection closed or reset under a
 * query (or cut by the pool's connect timeout), and a query on a client whose connection failed.
 */
const CLIENT_FAILURES =
  /^(Query read timeout|timeout exceeded when trying to connect|timeout expired|Connection terminated|Client has encountered a connection error and is not queryable|Client was closed and is not queryable)/;

export function isPostgresConnectionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return NETWORK_CODES.has(code) || (error instanceof DatabaseError && UNAVAILABLE_SQLSTATE.test(code));
  return CLIENT_FAILURES.test(error.message);
}
