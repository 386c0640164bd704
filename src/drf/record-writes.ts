import { createHash } from 'node:crypto';
import type { Db } from '../db/connection.js';
import type { AnnouncedWrites } from '../live/writes.js';
import { recordAudit, webAuditName } from '../resources/audit.js';
import type { RecordContext } from '../resources/record-context.js';
import type { TokenInfo } from '../resources/tokens.js';
import type { MemberCaller } from './auth.js';
import type { Collection } from './collections.js';
import { forbidden, notFound } from './errors.js';
import { apiUrl } from './links.js';
import { readFields, type ReadOptions, type RequestData, type WriteMode } from './serializer.js';

/**
 * The one write path of records (members.md §4): the API's POST, PUT, PATCH and DELETE
 * (handlers/write.ts) and the members' forms (handlers/record-forms.ts) both come here. Each write
 * is one announced transaction (live/writes.ts: the caches, the stream and the webhooks learn of
 * it after the commit) holding the member's rights check, the fields' validation against the
 * collection's writable fields, the write, its audit entry and the read of the committed record.
 * Free of HTTP: the caller turns its errors (ApiError, FieldErrors, ConflictError, StaleEdit) into
 * its own answers.
 */

/** Who writes: what the audit names, and for a member (their token, or the web) who they are, whose rights are read in the write's transaction. */
export interface RecordWriter {
  readonly tokenId: number | null;
  readonly tokenName: string;
  /** A member (through their token, or on the web), whose rights are checked; null for a door or admin token. */
  readonly member: { readonly userId: number; readonly web: boolean } | null;
}

/** A door or admin token writes as itself; a member's token (not in api_tokens) as its owner, named with the token's name, never its secret. */
export function tokenWriter(caller: TokenInfo | MemberCaller): RecordWriter {
  if (caller.scope !== 'member') return { tokenId: caller.id, tokenName: caller.name, member: null };
  return { tokenId: null, tokenName: `member ${caller.username}: ${caller.tokenName}`, member: { userId: caller.userId, web: false } };
}

/** A member's form on the website: the audit names the member and the web. */
export function webWriter(member: { id: number; username: string }): RecordWriter {
  return { tokenId: null, tokenName: webAuditName(member.username), member: { userId: member.id, web: true } };
}

/** Where a write comes from and what it answers, for its audit entry and its checks. */
export interface RecordWrite {
  readonly writes: AnnouncedWrites;
  readonly writer: RecordWriter;
  /** The request's method and path as the audit keeps them. */
  readonly method: string;
  readonly path: string;
  /** The status the caller answers with (the API's 201/200/204, a form's 303). */
  readonly status: number;
  readonly nowUs: number;
  /** How the committed record is spelled (links, times). */
  readonly ctx: RecordContext;
  readonly read: Omit<ReadOptions, 'mode'>;
}

/** An edit sent from a version of the record that is no longer the current one: nothing was written (members.md §4). */
export class StaleEdit extends Error {
  override name = 'StaleEdit';
}

/**
 * Whether a member creating a record on the website may name another maintainer or organizer
 * (members.md §4): one who holds the change right (they could edit it to anyone afterwards).
 */
export async function memberMayChooseOwner(db: Db, userId: number, collection: Collection): Promise<boolean> {
  const owner = collection.memberWrites?.owner;
  return owner !== undefined && (await owner.mayChoose(db, userId));
}

/** A member's API path, as a form names a member (a hyperlink, as the API's write fields take it). */
export function userPath(id: number): string {
  return apiUrl({ base: '', suffix: null, queryFormat: null }, 'users', id);
}

/** The form's data with its owner field set to the member who creates the record (members.md §4). */
function ownedBy(data: RequestData, field: string, userId: number): RequestData {
  if (data.kind !== 'form') return data;
  return { kind: 'form', fields: new Map([...data.fields, [field, [userPath(userId)]]]) };
}

/** A new record from the request's data; its id and the committed record. */
export async function createRecord(w: RecordWrite, collection: Collection, data: RequestData): Promise<{ id: number; record: unknown }> {
  const create = collection.create!;
  const member = w.writer.member;
  const owner = collection.memberWrites?.owner;
  return w.writes.run(async (trx) => {
    const ownedByMember = member !== null && member.web && owner !== undefined && !(await owner.mayChoose(trx, member.userId));
    const input = readFields(collection.fields, ownedByMember ? ownedBy(data, owner.field, member.userId) : data, { ...w.read, mode: 'create' });
    if (member !== null && !(await memberMayCreate(trx, member.userId, collection, input))) throw forbidden();
    const id = await create(trx, input, w.nowUs);
    await audit(trx, w, collection, id);
    return { id, record: await collection.find(trx, id, w.ctx) };
  });
}

