import type { Db } from '../../db/connection.js';
import { foldCase } from './users.js';
import { createMember } from './accounts.js';
import type { ProviderIdentity } from './oidc-client.js';
import { MEMBER_COLUMNS, memberOf, type Member } from './sessions.js';

/**
 * Who a person logging in through the OpenID provider is here (members.md §5): the member their
 * subject was linked to before; else the one member whose address is the one the provider says
 * it verified, and the subject is linked to them, so that a later change of address at the
 * provider keeps the member; else, with OIDC_CREATE_MEMBERS, a new member with no rights. An
 * inactive member is refused. Call it in a write transaction (a link or a member may be added).
 */
export type SsoOutcome =
  | { kind: 'member'; member: Member; found: 'link' | 'email' | 'created' }
  | { kind: 'inactive' }
  | { kind: 'unknown' }
  /** Several members have the verified address: no way to tell which. */
  | { kind: 'ambiguous' };

const USER_COLUMNS = [...MEMBER_COLUMNS, 'users.is_active'] as const;
const MAX_USERNAME = 150;

interface UserRow {
  id: number;
  username: string;
  first_name: string;
  last_name: string;
  is_superuser: number;
  is_active: number;
  language: string;
}

export async function memberForIdentity(db: Db, identity: ProviderIdentity, options: { createMembers: boolean }, nowUs: number): Promise<SsoOutcome> {
  const linked = await db
    .selectFrom('oidc_links')
    .innerJoin('users', 'users.id', 'oidc_links.user_id')
    .select(USER_COLUMNS)
    .where('oidc_links.issuer', '=', identity.issuer)
    .where('oidc_links.subject', '=', identity.subject)
    .executeTakeFirst();
  if (linked !== undefined) {
    if (!linked.is_active) return { kind: 'inactive' };
    await db.updateTable('oidc_links').set({ last_login_us: nowUs }).where('issuer', '=', identity.issuer).where('subject', '=', identity.subject).execute();
    return loggedIn(db, linked, 'link', nowUs);
  }
  if (identity.emailVerified && identity.email !== null) {
    const wanted = foldCase(identity.email);
    const addresses = await db.selectFrom('users').select(['id', 'email']).where('email', '<>', '').execute();
    const matches = addresses.filter((user) => foldCase(user.email) === wanted);
    if (matches.length > 1) return { kind: 'ambiguous' };
    if (matches.length === 1) {
      const user = await db.selectFrom('users').select(USER_COLUMNS).where('users.id', '=', matches[0].id).executeTakeFirstOrThrow();
      if (!user.is_active) return { kind: 'inactive' };
      await link(db, identity, user.id, nowUs);
      return loggedIn(db, user, 'email', nowUs);
    }
  }
  if (!options.createMembers) return { kind: 'unknown' };
  const username = await uniqueUsername(db, baseUsername(identity));
  // Only an address the provider verified is kept: an unverified one must never match a member later.
  const email = identity.emailVerified && identity.email !== null && isPlainAddress(identity.email) ? identity.email : '';
  const id = await createMember(db, { username, email, superuser: false }, nowUs);
  const names = { first_name: (identity.givenName ?? '').slice(0, 150), last_name: (identity.familyName ?? '').slice(0, 150) };
  await db.updateTable('users').set(names).where('id', '=', id).execute();
  await link(db, identity, id, nowUs);
  return loggedIn(db, { id, username, ...names, is_superuser: 0, is_active: 1, language: '' }, 'created', nowUs);
}

/** Whether the member is linked to a subject of this issuer (the profile page says so). */
export async function isLinked(db: Db, userId: number, issuer: string): Promise<boolean> {
  const row = await db.selectFrom('oidc_links').select('user_id').where('user_id', '=', userId).where('issuer', '=', issuer).limit(1).executeTakeFirst();
  return row !== undefined;
}

async function link(db: Db, identity: ProviderIdentity, userId: number, nowUs: number): Promise<void> {
  await db.insertInto('oidc_links').values({ issuer: identity.issuer, subject: identity.subject, user_id: userId, created_us: nowUs, last_login_us: nowUs }).execute();
}

async function loggedIn(db: Db, user: UserRow, found: 'link' | 'email' | 'created', nowUs: number): Promise<SsoOutcome> {
  await db.updateTable('users').set({ last_login_us: nowUs }).where('id', '=', user.id).execute();
  const member = memberOf(user);
  return { kind: 'member', member, found };
}

/**
 * A username from what the provider calls the person (preferred_username, else the address's
 * local part), in the characters Django's usernames allow (letters, digits, `@.+-_`).
 */
function baseUsername(identity: ProviderIdentity): string {
  const candidates = [identity.preferredUsername, identity.email?.split('@')[0] ?? null];
  for (const candidate of candidates) {
    const name = (candidate ?? '').normalize('NFKC').replace(/[^\p{L}\p{N}_.@+-]/gu, '');
    if (name !== '') return [...name].slice(0, MAX_USERNAME).join('');
  }
  return 'member';
}

/** `name`, or `name-2`, `name-3`, … : the first that no member has in any case (usernames are unique ignoring case). */
async function uniqueUsername(db: Db, name: string): Promise<string> {
  const taken = new Set((await db.selectFrom('users').select('username').execute()).map((row) => foldCase(row.username)));
  if (!taken.has(foldCase(name))) return name;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = [...name].slice(0, MAX_USERNAME - suffix.length).join('') + suffix;
    if (!taken.has(foldCase(candidate))) return candidate;
  }
}

function isPlainAddress(email: string): boolean {
  return email.length <= 254 && /^[^\s@<>",]+@[^\s@<>",]+$/.test(email);
}
