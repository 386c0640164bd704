import type { TObject } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DatabaseHandle, Db } from '../db/connection.js';
import { writeTransaction } from '../db/write-transaction.js';
import { spaceChangeByRecord, spaceChangeSince } from '../live/space-changes.js';
import { recordAudit } from '../resources/audit.js';
import { createEvent, deleteEvent, EventFields, updateEvent, type EventInput } from '../resources/events.js';
import { createMeeting, deleteMeeting, MeetingFields, updateMeeting, type MeetingInput } from '../resources/meetings.js';
import { currentSpaceState, deleteOpening, OpeningFields, openingRecord, recordDoorReport, backfillOpening, updateOpening, type OpeningInput, type SpaceState } from '../resources/openings.js';
import { createProject, deleteProject, ProjectFields, updateProject, type ProjectInput } from '../resources/projects.js';
import type { RecordContext } from '../resources/record-context.js';
import type { TokenInfo } from '../resources/tokens.js';
import { createUser, deleteUser, updateUser, UserFields, type UserInput } from '../resources/users.js';
import { FieldErrors } from '../resources/write-errors.js';
import { parseBody } from './body.js';
import { collections } from './collections.js';
import { notFound } from './errors.js';
import { sendJson } from './json.js';
import { apiUrl, type LinkStyle } from './links.js';
import { forbidden, type Resolved } from './request-checks.js';
import { parseId, type CollectionPath } from './routes.js';
import { readFields, type WriteMode } from './serializer.js';

/** What writing a collection takes: its writable fields and the resource module's functions. */
export interface WritableCollection {
  table: 'users' | 'openings' | 'projects' | 'events' | 'meetings';
  fields: TObject;
  create(db: Db, input: any, nowUs: number): Promise<number>;
  update(db: Db, id: number, input: any, nowUs: number): Promise<boolean>;
  remove(db: Db, id: number): Promise<boolean>;
}

export const writable: Record<CollectionPath, WritableCollection> = {
  users: { table: 'users', fields: UserFields, create: (db, input: UserInput) => createUser(db, input), update: (db, id, input: Partial<UserInput>) => updateUser(db, id, input), remove: deleteUser },
  'space/openings': {
    table: 'openings',
    fields: OpeningFields,
    // Creation goes through the door's rule (recordDoorReport), never through here.
    create: () => Promise.reject(new Error('openings are created by recordDoorReport')),
    update: (db, id, input: Partial<OpeningInput>) => updateOpening(db, id, input),
    remove: deleteOpening,
  },
  projects: { table: 'projects', fields: ProjectFields, create: (db, input: ProjectInput, now) => createProject(db, input, now), update: (db, id, input: Partial<ProjectInput>, now) => updateProject(db, id, input, now), remove: deleteProject },
  events: { table: 'events', fields: EventFields, create: (db, input: EventInput) => createEvent(db, input), update: (db, id, input: Partial<EventInput>) => updateEvent(db, id, input), remove: deleteEvent },
  meetings: { table: 'meetings', fields: MeetingFields, create: (db, input: MeetingInput) => createMeeting(db, input), update: (db, id, input: Partial<MeetingInput>) => updateMeeting(db, id, input), remove: deleteMeeting },
};

export interface WriteDependencies {
  database: DatabaseHandle;
  timeZone: string;
  /** Called after the commit of a write that changed the space's state (the stream, webhooks). */
  onSpaceChange?: (state: SpaceState) => void;
}


/**
 * POST on a collection, PUT/PATCH/DELETE on a record. Authentication, permission and method were
 * checked before (request-checks.ts). Each write, its checks and its audit entry are one
 * transaction; the response is built from the committed record.
 */