/**
 * Sets a record's fields from the request's data (PUT: `replace`, PATCH: `patch`). As DRF: the
 * record is looked up (404) and the member's right checked (403) before the data is read (`data`
 * is called then: its 415 or 400 comes after them).
 * With `version`, the record must still be the one the form was built from (StaleEdit otherwise).
 */
export async function updateRecord(w: RecordWrite, collection: Collection, id: number, data: () => RequestData, mode: WriteMode, version?: string): Promise<unknown> {
  return w.writes.run(async (trx) => {
    if (!(await exists(trx, collection.table, id))) throw notFound();
    const member = w.writer.member;
    if (member !== null && !(await memberMayEdit(trx, member.userId, collection, id))) throw forbidden();
    const input = readFields(collection.fields, data(), { ...w.read, mode });
    const rules = collection.memberWrites;
    if (member !== null && rules?.mayEditTo !== undefined && !(await rules.mayEditTo(trx, member.userId, id, input))) throw forbidden();
    if (version !== undefined && version !== (await recordVersion(trx, collection, id))) throw new StaleEdit(`${collection.path} ${id} changed since the form was made`);
    await collection.update(trx, id, input, w.nowUs);
    await audit(trx, w, collection, id);
    return collection.find(trx, id, w.ctx);
  });
}

/** Deletes a record: a 404 when there is none, a ConflictError while others refer to it. */
export async function deleteRecord(w: RecordWrite, collection: Collection, id: number): Promise<void> {
  await w.writes.run(async (trx) => {
    const member = w.writer.member;
    if (member !== null && !(await memberMayDelete(trx, member.userId, collection))) throw forbidden();
    if (!(await collection.remove(trx, id))) throw notFound();
    await audit(trx, w, collection, id);
  });
}

function audit(trx: Db, w: RecordWrite, collection: Collection, recordId: number): Promise<void> {
  const { tokenId, tokenName } = w.writer;
  return recordAudit(trx, { timeUs: w.nowUs, tokenId, tokenName, method: w.method, path: w.path, collection: collection.path, recordId, status: w.status });
}

async function exists(db: Db, table: Collection['table'], id: number): Promise<boolean> {
  return (await db.selectFrom(table).select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

/**
 * What a record's version is made of: the record as the API shows it, with links and times
 * spelled the same whatever the request (the base URL and the zone change nothing).
 */
const VERSION_CONTEXT: RecordContext = {
  userUrl: (id) => `users/${id}`,
  eventUrl: (id) => `events/${id}`,
  meetingUrl: (id) => `meetings/${id}`,
  mediaUrl: (path) => path,
  time: (micros) => String(micros),
  avatar: () => '',
  avatarField: 'avatar',
};

/** The version of a record an edit form is built from (a hash of its fields), or undefined when there is no such record. */
export async function recordVersion(db: Db, collection: Collection, id: number): Promise<string | undefined> {
  const record = await collection.find(db, id, VERSION_CONTEXT);
  if (record === undefined) return undefined;
  return createHash('sha256').update(JSON.stringify(record)).digest('base64url').slice(0, 22);
}

/** May this member create in this collection (a meeting: `input` names its event, whose organizer may). */
export async function memberMayCreate(db: Db, userId: number, collection: Collection, input: unknown): Promise<boolean> {
  const rules = collection.memberWrites;
  return rules !== undefined && (await rules.mayCreate(db, userId, input));
}

/** May this member delete in this collection (the matching `delete_` right). */
export async function memberMayDelete(db: Db, userId: number, collection: Collection): Promise<boolean> {
  const rules = collection.memberWrites;
  return rules !== undefined && (await rules.mayDelete(db, userId));
}

/**
 * A member's edit (members.md §3): the right, or being the project's maintainer, the event's
 * organizer, or the organizer of the meeting's event. Read in the write's transaction.
 */
export async function memberMayEdit(db: Db, userId: number, collection: Collection, id: number): Promise<boolean> {
  const rules = collection.memberWrites;
  return rules !== undefined && (await rules.mayEdit(db, userId, id));
}
