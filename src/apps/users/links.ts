import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../../db/connection.js';

/**
 * One-time set-password links (members.md §4): `/accounts/set-password/<token>/`. The token is
 * 256 random bits; the database keeps only its SHA-256, so that a copy of the database (a backup)
 * opens no account. A link works once, until it expires, and not after any password change of
 * its member (accounts.ts deletes their links).
 */
export type LinkPurpose = 'invitation' | 'reset' | 'first-superuser';

/** The links made for an existing member (mailed to them, or handed over). */
export type MemberLinkPurpose = Exclude<LinkPurpose, 'first-superuser'>;

const HOUR_US = 3600 * 1_000_000;

/** How long each kind of link works (§4: 72 h for an invitation, 1 h for a reset). */
export const LINK_VALIDITY_US: Readonly<Record<LinkPurpose, number>> = {
  invitation: 72 * HOUR_US,
  reset: 1 * HOUR_US,
  // Not in the spec: printed in a log at every start, so bounded like an invitation.
  'first-superuser': 72 * HOUR_US,
};

/** The path of a link's page, below the site's base URL. */
export function setPasswordPath(token: string): string {
  return `/accounts/set-password/${token}/`;
}

/** What a valid link opens. */
export interface PasswordLink {
  /** Null for the link that creates the first superuser. */
  userId: number | null;
  purpose: LinkPurpose;
  /** The member's username (null for the first-superuser link), for the page's heading. */
  username: string | null;
  expiresUs: number;
}

/** SHA-256 of a token, hex: what password_links.token_hash holds. */
export function hashLinkToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** 43 base64url characters: anything else is no token of ours and is not looked up. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/**
 * A new link for `userId` (null only for 'first-superuser'), valid from `nowUs`. Returns the
 * token, shown once. The member's expired links are pruned on the way. Runs in the caller's
 * transaction.
 */
export async function createPasswordLink(db: Db, userId: number | null, purpose: LinkPurpose, nowUs: number): Promise<string> {
  if ((userId === null) !== (purpose === 'first-superuser')) throw new Error(`a ${purpose} link ${userId === null ? 'needs' : 'takes no'} member`);
  const token = randomBytes(32).toString('base64url');
  if (userId !== null) await db.deleteFrom('password_links').where('user_id', '=', userId).where('expires_us', '<=', nowUs).execute();
  await db
    .insertInto('password_links')
    .values({ token_hash: hashLinkToken(token), user_id: userId, purpose, created_us: nowUs, expires_us: nowUs + LINK_VALIDITY_US[purpose], used_us: null })
    .execute();
  return token;
}

/**
 * The link `token` opens at `nowUs`, or null when it is unknown, used, expired, its member is
 * gone or inactive, or (first-superuser) a superuser exists by now.
 */
export async function findPasswordLink(db: Db, token: string, nowUs: number): Promise<PasswordLink | null> {
  if (!TOKEN_SHAPE.test(token)) return null;
  const wanted = hashLinkToken(token);
  const row = await db
    .selectFrom('password_links')
    .leftJoin('users', 'users.id', 'password_links.user_id')
    .select([
      'password_links.token_hash',
      'password_links.user_id',
      'password_links.purpose',
      'password_links.expires_us',
      'password_links.used_us',
      'users.username',
      'users.is_active',
    ])
    .where('password_links.token_hash', '=', wanted)
    .executeTakeFirst();
  // The index found it by its hash; comparing the hashes again in constant time costs nothing.
  if (!row || !timingSafeEqual(Buffer.from(row.token_hash), Buffer.from(wanted))) return null;
  if (row.used_us !== null || row.expires_us <= nowUs) return null;
  if (row.purpose === 'first-superuser') {
    if (await superuserExists(db)) return null;
  } else if (row.user_id === null || row.is_active !== 1) {
    return null;
  }
  return { userId: row.user_id, purpose: row.purpose, username: row.username ?? null, expiresUs: row.expires_us };
}

/**
 * Marks the link used, in the caller's (write) transaction, when it is still valid: the link
 * found, else null. Two requests racing with one link: the second finds it used.
 */
export async function usePasswordLink(db: Db, token: string, nowUs: number): Promise<PasswordLink | null> {
  const link = await findPasswordLink(db, token, nowUs);
  if (!link) return null;
  const used = await db.updateTable('password_links').set({ used_us: nowUs }).where('token_hash', '=', hashLinkToken(token)).where('used_us', 'is', null).executeTakeFirst();
  return used.numUpdatedRows === 1n ? link : null;
}

/** Deletes every link of a member: after a password change none of them may work. */
export async function voidLinksOf(db: Db, userId: number): Promise<void> {
  await db.deleteFrom('password_links').where('user_id', '=', userId).execute();
}

/** Deletes the first-superuser links nobody used (a new start makes a new one). */
export async function voidFirstSuperuserLinks(db: Db): Promise<void> {
  await db.deleteFrom('password_links').where('purpose', '=', 'first-superuser').where('used_us', 'is', null).execute();
}

/** Whether an active superuser exists: until one does, `serve` offers the first-superuser link. */
export async function superuserExists(db: Db): Promise<boolean> {
  const row = await db.selectFrom('users').select('id').where('is_superuser', '=', 1).where('is_active', '=', 1).limit(1).executeTakeFirst();
  return row !== undefined;
}
