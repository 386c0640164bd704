import type { IncomingHttpHeaders } from 'node:http';
import type { Config } from '../config.js';
import { READ_HEADERS, SECURITY_HEADERS } from '../drf/headers.js';
import { negotiateCoding, type Coding } from './content-coding.js';
import { noneMatchHits } from './conditional.js';
import type { Representation } from './representation.js';

/** The request headers a read's answer depends on (a request's own headers will do). */
export type ReadConditions = Pick<IncomingHttpHeaders, 'accept-encoding' | 'if-none-match' | 'if-modified-since'>;

export interface ReadAnswer {
  status: 200 | 304;
  /**
   * Validators, caching and coding headers (and Content-Type and Content-Length for a 200): what
   * the answer adds to its route's headers (allHeaders() has both). The same object for every
   * answer of that kind from one representation: never modify it.
   */
  headers: Readonly<Record<string, string>>;
  /** Which of the 12 kinds of answer of a representation this is (status, coding, Last-Modified or not). */
  kind: number;
  /** The body in the chosen coding; null for a 304 (HEAD sends the headers of this body alone). */
  body: Buffer | null;
}

export type ReadOptions = Pick<Config, 'cacheControl' | 'compressMinBytes'>;

/** The coding a response is sent in: small bodies are not worth compressing. */
export function codingFor(representation: Representation, conditions: ReadConditions, options: ReadOptions): Coding {
  return representation.body.length >= options.compressMinBytes ? negotiateCoding(conditions['accept-encoding']) : 'identity';
}

/**
 * What to answer a GET or HEAD with a representation: 304 when the client's validators still
 * match (If-None-Match first; If-Modified-Since only without it, RFC 9110 §13.2.2), else 200 with
 * the body in the negotiated coding. Undefined when that coding has not been made yet
 * (Representation.prepare), so that the caller decides whether to wait for it.
 */
export function readAnswer(representation: Representation, conditions: ReadConditions, options: ReadOptions, nowMs: number): ReadAnswer | undefined {
  const coding = codingFor(representation, conditions, options);
  const lastModified = representation.lastModifiedAt(nowMs);
  const ifNoneMatch = conditions['if-none-match'];
  const ifModifiedSince = conditions['if-modified-since'];
  const notModified =
    ifNoneMatch !== undefined ? noneMatchHits(ifNoneMatch, representation.tag) : ifModifiedSince !== undefined && representation.unmodifiedSince(ifModifiedSince, nowMs);
  if (notModified) {
    const kind = kindOf(304, coding, lastModified);
    return { status: 304, headers: headersOf(representation, kind, 304, coding, lastModified, options), kind, body: null };
  }
  const body = representation.bodyIn(coding);
  if (body === undefined) return undefined;
  const kind = kindOf(200, coding, lastModified);
  return { status: 200, headers: headersOf(representation, kind, 200, coding, lastModified, options), kind, body };
}

/** readAnswer, waiting for the negotiated coding to be made when needed. */
export async function readAnswerWhenReady(representation: Representation, conditions: ReadConditions, options: ReadOptions): Promise<ReadAnswer> {
  const answer = readAnswer(representation, conditions, options, Date.now());
  if (answer !== undefined) return answer;
  await representation.prepare(codingFor(representation, conditions, options));
  return readAnswer(representation, conditions, options, Date.now())!;
}

const CODINGS: readonly Coding[] = ['identity', 'gzip', 'br'];

/** One of 12 kinds: status × coding × whether Last-Modified is sent. */
function kindOf(status: 200 | 304, coding: Coding, lastModified: string | null): number {
  return (status === 200 ? 6 : 0) + CODINGS.indexOf(coding) * 2 + (lastModified === null ? 0 : 1);
}

/**
 * The headers of one kind of answer, built once per representation (they are sent thousands of
 * times). A representation is always answered with the same options (its cache's).
 */
function headersOf(
  representation: Representation,
  kind: number,
  status: 200 | 304,
  coding: Coding,
  lastModified: string | null,
  options: ReadOptions,
): Readonly<Record<string, string>> {
  return representation.remember(kind, () => {
    const headers: Record<string, string> = { etag: representation.etags[coding], 'cache-control': options.cacheControl };
    if (lastModified !== null) headers['last-modified'] = lastModified;
    if (status === 200) {
      headers['content-type'] = representation.source.type;
      if (coding !== 'identity') headers['content-encoding'] = coding;
      headers['content-length'] = String(representation.bodyIn(coding)!.length);
    }
    return Object.freeze(headers);
  });
}

/** Slots of remembered headers: 12 kinds of answer (headersOf), then the same with the route's headers. */
const ALL_HEADERS_SLOT = 12;

/**
 * Every header of an answer, as the full path sends them (the security and CORS headers of a
 * read, the route's own (Allow, Vary, a page's CSP), then the answer's own), in one object built once per kind of
 * answer: the fast path writes it as it is, allocating nothing.
 */
export function allHeaders(representation: Representation, answer: ReadAnswer): Readonly<Record<string, string>> {
  return representation.remember(ALL_HEADERS_SLOT + answer.kind, () => {
    return Object.freeze({ ...SECURITY_HEADERS, ...READ_HEADERS, ...representation.source.headers, ...answer.headers });
  });
}
