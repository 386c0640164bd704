import { randomBytes, timingSafeEqual } from 'node:crypto';
import { said, type Said } from './said.js';
import type { Db } from '../../db/connection.js';
import type { MemberCaller, MemberTokens } from '../../drf/auth.js';
import { hashSecret, LAST_USED_RESOLUTION_US } from '../../resources/tokens.js';
import { rightsOf } from './rights.js';

/** Every member token's secret starts so: a lookup knows its table without trying the other (door and admin tokens are `hs_`). */
export const MEMBER_TOKEN_PREFIX = 'hsm_';

/** A member's personal API token as its owner sees it: never its secret. */
export interface MemberTokenInfo {
  id: number;
  userId: number;
  name: string;
  createdUs: number;
  lastUsedUs: number | null;
  revokedUs: number | null;
}

/** A token presented to the API, with its owner (active: an inactive owner's tokens are not found). */
export interface MemberTokenUse {
  token: MemberTokenInfo;
  username: string;
}

/** A request about a member token that cannot be carried out, with a message for the member. */
export class MemberTokenError extends Error {
  override name = 'MemberTokenError';
  constructor(
    message: string,
    /** The same, said in the page's language. */
    readonly said: Said,
  ) {
    super(message);
  }
}

const MAX_NAME_LENGTH = 100;
const columns = ['id', 'user_id', 'name', 'created_us', 'last_used_us', 'revoked_us'] as const;

export function isMemberTokenSecret(secret: string): boolean {
  return secret.startsWith(MEMBER_TOKEN_PREFIX);
}

/** A new token for a member, named by them; the secret is returned once and stored only as its SHA-256. */
export async function createMemberToken(db: Db, userId: number, name: string, nowUs: number): Promise<{ token: MemberTokenInfo; secret: string }> {
  const cleanName = name.trim();
  if (cleanName === '' || cleanName.length > MAX_NAME_LENGTH)
    throw new MemberTokenError(`A token's name must have 1 to ${MAX_NAME_LENGTH} characters.`, said('users.tokens.name-length', { max: MAX_NAME_LENGTH }));
  const taken = await db.selectFrom('member_tokens').select('id').where('user_id', '=', userId).where('name', '=', cleanName).where('revoked_us', 'is', null).executeTakeFirst();
  if (taken) throw new MemberTokenError(`You already have a token named ${JSON.stringify(cleanName)}.`, said('users.tokens.name-taken', { name: cleanName }));
  const secret = MEMBER_TOKEN_PREFIX + randomBytes(32).toString('base64url');
  const row = await db
    .insertInto('member_tokens')
    .values({ user_id: userId, name: cleanName, secret_hash: hashSecret(secret), created_us: nowUs })
    .returning(columns)
    .executeTakeFirstOrThrow();
  return { token: toInfo(row), secret };
}

/** A member's tokens that still work, oldest first, with their last use. */
export async function listMemberTokens(db: Db, userId: number): Promise<MemberTokenInfo[]> {
  const rows = await db.selectFrom('member_tokens').select(columns).where('user_id', '=', userId).where('revoked_us', 'is', null).orderBy('id').execute();
  return rows.map(toInfo);
}

/** Revokes one of the member's own tokens; false when they have no active token of that id. */
export async function revokeMemberToken(db: Db, userId: number, tokenId: number, nowUs: number): Promise<boolean> {
  const result = await db
    .updateTable('member_tokens')
    .set({ revoked_us: nowUs })
    .where('id', '=', tokenId)
    .where('user_id', '=', userId)
    .where('revoked_us', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Revokes every token of a member (for an administrator, or when an account is closed). */
export async function revokeMemberTokensOf(db: Db, userId: number, nowUs: number): Promise<void> {
  await db.updateTable('member_tokens').set({ revoked_us: nowUs }).where('user_id', '=', userId).where('revoked_us', 'is', null).execute();
}

/** The active token whose secret this is, when its owner is active too; undefined otherwise. */
export async function findMemberToken(db: Db, secret: string): Promise<MemberTokenUse | undefined> {
  if (!isMemberTokenSecret(secret)) return undefined;
  const hash = hashSecret(secret);
  const row = await db
    .selectFrom('member_tokens as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .select(['t.id', 't.user_id', 't.name', 't.created_us', 't.last_used_us', 't.revoked_us', 't.secret_hash', 'u.username'])
    .where('t.secret_hash', '=', hash)
    .where('t.revoked_us', 'is', null)
    .where('u.is_active', '=', 1)
    .executeTakeFirst();
  if (!row || !timingSafeEqual(Buffer.from(row.secret_hash, 'hex'), Buffer.from(hash, 'hex'))) return undefined;
  return { token: toInfo(row), username: row.username };
}

/** Notes that a token was used, at most once per LAST_USED_RESOLUTION_US; returns its last use as stored now. */
export async function touchMemberToken(db: Db, token: MemberTokenInfo, nowUs: number): Promise<number> {
  if (token.lastUsedUs !== null && nowUs - token.lastUsedUs < LAST_USED_RESOLUTION_US) return token.lastUsedUs;
  await db.updateTable('member_tokens').set({ last_used_us: nowUs }).where('id', '=', token.id).execute();
  return nowUs;
}

/** The members' tokens as the API's authentication checks them (drf/auth.ts): the owner acts with the rights they hold now, read afresh. */
export const MEMBER_TOKENS: MemberTokens = {
  isSecret: isMemberTokenSecret,
  async callerOf(db: Db, secret: string, nowUs: number): Promise<MemberCaller | undefined> {
    const found = await findMemberToken(db, secret);
    const owner = found ? await rightsOf(db, found.token.userId) : undefined;
    if (!found || !owner?.active) return undefined;
    await touchMemberToken(db, found.token, nowUs);
    return { scope: 'member', tokenId: found.token.id, tokenName: found.token.name, userId: found.token.userId, username: found.username, rights: owner.rights };
  },
};

function toInfo(row: { id: number; user_id: number; name: string; created_us: number; last_used_us: number | null; revoked_us: number | null }): MemberTokenInfo {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    createdUs: Number(row.created_us),
    lastUsedUs: row.last_used_us === null ? null : Number(row.last_used_us),
    revokedUs: row.revoked_us === null ? null : Number(row.revoked_us),
  };
}
