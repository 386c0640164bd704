import { Type, type Static } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';
import type { ReferenceTo } from '../../db/tables.js';
import { unusablePassword } from '../../db/unusable-password.js';
import { countRecords } from '../../resources/counts.js';
import type { PageWindow, RecordContext } from '../../resources/record-context.js';
import { ConflictError, FieldErrors } from '../../resources/write-errors.js';
import { boolean, email, text, nextId } from '../../resources/write-schema.js';

export const UserRecord = Type.Object({
  username: Type.String(),
  avatar: Type.String({ description: 'Protocol-relative avatar URL; published as `gravatar` when AVATAR_FIELD=gravatar' }),
  has_key: Type.Boolean(),
});
export type UserRecord = Static<typeof UserRecord>;

/**
 * What a client may write. The e-mail address is only ever used for the avatar hash: accepted,
 * never returned.
 */
export const UserFields = Type.Object({
  username: text('Username', { maxLength: 150, notBlank: true }),
  email: Type.Optional(email('Email address')),
  has_key: Type.Optional(boolean('Has key')),
});
export type UserInput = Static<typeof UserFields>;

interface UserRow {
  id: number;
  username: string;
  email: string;
  has_key: number;
}

const columns = ['id', 'username', 'email', 'has_key'] as const;

export function countUsers(db: Db): Promise<number> {
  return countRecords(db, 'users');
}

/** Users in code-point order of their names (SQLite's BINARY collation on UTF-8). */
export function listUsers(db: Db, window: PageWindow): Promise<UserRow[]> {
  return db.selectFrom('users').select(columns).orderBy('username').orderBy('id').limit(window.limit).offset(window.offset).execute();
}

export function findUser(db: Db, id: number): Promise<UserRow | undefined> {
  return db.selectFrom('users').select(columns).where('id', '=', id).executeTakeFirst();
}

/** Usernames of the users who have a key, in code-point order (names only: never an e-mail). */
export async function keyHolderNames(db: Db): Promise<string[]> {
  const rows = await db.selectFrom('users').select('username').where('has_key', '=', 1).orderBy('username').orderBy('id').execute();
  return rows.map((row) => row.username);
}

/** The record under the name old clients know the avatar field by (AVATAR_FIELD=gravatar). */
export type GravatarUserRecord = Omit<UserRecord, 'avatar'> & { gravatar: string };

export function userRecord(row: UserRow, ctx: RecordContext): UserRecord | GravatarUserRecord {
  const avatar = ctx.avatar(row.email);
  return ctx.avatarField === 'avatar' ? { username: row.username, avatar, has_key: row.has_key === 1 } : { username: row.username, gravatar: avatar, has_key: row.has_key === 1 };
}

export const USERNAME_TAKEN = 'A user with that username already exists.';

/** Case-insensitive in the full Unicode sense (`Straße` and `STRASSE` are one name), as the original enforced. */
export function foldCase(name: string): string {
  return name.toUpperCase().toLowerCase();
}

/**
 * Whether another user already has this name, ignoring case. SQL's lower() is ASCII-only on
 * SQLite and under PostgreSQL's "C" collation, so the names are compared here: one scan of a
 * column of a few thousand short strings, on a rare write.
 */
async function usernameTaken(db: Db, username: string, exceptId: number | null): Promise<boolean> {
  const wanted = foldCase(username);
  const rows = await db.selectFrom('users').select(['id', 'username']).execute();
  return rows.some((row) => row.id !== exceptId && foldCase(row.username) === wanted);
}

/**
 * The user a name in an address designates (the original's `/accounts/<username>`): the one of
 * that name, else the one whose name it is ignoring case (foldCase; compared here, as
 * usernameTaken does), the oldest should several differ only in case.
 */
export async function userIdByName(db: Db, name: string): Promise<number | null> {
  const exact = await db.selectFrom('users').select('id').where('username', '=', name).executeTakeFirst();
  if (exact) return exact.id;
  const wanted = foldCase(name);
  const rows = await db.selectFrom('users').select(['id', 'username']).orderBy('id').execute();
  return rows.find((row) => foldCase(row.username) === wanted)?.id ?? null;
}

