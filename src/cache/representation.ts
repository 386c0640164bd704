import { createHash } from 'node:crypto';
import { lastChangeOf, versionsOf, type VersionedTable, type VersionSnapshot } from '../db/table-versions.js';
import { encode, type Coding } from './content-coding.js';
import { httpDate, unmodifiedSince } from './conditional.js';

/**
 * How long after a change Last-Modified waits before it is sent. An HTTP date has whole
 * seconds, so a client holding a response dated in the same second as a later change would be
 * told "not modified"; once the second of the latest change has passed (with a margin for clocks
 * and commits that land after their statement ran) no later change can share it.
 */
export const LAST_MODIFIED_SETTLE_MS = 2000;

export interface RepresentationSource {
  /** The tables the body was built from. */
  reads: readonly VersionedTable[];
  /** Their versions when it was built (versionsOf). */
  versions: readonly number[];
  /** When the newest of them last changed, in microseconds; 0 when none did (or no table is read). */
  changedUs: number;
  /** The route's own headers (Allow and Vary; a page's Content-Security-Policy), sent with every answer from it. */
  headers: Readonly<Record<string, string>>;
  /** The body's Content-Type. */
  type: string;
  /** When the body stops being served, in milliseconds (a page that shows the time); 0: only a write ends it. */
  expiresMs: number;
  /** The route template it answers (BodyKind.route), for the fast path's metrics. */
  route?: string;
}

/** What a body is, besides the tables it is built from. */
export interface BodyKind {
  headers: Readonly<Record<string, string>>;
  /** Content-Type; JSON when absent. */
  type?: string;
  /** How long it may be served, at most, in milliseconds; until a write when absent. */
  maxAgeMs?: number;
  /** The route template it answers (`/api/users/:id/`): the fast path counts its answers under it (metrics/). */
  route?: string;
}

/** The source of a body about to be built from some tables, as they are in `snapshot`. */
export function sourceOf(snapshot: VersionSnapshot, reads: readonly VersionedTable[], kind: BodyKind): RepresentationSource {
  return {
    reads,
    versions: versionsOf(snapshot, reads),
    changedUs: lastChangeOf(snapshot, reads),
    headers: kind.headers,
    type: kind.type ?? 'application/json',
    expiresMs: kind.maxAgeMs === undefined ? 0 : Date.now() + kind.maxAgeMs,
    route: kind.route,
  };
}

/**
 * One response body of the API with everything derived from it, built once: its strong entity
 * tag (a hash of the bytes, so every process that builds the same body gives the same tag), its
 * compressed variants (made on first demand, kept), and Last-Modified.
 */
export class Representation {
  readonly tag: string;
  readonly etags: Readonly<Record<Coding, string>>;
  private readonly encoded = new Map<Coding, Buffer>();
  private readonly encoding = new Map<Coding, Promise<Buffer>>();
  private lastModified: string | null = null;
  /** lastModified in milliseconds, for If-Modified-Since (set with it). */
  private lastModifiedMs = 0;
  private readonly remembered: Array<Readonly<Record<string, string>> | undefined> = [];

  constructor(
    readonly body: Buffer,
    readonly source: RepresentationSource,
  ) {
    this.tag = createHash('sha1').update(body).digest('base64url');
    this.etags = { identity: `"${this.tag}"`, gzip: `"${this.tag}-gzip"`, br: `"${this.tag}-br"` };
    this.encoded.set('identity', body);
  }

  /** The body in a coding, or undefined while it has not been made (see prepare()). */
  bodyIn(coding: Coding): Buffer | undefined {
    return this.encoded.get(coding);
  }

  /** Makes the body in a coding, once however many requests ask for it at the same time. */
  async prepare(coding: Coding): Promise<void> {
    if (this.encoded.has(coding) || coding === 'identity') return;
    let pending = this.encoding.get(coding);
    if (pending === undefined) {
      pending = encode(this.body, coding);
      this.encoding.set(coding, pending);
    }
    try {
      this.encoded.set(coding, await pending);
    } finally {
      this.encoding.delete(coding);
    }
  }

  /** Bytes held: every coding made so far. */
  get size(): number {
    let bytes = 0;
    for (const body of this.encoded.values()) bytes += body.length;
    return bytes;
  }

  /** Headers derived from this representation, built on first use and kept with it. */
  remember(slot: number, build: () => Readonly<Record<string, string>>): Readonly<Record<string, string>> {
    return (this.remembered[slot] ??= build());
  }

  /** The Last-Modified header at `nowMs`, or null while the latest change is too recent (or unknown). */
  lastModifiedAt(nowMs: number): string | null {
    if (this.lastModified !== null) return this.lastModified;
    // A body that changes with time alone (it expires) is not dated by its tables' last change.
    if (this.source.expiresMs !== 0) return null;
    const changedMs = this.source.changedUs / 1000;
    if (changedMs <= 0 || nowMs < changedMs + LAST_MODIFIED_SETTLE_MS) return null;
    this.lastModifiedMs = Math.floor(changedMs / 1000) * 1000;
    this.lastModified = httpDate(this.lastModifiedMs);
    return this.lastModified;
  }

  /** Whether the body is unchanged since an If-Modified-Since date (false while Last-Modified is not sent). */
  unmodifiedSince(header: string, nowMs: number): boolean {
    return this.lastModifiedAt(nowMs) !== null && unmodifiedSince(header, this.lastModifiedMs);
  }
}
