import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../db/connection.js';
import type { Caller, MemberCaller } from '../drf/auth.js';
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
import { mayAddMeeting, mayEditEvent, mayEditMeeting, mayEditProject } from '../members/rights.js';
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
  const token = resolved.token as Caller;
  const collection = collections[route.collection!];
  const nowUs = Date.now() * 1000;
  const entry = (status: number) => ({
    timeUs: nowUs,
    ...auditedCaller(token),
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
      if (token.scope === 'member') await checkMemberCreate(trx, token, collection.path, input);
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
    if (token.scope === 'member' && !(await memberMayEdit(trx, token, collection.path, id))) throw forbidden();
    const input = read(request.method === 'PUT' ? 'replace' : 'patch');
    if (token.scope === 'member') await checkMeetingMove(trx, token, collection.path, id, input);
    await collection.update(trx, id, input, nowUs);
    await audit(trx, id, 200);
    return collection.find(trx, id, ctx);
  });
  return sendJson(reply.code(200), record);
}

async function exists(db: Db, table: (typeof collections)[keyof typeof collections]['table'], id: number): Promise<boolean> {
  return (await db.selectFrom(table).select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

/** Who the audit names: a door or admin token by its id and name; a member's token (not in api_tokens) by its owner and its name, never its secret. */
function auditedCaller(caller: Caller): { tokenId: number | null; tokenName: string } {
  if (caller.scope !== 'member') return { tokenId: caller.id, tokenName: caller.name };
  return { tokenId: null, tokenName: `member ${caller.username}: ${caller.tokenName}` };
}

/**
 * A member's edit (members.md §3): the right, or being the project's maintainer, the event's
 * organizer, or the organizer of the meeting's event. Read in the write's transaction.
 */
function memberMayEdit(trx: Db, caller: MemberCaller, collection: string, id: number): Promise<boolean> {
  if (collection === 'projects') return mayEditProject(trx, caller.userId, id);
  if (collection === 'events') return mayEditEvent(trx, caller.userId, id);
  if (collection === 'meetings') return mayEditMeeting(trx, caller.userId, id);
  return Promise.resolve(false);
}

/** A member may add a meeting with the right, or to an event they organize (an unknown event is the fields' 400). */
async function checkMemberCreate(trx: Db, caller: MemberCaller, collection: string, input: unknown): Promise<void> {
  if (collection !== 'meetings' || caller.rights.has('events.add_meeting')) return;
  const eventId = (input as { event: number }).event;
  if ((await exists(trx, 'events', eventId)) && !(await mayAddMeeting(trx, caller.userId, eventId))) throw forbidden();
}

/** An organizer who edits a meeting without `change_meeting` may not move it to an event they do not organize. */
async function checkMeetingMove(trx: Db, caller: MemberCaller, collection: string, id: number, input: unknown): Promise<void> {
  if (collection !== 'meetings' || caller.rights.has('events.change_meeting')) return;
  const eventId = (input as { event?: number }).event;
  if (eventId === undefined) return;
  const meeting = await trx.selectFrom('meetings').select('event_id').where('id', '=', id).executeTakeFirstOrThrow();
  if (eventId !== meeting.event_id && (await exists(trx, 'events', eventId)) && !(await mayAddMeeting(trx, caller.userId, eventId))) throw forbidden();
}
