import type { Db } from '../../../db/connection.js';
import { MAX_ID } from '../../../db/schema.js';
import { FieldReader, isPk } from '../../../interchange/field-reader.js';
import { FieldError, ImportError, recordError, show } from '../../../interchange/import-error.js';
import type { ImportDefaults, KeptModels, KeptRecords, ModelSpec } from '../../../interchange/models.js';
import { chunks, upsertRows, type PendingRow } from '../../../interchange/upsert.js';

/**
 * Django's auth models (contenttypes.contenttype, auth.permission, auth.group) and the users'
 * `groups` and `user_permissions`, which may name them by number or by natural key
 * (`dumpdata --natural-foreign`: a group is ["name"], a permission ["codename", "app_label",
 * "model"], a content type ["app_label", "model"]); with `--natural-primary` their records have no
 * pk. They are few, so they are kept in memory and written at the end of the import, once every
 * one of them is known: natural keys resolve against the file and the database, and a row of the
 * database whose natural key the file gives another pk moves to the file's pk, with every
 * reference to it, so that everyone keeps the same rights.
 */
export const AUTH_MODELS: KeptModels = {
  models: new Set(['contenttypes.contenttype', 'auth.permission', 'auth.group']),
  start: () => new AuthModels(),
};

interface AuthRecord {
  spec: ModelSpec;
  pk: number | null;
  fields: Record<string, unknown>;
}

/** A user's reference by natural key, to resolve once the auth models are written. */
interface NaturalLink {
  userPk: number;
  field: 'groups' | 'user_permissions';
  key: string[];
}

/** The tables whose rows may move, and every column that refers to them (foreign keys, and the users' links, which have none). */
const REFERRERS = {
  content_types: [{ table: 'auth_permissions', column: 'content_type_id', link: false }],
  auth_permissions: [
    { table: 'group_permissions', column: 'permission_id', link: true },
    { table: 'user_permissions', column: 'permission_id', link: true },
  ],
  auth_groups: [
    { table: 'group_permissions', column: 'group_id', link: true },
    { table: 'user_groups', column: 'group_id', link: true },
  ],
} as const;
type AuthTable = keyof typeof REFERRERS;

export class AuthModels implements KeptRecords {
  private readonly records: AuthRecord[] = [];
  private readonly naturalLinks: NaturalLink[] = [];
  /** The users of the file: their groups and permissions are the file's, never moved with a row of the database. */
  private readonly fileUsers = new Set<number>();

  /** Keeps an auth model's record for the end; its pk may be absent (natural primary keys). */
  accept(spec: ModelSpec, pk: unknown, fields: Record<string, unknown>): void {
    if (pk !== undefined && pk !== null && !isPk(pk)) throw recordError(spec.model, pk, `pk must be a whole number from 1 to 2147483647, got ${show(pk)}`);
    this.records.push({ spec, pk: isPk(pk) ? pk : null, fields });
  }

  /** A record's fields: a user's with their natural-key references to groups and permissions taken out. */
  fieldsOf(spec: ModelSpec, pk: number, fields: Record<string, unknown>): Record<string, unknown> {
    return spec.model === 'users.user' ? this.userFields(pk, fields) : fields;
  }

  /** A user's fields with their natural-key references to groups and permissions taken out (kept to resolve at the end). */
  private userFields(userPk: number, fields: Record<string, unknown>): Record<string, unknown> {
    this.fileUsers.add(userPk);
    let copy: Record<string, unknown> | null = null;
    for (const field of ['groups', 'user_permissions'] as const) {
      const value = fields[field];
      if (!Array.isArray(value) || !value.some(Array.isArray)) continue;
      const length = field === 'groups' ? 1 : 3;
      for (const item of value) {
        if (!Array.isArray(item)) continue;
        if (item.length !== length || !item.every((part) => typeof part === 'string')) {
          throw recordError('users.user', userPk, `must list pks or natural keys (lists of ${length} strings), found ${show(item)}`, field);
        }
        this.naturalLinks.push({ userPk, field, key: item });
      }
      copy ??= { ...fields };
      copy[field] = value.filter((item) => !Array.isArray(item));
    }
    return copy ?? fields;
  }

  /** Writes the auth models' records (content types, then permissions, then groups), then the users' natural-key references. */
  async finish(db: Db, defaults: ImportDefaults): Promise<void> {
    const of = (model: string) => this.records.filter((r) => r.spec.model === model);
    await this.write(db, 'content_types', of('contenttypes.contenttype'), defaults, (fields) => naturalKey([fields.app_label, fields.model]));
    const permissions = of('auth.permission');
    for (const record of permissions) await this.resolveContentType(db, record);
    await this.write(db, 'auth_permissions', permissions, defaults, (fields) => naturalKey([String(fields.content_type), fields.codename]));
    const groups = of('auth.group');
    for (const record of groups) await this.resolvePermissions(db, record);
    await this.write(db, 'auth_groups', groups, defaults, (fields) => naturalKey([fields.name]));
    for (const link of this.naturalLinks) await this.writeNaturalLink(db, link);
  }

