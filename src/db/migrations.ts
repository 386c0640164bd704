import { Migrator, sql, type ColumnDefinitionBuilder, type Kysely, type Migration } from 'kysely';
import { unusablePassword } from './unusable-password.js';
import { engineOf } from './connection.js';

/**
 * The migrations before the apps, and the runner of every migration: one list for every engine. Foreign keys are deferred to commit so that an
 * import may insert records in any order; the import checks references itself first, to name
 * the offending record.
 *
 * Each migration is frozen: it names the tables it touches as they were when it was written,
 * never today's lists (db/tables.ts), so that a new table declared there does not change what an
 * old migration does (`npm run lint:deps` forbids the import). test/registry.test.ts
 * checks that all of them together give today's declaration.
 */
const deferred = sql`deferrable initially deferred`;

/** The tables with a row count kept by triggers, as of migration 0001 (0004 numbers the same ones). */
const COUNTED_IN_0001 = ['users', 'openings', 'projects', 'events', 'meetings'] as const;
/** The tables whose writes bumped 0001's data version on PostgreSQL (0005 drops those triggers). */
const DATA_VERSIONED_IN_0001 = [...COUNTED_IN_0001, 'project_participants', 'meeting_members'] as const;

const initial: Migration = {
  async up(db: Kysely<any>) {
    const engine = engineOf(db);
    // SQLite's INTEGER PRIMARY KEY numbers new rows itself; PostgreSQL needs an identity.
    const id = (c: ColumnDefinitionBuilder) => (engine === 'postgres' ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey());
    await db.schema
      .createTable('users')
      .addColumn('id', 'integer', id)
      // Code-point order whatever the database's default collation (SQLite's BINARY already is).
      .addColumn('username', engine === 'postgres' ? sql`text collate "C"` : 'text', (c) => c.notNull().unique())
      .addColumn('email', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('has_key', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();

    await db.schema
      .createTable('openings')
      .addColumn('id', 'integer', id)
      .addColumn('time_us', 'bigint', (c) => c.notNull())
      .addColumn('is_open', 'integer', (c) => c.notNull())
      .execute();
    // Newest first, ties by id: this index answers a page without touching the table.
    await db.schema.createIndex('openings_time_id').on('openings').columns(['time_us', 'id', 'is_open']).execute();

    await db.schema
      .createTable('projects')
      .addColumn('id', 'integer', id)
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('maintainer_id', 'integer', (c) => c.notNull().references('users.id').onDelete('restrict').modifyEnd(deferred))
      .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('a', 'd', 'f', 'i', 'p')`))
      .addColumn('progress', 'integer', (c) => c.notNull().check(sql`progress between 0 and 100`))
      .addColumn('short_description', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('content', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('created_us', 'bigint')
      .addColumn('modified_us', 'bigint')
      .execute();
    await db.schema.createIndex('projects_maintainer').on('projects').column('maintainer_id').execute();

    await db.schema
      .createTable('project_participants')
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade').modifyEnd(deferred))
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade').modifyEnd(deferred))
      .addPrimaryKeyConstraint('project_participants_pk', ['project_id', 'user_id'])
      .execute();
    await db.schema.createIndex('project_participants_user').on('project_participants').column('user_id').execute();

    await db.schema
      .createTable('events')
      .addColumn('id', 'integer', id)
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('place', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('start_us', 'bigint')
      .addColumn('stop_us', 'bigint')
      .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('r', 'i')`))
      .addColumn('organizer_id', 'integer', (c) => c.references('users.id').onDelete('restrict').modifyEnd(deferred))
      .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('picture', 'text')
      .execute();
    await db.schema.createIndex('events_start_stop').on('events').columns(['start_us', 'stop_us', 'id']).execute();
    await db.schema.createIndex('events_organizer').on('events').column('organizer_id').execute();

    await db.schema
      .createTable('meetings')
      .addColumn('id', 'integer', id)
      .addColumn('event_id', 'integer', (c) => c.notNull().unique().references('events.id').onDelete('restrict').modifyEnd(deferred))
      .addColumn('agenda', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('minutes', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('pad', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('ongoing', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();

    await db.schema
      .createTable('meeting_members')
      .addColumn('meeting_id', 'integer', (c) => c.notNull().references('meetings.id').onDelete('cascade').modifyEnd(deferred))
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade').modifyEnd(deferred))
      .addPrimaryKeyConstraint('meeting_members_pk', ['meeting_id', 'user_id'])
      .execute();
    await db.schema.createIndex('meeting_members_user').on('meeting_members').column('user_id').execute();

    await db.schema
      .createTable('collection_counts')
      .addColumn('collection', 'text', (c) => c.primaryKey())
      .addColumn('n', 'bigint', (c) => c.notNull())
      .execute();
    for (const table of COUNTED_IN_0001) {
      await db.insertInto('collection_counts').values({ collection: table, n: 0 }).execute();
    }
    if (engine === 'postgres') await createPostgresTriggers(db);
    else for (const table of COUNTED_IN_0001) await createSqliteCountTriggers(db, table);
  },
};

/** SQLite triggers; an upsert that updates fires no INSERT trigger, so counts stay exact. */
async function createSqliteCountTriggers(db: Kysely<any>, table: string): Promise<void> {
  const name = sql.lit(table);
  await sql`create trigger ${sql.id(`${table}_count_insert`)} after insert on ${sql.table(table)}
    begin update collection_counts set n = n + 1 where collection = ${name}; end`.execute(db);
  await sql`create trigger ${sql.id(`${table}_count_delete`)} after delete on ${sql.table(table)}
    begin update collection_counts set n = n - 1 where collection = ${name}; end`.execute(db);
}

/**
 * PostgreSQL: statement-level triggers with transition tables (one update per statement, not per
 * row, so a bulk import stays fast), and a data version that every writing statement bumps, so
 * that each process can tell whether its cached responses are still current.
 */
async function createPostgresTriggers(db: Kysely<any>): Promise<void> {
  await sql`create table data_version (version bigint not null)`.execute(db);
  await sql`insert into data_version (version) values (0)`.execute(db);
  await sql`create function count_inserted() returns trigger language plpgsql as $$
    begin
      update collection_counts set n = n + (select count(*) from inserted) where collection = tg_table_name;
      return null;
    end $$`.execute(db);
  await sql`create function count_deleted() returns trigger language plpgsql as $$
    begin
      update collection_counts set n = n - (select count(*) from deleted) where collection = tg_table_name;
      return null;
    end $$`.execute(db);
  await sql`create function bump_data_version() returns trigger language plpgsql as $$
    begin
      update data_version set version = version + 1;
      return null;
    end $$`.execute(db);
  for (const table of COUNTED_IN_0001) {
    await sql`create trigger ${sql.id(`${table}_count_insert`)} after insert on ${sql.table(table)}
      referencing new table as inserted for each statement execute function count_inserted()`.execute(db);
    await sql`create trigger ${sql.id(`${table}_count_delete`)} after delete on ${sql.table(table)}
      referencing old table as deleted for each statement execute function count_deleted()`.execute(db);
  }
  for (const table of DATA_VERSIONED_IN_0001) {
    await sql`create trigger ${sql.id(`${table}_data_version`)} after insert or update or delete on ${sql.table(table)}
      for each statement execute function bump_data_version()`.execute(db);
  }
}

/** API tokens for writes; a name is unique among tokens that are not revoked. */
const apiTokens: Migration = {
  async up(db: Kysely<any>) {
    const engine = engineOf(db);
    await db.schema
      .createTable('api_tokens')
      .addColumn('id', 'integer', (c) => (engine === 'postgres' ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey()))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('scope', 'text', (c) => c.notNull().check(sql`scope in ('door', 'admin')`))
      .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
      .addColumn('created_us', 'bigint', (c) => c.notNull())
      .addColumn('last_used_us', 'bigint')
      .addColumn('revoked_us', 'bigint')
      .execute();
    await sql`create unique index api_tokens_active_name on api_tokens (name) where revoked_us is null`.execute(db);
  },
};

/**
 * The append-only record of writes made through the API. The token's name is copied, so that the
 * log still reads right after the token is revoked; no secret or e-mail address is ever stored.
 */
const auditLog: Migration = {
  async up(db: Kysely<any>) {
    const engine = engineOf(db);
    await db.schema
      .createTable('audit_log')
      .addColumn('id', 'integer', (c) => (engine === 'postgres' ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey()))
      .addColumn('time_us', 'bigint', (c) => c.notNull())
      .addColumn('token_id', 'integer', (c) => c.references('api_tokens.id'))
      .addColumn('token_name', 'text', (c) => c.notNull())
      .addColumn('method', 'text', (c) => c.notNull())
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('collection', 'text', (c) => c.notNull())
      .addColumn('record_id', 'integer')
      .addColumn('status', 'integer', (c) => c.notNull())
      .execute();
  },
};

/**
 * SQLite numbers a new row max(id) + 1, so deleting the newest record would hand its id (and its
 * URL, and its audit entries) to the next one; Django's SQLite tables and PostgreSQL identities
 * never reuse ids. A trigger keeps the highest id ever deleted per table, and new records are
 * numbered above it (nextId in write-schema.ts).
 */
const idHighWater: Migration = {
  async up(db: Kysely<any>) {
    if (engineOf(db) === 'postgres') return;
    await db.schema
      .createTable('deleted_id_high_water')
      .addColumn('collection', 'text', (c) => c.primaryKey())
      .addColumn('id', 'integer', (c) => c.notNull())
      .execute();
    for (const table of ['users', 'openings', 'projects', 'events', 'meetings']) {
      await db.insertInto('deleted_id_high_water').values({ collection: table, id: 0 }).execute();
      await sql`create trigger ${sql.id(`${table}_deleted_id`)} after delete on ${sql.table(table)}
        begin
          update deleted_id_high_water set id = old.id where collection = ${sql.lit(table)} and id < old.id;
        end`.execute(db);
    }
  },
};

/** log2 of the two bucket widths of opening_buckets, in microseconds: about 19 hours and 51 days. */
export const FINE_BUCKET_BITS = 36;
export const COARSE_BUCKET_BITS = 42;

/**
 * What makes reads cheap whatever the data's size:
 * - table_versions: a version and a change time per table that responses are built from, bumped
 *   by triggers on every write (from any process or tool), so that a cached response is dropped
 *   exactly when a table it was built from changes, and Last-Modified means something;
 * - opening_buckets: openings counted per time bucket at two widths, kept by triggers, so that
 *   the n-th newest opening is found by summing a few hundred counts instead of stepping through
 *   n index entries (a deep page of a million openings costs what the first page costs).
 */
/** The tables responses were built from as of migration 0005, each given a version. */
const VERSIONED_IN_0005 = ['users', 'openings', 'projects', 'project_participants', 'events', 'meetings', 'meeting_members'] as const;

const readPaths: Migration = {
  async up(db: Kysely<any>) {
    const engine = engineOf(db);
    await db.schema
      .createTable('table_versions')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('version', 'bigint', (c) => c.notNull())
      .addColumn('changed_us', 'bigint', (c) => c.notNull())
      .execute();
    const nowUs = Date.now() * 1000;
    for (const table of VERSIONED_IN_0005) {
      await db.insertInto('table_versions').values({ name: table, version: 1, changed_us: nowUs }).execute();
    }
    await db.schema
      .createTable('opening_buckets')
      .addColumn('level', 'integer', (c) => c.notNull())
      .addColumn('bucket', 'bigint', (c) => c.notNull())
      .addColumn('n', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('opening_buckets_pk', ['level', 'bucket'])
      .execute();
    await sql`insert into opening_buckets (level, bucket, n)
      select 0, time_us >> ${sql.lit(FINE_BUCKET_BITS)}, count(*) from openings group by time_us >> ${sql.lit(FINE_BUCKET_BITS)}`.execute(db);
    await sql`insert into opening_buckets (level, bucket, n)
      select 1, time_us >> ${sql.lit(COARSE_BUCKET_BITS)}, count(*) from openings group by time_us >> ${sql.lit(COARSE_BUCKET_BITS)}`.execute(db);
    if (engine === 'postgres') await createPostgresReadPathTriggers(db);
    else await createSqliteReadPathTriggers(db);
  },
};

const fine = sql.lit(FINE_BUCKET_BITS);
const coarse = sql.lit(COARSE_BUCKET_BITS);

/** SQLite has row triggers only: each changed row bumps its table's version and moves bucket counts. */
async function createSqliteReadPathTriggers(db: Kysely<any>): Promise<void> {
  const bump = (table: string) => sql`update table_versions set version = version + 1,
    changed_us = cast(unixepoch('subsec') * 1000000 as integer) where name = ${sql.lit(table)};`;
  for (const table of VERSIONED_IN_0005) {
    for (const event of ['insert', 'update', 'delete'] as const) {
      await sql`create trigger ${sql.id(`${table}_version_${event}`)} after ${sql.raw(event)} on ${sql.table(table)}
        begin ${bump(table)} end`.execute(db);
    }
  }
  const add = (row: 'new') => sql`insert into opening_buckets (level, bucket, n)
      values (0, ${sql.raw(row)}.time_us >> ${fine}, 1), (1, ${sql.raw(row)}.time_us >> ${coarse}, 1)
      on conflict (level, bucket) do update set n = n + 1;`;
  const remove = (row: 'old') => sql`update opening_buckets set n = n - 1
      where (level = 0 and bucket = ${sql.raw(row)}.time_us >> ${fine}) or (level = 1 and bucket = ${sql.raw(row)}.time_us >> ${coarse});
    delete from opening_buckets where n = 0
      and ((level = 0 and bucket = ${sql.raw(row)}.time_us >> ${fine}) or (level = 1 and bucket = ${sql.raw(row)}.time_us >> ${coarse}));`;
  await sql`create trigger openings_bucket_insert after insert on openings begin ${add('new')} end`.execute(db);
  await sql`create trigger openings_bucket_delete after delete on openings begin ${remove('old')} end`.execute(db);
  await sql`create trigger openings_bucket_update after update of time_us on openings
    when old.time_us <> new.time_us begin ${remove('old')} ${add('new')} end`.execute(db);
}

/**
 * PostgreSQL: statement triggers with transition tables (one update per statement, not per row),
 * replacing the single data version of 0001, which any write to any table bumped.
 */
async function createPostgresReadPathTriggers(db: Kysely<any>): Promise<void> {
  for (const table of DATA_VERSIONED_IN_0001) {
    await sql`drop trigger ${sql.id(`${table}_data_version`)} on ${sql.table(table)}`.execute(db);
  }
  await sql`drop function bump_data_version()`.execute(db);
  await sql`drop table data_version`.execute(db);
  await sql`create function bump_table_version() returns trigger language plpgsql as $$
    begin
      update table_versions set version = version + 1,
        changed_us = (extract(epoch from clock_timestamp()) * 1000000)::bigint
        where name = tg_table_name;
      return null;
    end $$`.execute(db);
  for (const table of VERSIONED_IN_0005) {
    await sql`create trigger ${sql.id(`${table}_version`)} after insert or update or delete on ${sql.table(table)}
      for each statement execute function bump_table_version()`.execute(db);
  }
  // plpgsql plans each statement when it first runs, so the branch for a transition table that
  // a trigger does not have is never planned.
  await sql`create function count_opening_buckets() returns trigger language plpgsql as $$
    begin
      if tg_op in ('DELETE', 'UPDATE') then
        update opening_buckets b set n = b.n - d.n
          from (select 0 as level, time_us >> ${fine} as bucket, count(*) as n from removed group by 2
                union all select 1, time_us >> ${coarse}, count(*) from removed group by 2) d
          where b.level = d.level and b.bucket = d.bucket;
        delete from opening_buckets where n = 0;
      end if;
      if tg_op in ('INSERT', 'UPDATE') then
        insert into opening_buckets (level, bucket, n)
          select 0, time_us >> ${fine}, count(*) from added group by 2
          union all select 1, time_us >> ${coarse}, count(*) from added group by 2
          on conflict (level, bucket) do update set n = opening_buckets.n + excluded.n;
      end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger openings_bucket_insert after insert on openings
    referencing new table as added for each statement execute function count_opening_buckets()`.execute(db);
  await sql`create trigger openings_bucket_delete after delete on openings
    referencing old table as removed for each statement execute function count_opening_buckets()`.execute(db);
  await sql`create trigger openings_bucket_update after update on openings
    referencing old table as removed new table as added for each statement execute function count_opening_buckets()`.execute(db);
}

/**
 * PostgreSQL: every change of table_versions (so every write to a table responses are built
 * from, whoever makes it) waits until no process holds a read lease (read-lease.ts).
 */
const readLeases: Migration = {
  async up(db: Kysely<any>) {
    if (engineOf(db) !== 'postgres') return;
    // The lease key of read-lease.ts: the oid of table_versions' schema * 4 + 2.
    await sql`create function wait_for_read_leases() returns trigger language plpgsql as $$
      begin
        perform pg_advisory_xact_lock((select relnamespace::bigint from pg_class where oid = tg_relid) * 4 + 2);
        return null;
      end $$`.execute(db);
    await sql`create trigger table_versions_read_leases before insert or update or delete or truncate on table_versions
      for each statement execute function wait_for_read_leases()`.execute(db);
  },
};

/**
 * The webhook outbox (live/webhook-outbox.ts): one row per change and configured URL, inserted in
 * the change's own transaction, so that a delivery survives a crash or a restart. Not versioned
 * (no table_versions trigger): no response is built from it. The URL itself is not stored (it may
 * hold a secret): `url_key` is its SHA-256, matched against WEBHOOK_URLS, and `target` its origin.
 */
const webhookDeliveries: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('event', 'text', (c) => c.notNull())
      .addColumn('event_id', 'bigint', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('url_key', 'text', (c) => c.notNull())
      .addColumn('target', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'delivered', 'abandoned')`))
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_us', 'bigint', (c) => c.notNull())
      .addColumn('first_attempt_us', 'bigint')
      .addColumn('last_attempt_us', 'bigint')
      .addColumn('next_attempt_us', 'bigint', (c) => c.notNull())
      .addColumn('next_delay_ms', 'integer', (c) => c.notNull())
      .addColumn('claimed_by', 'text')
      .addColumn('claimed_until_us', 'bigint')
      .addColumn('last_error', 'text')
      .addColumn('finished_us', 'bigint')
      .execute();
    await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['status', 'next_attempt_us']).execute();
    await db.schema.createIndex('webhook_deliveries_created').on('webhook_deliveries').columns(['created_us', 'id']).execute();
  },
};

/**
 * A version of api_tokens in table_versions, bumped when a token is revoked, deleted or given
 * another secret (not when its last use is stamped, nor when one is created: neither makes a
 * valid token invalid). The fast path answers a read that presents a token only while the
 * version under which it saw that token valid holds (cache/known-tokens.ts), so that a revoked
 * token gets its 401 on the next request, whoever revoked it. On PostgreSQL the bump goes
 * through table_versions, so it waits for read leases like any write (migration 0006).
 */
const tokenVersions: Migration = {
  async up(db: Kysely<any>) {
    await db
      .insertInto('table_versions')
      .values({ name: 'api_tokens', version: 1, changed_us: Date.now() * 1000 })
      .execute();
    if (engineOf(db) === 'postgres') {
      await sql`create trigger api_tokens_version after update of revoked_us, secret_hash or delete on api_tokens
        for each statement execute function bump_table_version()`.execute(db);
      return;
    }
    const bump = sql`update table_versions set version = version + 1,
      changed_us = cast(unixepoch('subsec') * 1000000 as integer) where name = 'api_tokens';`;
    await sql`create trigger api_tokens_version_update after update of revoked_us, secret_hash on api_tokens begin ${bump} end`.execute(db);
    await sql`create trigger api_tokens_version_delete after delete on api_tokens begin ${bump} end`.execute(db);
  },
};

/**
 * Every field of the original's five models that the API does not show, so that an import from
 * the original comes back out of `export` field for field (docs/migration.md). Rows that predate
 * this migration get what the original would give a record made now: created and edited now, an
 * unusable password, the model defaults. The auth many-to-many fields keep pks only: we hold no
 * groups nor permissions, so their join tables have no foreign key on that side.
 */
const originalFields: Migration = {
  async up(db: Kysely<any>) {
    const users: [string, 'text' | 'integer' | 'bigint', (c: ColumnDefinitionBuilder) => ColumnDefinitionBuilder][] = [
      ['password', 'text', (c) => c.notNull().defaultTo('')],
      ['last_login_us', 'bigint', (c) => c],
      ['is_superuser', 'integer', (c) => c.notNull().defaultTo(0)],
      ['created_us', 'bigint', (c) => c.notNull().defaultTo(0)],
      ['edited_us', 'bigint', (c) => c.notNull().defaultTo(0)],
      ['first_name', 'text', (c) => c.notNull().defaultTo('')],
      ['last_name', 'text', (c) => c.notNull().defaultTo('')],
      ['balance_cents', 'integer', (c) => c.notNull().defaultTo(0)],
      ['hide_pamela', 'integer', (c) => c.notNull().defaultTo(0)],
      ['newsletter', 'integer', (c) => c.notNull().defaultTo(1)],
      ['is_active', 'integer', (c) => c.notNull().defaultTo(1)],
      ['description', 'text', (c) => c.defaultTo('')],
    ];
    for (const [name, type, build] of users) await db.schema.alterTable('users').addColumn(name, type, build).execute();
    await db.schema
      .alterTable('projects')
      .addColumn('picture', 'text', (c) => c.defaultTo(''))
      .execute();
    await db.schema
      .alterTable('events')
      .addColumn('is_talk', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();

    const link = async (table: string, owner: [string, string], other: [string, string | null]) => {
      await db.schema
        .createTable(table)
        .addColumn(owner[0], 'integer', (c) => c.notNull().references(owner[1]).onDelete('cascade').modifyEnd(deferred))
        .addColumn(other[0], 'integer', (c) => (other[1] === null ? c.notNull() : c.notNull().references(other[1]).onDelete('cascade').modifyEnd(deferred)))
        .addPrimaryKeyConstraint(`${table}_pk`, [owner[0], other[0]])
        .execute();
    };
    await link('user_groups', ['user_id', 'users.id'], ['group_id', null]);
    await link('user_permissions', ['user_id', 'users.id'], ['permission_id', null]);
    await link('project_dependencies', ['project_id', 'projects.id'], ['dependency_id', 'projects.id']);
    await db.schema.createIndex('project_dependencies_dependency').on('project_dependencies').column('dependency_id').execute();
    await link('event_interested', ['event_id', 'events.id'], ['user_id', 'users.id']);
    await db.schema.createIndex('event_interested_user').on('event_interested').column('user_id').execute();

    // Django's DateTimeField keeps microseconds, our API's clock milliseconds: now, to the millisecond.
    const nowUs = Date.now() * 1000;
    await db.updateTable('users').set({ created_us: nowUs, edited_us: nowUs }).execute();
    await db.updateTable('projects').set({ created_us: nowUs }).where('created_us', 'is', null).execute();
    await db
      .updateTable('projects')
      .set({ modified_us: sql`created_us` })
      .where('modified_us', 'is', null)
      .execute();
    for (const { id } of await db.selectFrom('users').select('id').execute()) {
      await db.updateTable('users').set({ password: unusablePassword() }).where('id', '=', id).execute();
    }
  },
};

/**
 * The history written before the apps (apps.md): nine migrations that each touch the tables of
 * several of today's apps, kept here under the names databases recorded them by. Every migration
 * since belongs to an app (`AppDeclaration.migrations`) and runs after these.
 */
export const FOUNDING_MIGRATIONS: MigrationSet = {
  '0001_initial': initial,
  '0002_api_tokens': apiTokens,
  '0003_audit_log': auditLog,
  '0004_id_high_water': idHighWater,
  '0005_read_paths': readPaths,
  '0006_read_leases': readLeases,
  '0007_webhook_deliveries': webhookDeliveries,
  '0008_token_versions': tokenVersions,
  '0009_original_fields': originalFields,
};

/** Migrations by the name a database records each under, in the order they run. */
export type MigrationSet = Readonly<Record<string, Migration>>;

/**
 * Every migration in the order it runs: the founding history, then each app's (`apps` in the
 * order of their needs), an app's own by name. A name is recorded once per database: an app's
 * new migrations are named `<app>.<number>_<what>` so that no two apps' names meet.
 */
export function migrationsInOrder(apps: readonly { readonly name: string; readonly migrations: MigrationSet }[]): MigrationSet {
  const ordered: Record<string, Migration> = { ...FOUNDING_MIGRATIONS };
  for (const app of apps) {
    for (const name of Object.keys(app.migrations).sort(byCodeUnit)) {
      if (name in ordered) throw new Error(`the migration ${name} of ${app.name} has the name of another`);
      ordered[name] = app.migrations[name];
    }
  }
  return ordered;
}

/** Kysely's default localeCompare builds ICU's collator at start (~12 ms); `<` gives the same order for our ASCII names. */
const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Brings the schema up to date with `migrations` (migrationsInOrder); returns the names of the
 * migrations it applied, in the set's order. Kysely runs pending migrations in the order of their
 * names (`stock.…` before `users.…`), so when the pending ones' names are not in the set's order,
 * each is run alone with the migrations before it; a pending one runs even when one after it
 * already ran (an app installed later may come before another in the set's order).
 */
export async function migrateToLatest(db: Kysely<any>, migrations: MigrationSet): Promise<string[]> {
  // Kysely looks for its bookkeeping tables in any schema; on PostgreSQL, name ours (the
  // search_path's first) so that a database with several schemas migrates each one correctly.
  const migrationTableSchema = engineOf(db) === 'postgres' ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema : undefined;
  const names = Object.keys(migrations);
  const position = new Map(names.map((name, index) => [name, index]));
  // A name no set holds (a newer version's) sorts after ours; Kysely then refuses it as missing.
  const rank = (name: string) => position.get(name) ?? position.size;
  const migratorOf = (set: MigrationSet) =>
    new Migrator({
      db,
      provider: { getMigrations: () => Promise.resolve(set) },
      migrationTableSchema,
      nameComparator: (a, b) => rank(a) - rank(b) || byCodeUnit(a, b),
      allowUnorderedMigrations: true,
    });
  const applied: string[] = [];
  // Another process may migrate between two steps: a step that finds one it did not expect plans again.
  for (let attempt = 1; ; attempt++) {
    try {
      for (const migrator of await stepsOf(migratorOf(migrations))) {
        const { error, results } = await migrator.migrateToLatest();
        // What a migration threw, as Kysely hands it over (unknown): rethrown as it is, for its message.
        // eslint-disable-next-line @typescript-eslint/only-throw-error
        if (error) throw error;
        applied.push(...(results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName));
      }
      return applied;
    } catch (error) {
      if (attempt === 5 || !/^corrupted migrations/.test((error as Error).message)) throw error;
    }
  }

  /** One run when the pending migrations' names are in the set's order; else each alone, with those before it and those that ran. */
  async function stepsOf(everything: Migrator): Promise<Migrator[]> {
    const known = await everything.getMigrations();
    const ran = new Set(known.filter((m) => m.executedAt !== undefined).map((m) => m.name));
    const pending = known
      .filter((m) => !ran.has(m.name))
      .map((m) => m.name)
      .sort((a, b) => rank(a) - rank(b));
    if (pending.every((name, i) => i === 0 || byCodeUnit(pending[i - 1], name) < 0)) return [everything];
    return pending.map((name) => migratorOf(Object.fromEntries(names.filter((n) => ran.has(n) || rank(n) <= rank(name)).map((n) => [n, migrations[n]]))));
  }
}
