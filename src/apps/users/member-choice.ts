import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';
import type { MemberChoice } from '../../web/record-forms.js';

/**
 * Members as a form offers them to choose from (participants, members present, maintainer,
 * organizer: members.md §4): by username, never by e-mail address, a few at a time, so that a
 * space of 2,000 members gets a search, not 2,000 checkboxes.
 */

/** At most this many matches are listed; the search says when there are more. */
export const MEMBER_MATCHES = 20;

/** Active members whose username contains `query` (any case), by username; one more than listed tells that there are more. */
export async function findMembers(db: Db, query: string, limit = MEMBER_MATCHES): Promise<{ matches: MemberChoice[]; more: boolean }> {
  const words = query.trim().toLowerCase();
  if (words === '') return { matches: [], more: false };
  // LIKE's own characters in what was typed are matched as themselves.
  const pattern = `%${words.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const rows = await db
    .selectFrom('users')
    .select(['id', 'username'])
    .where('is_active', '=', 1)
    .where(sql<boolean>`lower(username) like ${pattern} escape '\\'`)
    .orderBy('username')
    .orderBy('id')
    .limit(limit + 1)
    .execute();
  return { matches: rows.slice(0, limit), more: rows.length > limit };
}

/** The members among `ids` (those that exist), in the order given. */
export async function membersById(db: Db, ids: readonly number[]): Promise<MemberChoice[]> {
  const wanted = [...new Set(ids)].slice(0, 1000);
  if (wanted.length === 0) return [];
  const rows = await db.selectFrom('users').select(['id', 'username']).where('id', 'in', wanted).execute();
  const byId = new Map(rows.map((row) => [row.id, row]));
  return wanted.flatMap((id) => byId.get(id) ?? []);
}
