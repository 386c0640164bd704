import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../db/connection.js';

/** `door` records openings, `admin` writes everything, `kiosk` records purchases and their undo at the kiosk (ledger.md §4). */
export const TOKEN_SCOPES = ['door', 'admin', 'kiosk'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

/** A token as operators see it: never its secret. */
export interface TokenInfo {
  id: number;
  name: string;
  scope: TokenScope;
  createdUs: number;
  lastUsedUs: number | null;
  revokedUs: number | null;
}

/** A request that cannot be carried out (bad name, unknown token…), with a message for the operator. */
export class TokenError extends Error {
  override name = 'TokenError';
}

const MAX_NAME_LENGTH = 100;
const SECRET_PREFIX = 'hs_';

/**
 * Secrets are 32 random bytes, so a fast hash is enough to store them safely (no dictionary to
 * guess from); lookups go by hash, and the final comparison is constant-time.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export async function createToken(db: Db, name: string, scope: string, nowUs: number): Promise<{ token: TokenInfo; secret: string }> {
  const cleanName = name.trim();
  if (cleanName === '' || cleanName.length > MAX_NAME_LENGTH) throw new TokenError(`a token name must have 1 to ${MAX_NAME_LENGTH} characters`);
  if (!(TOKEN_SCOPES as readonly string[]).includes(scope)) throw new TokenError(`the scope must be one of ${TOKEN_SCOPES.join(', ')}, got ${JSON.stringify(scope)}`);
  const taken = await db.selectFrom('api_tokens').select('id').where('name', '=', cleanName).where('revoked_us', 'is', null).executeTakeFirst();
  if (taken) throw new TokenError(`a token named ${JSON.stringify(cleanName)} already exists (revoke it first)`);
  const secret = SECRET_PREFIX + randomBytes(32).toString('base64url');
  const row = await db
    .insertInto('api_tokens')
    .values({ name: cleanName, scope, secret_hash: hashSecret(secret), created_us: nowUs })
    .returning(['id', 'name', 'scope', 'created_us', 'last_used_us', 'revoked_us'])
    .executeTakeFirstOrThrow();
  return { token: toInfo(row), secret };
}

export async function listTokens(db: Db): Promise<TokenInfo[]> {
  const rows = await db.selectFrom('api_tokens').select(['id', 'name', 'scope', 'created_us', 'last_used_us', 'revoked_us']).orderBy('id').execute();
  return rows.map(toInfo);
}

/** Revokes the active token with this name, or with this id; throws when there is none. */
export async function revokeToken(db: Db, nameOrId: string, nowUs: number): Promise<TokenInfo> {
  const active = db.selectFrom('api_tokens').select(['id', 'name', 'scope', 'created_us', 'last_used_us', 'revoked_us']).where('revoked_us', 'is', null);
  const byName = await active.where('name', '=', nameOrId.trim()).executeTakeFirst();
  const row = byName ?? (/^\d+$/.test(nameOrId.trim()) ? await active.where('id', '=', Number(nameOrId.trim())).executeTakeFirst() : undefined);
  if (!row) throw new TokenError(`no active token named or numbered ${JSON.stringify(nameOrId)}`);
  await db.updateTable('api_tokens').set({ revoked_us: nowUs }).where('id', '=', row.id).execute();
  return toInfo({ ...row, revoked_us: nowUs });
}

/** Revokes the active token with this id (the admin page's button: an id, never a name); false when there is none. */
export async function revokeTokenById(db: Db, id: number, nowUs: number): Promise<boolean> {
  const result = await db.updateTable('api_tokens').set({ revoked_us: nowUs }).where('id', '=', id).where('revoked_us', 'is', null).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The active token whose secret this is, or undefined. */
export async function findToken(db: Db, secret: string): Promise<TokenInfo | undefined> {
  const hash = hashSecret(secret);
  const row = await db
    .selectFrom('api_tokens')
    .select(['id', 'name', 'scope', 'created_us', 'last_used_us', 'revoked_us', 'secret_hash'])
    .where('secret_hash', '=', hash)
    .where('revoked_us', 'is', null)
    .executeTakeFirst();
  if (!row || !timingSafeEqual(Buffer.from(row.secret_hash, 'hex'), Buffer.from(hash, 'hex'))) return undefined;
  return toInfo(row);
}

function toInfo(row: { id: number; name: string; scope: string; created_us: number; last_used_us: number | null; revoked_us: number | null }): TokenInfo {
  return {
    id: row.id,
    name: row.name,
    scope: row.scope as TokenScope,
    createdUs: Number(row.created_us),
    lastUsedUs: row.last_used_us === null ? null : Number(row.last_used_us),
    revokedUs: row.revoked_us === null ? null : Number(row.revoked_us),
  };
}

/** How stale a token's last-use time may get: bounds the writes that bookkeeping costs. */
export const LAST_USED_RESOLUTION_US = 60_000_000;

/** Notes that a token was used, at most once per LAST_USED_RESOLUTION_US; returns its last use as stored now. */
export async function touchToken(db: Db, token: TokenInfo, nowUs: number): Promise<number> {
  if (token.lastUsedUs !== null && nowUs - token.lastUsedUs < LAST_USED_RESOLUTION_US) return token.lastUsedUs;
  await db.updateTable('api_tokens').set({ last_used_us: nowUs }).where('id', '=', token.id).execute();
  return nowUs;
}