/** The original's other fields take its model defaults (schema.ts); created and edited are now. */
export async function createUser(db: Db, input: UserInput, nowUs: number): Promise<number> {
  if (await usernameTaken(db, input.username, null)) throw new FieldErrors({ username: [USERNAME_TAKEN] });
  const row = await db
    .insertInto('users')
    .values({
      id: await nextId(db, 'users'),
      username: input.username,
      email: input.email ?? '',
      has_key: input.has_key ? 1 : 0,
      password: unusablePassword(),
      created_us: nowUs,
      edited_us: nowUs,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Sets the given fields, and edited (the original's auto_now: every save); false when there is no such user. */
export async function updateUser(db: Db, id: number, input: Partial<UserInput>, nowUs: number): Promise<boolean> {
  if (!(await findUser(db, id))) return false;
  if (input.username !== undefined && (await usernameTaken(db, input.username, id))) throw new FieldErrors({ username: [USERNAME_TAKEN] });
  const values: { username?: string; email?: string; has_key?: number; edited_us: number } = { edited_us: nowUs };
  if (input.username !== undefined) values.username = input.username;
  if (input.email !== undefined) values.email = input.email;
  if (input.has_key !== undefined) values.has_key = input.has_key ? 1 : 0;
  await db.updateTable('users').set(values).where('id', '=', id).execute();
  return true;
}

/**
 * How the 409 names a user's hold on a record that keeps them: one wording per refusing foreign key
 * to users (the apps' tables.ts), in the tables' order; `role` where another member can take it
 * over, none where the record is history that must keep its member (the ledger).
 */
const HOLDS: Readonly<Record<ReferenceTo<'users', 'restrict' | 'no action'>, { verb: string; noun: string; role?: string }>> = {
  'projects.maintainer_id': { verb: 'maintains', noun: 'project', role: 'maintainer' },
  'events.organizer_id': { verb: 'organizes', noun: 'event', role: 'organizer' },
  'stock_restocks.recorded_by': { verb: 'recorded', noun: 'restocking' },
  'ledger_entries.user_id': { verb: 'has', noun: 'ledger entry' },
  'ledger_entries.counterpart_id': { verb: 'received or sent', noun: 'transfer entry' },
  'ledger_entries.recorded_by': { verb: 'recorded', noun: 'ledger entry' },
  'stock_payments.user_id': { verb: 'recorded', noun: 'payment' },
  'stock_refunds.user_id': { verb: 'asked for', noun: 'refund' },
};

/**
 * Deletes a user and the join rows that name them (participations, meeting attendances, …: the
 * foreign keys to users that cascade, which the database follows); refused while a record refuses
 * to lose them (a project they maintain, an event they organize, their money's history), which
 * would otherwise be left without one.
 */
export async function deleteUser(db: Db, id: number): Promise<boolean> {
  if (!(await findUser(db, id))) return false;
  const uses: string[] = [];
  let held = 0;
  let history = false;
  for (const [key, hold] of Object.entries(HOLDS)) {
    const [table, column] = key.split('.');
    const rows = (await sql<{ id: number }>`select id from ${sql.table(table)} where ${sql.ref(column)} = ${id} order by id limit 11`.execute(db)).rows;
    if (rows.length === 0) continue;
    uses.push(`${hold.verb} ${listIds(hold.noun, rows)}`);
    held += rows.length;
    if (hold.role === undefined) history = true;
  }
  if (held > 0) {
    const roles = Object.values(HOLDS).flatMap((hold) => (hold.role === undefined ? [] : [hold.role]));
    const remedy = history ? 'make them inactive instead' : `give ${held > 1 ? 'them' : 'it'} another ${roles.join(' or ')} first`;
    throw new ConflictError(`This user ${uses.join(' and ')}; ${remedy}.`);
  }
  await db.deleteFrom('users').where('id', '=', id).execute();
  return true;
}

function listIds(noun: string, rows: { id: number }[]): string {
  const shown = rows.slice(0, 10).map((r) => r.id);
  const plural = rows.length > 1 ? (noun.endsWith('y') ? `${noun.slice(0, -1)}ies` : `${noun}s`) : noun;
  return `${plural} ${shown.join(', ')}${rows.length > 10 ? ', …' : ''}`;
}
