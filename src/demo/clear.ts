import type { Db } from '../db/connection.js';
import type { CountedTable } from '../db/tables.js';
import { countRecords } from '../resources/counts.js';

/**
 * Deletes every record, join rows first so that no reference dangles even for a moment. Meant to
 * run inside the caller's transaction, so that a failed reload leaves the old data in place.
 * The count triggers fire on deletes too, so collection counts stay exact without a reset.
 */
export async function clearAllData(db: Db): Promise<void> {
  await db.deleteFrom('project_participants').execute();
  await db.deleteFrom('project_dependencies').execute();
  await db.deleteFrom('meeting_members').execute();
  await db.deleteFrom('event_interested').execute();
  await db.deleteFrom('user_groups').execute();
  await db.deleteFrom('user_permissions').execute();
  await db.deleteFrom('meetings').execute();
  await db.deleteFrom('events').execute();
  await db.deleteFrom('projects').execute();
  await db.deleteFrom('openings').execute();
  await db.deleteFrom('users').execute();
}

/** The collections among the counted tables that hold records (from the trigger-kept counts, so no table is scanned). */
export async function nonEmptyCollections(db: Db, counted: readonly CountedTable[]): Promise<Array<{ collection: CountedTable; count: number }>> {
  const found: Array<{ collection: CountedTable; count: number }> = [];
  for (const collection of counted) {
    const count = await countRecords(db, collection);
    if (count > 0) found.push({ collection, count });
  }
  return found;
}
