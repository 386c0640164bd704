import { Type, type Static } from '@sinclair/typebox';
import type { Db } from '../db/connection.js';
import { countRecords } from './counts.js';
import type { PageWindow, RecordContext } from './record-context.js';

export const UserRecord = Type.Object({
  username: Type.String(),
  avatar: Type.String({ description: 'Protocol-relative avatar URL; published as `gravatar` when AVATAR_FIELD=gravatar' }),
  has_key: Type.Boolean(),
});
export type UserRecord = Static<typeof UserRecord>;

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
  return db.selectFrom('users').select(columns).orderBy('username').orderBy('id')
    .limit(window.limit).offset(window.offset).execute();
}

export function findUser(db: Db, id: number): Promise<UserRow | undefined> {
  return db.selectFrom('users').select(columns).where('id', '=', id).executeTakeFirst();
}

/** The record under the name old clients know the avatar field by (AVATAR_FIELD=gravatar). */
export type GravatarUserRecord = Omit<UserRecord, 'avatar'> & { gravatar: string };

export function userRecord(row: UserRow, ctx: RecordContext): UserRecord | GravatarUserRecord {
  const avatar = ctx.avatar(row.email);
  return ctx.avatarField === 'avatar'
    ? { username: row.username, avatar, has_key: row.has_key === 1 }
    : { username: row.username, gravatar: avatar, has_key: row.has_key === 1 };
}
