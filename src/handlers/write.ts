import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../db/connection.js';
import { parseBody } from '../drf/body.js';
import { collections, refuseFutureTime } from '../drf/collections.js';
import { forbidden, notFound } from '../drf/errors.js';
import { apiUrl, type LinkStyle } from '../drf/links.js';
import type { Resolved } from '../drf/resolve.js';
import { parseId } from '../drf/routes.js';
import { readFields, type ApiPathMatch, type WriteMode } from '../drf/serializer.js';
import { sendJson } from '../http/reply.js';
import type { AnnouncedWrites } from '../live/writes.js';
import { recordAudit } from '../resources/audit.js';
import { openingRecord, type OpeningInput } from '../resources/openings.js';
import type { RecordContext } from '../resources/record-context.js';
import type { TokenInfo } from '../resources/tokens.js';
import { reportDoor } from './door.js';

/** What a write needs besides the request: the announced writes, TIME_ZONE for local times, and the API's routing for hyperlinks. */
export interface Writing {
  writes: AnnouncedWrites;
  timeZone: string;
  routeOf: ApiPathMatch;
}

/**
 * POST on a collection, PUT/PATCH/DELETE on a record, as the collection's declaration says
 * (drf/collections.ts). Authentication, permission and method were checked before
 * (drf/resolve.ts). Each write, its checks and its audit entry are one transaction, which
 * announces itself (live/writes.ts); the response is built from the committed record.
 */
export async function write(request: FastifyRequest, reply: FastifyReply, resolved: Resolved, style: LinkStyle, ctx: RecordContext, writing: Writing): Promise<FastifyReply> {
  const { writes, timeZone, routeOf } = writing;
  const { route } = resolved;
  const token = resolved.token as TokenInfo;
  const collection = collections[route.collection!];
  const nowUs = Date.now() * 1000;
  const entry = (status: number) => ({
    timeUs: nowUs,
    tokenId: token.id,
    tokenName: token.name,
    method: request.method,
    path: resolved.rawPath,
    collection: collection.path,
    status,
  });
  const audit = (db: Db, recordId: number, status: number) => recordAudit(db, { ...entry(status), recordId });
  const data = () => parseBody(request.headers['content-type'], request.body as Buffer | undefined);
  const read = (mode: WriteMode) => readFields(collection.fields, data(), { mode, timeZone, routeOf });

  if (route.kind === 'list' && collection.create === null) {
    // The openings: a POST is a door report (or, with a time, an admin's backfill).
    const input = read('create') as OpeningInput;
    if (input.time !== undefined && token.scope !== 'admin') throw forbidden();
    refuseFutureTime(input, nowUs);
    const recorded = await reportDoor(writes, { isOpen: input.is_open, timeUs: input.time }, entry(201));
    const body = openingRecord(recorded.row, ctx);
    if (!recorded.created) return sendJson(reply.code(200), body);
    return sendJson(reply.code(201).header('location', apiUrl(style, collection.path, recorded.id)), body);
  }

  if (route.kind === 'list') {
    const create = collection.create!;
    const input = read('create');
    const { id, record } = await writes.run(async (trx) => {
      const id = await create(trx, input, nowUs);
      await audit(trx, id, 201);
      return { id, record: await collection.find(trx, id, ctx) };
    });
    return sendJson(reply.code(201).header('location', apiUrl(style, collection.path, id)), record);
  }

  const id = parseId(route.id!);
  if (id === null) throw notFound();
  // As DRF: the record is looked up (404) before the body is read (415, 400).
  if (request.method === 'DELETE') {
    await writes.run(async (trx) => {
      if (!(await collection.remove(trx, id))) throw notFound();
      await audit(trx, id, 204);
    });
    return reply.code(204).send();
  }
  const record = await writes.run(async (trx) => {
    if (!(await exists(trx, collection.table, id))) throw notFound();
    const input = read(request.method === 'PUT' ? 'replace' : 'patch');
    await collection.update(trx, id, input, nowUs);
    await audit(trx, id, 200);
    return collection.find(trx, id, ctx);
  });
  return sendJson(reply.code(200), record);
}

async function exists(db: Db, table: (typeof collections)[keyof typeof collections]['table'], id: number): Promise<boolean> {
  return (await db.selectFrom(table).select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}
