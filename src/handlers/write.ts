import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../drf/auth.js';
import type { Collection } from '../drf/collections.js';
import { parseBody } from '../drf/body.js';
import { notFound } from '../drf/errors.js';
import { apiUrl, type LinkStyle } from '../drf/links.js';
import type { Resolved } from '../drf/resolve.js';
import { parseId } from '../drf/routes.js';
import { createRecord, deleteRecord, tokenWriter, updateRecord, type RecordWrite } from '../drf/record-writes.js';
import { readFields, type ApiPathMatch } from '../drf/serializer.js';
import { sendJson } from '../http/reply.js';
import type { AnnouncedWrites } from '../live/writes.js';
import type { RecordContext } from '../resources/record-context.js';

/** What a write needs besides the request: the announced writes, TIME_ZONE for local times, and the API's routing for hyperlinks. */
export interface Writing {
  writes: AnnouncedWrites;
  timeZone: string;
  routeOf: ApiPathMatch;
}

/**
 * POST on a collection, PUT/PATCH/DELETE on a record, as the collection's declaration says
 * (drf/collections.ts). Authentication, permission and method were checked before
 * (drf/resolve.ts). Records are written by the one write path the forms share
 * (drf/record-writes.ts); a collection that declares its own POST (the openings': the door's transaction) answers it.
 */
export async function write(
  request: FastifyRequest,
  reply: FastifyReply,
  resolved: Resolved,
  collection: Collection,
  style: LinkStyle,
  ctx: RecordContext,
  writing: Writing,
): Promise<FastifyReply> {
  const { writes, timeZone, routeOf } = writing;
  const { route } = resolved;
  const token = resolved.token as Caller;
  const nowUs = Date.now() * 1000;
  const writer = tokenWriter(token);
  const data = () => parseBody(request.headers['content-type'], request.body as Buffer | undefined);
  const recordWrite = (status: number): RecordWrite => ({ writes, writer, method: request.method, path: resolved.rawPath, status, nowUs, ctx, read: { timeZone, routeOf } });

  if (route.kind === 'list' && collection.post !== undefined) {
    const { tokenId, tokenName } = writer;
    const audit = { timeUs: nowUs, tokenId, tokenName, method: request.method, path: resolved.rawPath, collection: collection.path, status: 201 };
    const fields = () => readFields(collection.fields, data(), { mode: 'create', timeZone, routeOf });
    const posted = await collection.post({ writes, fields, scope: token.scope, audit, nowUs, ctx });
    if (!posted.created) return sendJson(reply.code(200), posted.record);
    return sendJson(reply.code(201).header('location', apiUrl(style, collection.path, posted.id)), posted.record);
  }

  if (route.kind === 'list') {
    const { id, record } = await createRecord(recordWrite(201), collection, data());
    return sendJson(reply.code(201).header('location', apiUrl(style, collection.path, id)), record);
  }

  const id = parseId(route.id!);
  if (id === null) throw notFound();
  if (request.method === 'DELETE') {
    await deleteRecord(recordWrite(204), collection, id);
    return reply.code(204).send();
  }
  const record = await updateRecord(recordWrite(200), collection, id, data, request.method === 'PUT' ? 'replace' : 'patch');
  return sendJson(reply.code(200), record);
}
