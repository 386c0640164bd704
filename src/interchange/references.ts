import type { Db } from '../db/connection.js';
import { recordError, type ImportError } from './import-error.js';

/** A record whose reference points nowhere: its pk and the missing target's pk. */
interface Orphan {
  pk: number;
  target: number;
}

interface ReferenceCheck {
  model: string;
  field: string;
  target: string;
  find(db: Db): Promise<Orphan | undefined>;
}

/**
 * Every reference, as an anti-join. Run once after all rows are written, so that records may
 * come in any order and refer to rows that were already in the database; the database held no
 * orphans before, so any orphan now comes from the file.
 */
const CHECKS: readonly ReferenceCheck[] = [
  {
    model: 'projects.project',
    field: 'maintainer',
    target: 'users.user',
    find: (db) =>
      db
        .selectFrom('projects as r')
        .leftJoin('users as t', 't.id', 'r.maintainer_id')
        .where('t.id', 'is', null)
        .select(['r.id as pk', 'r.maintainer_id as target'])
        .orderBy('r.id')
        .limit(1)
        .executeTakeFirst(),
  },
  {
    model: 'projects.project',
    field: 'participants',
    target: 'users.user',
    find: (db) =>
      db
        .selectFrom('project_participants as r')
        .leftJoin('users as t', 't.id', 'r.user_id')
        .where('t.id', 'is', null)
        .select(['r.project_id as pk', 'r.user_id as target'])
        .orderBy('r.project_id')
        .orderBy('r.user_id')
        .limit(1)
        .executeTakeFirst(),
  },
  {
    model: 'projects.project',
    field: 'dependencies',
    target: 'projects.project',
    find: (db) =>
      db
        .selectFrom('project_dependencies as r')
        .leftJoin('projects as t', 't.id', 'r.dependency_id')
        .where('t.id', 'is', null)
        .select(['r.project_id as pk', 'r.dependency_id as target'])
        .orderBy('r.project_id')
        .orderBy('r.dependency_id')
        .limit(1)
        .executeTakeFirst(),
  },
  {
    model: 'events.event',
    field: 'organizer',
    target: 'users.user',
    find: async (db) => {
      const row = await db
        .selectFrom('events as r')
        .leftJoin('users as t', 't.id', 'r.organizer_id')
        .where('r.organizer_id', 'is not', null)
        .where('t.id', 'is', null)
        .select(['r.id as pk', 'r.organizer_id as target'])
        .orderBy('r.id')
        .limit(1)
        .executeTakeFirst();
      return row && { pk: row.pk, target: row.target ?? 0 };
    },
  },
  {
    model: 'events.event',
    field: 'interested',
    target: 'users.user',
    find: (db) =>
      db
        .selectFrom('event_interested as r')
        .leftJoin('users as t', 't.id', 'r.user_id')
        .where('t.id', 'is', null)
        .select(['r.event_id as pk', 'r.user_id as target'])
        .orderBy('r.event_id')
        .orderBy('r.user_id')
        .limit(1)
        .executeTakeFirst(),
  },
  {
    model: 'events.meeting',
    field: 'event',
    target: 'events.event',
    find: (db) =>
      db
        .selectFrom('meetings as r')
        .leftJoin('events as t', 't.id', 'r.event_id')
        .where('t.id', 'is', null)
        .select(['r.id as pk', 'r.event_id as target'])
        .orderBy('r.id')
        .limit(1)
        .executeTakeFirst(),
  },
  {
    model: 'events.meeting',
    field: 'members',
    target: 'users.user',
    find: (db) =>
      db
        .selectFrom('meeting_members as r')
        .leftJoin('users as t', 't.id', 'r.user_id')
        .where('t.id', 'is', null)
        .select(['r.meeting_id as pk', 'r.user_id as target'])
        .orderBy('r.meeting_id')
        .orderBy('r.user_id')
        .limit(1)
        .executeTakeFirst(),
  },
];

/** The first record (in model order, then pk) that refers to a record that exists nowhere. */
export async function findMissingReference(db: Db): Promise<ImportError | null> {
  for (const check of CHECKS) {
    const orphan = await check.find(db);
    if (orphan) {
      return recordError(check.model, orphan.pk, `refers to ${check.target} pk ${orphan.target}, which is neither in the file nor in the database`, check.field);
    }
  }
  return null;
}
