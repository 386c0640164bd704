import type { Db } from '../db/connection.js';
import { TABLES } from '../db/tables.js';
import { FixtureTimeFormatter } from './fixture-time.js';
import { FixtureWriter } from './fixture-writer.js';
import { MODEL_ORDER, type LinkTable, type ModelName } from './models.js';
import { OriginalFit } from './original-fit.js';
import { rawQuery } from './upsert.js';

/** Rows per query: keyset pages keep memory constant however large a table is. */
const PAGE_SIZE = 2000;

/** One model's export: a page of records after a pk, in pk order, as Django fixture fields. */
type PageReader = (db: Db, afterPk: number, limit: number, fit: OriginalFit) => Promise<ExportedRecord[]>;

interface ExportedRecord {
  pk: number;
  fields: Record<string, unknown>;
}

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
  const fit = await OriginalFit.prepare(db);
  const counts: Record<string, number> = {};
  for (const model of MODEL_ORDER) {
    counts[model] = 0;
    for await (const page of pages(db, PAGE_READERS[model], fit)) {
      for (const record of page) {
        if (writer.record(model, record.pk, record.fields)) await writer.flush();
      }
      counts[model] += page.length;
    }
    const extra = model === 'users.user' ? fit.organizerStandIn() : undefined;
    if (extra) {
      writer.record(model, extra.pk, extra.fields);
      counts[model]++;
    }
  }
  await writer.finish();
  return counts;
}

async function* pages(db: Db, readPage: PageReader, fit: OriginalFit) {
  let after = 0;
  for (;;) {
    const page = await readPage(db, after, PAGE_SIZE, fit);
    yield page;
    if (page.length < PAGE_SIZE) return;
    after = page[page.length - 1].pk;
  }
}

