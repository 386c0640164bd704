import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastReads } from '../cache/fast-path.js';
import type { CachedBodies } from '../cache/cached-bodies.js';
import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/connection.js';
import { baseUrlOf, linkStyle, recordContext } from '../drf/links.js';
import { optionsBody } from '../drf/metadata.js';
import type { Resolved } from '../drf/resolve.js';
import { SAFE_METHODS } from '../drf/routes.js';
import { sendJson } from '../http/reply.js';
import { describeRequest } from '../http/request.js';
import type { SpaceFeed } from '../live/space-feed.js';
import type { AnnouncedWrites } from '../live/writes.js';
import type { TimeFormatter } from '../time.js';
import type { Site } from '../web/layout.js';
import { readHandler } from './read.js';
import { streamHandler } from './stream.js';
import { writeHandler } from './write.js';

export interface ApiDependencies {
  config: Config;
  database: DatabaseHandle;
  times: TimeFormatter;
  avatar: (email: string) => string;
  bodies: CachedBodies;
  fast: FastReads;
  site: Site;
  feed: SpaceFeed;
  writes: AnnouncedWrites;
  /** The OpenAPI document served at /api/schema/, built on first request (openapi/document.ts). */
  openapi: () => unknown;
}

/** An API route's request, once resolved (drf/resolve.ts): to the stream, OPTIONS, a write or a read. */
export function apiHandler(deps: ApiDependencies) {
  const { config, times, avatar } = deps;
  const stream = streamHandler(deps.feed);
  const write = writeHandler({ writes: deps.writes, timeZone: config.timeZone });
  const read = readHandler({ db: deps.database.db, config, times, avatar, bodies: deps.bodies, fast: deps.fast, site: deps.site, openapi: deps.openapi });
  return async function api(request: FastifyRequest, reply: FastifyReply, resolved: Resolved): Promise<FastifyReply> {
    // The Host check every API route makes, the stream included (its events hold no links).
    const base = baseUrlOf(describeRequest(request), config);
    if (resolved.route.kind === 'stream') return stream(request, reply, resolved);
    if (request.method === 'OPTIONS') return sendJson(reply, optionsBody(resolved.route, resolved.token));
    if (!SAFE_METHODS.has(request.method)) {
      const style = linkStyle(base, resolved.route.suffix, resolved.format);
      return write(request, reply, resolved, style, recordContext(style, config, times, avatar));
    }
    return read(request, reply, resolved, base);
  };
}
