import type { Db } from '../db/connection.js';
import { NO_ORGANIZER_EMAIL } from './original-fit.js';

/**
 * Undoes the export's stand-in organizer (docs/migration.md): the original requires an event's
 * organizer, so an export gives events without one a stand-in user. A stand-in that does nothing
 * but organize events is removed, and its events have no organizer again; one that the original
 * has since given other roles stays a user. Returns how many were removed.
 */
export async function removeOrganizerStandIns(db: Db): Promise<number> {
  const standIns = await db.selectFrom('users').select('id').where('email', '=', NO_ORGANIZER_EMAIL).execute();
  let removed = 0;
  for (const { id } of standIns) {
    if (await hasOtherRoles(db, id)) continue;
    await db.updateTable('events').set({ organizer_id: null }).where('organizer_id', '=', id).execute();
    await db.deleteFrom('user_groups').where('user_id', '=', id).execute();
    await db.deleteFrom('user_permissions').where('user_id', '=', id).execute();
    await db.deleteFrom('users').where('id', '=', id).execute();
    removed++;
  }
  return removed;
}

async function hasOtherRoles(db: Db, id: number): Promise<boolean> {
  // One after another: a transaction is one connection.
  if (await db.selectFrom('projects').select('id').where('maintainer_id', '=', id).limit(1).executeTakeFirst()) return true;
  if (await db.selectFrom('project_participants').select('user_id').where('user_id', '=', id).limit(1).executeTakeFirst()) return true;
  if (await db.selectFrom('meeting_members').select('user_id').where('user_id', '=', id).limit(1).executeTakeFirst()) return true;
  return (await db.selectFrom('event_interested').select('user_id').where('user_id', '=', id).limit(1).executeTakeFirst()) !== undefined;
}
