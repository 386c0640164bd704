import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { engineOf, type Db } from '../../db/connection.js';

/** Who is logged in, as pages and checks see them: never their e-mail address or password. */
export interface Member {
  id: number;
  username: string;
  firstName: string;
  lastName: string;
  isSuperuser: boolean;
  /** The language they chose for pages and mails; null for none. */
  language: string | null;
}

/** The columns of users a Member is made of (memberOf), for a query that joins users. */
export const MEMBER_COLUMNS = ['users.id', 'users.username', 'users.first_name', 'users.last_name', 'users.is_superuser', 'users.language'] as const;

export function memberOf(row: { id: number; username: string; first_name: string; last_name: string; is_superuser: number; language: string }): Member {
  return {
    id: row.id,
    username: row.username,
    firstName: row.first_name,
    lastName: row.last_name,
    isSuperuser: row.is_superuser !== 0,
    language: row.language === '' ? null : row.language,
  };
}

/** A live session: its member, the hash that names it in the database, and when it ends. */
export interface MemberSession {
  member: Member;
  idHash: string;
  expiresUs: number;
  /** When the member logged in: a new way to log in asks for a recent login (apps/users/handlers/passkeys.ts). */
  startedUs: number;
}

/** The viewer a request's facts carry (request/facts.ts) is a member's session. */
declare module '../../request/facts.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merged into the machinery's empty interface: it gains MemberSession's fields.
  interface SessionViewer extends MemberSession {}
}

const US_PER_HOUR = 3_600_000_000;
const US_PER_DAY = 24 * US_PER_HOUR;
/** Expired sessions deleted at most per prune, so that a login never pays for a long backlog. */
const PRUNE_BATCH = 100;
/** Longer than any id newSecret makes: a cookie this long is not ours, and is not hashed. */
const MAX_ID_LENGTH = 200;

/** 256 random bits, base64url (43 characters): a session id, or any other bearer secret. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** What the database keeps of a secret: its SHA-256 (hex). 256 random bits need no slow hash. */
export function hashSecretId(id: string): string {
  return createHash('sha256').update(id, 'utf8').digest('hex');
}

/**
 * Starts a session for the user and returns its id, for the cookie: always a new one (never the
 * id a browser came with), stored only as its hash. Also deletes a bounded batch of expired
 * sessions: logins are rare enough to carry that, and frequent enough to keep the table small.
 */
export async function startSession(db: Db, userId: number, nowUs: number, sessionDays: number): Promise<string> {
  const id = newSecret();
  await db
    .insertInto('sessions')
    .values({ id_hash: hashSecretId(id), user_id: userId, created_us: nowUs, last_seen_us: nowUs, expires_us: nowUs + sessionDays * US_PER_DAY })
    .execute();
  await pruneExpiredSessions(db, nowUs);
  return id;
}

/**
 * The session this id names, with its member; null when the id is unknown, the session expired
 * or its member is inactive. A session lasts sessionDays from its last use; the expiry is moved
 * only when it would move by more than an hour, so that reading pages does not write each time.
 */
export async function findSession(db: Db, id: string, nowUs: number, sessionDays: number): Promise<MemberSession | null> {
  if (id === '' || id.length > MAX_ID_LENGTH) return null;
  const idHash = hashSecretId(id);
  const row = await db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select(['sessions.id_hash', 'sessions.expires_us', 'sessions.created_us', 'users.is_active', ...MEMBER_COLUMNS])
    .where('sessions.id_hash', '=', idHash)
    .executeTakeFirst();
  if (!row || !timingSafeEqual(Buffer.from(row.id_hash, 'hex'), Buffer.from(idHash, 'hex'))) return null;
  if (row.expires_us <= nowUs || !row.is_active) return null;
  let expiresUs = row.expires_us;
  const slidTo = nowUs + sessionDays * US_PER_DAY;
  if (slidTo - expiresUs > US_PER_HOUR) {
    await db.updateTable('sessions').set({ last_seen_us: nowUs, expires_us: slidTo }).where('id_hash', '=', idHash).execute();
    expiresUs = slidTo;
  }
  return { member: memberOf(row), idHash, expiresUs, startedUs: row.created_us };
}

/** Logging out: the session ends at once, for every process. */
export async function endSession(db: Db, id: string): Promise<void> {
  await db.deleteFrom('sessions').where('id_hash', '=', hashSecretId(id)).execute();
}

/**
 * Ends every session of the user (deactivation, a password set by a link or an administrator),
 * or every one but keepId's (a member changing their own password stays logged in there).
 */
export async function endSessionsOf(db: Db, userId: number, keepId?: string): Promise<void> {
  let query = db.deleteFrom('sessions').where('user_id', '=', userId);
  if (keepId !== undefined) query = query.where('id_hash', '<>', hashSecretId(keepId));
  await query.execute();
}

/**
 * Deletes up to PRUNE_BATCH expired sessions (oldest expiry first, through sessions_expires).
 * startSession calls it; anything else may (a periodic task). Expired sessions are never found
 * anyway: this only keeps the table small. On PostgreSQL, rows another process is pruning are
 * skipped rather than waited for.
 */
export async function pruneExpiredSessions(db: Db, nowUs: number): Promise<number> {
  let batch = db.selectFrom('sessions').select('id_hash').where('expires_us', '<=', nowUs).orderBy('expires_us').limit(PRUNE_BATCH);
  if (engineOf(db) === 'postgres') batch = batch.forUpdate().skipLocked();
  const result = await db.deleteFrom('sessions').where('id_hash', 'in', batch).executeTakeFirst();
  return Number(result.numDeletedRows);
}
