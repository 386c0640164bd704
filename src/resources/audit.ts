import type { Db } from '../db/connection.js';

/** One write made through the API. Paths are stored without their query; bodies never are. */
export interface AuditEntry {
  timeUs: number;
  tokenId: number | null;
  tokenName: string;
  method: string;
  path: string;
  collection: string;
  recordId: number | null;
  status: number;
}

const MAX_PATH_LENGTH = 2000;

/** How the audit names a change a member made on the website (`hackerspace-api audit`): the member and the web. */
export function webAuditName(username: string): string {
  return `web: ${username}`;
}

/** Appends an entry; call it in the write's own transaction, so that the log and the data agree. */
export async function recordAudit(db: Db, entry: AuditEntry): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      time_us: entry.timeUs,
      token_id: entry.tokenId,
      token_name: entry.tokenName,
      method: entry.method,
      path: entry.path.slice(0, MAX_PATH_LENGTH),
      collection: entry.collection,
      record_id: entry.recordId,
      status: entry.status,
    })
    .execute();
}

/** The newest entries first, at most `limit` of them. */
export async function listAudit(db: Db, limit: number): Promise<(AuditEntry & { id: number })[]> {
  const rows = await db.selectFrom('audit_log').selectAll().orderBy('id', 'desc').limit(limit).execute();
  return rows.map((row) => ({
    id: row.id,
    timeUs: Number(row.time_us),
    tokenId: row.token_id,
    tokenName: row.token_name,
    method: row.method,
    path: row.path,
    collection: row.collection,
    recordId: row.record_id,
    status: row.status,
  }));
}
