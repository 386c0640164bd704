import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/connection.js';
import type { VersionSnapshot } from '../db/table-versions.js';
import { presentedSecret } from '../drf/auth.js';
import { HOST } from '../drf/links.js';
import { preferredMedia } from '../drf/negotiation.js';
import { sortedQuery, type QueryPair } from '../drf/query.js';
import { parseTarget, type Target } from '../drf/request.js';
import { forwardedOrigin, proxyTrust } from '../http/proxy-trust.js';
import { redactUrl } from '../log.js';
import { UNKNOWN_ROUTE, type RequestDurations } from '../metrics/request-durations.js';
import { hashSecret, type TokenInfo } from '../resources/tokens.js';
import { KnownTokens } from './known-tokens.js';
import { allHeaders, readAnswer } from './read-answer.js';
import type { ResponseCache } from './response-cache.js';
import { TurnVersions } from './turn-versions.js';

/**
 * Which answers of a path share an entry: an API route's JSON, the same route's browsable HTML
 * (what a browser's Accept picks, web.md §1), or a web page (always HTML, whatever the Accept).
 */
export type Variant = 'json' | 'html' | 'page';

/**
 * The cache key of a GET: everything its body depends on. The variant, the base URL (links are
 * absolute), the path as sent (links repeat it; it names the route and any format suffix) and the
 * query as the page links rebuild it (pairs sorted by key, re-encoded), so `?page=2&page_size=5`
 * and `?page_size=5&page=2` share one entry. The content coding is chosen within the entry.
 */
export function cacheKey(base: string, rawPath: string, pairs: readonly QueryPair[], variant: Variant = 'json'): string {
  const key = pairs.length === 0 ? `${base} ${rawPath}` : `${base} ${rawPath}?${sortedQuery(pairs)}`;
  return variant === 'json' ? key : `${variant} ${key}`;
}

/** The variant of a GET: a page outside the API; on an API route, the media its Accept prefers (null: a 406 to make). */
export function variantOf(url: string, accept: string | undefined): Variant | null {
  return url.startsWith('/api/') ? preferredMedia(accept) : 'page';
}

/**
 * What the fast path learnt of a request it passed on to the full path, which uses it instead of
 * doing the work again: the target, parsed once, and the versions, read after the request
 * arrived (so as fresh as the full path needs; when the database is down, the request waits for
 * one failed read, not two).
 */
interface PassedOn {
  target: KeyedTarget;
  versions?: Promise<VersionSnapshot>;
  /** A token not known valid under `snapshot` (read before the full path looks it up): remembered if the full path finds it valid. */
  token?: { hash: string; snapshot: VersionSnapshot };
}

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
 * handler, with the headers the full path would send (cache/read-answer.ts allHeaders()).
 * Web pages (web/) and the browsable API take the same way, under keys of their own (Variant).
 * Behind trusted proxies the base URL comes from the forwarded headers, read as Fastify reads
 * them (http/proxy-trust.ts). A read with a token is answered only when the token is known valid
 * (KnownTokens): its answer is the anonymous one. Anything else (a miss, a stale entry, a coding
 * not made yet, credentials to check, an Accept that admits nothing, shutdown) goes to the
 * framework, which answers it and fills the cache.
 */
export class FastReads {
  private readonly passedOn = new WeakMap<IncomingMessage, PassedOn>();
  /** SQLite reads its versions itself, once per turn; PostgreSQL answers from its read lease. */
  private readonly turn: TurnVersions | null;
  /** Fastify logs every request at info; the fast path does the same, in one line. */
  private readonly logRequests: boolean;
  /** Whether an answer's time is taken: for the log or the metrics. */
  private readonly timed: boolean;
  /** Requests of one client name the same host: it is checked once, not on every request. */
  private lastHost = '';
  /** Whether a peer's X-Forwarded-* headers count (TRUST_PROXY); null when none do. */
  private readonly trusted: ((address: string | undefined) => boolean) | null;
  /** The peer last checked: behind a proxy, every request comes from the same few addresses. */
  private lastPeer: string | undefined = undefined;
  private lastPeerTrusted = false;
  private readonly tokens = new KnownTokens();

  constructor(private readonly options: FastReadsOptions) {
    const { database } = options;
    this.turn = database.engine === 'sqlite' ? new TurnVersions(() => localVersions(database), options.openConnections) : null;
    this.logRequests = ['info', 'debug', 'trace'].includes(options.log.level);
    this.timed = this.logRequests || options.durations !== null;
    const trust = proxyTrust(options.config.trustProxy);
    this.trusted =
      trust &&
      ((address) => {
        if (address !== this.lastPeer || address === undefined) {
          this.lastPeerTrusted = trust(address);
          this.lastPeer = address;
        }
        return this.lastPeerTrusted;
      });
  }

  /** The full path found the token of a read valid: the fast path may answer the next ones presenting it. */
  authenticated(request: IncomingMessage, token: TokenInfo): void {
    const checked = this.passedOn.get(request)?.token;
    if (checked !== undefined) this.tokens.remember(checked.hash, token, checked.snapshot);
  }

  /** The target of a request, parsed once: by the fast path if it saw it, else now. */
  targetOf(request: IncomingMessage): Target {
    return this.passedOn.get(request)?.target ?? parseTarget(request.url ?? '/');
  }

  /** The cache key of a GET the fast path passed on, or undefined when it did not see it. */
  keyOf(request: IncomingMessage): string | undefined {
    return this.passedOn.get(request)?.target.key;
  }

  /** The versions a read is answered under: those the fast path read for it, if it did. */
  versionsFor(request: IncomingMessage): Promise<VersionSnapshot> {
    return this.passedOn.get(request)?.versions ?? this.options.database.versions();
  }