  /**
   * Gives every record its pk, moves the database's rows out of the file's way, and upserts.
   * `keyOf` gives a record's natural key from its fields (strings for the stored columns).
   */
  private async write(db: Db, table: AuthTable, records: AuthRecord[], defaults: ImportDefaults, keyOf: (fields: Record<string, unknown>) => string | null): Promise<void> {
    if (records.length === 0) return;
    const existing = new Map<number, string>();
    for (const row of await storedKeys(db, table)) existing.set(row.id, row.key);
    const existingByKey = new Map([...existing].map(([id, key]) => [key, id]));

    // The file's rows by pk and by natural key; a record without pk takes the pk of its key.
    const keys = records.map((record) => {
      const key = keyOf(record.fields);
      if (key === null) throw recordError(record.spec.model, record.pk ?? '(none)', 'its natural key is incomplete');
      return key;
    });
    const fileByKey = new Map<string, number>();
    records.forEach((record, i) => {
      if (record.pk !== null) {
        const holder = fileByKey.get(keys[i]);
        if (holder !== undefined && holder !== record.pk) throw recordError(record.spec.model, record.pk, `has the natural key of ${record.spec.model} pk ${holder} in this file`);
        fileByKey.set(keys[i], record.pk);
      }
    });
    let next = Math.max(0, ...existing.keys(), ...records.map((r) => r.pk ?? 0)) + 1;
    const fresh = () => {
      if (next > MAX_ID) throw new ImportError(`no pk is left for ${records[0].spec.model}`);
      return next++;
    };
    records.forEach((record, i) => {
      if (record.pk !== null) return;
      const pk = fileByKey.get(keys[i]) ?? existingByKey.get(keys[i]) ?? fresh();
      record.pk = pk;
      fileByKey.set(keys[i], pk);
    });
    const fileByPk = new Map([...fileByKey].map(([key, pk]) => [pk, key]));

    // Rows of the database in the file's way: parked at their negative id, then merged into the file's row of their key, or given a new pk.
    const displaced = [...existing].filter(([id, key]) => (fileByPk.has(id) && fileByPk.get(id) !== key) || (fileByKey.has(key) && fileByKey.get(key) !== id));
    for (const [id] of displaced) await moveRow(db, table, id, -id, this.fileUsers);
    for (const [id, key] of displaced) {
      const target = fileByKey.get(key);
      if (target === undefined) await moveRow(db, table, -id, fresh(), this.fileUsers);
      else await mergeRow(db, table, -id, target);
    }

    const spec = records[0].spec;
    const rows: PendingRow[] = [];
    for (const record of records) rows.push({ pk: record.pk!, ...readAuthRow(spec, record, defaults) });
    await upsertRows(db, spec, rows);
  }

  /** A permission's content type given as ["app_label", "model"]: its pk. */
  private async resolveContentType(db: Db, record: AuthRecord): Promise<void> {
    const value = record.fields.content_type;
    if (!Array.isArray(value)) return;
    if (value.length !== 2 || !value.every((part) => typeof part === 'string')) {
      throw recordError(record.spec.model, record.pk ?? '(none)', `must be a pk or ["app_label", "model"], got ${show(value)}`, 'content_type');
    }
    const [appLabel, model] = value as [string, string];
    const row = await db.selectFrom('content_types').select('id').where('app_label', '=', appLabel).where('model', '=', model).executeTakeFirst();
    if (!row)
      throw recordError(
        record.spec.model,
        record.pk ?? '(none)',
        `refers to contenttypes.contenttype ${show(value)}, which is neither in the file nor in the database`,
        'content_type',
      );
    record.fields = { ...record.fields, content_type: row.id };
  }

  /** A group's permissions given as natural keys: their pks. */
  private async resolvePermissions(db: Db, record: AuthRecord): Promise<void> {
    const value = record.fields.permissions;
    if (!Array.isArray(value) || !value.some(Array.isArray)) return;
    const pks: unknown[] = [];
    for (const item of value) {
      if (!Array.isArray(item)) pks.push(item);
      else pks.push(await permissionPk(db, item, (message) => recordError(record.spec.model, record.pk ?? '(none)', message, 'permissions')));
    }
    record.fields = { ...record.fields, permissions: pks };
  }

