import type { Db } from '../../db/connection.js';
import { said, type Said } from './said.js';
import { foldCase, updateUser } from './users.js';
import { directRightsOf, grantRights, groupsOf, revokeRights, RIGHTS, setMemberGroups, type Right } from './rights.js';
import { endSessionsOf } from './sessions.js';

/**
 * What the superusers' admin pages read and change about members (members.md §3, §4): a search
 * that pages through thousands of members, one member's flags, groups and direct rights, and
 * every member token. Free of HTTP; the caller owns the (announced) write transaction.
 */

/** A change the admin pages refuse, with a message fit for the page. */
export class AdminError extends Error {
  override name = 'AdminError';
  constructor(
    message: string,
    /** The same, said in the page's language. */
    readonly said: Said,
  ) {
    super(message);
  }
}

/** One row of the members' search. */
export interface MemberSummary {
  id: number;
  username: string;
  active: boolean;
  hasKey: boolean;
  superuser: boolean;
  groups: string[];
}

export interface MemberSearch {
  members: MemberSummary[];
  /** How many members match in all. */
  total: number;
  /** The page shown, from 1, clamped to the pages there are. */
  page: number;
  pages: number;
}

export const MEMBERS_PER_PAGE = 50;

/**
 * Members whose username contains `query` ignoring case (in the full Unicode sense, as the
 * original compares names: SQL's lower() is ASCII-only on SQLite), those that start with it
 * first, then by name. One scan of the names (a few thousand short strings), then the page's
 * details only.
 */
export async function searchMembers(db: Db, query: string, page: number, perPage = MEMBERS_PER_PAGE): Promise<MemberSearch> {
  const wanted = foldCase(query.trim());
  const names = await db.selectFrom('users').select(['id', 'username']).execute();
  const matching = names
    .map((row) => ({ ...row, folded: foldCase(row.username) }))
    .filter((row) => row.folded.includes(wanted))
    .sort((a, b) => rank(a.folded, wanted) - rank(b.folded, wanted) || compare(a.folded, b.folded) || a.id - b.id);
  const pages = Math.max(1, Math.ceil(matching.length / perPage));
  const shown = Math.min(Math.max(1, Math.trunc(page)), pages);
  const ids = matching.slice((shown - 1) * perPage, shown * perPage).map((row) => row.id);
  return { members: await summariesOf(db, ids), total: matching.length, page: shown, pages };
}

function rank(folded: string, wanted: string): number {
  return folded.startsWith(wanted) ? 0 : 1;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The members named by `ids`, in that order, with their groups. */
async function summariesOf(db: Db, ids: readonly number[]): Promise<MemberSummary[]> {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom('users').select(['id', 'username', 'is_active', 'has_key', 'is_superuser']).where('id', 'in', ids).execute();
  const memberships = await db
    .selectFrom('user_groups as ug')
    .innerJoin('auth_groups as g', 'g.id', 'ug.group_id')
    .select(['ug.user_id', 'g.name'])
    .where('ug.user_id', 'in', ids)
    .orderBy('g.name')
    .execute();
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    if (!row) return [];
    return [
      {
        id,
        username: row.username,
        active: row.is_active === 1,
        hasKey: row.has_key === 1,
        superuser: row.is_superuser === 1,
        groups: memberships.filter((m) => m.user_id === id).map((m) => m.name),
      },
    ];
  });
}

/** One member as the edit page shows them. */
export interface MemberForAdmin extends MemberSummary {
  groupIds: number[];
  /** The rights among the nine granted to them directly (not through a group). */
  directRights: Right[];
  /** Whether their stored password can log in: a link for them is a reset, else an invitation. */
  hasUsablePassword: boolean;
  /** Where their link is mailed ('' for none); the pages never show it. */
  email: string;
  /** The language they chose for their pages and mails ('' for none): their link's mail is in it. */
  language: string;
}

