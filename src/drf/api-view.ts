import type { FastifyReply } from 'fastify';
import type { VersionedTable } from '../db/table-versions.js';
import type { Resolved } from './resolve.js';
import type { RouteKind } from './routes.js';

/**
 * What a view is handed: the request's exchange on its API route (http/route.ts `Exchange`, which
 * declares it so: module augmentation, the HTTP layer being above this one).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declared by http/route.ts.
export interface ApiViewExchange {}

/** A view's GET body: built from `reads`, cached and answered as a collection's pages are (handlers/read.ts). */
export interface ApiViewBody {
  /** The tables it is built from: a write to any of them ends its cached answers. */
  readonly reads: readonly VersionedTable[];
  /** How long an answer may be served however the tables stand (a body that depends on the time); unset: until a write. */
  readonly maxAgeMs?: number;
  build(ex: ApiViewExchange, resolved: Resolved): Promise<unknown>;
}

/**
 * A read-only API view at a path of its own under `/api/` (DRF's APIView), declared with the
 * collection whose table it reads (the openings': the space's status, hours and stream). The API
 * routes it after the collections' routes, with the API's checks (drf/resolve.ts); OPTIONS is
 * DRF's metadata (drf/metadata.ts).
 */
export interface ApiView {
  /** Its route kind. */
  readonly kind: RouteKind;
  /** Its path after `/api/`, without the final slash (`space/status`). */
  readonly path: string;
  /** Whether it takes a format suffix (`/api/space/status.json`), as DRF's router adds one. */
  readonly suffixes: boolean;
  /** Its `Vary`. */
  readonly vary: string;
  /** It renders Server-Sent Events: it negotiates that media type (drf/negotiation.ts), not JSON or HTML. */
  readonly eventStream?: boolean;
  /** DRF's metadata, the answer to OPTIONS (drf/metadata.ts gives the other routes'). */
  readonly options: { readonly name: string; readonly description: string; readonly renders: readonly string[]; readonly parses: readonly string[] };
  /** GET and HEAD: a cached body (`body`), or an answer of its own (`answer`: the stream). */
  readonly get: { readonly body: ApiViewBody } | { answer(ex: ApiViewExchange, resolved: Resolved): Promise<FastifyReply> };
  /** Its OpenAPI path item, given its methods. */
  openapi(methods: readonly string[]): Record<string, unknown>;
}
