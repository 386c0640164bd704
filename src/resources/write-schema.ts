import { Type, type SchemaOptions, type TSchema, type TUnsafe } from '@sinclair/typebox';
import { sql } from 'kysely';
import { engineOf, type Db } from '../db/connection.js';
import type { CountedTable } from '../db/tables.js';

/**
 * Building blocks of the writable-field schemas. Each resource has one TypeBox object of the
 * fields a client may write; it drives input validation (api/serializer.ts), DRF's OPTIONS
 * `actions` and, as JSON Schema, documentation. Values are typed as they are after validation:
 * a relation is written as a record URL but validated into an id.
 */
export type RelationTarget = 'users' | 'events';

/** Extra keywords our validator reads, alongside standard JSON Schema. */
export interface FieldKeywords {
  /** DRF's label (the model field's verbose name). */
  title: string;
  /** The collection a hyperlink must point into. */
  'x-relation'?: RelationTarget;
  /** Accepted, never returned (an e-mail address). */
  writeOnly?: boolean;
  /** Text that may not be empty (or only spaces): DRF's allow_blank=False. */
  'x-not-blank'?: boolean;
}

export function text(title: string, options: { maxLength?: number; notBlank?: boolean } = {}) {
  return Type.String({ title, ...(options.maxLength ? { maxLength: options.maxLength } : {}), ...(options.notBlank ? { 'x-not-blank': true } : {}) });
}

/** Django's EmailValidator, in spirit: one @, a dotted domain, no spaces. */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@.]+$/u;

export function email(title: string) {
  return Type.String({ title, format: 'email', maxLength: 254, writeOnly: true });
}

export function url(title: string, maxLength: number) {
  return Type.String({ title, format: 'uri', maxLength });
}

export function integer(title: string, minimum: number, maximum: number) {
  return Type.Integer({ title, minimum, maximum });
}

export function boolean(title: string) {
  return Type.Boolean({ title });
}

/** One of a fixed set of letters; `labels` are DRF's display names. */
export function choice<T extends string>(title: string, labels: Readonly<Record<T, string>>): TUnsafe<T> {
  return Type.Unsafe<T>({ type: 'string', enum: Object.keys(labels), title, 'x-labels': labels });
}

/** A hyperlink to one record of `target`, stored as its id. */
export function relation(title: string, target: RelationTarget): TUnsafe<number> {
  return Type.Unsafe<number>({ type: 'string', format: 'uri', title, 'x-relation': target });
}

export function relations(title: string, target: RelationTarget) {
  return Type.Array(relation(title, target), { title });
}

/** A date-time with its offset (or in the configured zone), stored as epoch microseconds. */
export function dateTime(title: string): TUnsafe<number> {
  return Type.Unsafe<number>({ type: 'string', format: 'date-time', title });
}

export function nullable<T extends TSchema>(schema: T, options: SchemaOptions = {}) {
  return Type.Union([schema, Type.Null()], { title: schema.title as string, ...options });
}

/**
 * The ids among `ids` that `table` has no row for: a write checks its relations inside its
 * transaction, so that a record it links to cannot vanish before it commits.
 */
export async function missingIds(db: Db, table: 'users' | 'events', ids: readonly number[]): Promise<Set<number>> {
  const wanted = [...new Set(ids)];
  const present = new Set<number>();
  for (const chunk of chunks(wanted)) {
    for (const row of await db.selectFrom(table).select('id').where('id', 'in', chunk).execute()) present.add(row.id);
  }
  return new Set(wanted.filter((id) => !present.has(id)));
}

/** SQLite takes at most 32,766 parameters per statement: long lists go in slices. */
const CHUNK_SIZE = 500;

function chunks<T>(items: readonly T[]): T[][] {
  const slices: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK_SIZE) slices.push(items.slice(i, i + CHUNK_SIZE));
  return slices;
}

/** Replaces the users linked to `ownerId` through a join table (participants, members). */
export async function replaceLinkedUsers(
  db: Db,
  table: 'project_participants' | 'meeting_members',
  ownerColumn: 'project_id' | 'meeting_id',
  ownerId: number,
  userIds: readonly number[],
): Promise<void> {
  await sql`delete from ${sql.table(table)} where ${sql.ref(ownerColumn)} = ${ownerId}`.execute(db);
  for (const chunk of chunks([...new Set(userIds)])) {
    await sql`insert into ${sql.table(table)} (${sql.ref(ownerColumn)}, user_id) values ${sql.join(chunk.map((id) => sql`(${ownerId}, ${id})`))}`.execute(db);
  }
}

/**
 * The id for a new record, or undefined to let the database choose: PostgreSQL's identities never
 * reuse an id; on SQLite, numbers above both the highest id in use and the highest ever deleted
 * (migration 0004), so that a deleted record's URL never comes to mean another record.
 */
export async function nextId(db: Db, table: CountedTable): Promise<number | undefined> {
  if (engineOf(db) === 'postgres') return undefined;
  const { rows } = await sql<{ id: number }>`select max(
      coalesce((select max(id) from ${sql.table(table)}), 0),
      coalesce((select id from deleted_id_high_water where collection = ${table}), 0)) + 1 as id`.execute(db);
  return rows[0].id;
}
