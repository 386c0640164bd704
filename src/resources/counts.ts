import type { Db } from '../db/connection.js';
import type { CountedTable } from '../db/tables.js';

/** Number of records in a collection, kept by triggers: one indexed row read, no table scan. */
export async function countRecords(db: Db, table: CountedTable): Promise<number> {
  const row = await db.selectFrom('collection_counts').select('n').where('collection', '=', table).executeTakeFirst();
  return row ? Number(row.n) : 0;
}