  /** Answers from the cache, or calls `fallback` (nothing sent) for the framework to answer. */
  serve(request: IncomingMessage, response: ServerResponse, fallback: () => void): void {
    const start = this.timed ? performance.now() : 0;
    const { cache, database, isClosing } = this.options;
    // With the cache off (RESPONSE_CACHE_MB=0) nothing is answered here: no key to make.
    if (!cache.enabled) return fallback();
    const target = this.eligible(request);
    if (target === null || isClosing()) return fallback();
    // A miss: the full path builds the body, with the target and key made here.
    if (!cache.has(target.key)) return this.passOn(request, target, fallback);
    let now: VersionSnapshot | null;
    try {
      now = this.turn !== null ? this.turn.get(request.socket) : database.versionsNow();
    } catch {
      return this.passOn(request, target, fallback);
    }
    // The usual case allocates no closure: versions at hand (SQLite, or PostgreSQL's read lease).
    if (now !== null) return this.answer(now, target, request, response, fallback, start);
    const versions = database.versions();
    versions.then(
      (snapshot) => this.answer(snapshot, target, request, response, fallback, start, versions),
      () => this.passOn(request, target, fallback, versions),
    );
  }

  /** Answers under `snapshot`, or passes the request on. Any failure (a database that cannot be read) is the framework's to answer, as a 503. */
  private answer(
    snapshot: VersionSnapshot,
    target: KeyedTarget,
    request: IncomingMessage,
    response: ServerResponse,
    fallback: () => void,
    start: number,
    versions?: Promise<VersionSnapshot>,
  ): void {
    if (target.tokenHash !== null && !this.tokens.has(target.tokenHash, snapshot, Date.now() * 1000)) {
      return this.passOn(request, target, fallback, versions, { hash: target.tokenHash, snapshot });
    }
    try {
      if (this.answerFrom(snapshot, target.key, request, response, start)) return;
    } catch {
      if (response.headersSent) return;
    }
    this.passOn(request, target, fallback, versions);
  }

  private passOn(request: IncomingMessage, target: KeyedTarget, fallback: () => void, versions?: Promise<VersionSnapshot>, token?: PassedOn['token']): void {
    this.passedOn.set(request, { target: passedOnCopy(target), versions, token });
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

  /** The target, with its cache key, of a request the fast path may answer, or null. */
  private eligible(request: IncomingMessage): KeyedTarget | null {
    const { method, headers, url } = request;
    if ((method !== 'GET' && method !== 'HEAD') || url === undefined) return null;
    // A body is the framework's to handle.
    if (headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined) return null;
    // Credentials are checked (a bad token is a 401 even on a read): only a token known valid may
    // be answered here, and only well-formed `Token`/`Bearer` credentials can be one.
    let tokenHash: string | null = null;
    if (headers.authorization !== undefined) {
      const secret = presentedSecret(headers.authorization);
      if (typeof secret !== 'string' || secret === '') return null;
      tokenHash = hashSecret(secret);
    }
    const variant = variantOf(url, headers.accept);
    if (variant === null) return null;
    let base = this.options.config.publicUrl;
    if (base === null) {
      const { protocol, host } = forwardedOrigin(request, this.trusted);
      // No Host (HTTP/1.0): the full path names the server's address.
      if (!host) return null;
      if (host !== this.lastHost) {
        if (!HOST.test(host)) return null;
        this.lastHost = host;
      }
      base = `${protocol}://${host}`;
    }
    const { rawPath, rawQuery, query } = parseTarget(url);
    return { key: cacheKey(base, rawPath, query, variant), rawPath, rawQuery, query, tokenHash };
  }
}

/** A target and the cache key of its GET. */
interface KeyedTarget extends Target {
  readonly key: string;
  /** The hash of the token the request presents, if any. */
  readonly tokenHash: string | null;
}

/**
 * The target as the passedOn map keeps it: a copy made here, not the object (and query pairs)
 * made where every request's target is parsed. A young-generation collection keeps a WeakMap's
 * values even when their keys have died, so every target passed on outlives one; V8, which
 * decides per allocation site whether new objects start in the old generation, then saw all of
 * a site's targets survive during a walk of uncached pages and allocated the fast path's own
 * targets there too. Each cached answer then left garbage in the old generation and its young
 * strings were copied at every scavenge: after a walk of 10,000 pages, 193.6 KB survived each
 * scavenge instead of 8.0 (`--trace-gc-nvp`, one run each), and hits ran at 0.91 of their earlier rate.
 */
function passedOnCopy(target: KeyedTarget): KeyedTarget {
  const { key, rawPath, rawQuery, query, tokenHash } = target;
  return { key, rawPath, rawQuery, query: copyPairs(query), tokenHash };
}

/**
 * The pairs copied into arrays of the same kind as parseQuery's (grown by push: packed elements).
 * `query.map(...)` made holey arrays, so that the query helpers (lastValue, rebuildQuery, pageUrl,
 * pageNumberOf) saw two array maps, one from each path, and were deoptimised ("wrong map") as
 * pages were built. Building a page then cost 21,023 first-level data misses against 19,809 with
 * this copy (callgrind's cache simulation, pages 3,001–3,300 of a walk, median of 3 rounds), for
 * the same 7.7 million instructions.
 */
function copyPairs(query: readonly QueryPair[]): QueryPair[] {
  const copy: QueryPair[] = [];
  for (let i = 0; i < query.length; i++) copy.push([query[i][0], query[i][1]]);
  return copy;
}

function localVersions(database: DatabaseHandle): VersionSnapshot {
  const now = database.versionsNow();
  if (now === null) throw new Error(`the ${database.engine} handle cannot read its versions without waiting`);
  return now;
}
