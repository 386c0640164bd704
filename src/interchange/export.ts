import type { Db } from '../db/connection.js';
import { FixtureTimeFormatter } from './fixture-time.js';
import { FixtureWriter } from './fixture-writer.js';
import { MODEL_ORDER, type ModelName } from './models.js';

/** Rows per query: keyset pages keep memory constant however large a table is. */
const PAGE_SIZE = 2000;

/** One model's export: a page of records after a pk, in pk order, as Django fixture fields. */
type PageReader = (db: Db, afterPk: number, limit: number, times: FixtureTimeFormatter) => Promise<{ pk: number; fields: Record<string, unknown> }[]>;

/**
 * Writes all data as a Django dumpdata JSON array, streamed in constant memory, in Django's model
 * order and by pk within a model. Everything is read in one transaction, so the file is a
 * consistent snapshot even while the service keeps writing. Returns the records written per
 * model. The stream is not ended: it belongs to the caller.
 */
export async function exportFixture(db: Db, out: NodeJS.WritableStream): Promise<Record<string, number>> {
  if (db.isTransaction) return writeFixture(db, out);
  // REPEATABLE READ: one snapshot for the whole file on PostgreSQL too (SQLite's transactions already are).
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute((trx) => writeFixture(trx, out));
}

async function writeFixture(db: Db, out: NodeJS.WritableStream): Promise<Record<string, number>> {
  const writer = new FixtureWriter(out);
  const times = new FixtureTimeFormatter();
  const counts: Record<string, number> = {};
  for (const model of MODEL_ORDER) {
    counts[model] = 0;
    for await (const page of pages(db, PAGE_READERS[model], times)) {
      for (const record of page) {
        if (writer.record(model, record.pk, record.fields)) await writer.flush();
      }
      counts[model] += page.length;
    }
  }
  await writer.finish();
  return counts;
}

async function* pages(db: Db, readPage: PageReader, times: FixtureTimeFormatter) {
  let after = 0;
  for (;;) {
    const page = await readPage(db, after, PAGE_SIZE, times);
    yield page;
    if (page.length < PAGE_SIZE) return;
    after = page[page.length - 1].pk;
  }
}

const PAGE_READERS: Record<ModelName, PageReader> = {
  'users.user': async (db, after, limit) => {
    const rows = await db.selectFrom('users').select(['id', 'username', 'email', 'has_key']).where('id', '>', after).orderBy('id').limit(limit).execute();
    return rows.map((r) => ({ pk: r.id, fields: { username: r.username, email: r.email, has_key: r.has_key === 1 } }));
  },

  'space.spacestatus': async (db, after, limit, times) => {
    const rows = await db.selectFrom('openings').select(['id', 'time_us', 'is_open']).where('id', '>', after).orderBy('id').limit(limit).execute();
    return rows.map((r) => ({ pk: r.id, fields: { time: times.format(Number(r.time_us)), is_open: r.is_open === 1 } }));
  },

  'projects.project': async (db, after, limit, times) => {
    const rows = await db.selectFrom('projects').selectAll().where('id', '>', after).orderBy('id').limit(limit).execute();
    const participants = await linkedUsers(
      db,
      'project_participants',
      rows.map((r) => r.id),
    );
    return rows.map((r) => ({
      pk: r.id,
      fields: {
        title: r.title,
        maintainer: r.maintainer_id,
        participants: participants.get(r.id) ?? [],
        created: optionalTime(times, r.created_us),
        modified: optionalTime(times, r.modified_us),
        status: r.status,
        progress: r.progress,
        short_description: r.short_description,
        content: r.content,
      },
    }));
  },

  'events.event': async (db, after, limit, times) => {
    const rows = await db.selectFrom('events').selectAll().where('id', '>', after).orderBy('id').limit(limit).execute();
    return rows.map((r) => ({
      pk: r.id,
      fields: {
        title: r.title,
        place: r.place,
        start: optionalTime(times, r.start_us),
        stop: optionalTime(times, r.stop_us),
        status: r.status,
        organizer: r.organizer_id,
        description: r.description,
        // Django's FileField writes '' for "no file".
        picture: r.picture ?? '',
      },
    }));
  },

  'events.meeting': async (db, after, limit) => {
    const rows = await db.selectFrom('meetings').selectAll().where('id', '>', after).orderBy('id').limit(limit).execute();
    const members = await linkedUsers(
      db,
      'meeting_members',
      rows.map((r) => r.id),
    );
    return rows.map((r) => ({
      pk: r.id,
      fields: {
        event: r.event_id,
        OJ: r.agenda,
        PV: r.minutes,
        members: members.get(r.id) ?? [],
        pad: r.pad,
        ongoing: r.ongoing === 1,
      },
    }));
  },
};

function optionalTime(times: FixtureTimeFormatter, micros: number | null): string | null {
  return micros === null ? null : times.format(Number(micros));
}

/** User pks of a many-to-many field for a page of owners, in pk order. */
async function linkedUsers(db: Db, table: 'project_participants' | 'meeting_members', ownerIds: number[]): Promise<Map<number, number[]>> {
  const grouped = new Map<number, number[]>();
  if (ownerIds.length === 0) return grouped;
  const rows =
    table === 'project_participants'
      ? await db
          .selectFrom('project_participants')
          .select(['project_id as owner', 'user_id'])
          .where('project_id', 'in', ownerIds)
          .orderBy('project_id')
          .orderBy('user_id')
          .execute()
      : await db.selectFrom('meeting_members').select(['meeting_id as owner', 'user_id']).where('meeting_id', 'in', ownerIds).orderBy('meeting_id').orderBy('user_id').execute();
  for (const row of rows) {
    const list = grouped.get(row.owner);
    if (list) list.push(row.user_id);
    else grouped.set(row.owner, [row.user_id]);
  }
  return grouped;
}
