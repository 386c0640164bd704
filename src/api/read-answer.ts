import type { Config } from '../config.js';
import { negotiateCoding, type Coding } from './content-coding.js';
import { noneMatchHits, unmodifiedSince } from './conditional.js';
import type { Representation } from './representation.js';

/** The request headers a read's answer depends on. */
export interface ReadConditions {
  acceptEncoding?: string;
  ifNoneMatch?: string;
  ifModifiedSince?: string;
}

export interface ReadAnswer {
  status: 200 | 304;
  /** Validators, caching and coding headers (and Content-Length for a 200). */
  headers: Record<string, string>;
  /** The body in the chosen coding (a 304 has none; HEAD sends the headers of this body alone). */
  body: Buffer | null;
}

export type ReadOptions = Pick<Config, 'cacheControl' | 'compressMinBytes'>;

/** The coding a response is sent in: small bodies are not worth compressing. */
export function codingFor(representation: Representation, conditions: ReadConditions, options: ReadOptions): Coding {
  return representation.body.length >= options.compressMinBytes ? negotiateCoding(conditions.acceptEncoding) : 'identity';
}

/**
 * What to answer a GET or HEAD with a representation: 304 when the client's validators still
 * match (If-None-Match first; If-Modified-Since only without it, RFC 9110 §13.2.2), else 200 with
 * the body in the negotiated coding. Undefined when that coding has not been made yet
 * (Representation.prepare), so that the caller decides whether to wait for it.
 */
export function readAnswer(representation: Representation, conditions: ReadConditions, options: ReadOptions, nowMs: number): ReadAnswer | undefined {
  const coding = codingFor(representation, conditions, options);
  const headers: Record<string, string> = { etag: representation.etags[coding], 'cache-control': options.cacheControl };
  const lastModified = representation.lastModifiedAt(nowMs);
  if (lastModified !== null) headers['last-modified'] = lastModified;
  const { ifNoneMatch, ifModifiedSince } = conditions;
  const notModified = ifNoneMatch !== undefined
    ? noneMatchHits(ifNoneMatch, representation.tag)
    : ifModifiedSince !== undefined && lastModified !== null && unmodifiedSince(ifModifiedSince, Date.parse(lastModified));
  if (notModified) return { status: 304, headers, body: null };
  const body = representation.bodyIn(coding);
  if (body === undefined) return undefined;
  headers['content-type'] = 'application/json';
  if (coding !== 'identity') headers['content-encoding'] = coding;
  headers['content-length'] = String(body.length);
  return { status: 200, headers, body };
}

/** readAnswer, waiting for the negotiated coding to be made when needed. */
export async function readAnswerWhenReady(representation: Representation, conditions: ReadConditions, options: ReadOptions): Promise<ReadAnswer> {
  const answer = readAnswer(representation, conditions, options, Date.now());
  if (answer !== undefined) return answer;
  await representation.prepare(codingFor(representation, conditions, options));
  return readAnswer(representation, conditions, options, Date.now())!;
}
