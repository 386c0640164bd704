import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/connection.js';
import type { VersionSnapshot } from '../db/table-versions.js';
import { redactUrl } from '../log.js';
import { UNKNOWN_ROUTE, type RequestDurations } from '../metrics/request-durations.js';
import type { RequestFacts } from '../request/facts.js';
import type { Caller } from '../drf/auth.js';
import { KnownTokens } from './known-tokens.js';
import { allHeaders, readAnswer } from './read-answer.js';
import type { ResponseCache } from './response-cache.js';
import { TurnVersions } from './turn-versions.js';

export interface FastReadsOptions {
  config: Config;
  database: DatabaseHandle;
  cache: ResponseCache;
  log: FastifyBaseLogger;
  isClosing: () => boolean;
  /** The HTTP server's open connections (see TurnVersions). */
  openConnections: () => number;
  /** Where the answers are counted and timed (METRICS_PORT), or null. */
  durations: RequestDurations | null;
}

/**
 * The way past the framework for repeated reads: a GET or HEAD whose response is in the cache,
 * still built from the current versions of its tables, is answered straight from Node's request
 * handler, with the headers the full path would send (cache/read-answer.ts allHeaders()). Web
 * pages and the browsable API take the same way, under keys of their own (the facts' variant).
 * A read with a token is answered only when the token is known valid (KnownTokens): its answer
 * is the anonymous one. Anything else (a miss, a stale entry, a coding not made yet, credentials
 * to check, an Accept that admits nothing, shutdown) goes to the framework, which answers it and
 * fills the cache; what the fast path read on the way (versions, a token to check) stays in the
 * request's facts for it.
 */
export class FastReads {
  /** SQLite reads its versions itself, once per turn; PostgreSQL answers from its read lease. */
  private readonly turn: TurnVersions | null;
  /** Fastify logs every request at info; the fast path does the same, in one line. */
  private readonly logRequests: boolean;
  /** Whether an answer's time is taken: for the log or the metrics. */
  private readonly timed: boolean;
  private readonly tokens = new KnownTokens();

  constructor(private readonly options: FastReadsOptions) {
    const { database } = options;
    this.turn = database.engine === 'sqlite' ? new TurnVersions(() => localVersions(database), options.openConnections) : null;
    this.logRequests = ['info', 'debug', 'trace'].includes(options.log.level);
    this.timed = this.logRequests || options.durations !== null;
  }

  /**
   * The full path found the token of a read valid: the fast path may answer the next ones
   * presenting it. Not a member's token: its owner may be deactivated at any time, which no
   * token version records, so each of its requests is checked on the full path.
   */
  authenticated(facts: RequestFacts, token: Caller): void {
    if (token.scope === 'member') return;
    const checked = facts.tokenCheck;
    if (checked !== undefined) this.tokens.remember(checked.hash, token, checked.snapshot);
  }

  /** The versions a read is answered under: those the fast path read for it, if it did. */
  versionsFor(facts: RequestFacts): Promise<VersionSnapshot> {
    return facts.versions ?? this.options.database.versions();
  }

  /** Answers from the cache, or calls `fallback` (nothing sent) for the framework to answer. */
  serve(request: IncomingMessage, response: ServerResponse, facts: RequestFacts, fallback: () => void): void {
    const start = this.timed ? performance.now() : 0;
    const { cache, database, isClosing } = this.options;
    const { key } = facts;
    // A body is the framework's to handle; so are credentials that cannot be a token (a 401 to make).
    const { headers } = request;
    if (key === null || !cache.enabled || headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined) return fallback();
    if ((facts.secretHash === null && headers.authorization !== undefined) || isClosing()) return fallback();
    // A miss: the full path builds the body.
    if (!cache.has(key)) return fallback();
    let now: VersionSnapshot | null;
    try {
      now = this.turn !== null ? this.turn.get(request.socket) : database.versionsNow();
    } catch {
      return fallback();
    }
    // The usual case allocates no closure: versions at hand (SQLite, or PostgreSQL's read lease).
    if (now !== null) return this.answer(now, key, facts, request, response, fallback, start);
    const versions = database.versions();
    facts.versions = versions;
    versions.then(
      (snapshot) => this.answer(snapshot, key, facts, request, response, fallback, start),
      () => fallback(),
    );
  }

  /** Answers under `snapshot`, or passes the request on. Any failure (a database that cannot be read) is the framework's to answer, as a 503. */
  private answer(snapshot: VersionSnapshot, key: string, facts: RequestFacts, request: IncomingMessage, response: ServerResponse, fallback: () => void, start: number): void {
    const hash = facts.secretHash;
    if (hash !== null && !this.tokens.has(hash, snapshot, Date.now() * 1000)) {
      facts.tokenCheck = { hash, snapshot };
      return fallback();
    }
    try {
      if (this.answerFrom(snapshot, key, request, response, start)) return;
    } catch {
      if (response.headersSent) return;
    }
    fallback();
  }

  private answerFrom(snapshot: VersionSnapshot, key: string, request: IncomingMessage, response: ServerResponse, start: number): boolean {
    const { cache, config, log, durations } = this.options;
    cache.observe(snapshot);
    const representation = cache.get(key, snapshot);
    if (representation === undefined) return false;
    const answer = readAnswer(representation, request.headers, config, Date.now());
    if (answer === undefined) return false;
    response.writeHead(answer.status, allHeaders(representation, answer));
    response.end(request.method === 'HEAD' ? undefined : (answer.body ?? undefined));
    cache.reads.hits++;
    const elapsed = this.timed ? performance.now() - start : 0;
    // The representation names the route it answers: the fast path does not route.
    if (durations !== null) durations.observe(request.method, representation.source.route ?? UNKNOWN_ROUTE, answer.status, elapsed);
    if (this.logRequests) {
      log.info(
        { req: { method: request.method, url: redactUrl(request.url), host: request.headers.host }, res: { statusCode: answer.status }, responseTime: elapsed },
        'request completed from the response cache',
      );
    }
    return true;
  }
}

function localVersions(database: DatabaseHandle): VersionSnapshot {
  const now = database.versionsNow();
  if (now === null) throw new Error(`the ${database.engine} handle cannot read its versions without waiting`);
  return now;
}
