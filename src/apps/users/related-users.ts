import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';

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
  const owner = sql.ref<number>(`link.${ownerColumn}`);
  const rows = await db
    .selectFrom(sql.table(table).as('link') as unknown as 'project_participants as link')
    .innerJoin('users', 'users.id', 'link.user_id')
    .select([owner.as('owner_id'), 'link.user_id'])
    .where(owner, 'in', ownerIds)
    .orderBy('users.username')
    .orderBy('users.id')
    .execute();
  for (const row of rows) {
    let list = grouped.get(row.owner_id);
    if (!list) grouped.set(row.owner_id, (list = []));
    list.push(row.user_id);
  }
  return grouped;
}