  private async writeNaturalLink(db: Db, link: NaturalLink): Promise<void> {
    const fail = (message: string) => recordError('users.user', link.userPk, message, link.field);
    if (link.field === 'groups') {
      const group = await db.selectFrom('auth_groups').select('id').where('name', '=', link.key[0]).executeTakeFirst();
      if (!group) throw fail(`refers to auth.group ${show(link.key)}, which is neither in the file nor in the database`);
      await db
        .insertInto('user_groups')
        .values({ user_id: link.userPk, group_id: group.id })
        .onConflict((oc) => oc.columns(['user_id', 'group_id']).doNothing())
        .execute();
    } else {
      const permission = await permissionPk(db, link.key, fail);
      await db
        .insertInto('user_permissions')
        .values({ user_id: link.userPk, permission_id: permission })
        .onConflict((oc) => oc.columns(['user_id', 'permission_id']).doNothing())
        .execute();
    }
  }
}

/** A permission's natural key ["codename", "app_label", "model"]: its pk. */
async function permissionPk(db: Db, key: unknown[], fail: (message: string) => ImportError): Promise<number> {
  if (key.length !== 3 || !key.every((part) => typeof part === 'string')) throw fail(`must list pks or ["codename", "app_label", "model"], found ${show(key)}`);
  const [codename, appLabel, model] = key as [string, string, string];
  const row = await db
    .selectFrom('auth_permissions as p')
    .innerJoin('content_types as ct', 'ct.id', 'p.content_type_id')
    .select('p.id')
    .where('p.codename', '=', codename)
    .where('ct.app_label', '=', appLabel)
    .where('ct.model', '=', model)
    .executeTakeFirst();
  if (!row) throw fail(`refers to auth.permission ${show(key)}, which is neither in the file nor in the database`);
  return row.id;
}

function naturalKey(parts: unknown[]): string | null {
  return parts.every((part) => typeof part === 'string') ? JSON.stringify(parts) : null;
}

/** The natural key of each stored row, as `naturalKey` writes the file's. */
async function storedKeys(db: Db, table: AuthTable): Promise<{ id: number; key: string }[]> {
  if (table === 'content_types') {
    const rows = await db.selectFrom('content_types').select(['id', 'app_label', 'model']).execute();
    return rows.map((r) => ({ id: r.id, key: JSON.stringify([r.app_label, r.model]) }));
  }
  if (table === 'auth_permissions') {
    const rows = await db.selectFrom('auth_permissions').select(['id', 'content_type_id', 'codename']).execute();
    return rows.map((r) => ({ id: r.id, key: JSON.stringify([String(r.content_type_id), r.codename]) }));
  }
  const rows = await db.selectFrom('auth_groups').select(['id', 'name']).execute();
  return rows.map((r) => ({ id: r.id, key: JSON.stringify([r.name]) }));
}

/**
 * Gives a row another pk, and every reference to it (foreign keys are checked at commit), but
 * those of the file's users: the file wrote them, and they mean the file's row of that pk.
 */
async function moveRow(db: Db, table: AuthTable, from: number, to: number, fileUsers: ReadonlySet<number>): Promise<void> {
  await db.updateTable(table).set({ id: to }).where('id', '=', from).execute();
  for (const { table: referrer, column } of REFERRERS[table]) {
    if (referrer === 'user_groups' || referrer === 'user_permissions') {
      const rows = (await db.selectFrom(referrer).select('user_id').where(column, '=', from).execute()).filter((row) => !fileUsers.has(row.user_id));
      for (const part of chunks(
        rows.map((row) => row.user_id),
        1000,
      )) {
        await db
          .updateTable(referrer)
          .set({ [column]: to })
          .where(column, '=', from)
          .where('user_id', 'in', part)
          .execute();
      }
      continue;
    }
    await db
      .updateTable(referrer)
      .set({ [column]: to })
      .where(column, '=', from)
      .execute();
  }
}

/** Folds a row into the row of pk `into` (the file's, about to be written): its references go there, the row goes. */
async function mergeRow(db: Db, table: AuthTable, from: number, into: number): Promise<void> {
  for (const { table: referrer, column, link } of REFERRERS[table]) {
    if (!link) {
      await db
        .updateTable(referrer)
        .set({ [column]: into })
        .where(column, '=', from)
        .execute();
      continue;
    }
    // A join table may already pair the other side with `into`: keep one row.
    const other = referrer === 'group_permissions' ? (column === 'group_id' ? 'permission_id' : 'group_id') : 'user_id';
    const rows = (await db.selectFrom(referrer).select(other).where(column, '=', from).execute()) as Record<string, number>[];
    await db.deleteFrom(referrer).where(column, '=', from).execute();
    for (const row of rows) {
      await db
        .insertInto(referrer)
        .values({ [column]: into, [other]: row[other] })
        .onConflict((oc) => oc.columns([column, other] as never).doNothing())
        .execute();
    }
  }
  await db.deleteFrom(table).where('id', '=', from).execute();
}

function readAuthRow(spec: ModelSpec, record: AuthRecord, defaults: ImportDefaults) {
  try {
    return spec.read(new FieldReader(record.fields, spec.privateFields), defaults, record.pk!);
  } catch (error) {
    if (error instanceof FieldError) throw recordError(spec.model, record.pk!, error.message, error.field);
    throw error;
  }
}