const PAGE_READERS: Record<ModelName, PageReader> = {
  // Django's auth models as imported (or as grantRights made them), with the same pks: users refer to them by number.
  'contenttypes.contenttype': async (db, after, limit) => {
    const rows = await db.selectFrom('content_types').select(['id', 'app_label', 'model']).where('id', '>', after).orderBy('id').limit(limit).execute();
    return rows.map((r) => ({ pk: r.id, fields: { app_label: r.app_label, model: r.model } }));
  },

  'auth.permission': async (db, after, limit) => {
    const rows = await db.selectFrom('auth_permissions').select(['id', 'name', 'content_type_id', 'codename']).where('id', '>', after).orderBy('id').limit(limit).execute();
    return rows.map((r) => ({ pk: r.id, fields: { name: r.name, content_type: r.content_type_id, codename: r.codename } }));
  },

  'auth.group': async (db, after, limit) => {
    const rows = await db.selectFrom('auth_groups').select(['id', 'name']).where('id', '>', after).orderBy('id').limit(limit).execute();
    const permissions = await linked(
      db,
      'group_permissions',
      rows.map((r) => r.id),
    );
    return rows.map((r) => ({ pk: r.id, fields: { name: r.name, permissions: permissions.get(r.id) ?? [] } }));
  },

  'users.user': async (db, after, limit, fit) => {
    const rows = await db.selectFrom('users').selectAll().where('id', '>', after).orderBy('id').limit(limit).execute();
    const ids = rows.map((r) => r.id);
    const groups = await linked(db, 'user_groups', ids);
    const permissions = await linked(db, 'user_permissions', ids);
    const times = fit.times;
    // Django's order: AbstractBaseUser's fields, PermissionsMixin's, the model's; many-to-many last.
    return rows.map((r) => ({
      pk: r.id,
      fields: {
        password: r.password,
        last_login: optionalTime(times, r.last_login_us),
        is_superuser: r.is_superuser === 1,
        username: fit.username(r.username),
        email: fit.email(r.id, r.email),
        created: times.format(Number(r.created_us)),
        edited: times.format(Number(r.edited_us)),
        first_name: r.first_name,
        last_name: r.last_name,
        balance: formatHundredths(r.balance_cents),
        has_key: r.has_key === 1,
        hide_pamela: r.hide_pamela === 1,
        newsletter: r.newsletter === 1,
        is_active: r.is_active === 1,
        description: r.description,
        groups: groups.get(r.id) ?? [],
        user_permissions: permissions.get(r.id) ?? [],
      },
    }));
  },

  'space.spacestatus': async (db, after, limit, { times }) => {
    const rows = await db.selectFrom('openings').select(['id', 'time_us', 'is_open']).where('id', '>', after).orderBy('id').limit(limit).execute();
    return rows.map((r) => ({ pk: r.id, fields: { time: times.format(Number(r.time_us)), is_open: r.is_open === 1 } }));
  },

  'projects.project': async (db, after, limit, fit) => {
    const rows = await db.selectFrom('projects').selectAll().where('id', '>', after).orderBy('id').limit(limit).execute();
    const ids = rows.map((r) => r.id);
    const participants = await linked(db, 'project_participants', ids);
    const dependencies = await linked(db, 'project_dependencies', ids);
    const times = fit.times;
    return rows.map((r) => {
      // Never null since migration 0009; the original requires both.
      const created = r.created_us ?? r.modified_us ?? 0;
      return {
        pk: r.id,
        fields: {
          title: fit.text(r.title, 300),
          maintainer: r.maintainer_id,
          participants: participants.get(r.id) ?? [],
          created: times.format(Number(created)),
          modified: times.format(Number(r.modified_us ?? created)),
          status: r.status,
          progress: r.progress,
          dependencies: dependencies.get(r.id) ?? [],
          picture: r.picture === null ? null : fit.text(r.picture, 100),
          short_description: fit.text(r.short_description, 1000),
          content: r.content,
        },
      };
    });
  },

  'events.event': async (db, after, limit, fit) => {
    const rows = await db.selectFrom('events').selectAll().where('id', '>', after).orderBy('id').limit(limit).execute();
    const interested = await linked(
      db,
      'event_interested',
      rows.map((r) => r.id),
    );
    const times = fit.times;
    return rows.map((r) => ({
      pk: r.id,
      fields: {
        title: fit.text(r.title, 300),
        place: fit.text(r.place, 300),
        start: optionalTime(times, r.start_us),
        stop: optionalTime(times, r.stop_us),
        status: r.status,
        organizer: r.organizer_id ?? fit.organizerStandInPk(),
        description: r.description,
        picture: r.picture === null ? null : fit.text(r.picture, 100),
        interested: interested.get(r.id) ?? [],
        is_talk: r.is_talk === 1,
      },
    }));
  },

  'events.meeting': async (db, after, limit, fit) => {
    const rows = await db.selectFrom('meetings').selectAll().where('id', '>', after).orderBy('id').limit(limit).execute();
    const members = await linked(
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
        pad: fit.text(r.pad, 200),
        ongoing: r.ongoing === 1,
      },
    }));
  },
};

function optionalTime(times: FixtureTimeFormatter, micros: number | null): string | null {
  return micros === null ? null : times.format(Number(micros));
}

/** A DecimalField(…, 2) as Django writes it: "40.00", "-0.06". */
export function formatHundredths(value: number): string {
  const abs = Math.abs(value);
  return `${value < 0 ? '-' : ''}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** The target pks of a many-to-many field for a page of owners, in pk order. */
async function linked(db: Db, table: LinkTable, ownerIds: number[]): Promise<Map<number, number[]>> {
  const grouped = new Map<number, number[]>();
  if (ownerIds.length === 0) return grouped;
  const { owner, target } = TABLES[table].link;
  const rows = await db.executeQuery<{ owner: number; target: number }>(
    rawQuery(db, `select "${owner}" as "owner", "${target}" as "target" from "${table}" where "${owner}" in (${ownerIds.map(() => '?').join(', ')}) order by 1, 2`, ownerIds),
  );
  for (const row of rows.rows) {
    const list = grouped.get(row.owner);
    if (list) list.push(row.target);
    else grouped.set(row.owner, [row.target]);
  }
  return grouped;
}
