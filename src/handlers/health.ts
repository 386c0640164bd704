import type { FastifyReply } from 'fastify';
import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/connection.js';
import { methodNotAllowed, RETRY_AFTER_SECONDS } from '../drf/errors.js';
import type { Exchange } from '../http/route.js';

/** Longest a health check waits for the database, whatever the statement timeout. */
const MAX_PING_MS = 2000;

const UP = Buffer.from(JSON.stringify({ status: 'ok', database: 'up' }));
const DOWN = Buffer.from(JSON.stringify({ status: 'unavailable', database: 'down' }));

/** How long a health check waits for the database: the statement timeout, at most 2 s. */
export function pingTimeoutOf(config: Config): number {
  return config.database.engine === 'postgres' ? Math.min(config.database.statementTimeoutMs, MAX_PING_MS) : MAX_PING_MS;
}

/** One ping shared by the checks that overlap, so a burst of probes costs the database one query. */
export function sharedPing(database: DatabaseHandle, timeoutMs: number): () => Promise<unknown> {
  let inFlight: Promise<unknown> | null = null;
  return () => (inFlight ??= pingWithin(database, timeoutMs).finally(() => (inFlight = null)));
}

/**
 * The load balancers' health check (`GET /healthz`, or HEAD): 200 while the database answers a
 * trivial query within a short time, else 503 with Retry-After. It lives outside the API: none
 * of the API's conventions (format negotiation, Allow/Vary, authentication) apply.
 */
export async function answerHealth({ request, reply, facts, services }: Exchange): Promise<FastifyReply> {
  reply.header('cache-control', 'no-store').header('content-type', 'application/json');
  if (facts.method !== 'GET' && facts.method !== 'HEAD') throw methodNotAllowed(facts.method, { allow: 'GET, HEAD' });
  const failure = await services.ping();
  if (failure === null) return reply.code(200).send(UP);
  request.log.warn({ err: failure }, 'health check: database down');
  return reply.code(503).header('retry-after', RETRY_AFTER_SECONDS).send(DOWN);
}

/** Resolves to null when the database answered within `ms`, else to what went wrong. */
async function pingWithin(database: DatabaseHandle, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Error>((resolve) => {
    timer = setTimeout(() => resolve(new Error(`the database did not answer within ${ms} ms`)), ms);
  });
  const ping = Promise.resolve()
    .then(() => database.ping())
    .then(
      () => null,
      (error: unknown) => error ?? new Error('ping failed'),
    );
  try {
    return await Promise.race([ping, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