export async function memberForAdmin(db: Db, id: number): Promise<MemberForAdmin | null> {
  const row = await db
    .selectFrom('users')
    .select(['id', 'username', 'email', 'is_active', 'has_key', 'is_superuser', 'password', 'language'])
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) return null;
  const groups = await groupsOf(db, id);
  const direct = await directRightsOf(db, id);
  return {
    id,
    username: row.username,
    active: row.is_active === 1,
    hasKey: row.has_key === 1,
    superuser: row.is_superuser === 1,
    groups: groups.map((g) => g.name),
    groupIds: groups.map((g) => g.id),
    directRights: RIGHTS.filter((r) => direct.has(r)),
    // Django's unusable passwords start with `!`; an empty one is unusable too.
    hasUsablePassword: row.password !== '' && !row.password.startsWith('!'),
    email: row.email,
    language: row.language,
  };
}

/** What a superuser sets on a member's page. */
export interface MemberChanges {
  active: boolean;
  hasKey: boolean;
  superuser: boolean;
  groupIds: readonly number[];
  directRights: readonly Right[];
}

/**
 * Sets a member's flags, groups and direct rights, in the caller's write transaction; false when
 * there is no such member. `has_key` goes through the API's own update (users.ts), so edited
 * moves as an API write would move it; the users table's version moves with any change, which
 * ends cached pages and answers. Deactivating ends the member's sessions at once. A superuser may
 * neither deactivate themselves nor drop their own superuser flag (the site would lose its last
 * way in): AdminError.
 */
export async function updateMemberAccount(db: Db, actorId: number, memberId: number, changes: MemberChanges, nowUs: number): Promise<boolean> {
  const before = await memberForAdmin(db, memberId);
  if (!before) return false;
  if (memberId === actorId && !changes.active) throw new AdminError('You cannot deactivate your own account.', said('users.admin.self-deactivate'));
  if (memberId === actorId && !changes.superuser) throw new AdminError('You cannot remove your own superuser status.', said('users.admin.self-superuser'));
  if (changes.hasKey !== before.hasKey) await updateUser(db, memberId, { has_key: changes.hasKey }, nowUs);
  if (changes.active !== before.active || changes.superuser !== before.superuser) {
    await db
      .updateTable('users')
      .set({ is_active: changes.active ? 1 : 0, is_superuser: changes.superuser ? 1 : 0, edited_us: nowUs })
      .where('id', '=', memberId)
      .execute();
  }
  if (!changes.active && before.active) await endSessionsOf(db, memberId);
  await setMemberGroups(db, memberId, changes.groupIds);
  const wanted = new Set(changes.directRights);
  await grantRights(
    db,
    memberId,
    RIGHTS.filter((r) => wanted.has(r) && !before.directRights.includes(r)),
  );
  await revokeRights(
    db,
    memberId,
    before.directRights.filter((r) => !wanted.has(r)),
  );
  return true;
}

/** A member token as the admin page lists it: never its secret. */
export interface MemberTokenRow {
  id: number;
  ownerId: number;
  owner: string;
  name: string;
  createdUs: number;
  lastUsedUs: number | null;
  revokedUs: number | null;
}

/** Every member's personal API tokens, the newest first. */
export async function listAllMemberTokens(db: Db): Promise<MemberTokenRow[]> {
  const rows = await db
    .selectFrom('member_tokens as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .select(['t.id', 't.user_id', 'u.username', 't.name', 't.created_us', 't.last_used_us', 't.revoked_us'])
    .orderBy('t.id', 'desc')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    ownerId: row.user_id,
    owner: row.username,
    name: row.name,
    createdUs: Number(row.created_us),
    lastUsedUs: row.last_used_us === null ? null : Number(row.last_used_us),
    revokedUs: row.revoked_us === null ? null : Number(row.revoked_us),
  }));
}

/** Revokes any member's token by its id; false when there is no such active token. */
export async function revokeAnyMemberToken(db: Db, tokenId: number, nowUs: number): Promise<boolean> {
  const result = await db.updateTable('member_tokens').set({ revoked_us: nowUs }).where('id', '=', tokenId).where('revoked_us', 'is', null).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
