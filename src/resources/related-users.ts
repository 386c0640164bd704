import type { Db } from '../db/connection.js';

/**
 * Users linked to a set of owners through a join table (project participants, meeting members),
 * grouped by owner and ordered by username in code points, as the contract wants.
 */
export async function relatedUserIds(
  db: Db,
  table: 'project_participants' | 'meeting_members',
  ownerColumn: 'project_id' | 'meeting_id',
  ownerIds: number[],
): Promise<Map<number, number[]>> {
  const grouped = new Map<number, number[]>();
  if (ownerIds.length === 0) return grouped;
  const rows = await db
    .selectFrom(`${table} as link` as 'project_participants as link')
    .innerJoin('users', 'users.id', 'link.user_id')
    .select([`link.${ownerColumn}` as 'link.project_id', 'link.user_id'])
    .where(`link.${ownerColumn}` as 'link.project_id', 'in', ownerIds)
    .orderBy('users.username')
    .orderBy('users.id')
    .execute();
  for (const row of rows) {
    const owner = row.project_id;
    let list = grouped.get(owner);
    if (!list) grouped.set(owner, (list = []));
    list.push(row.user_id);
  }
  return grouped;
}
