import type { Db } from '../../db/connection.js';

/**
 * Taking part (members.md §3): any active member joins or leaves a project as a participant, and
 * says they are interested in an event or takes it back. Each runs in the caller's write
 * transaction (the announced writes, with the audit entry beside it); the caller checks that the
 * member is active. Participants are what the API's project record lists; interest is not in the
 * API's event record (api-contract.md fixes its fields), as in the original's API.
 */

/** What a write did: changed something, found it already so, or found no such record. */
export type TakingPart = 'changed' | 'unchanged' | 'unknown';

async function projectExists(db: Db, projectId: number): Promise<boolean> {
  return (await db.selectFrom('projects').select('id').where('id', '=', projectId).executeTakeFirst()) !== undefined;
}

async function eventExists(db: Db, eventId: number): Promise<boolean> {
  return (await db.selectFrom('events').select('id').where('id', '=', eventId).executeTakeFirst()) !== undefined;
}

export async function isParticipant(db: Db, userId: number, projectId: number): Promise<boolean> {
  const row = await db.selectFrom('project_participants').select('user_id').where('project_id', '=', projectId).where('user_id', '=', userId).executeTakeFirst();
  return row !== undefined;
}

export async function isInterested(db: Db, userId: number, eventId: number): Promise<boolean> {
  const row = await db.selectFrom('event_interested').select('user_id').where('event_id', '=', eventId).where('user_id', '=', userId).executeTakeFirst();
  return row !== undefined;
}

/** The member becomes a participant of the project. */
export async function joinProject(db: Db, userId: number, projectId: number): Promise<TakingPart> {
  if (!(await projectExists(db, projectId))) return 'unknown';
  if (await isParticipant(db, userId, projectId)) return 'unchanged';
  await db.insertInto('project_participants').values({ project_id: projectId, user_id: userId }).execute();
  return 'changed';
}

/** The member is no longer a participant of the project (a maintainer stays its maintainer). */
export async function leaveProject(db: Db, userId: number, projectId: number): Promise<TakingPart> {
  if (!(await projectExists(db, projectId))) return 'unknown';
  const { numDeletedRows } = await db.deleteFrom('project_participants').where('project_id', '=', projectId).where('user_id', '=', userId).executeTakeFirst();
  return numDeletedRows > 0n ? 'changed' : 'unchanged';
}

/**
 * Sets the member's interest in the event: to `wanted`, or to the other state when it is null (a
 * toggle). Returns what it did and the interest it leaves, or 'unknown' for no such event.
 */
export async function setInterest(db: Db, userId: number, eventId: number, wanted: boolean | null): Promise<{ result: TakingPart; interested: boolean }> {
  if (!(await eventExists(db, eventId))) return { result: 'unknown', interested: false };
  const now = await isInterested(db, userId, eventId);
  const next = wanted ?? !now;
  if (next === now) return { result: 'unchanged', interested: now };
  if (next) await db.insertInto('event_interested').values({ event_id: eventId, user_id: userId }).execute();
  else await db.deleteFrom('event_interested').where('event_id', '=', eventId).where('user_id', '=', userId).execute();
  return { result: 'changed', interested: next };
}
