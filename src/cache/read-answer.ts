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
   * Every header of the answer: the API's own (security, CORS, Allow, Vary), validators, caching
   * and coding headers, and Content-Type and Content-Length for a 200. The same object for every
   * answer of that kind from one representation: never modify it.
   */
  headers: Readonly<Record<string, string>>;
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
  if (notModified) return { status: 304, headers: headersOf(representation, 304, coding, lastModified, options), body: null };
  const body = representation.bodyIn(coding);
  if (body === undefined) return undefined;
  return { status: 200, headers: headersOf(representation, 200, coding, lastModified, options), body };
}

/** readAnswer, waiting for the negotiated coding to be made when needed. */
export async function readAnswerWhenReady(representation: Representation, conditions: ReadConditions, options: ReadOptions): Promise<ReadAnswer> {
  const answer = readAnswer(representation, conditions, options, Date.now());
  if (answer !== undefined) return answer;
  await representation.prepare(codingFor(representation, conditions, options));
  return readAnswer(representation, conditions, options, Date.now())!;
}

const CODINGS: readonly Coding[] = ['identity', 'gzip', 'br'];

/**
 * The headers of one kind of answer, built once per representation (they are sent thousands of
 * times): the fast path sends them as they are, allocating nothing. A representation is always
 * answered with the same options (its cache's).
 */
function headersOf(representation: Representation, status: 200 | 304, coding: Coding, lastModified: string | null, options: ReadOptions): Readonly<Record<string, string>> {
  const slot = (status === 200 ? 6 : 0) + CODINGS.indexOf(coding) * 2 + (lastModified === null ? 0 : 1);
  return representation.remember(slot, () => {
    const { allow, vary } = representation.source;
    const headers: Record<string, string> = { ...SECURITY_HEADERS, ...READ_HEADERS, allow, vary, etag: representation.etags[coding], 'cache-control': options.cacheControl };
    if (lastModified !== null) headers['last-modified'] = lastModified;
    if (status === 200) {
      headers['content-type'] = 'application/json';
      if (coding !== 'identity') headers['content-encoding'] = coding;
      headers['content-length'] = String(representation.bodyIn(coding)!.length);
    }
    return Object.freeze(headers);
  });
}