export function writeHandler({ database, timeZone, onSpaceChange = () => {} }: WriteDependencies) {
  return async function write(request: FastifyRequest, reply: FastifyReply, resolved: Resolved, style: LinkStyle, ctx: RecordContext): Promise<FastifyReply> {
    const { route } = resolved;
    const token = resolved.token as TokenInfo;
    const collection = route.collection!;
    const spec = writable[collection];
    const nowUs = Date.now() * 1000;
    const audit = (db: Db, recordId: number, status: number) => recordAudit(db, {
      timeUs: nowUs, tokenId: token.id, tokenName: token.name, method: request.method, path: resolved.rawPath, collection, recordId, status,
    });
    const data = () => parseBody(request.headers['content-type'], request.body as Buffer | undefined);
    const read = (mode: WriteMode) => readFields(spec.fields, data(), { mode, timeZone });

    if (route.kind === 'list' && collection === 'space/openings') {
      const input = read('create') as OpeningInput;
      if (input.time !== undefined && token.scope !== 'admin') throw forbidden();
      refuseFutureTime(input, nowUs);
      const outcome = await writeTransaction(database.db, async (trx) => {
        // "Now" is read under the write lock: a report timed before taking it could land behind
        // one recorded meanwhile and be compared with the state before that one.
        const recorded = input.time === undefined
          ? await recordDoorReport(trx, input.is_open, Date.now() * 1000)
          : await backfillOpening(trx, input.is_open, input.time);
        if (recorded.created) await audit(trx, recorded.id, 201);
        // The stream's and webhooks' event, when the new opening is now the space's state.
        const change = recorded.created ? await spaceChangeByRecord(trx, recorded.id) : null;
        return { ...recorded, change };
      });
      const body = openingRecord(outcome.row, ctx);
      if (!outcome.created) return sendJson(reply.code(200), body);
      database.noteWrite();
      if (outcome.change) onSpaceChange(outcome.change);
      return sendJson(reply.code(201).header('location', apiUrl(style, collection, outcome.id)), body);
    }

    if (route.kind === 'list') {
      const input = read('create');
      const { id, record } = await writeTransaction(database.db, async (trx) => {
        const id = await spec.create(trx, input, nowUs);
        await audit(trx, id, 201);
        return { id, record: await collections[collection].find(trx, id, ctx) };
      });
      database.noteWrite();
      return sendJson(reply.code(201).header('location', apiUrl(style, collection, id)), record);
    }

    const id = parseId(route.id!);
    if (id === null) throw notFound();
    // As DRF: the record is looked up (404) before the body is read (415, 400).
    if (request.method === 'DELETE') {
      const change = await writeTransaction(database.db, async (trx) => {
        const before = collection === 'space/openings' ? await currentSpaceState(trx) : null;
        if (!(await spec.remove(trx, id))) throw notFound();
        await audit(trx, id, 204);
        return before && spaceChangeSince(trx, before);
      });
      database.noteWrite();
      if (change) onSpaceChange(change);
      return reply.code(204).send();
    }
    const { record, change } = await writeTransaction(database.db, async (trx) => {
      if (!(await exists(trx, spec.table, id))) throw notFound();
      const before = collection === 'space/openings' ? await currentSpaceState(trx) : null;
      const input = read(request.method === 'PUT' ? 'replace' : 'patch');
      if (collection === 'space/openings') refuseFutureTime(input as Partial<OpeningInput>, nowUs);
      await spec.update(trx, id, input, nowUs);
      await audit(trx, id, 200);
      return { record: await collections[collection].find(trx, id, ctx), change: before && (await spaceChangeSince(trx, before)) };
    });
    database.noteWrite();
    if (change) onSpaceChange(change);
    return sendJson(reply.code(200), record);
  };
}

/** History is about the past: a future opening would also stamp every later door report. */
function refuseFutureTime(input: Partial<OpeningInput>, nowUs: number): void {
  if (input.time !== undefined && input.time > nowUs) throw new FieldErrors({ time: ['This time is in the future.'] });
}

async function exists(db: Db, table: WritableCollection['table'], id: number): Promise<boolean> {
  return (await db.selectFrom(table).select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}
