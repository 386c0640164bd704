import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/connection.js';
import type { VersionSnapshot } from '../db/table-versions.js';
import { redactUrl } from '../log.js';
import { READ_HEADERS } from './cors.js';
import { SECURITY_HEADERS } from './json.js';
import { HOST } from './links.js';
import { acceptsJson } from './negotiation.js';
import { parseQuery, sortedQuery, type QueryPair } from './query.js';
import { readAnswer, type ReadAnswer, type ReadOptions } from './read-answer.js';
import type { Representation } from './representation.js';
import type { ResponseCache } from './response-cache.js';
import { TurnVersions } from './turn-versions.js';

/** Every response of an API route varies with these request headers. */
export const VARY = 'Accept, Accept-Encoding';

/**
 * The cache key of a GET: everything its body depends on. The base URL (links are absolute),
 * the path as sent (links repeat it; it names the route and any format suffix) and the query
 * as the page links rebuild it (pairs sorted by key, re-encoded), so `?page=2&page_size=5` and
 * `?page_size=5&page=2` share one entry. The content coding is chosen within the entry.
 */
export function cacheKey(base: string, rawPath: string, pairs: readonly QueryPair[]): string {
  return pairs.length === 0 ? `${base} ${rawPath}` : `${base} ${rawPath}?${sortedQuery(pairs)}`;
}

/**
 * The versions read for a request by the fast path, which the full path then uses too: read after
 * the request arrived, so as fresh as the full path needs, and when the database is down the
 * request waits for one failed read, not two.
 */
const snapshots = new WeakMap<IncomingMessage, Promise<VersionSnapshot>>();

export function versionsFor(request: IncomingMessage, database: DatabaseHandle): Promise<VersionSnapshot> {
  return snapshots.get(request) ?? database.versions();
}

export interface FastReadsOptions {
  config: Config;
  database: DatabaseHandle;
  cache: ResponseCache;
  log: FastifyBaseLogger;
  isClosing: () => boolean;
  /** The HTTP server's open connections (see TurnVersions). */
  openConnections: () => number;
}

/**
 * The way past the framework for repeated reads: a GET or HEAD whose response is in the cache,
 * still built from the current versions of its tables, is answered straight from Node's request
 * handler, with the headers the full path would send. Anything else (a miss, a stale entry, a
 * coding not made yet, credentials to check, an Accept that needs negotiating, a base URL that
 * needs proxy headers, shutdown) goes to the framework, which answers it and fills the cache.
 */
export function fastReads({ config, database, cache, log, isClosing, openConnections }: FastReadsOptions) {
  const options: ReadOptions = config;
  // SQLite reads its versions itself, once per turn; PostgreSQL answers from its read lease.
  const turn = database.engine === 'sqlite' ? new TurnVersions(() => localVersions(database), openConnections) : null;
  // Fastify logs every request at info; the fast path does the same, in one line.
  const logRequests = ['info', 'debug', 'trace'].includes(log.level);

  // Every header of an answer, for each set of answer headers (kept by its representation): a
  // cached read allocates no header object.
  const complete = new WeakMap<object, Readonly<Record<string, string>>>();
  const headersOf = (representation: Representation, answer: ReadAnswer) => {
    let headers = complete.get(answer.headers);
    if (headers === undefined) {
      headers = { ...SECURITY_HEADERS, ...READ_HEADERS, allow: representation.source.allow, vary: VARY, ...answer.headers };
      complete.set(answer.headers, headers);
    }
    return headers;
  };

  /** Answers from the cache, or returns false (nothing sent) for the framework to answer. */
  const answerFrom = (snapshot: VersionSnapshot, key: string, request: IncomingMessage, response: ServerResponse, start: number): boolean => {
    cache.observe(snapshot);
    const representation = cache.get(key, snapshot);
    if (representation === undefined) return false;
    const answer = readAnswer(representation, request.headers, options, Date.now());
    if (answer === undefined) return false;
    response.writeHead(answer.status, headersOf(representation, answer));
    response.end(request.method === 'HEAD' ? undefined : answer.body ?? undefined);
    if (logRequests) {
      log.info({ req: { method: request.method, url: redactUrl(request.url), host: request.headers.host }, res: { statusCode: answer.status }, responseTime: performance.now() - start }, 'request completed from the response cache');
    }
    return true;
  };

  return function serve(request: IncomingMessage, response: ServerResponse, fallback: () => void): void {
    const key = eligibleKey(request, config);
    if (key === null || isClosing() || !cache.has(key)) return fallback();
    const start = logRequests ? performance.now() : 0;
    // Any failure (a database that cannot be read) is the framework's to answer, as a 503.
    const answer = (snapshot: VersionSnapshot) => {
      try {
        if (!answerFrom(snapshot, key, request, response, start)) fallback();
      } catch {
        if (!response.headersSent) fallback();
      }
    };
    let now: VersionSnapshot | null;
    try {
      now = turn !== null ? turn.get(request.socket) : database.versionsNow();
    } catch {
      return fallback();
    }
    if (now !== null) return answer(now);
    const versions = database.versions();
    snapshots.set(request, versions);
    versions.then(answer, fallback);
  };
}

function localVersions(database: DatabaseHandle): VersionSnapshot {
  const now = database.versionsNow();
  if (now === null) throw new Error(`the ${database.engine} handle cannot read its versions without waiting`);
  return now;
}

// Requests of one client name the same host: it is checked once, not on every request.
let lastHost = '';

/** The cache key of a request the fast path may answer, or null. */
function eligibleKey(request: IncomingMessage, config: Config): string | null {
  const { method, headers, url } = request;
  if ((method !== 'GET' && method !== 'HEAD') || url === undefined || !url.startsWith('/api/')) return null;
  // Credentials are checked (a bad token is a 401 even on a read); a body is the framework's to handle.
  if (headers.authorization !== undefined || headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined) return null;
  if (!acceptsJson(headers.accept)) return null;
  let base = config.publicUrl;
  if (base === null) {
    // Behind trusted proxies the base comes from forwarded headers, as the framework reads them.
    if (config.trustProxy !== false) return null;
    const host = headers.host;
    if (host === undefined) return null;
    if (host !== lastHost) {
      if (!HOST.test(host)) return null;
      lastHost = host;
    }
    base = `http://${host}`;
  }
  const q = url.indexOf('?');
  return q === -1 ? cacheKey(base, url, []) : cacheKey(base, url.slice(0, q), parseQuery(url.slice(q + 1)));
}
