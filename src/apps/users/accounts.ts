import type { Db } from '../../db/connection.js';
import { writeTransaction } from '../../db/write-transaction.js';
import { createUser, foldCase } from './users.js';
import type { PasswordHasher } from './passwords.js';
import { passwordRuleBroken } from './password-rules.js';
import type { Said } from './said.js';
import { endSessionsOf } from './sessions.js';
import { createPasswordLink, findPasswordLink, superuserExists, usePasswordLink, voidFirstSuperuserLinks, voidLinksOf, type MemberLinkPurpose } from './links.js';

/** What accounts need of passwords.ts' PasswordHasher: a new password's hash. */
export type NewPasswordHashing = Pick<PasswordHasher, 'hash'>;

/** A new password breaks a rule of members.md §1: `message` says which. */
export class PasswordRejected extends Error {
  override name = 'PasswordRejected';
  constructor(
    message: string,
    /** The rule, said in the page's language. */
    readonly said: Said,
  ) {
    super(message);
  }
}

/** A set-password link that is unknown, used, expired or void (the page says so, whichever). */
export class LinkNotValid extends Error {
  override name = 'LinkNotValid';
  constructor() {
    super('This link is not valid: it was used, it expired, or the password was changed since.');
  }
}

/** The first-superuser link was used, or a superuser exists already. */
export class SuperuserExists extends Error {
  override name = 'SuperuserExists';
  constructor() {
    super('A superuser exists already: log in, or ask them for an invitation.');
  }
}

export interface NewMember {
  username: string;
  email: string;
  superuser: boolean;
}

/**
 * Adds a member with an unusable password (they set one through a link), in the caller's
 * transaction; returns the id. The fields must have passed the API's validation of a user
 * (readFields with apps/users/users.ts' UserFields: at most 150 characters, not blank, a valid
 * address); createUser refuses a username another member has in any case (FieldErrors).
 */
export async function createMember(db: Db, member: NewMember, nowUs: number): Promise<number> {
  const id = await createUser(db, { username: member.username, email: member.email, has_key: false }, nowUs);
  if (member.superuser) await db.updateTable('users').set({ is_superuser: 1 }).where('id', '=', id).execute();
  return id;
}

export interface MemberName {
  id: number;
  username: string;
  /** Their address, '' when they have none: where their invitation or reset link is mailed. */
  email: string;
  /** The language they chose ('' for none): their link's mail is in it. */
  language: string;
  /** Whether the stored password can log in (Django's unusable passwords start with `!`). */
  hasUsablePassword: boolean;
}

/** The member named `name`: exactly, else ignoring case (as the original matched names) when only one fits. */
export async function memberByName(db: Db, name: string): Promise<MemberName | null> {
  const rows = await db.selectFrom('users').select(['id', 'username', 'email', 'password', 'language']).execute();
  const exact = rows.filter((row) => row.username === name);
  const folded = foldCase(name);
  const found = exact.length === 1 ? exact : rows.filter((row) => foldCase(row.username) === folded);
  if (found.length !== 1) return null;
  return { id: found[0].id, username: found[0].username, email: found[0].email, language: found[0].language, hasUsablePassword: !found[0].password.startsWith('!') };
}

/**
 * A link for an existing member to set their password: a reset when they have a usable one,
 * else an invitation (they never had one, or an administrator took it away), in the caller's
 * transaction. Returns the token and the kind.
 */
export async function linkForMember(db: Db, member: Pick<MemberName, 'id' | 'hasUsablePassword'>, nowUs: number): Promise<{ token: string; purpose: MemberLinkPurpose }> {
  const purpose = member.hasUsablePassword ? 'reset' : 'invitation';
  return { token: await createPasswordLink(db, member.id, purpose, nowUs), purpose };
}

/**
 * Stores a hash made by PasswordHasher.hash as the member's password, voids their set-password
 * links and ends their sessions but `keepSessionId` (the browser that changed it), in the
 * caller's transaction.
 */
export async function storePassword(db: Db, userId: number, hash: string, nowUs: number, keepSessionId?: string): Promise<void> {
  await db.updateTable('users').set({ password: hash, edited_us: nowUs }).where('id', '=', userId).execute();
  await voidLinksOf(db, userId);
  await endSessionsOf(db, userId, keepSessionId);
}

/** Throws PasswordRejected, saying which rule, when `password` breaks one (members.md §1). */
function checkNewPassword(password: string, member: { username: string; email: string }): void {
  const problem = passwordRuleBroken(password, member);
  if (problem !== null) throw new PasswordRejected(problem.message, problem.said);
}

async function contactOf(db: Db, userId: number): Promise<{ username: string; email: string } | undefined> {
  return db.selectFrom('users').select(['username', 'email']).where('id', '=', userId).executeTakeFirst();
}

/**
 * Sets a member's password (members.md §1 rules: PasswordRejected), voids their links and ends
 * their other sessions. It hashes first, outside any transaction (a second of PBKDF2 must not
 * hold the write lock), then stores in a write transaction of its own: pass the database
 * handle, not a transaction. False when there is no such member.
 */
export async function setPassword(db: Db, hasher: NewPasswordHashing, userId: number, password: string, nowUs: number, keepSessionId?: string): Promise<boolean> {
  const member = await contactOf(db, userId);
  if (!member) return false;
  checkNewPassword(password, member);
  const hash = await hasher.hash(password);
  return writeTransaction(db, async (trx) => {
    if (!(await contactOf(trx, userId))) return false;
    await storePassword(trx, userId, hash, nowUs, keepSessionId);
    return true;
  });
}

/**
 * Sets the password of the member an invitation or reset link names, and uses the link up.
 * LinkNotValid when it no longer works (also when it is the first-superuser link: see
 * createFirstSuperuser), PasswordRejected for a password against the rules. Hashes outside a
 * transaction, then writes in one of its own: pass the database handle. Returns the member's id,
 * for the page to log them in.
 */
export async function setPasswordWithLink(db: Db, hasher: NewPasswordHashing, token: string, password: string, nowUs: number): Promise<number> {
  const userId = (await findPasswordLink(db, token, nowUs))?.userId ?? null;
  const member = userId === null ? undefined : await contactOf(db, userId);
  if (userId === null || !member) throw new LinkNotValid();
  checkNewPassword(password, member);
  const hash = await hasher.hash(password);
  return writeTransaction(db, async (trx) => {
    const used = await usePasswordLink(trx, token, nowUs);
    if (!used || used.userId !== userId) throw new LinkNotValid();
    await storePassword(trx, userId, hash, nowUs);
    return userId;
  });
}

/**
 * A new first-superuser link, printed by `serve` while no superuser exists: older unused ones
 * are voided (each start logs a new one). Null when a superuser exists. Caller's transaction.
 */
export async function renewFirstSuperuserLink(db: Db, nowUs: number): Promise<string | null> {
  if (await superuserExists(db)) return null;
  await voidFirstSuperuserLinks(db);
  return createPasswordLink(db, null, 'first-superuser', nowUs);
}

/**
 * What the first-superuser link's page does: a new active superuser with this password, the link
 * used up. The fields must have passed the API's validation of a user (see createMember);
 * SuperuserExists when one exists by now, LinkNotValid for a void link, PasswordRejected, or
 * FieldErrors (the username is taken). Hashes outside a transaction, then writes in one of its
 * own: pass the database handle. Returns the new member's id.
 */
export async function createFirstSuperuser(
  db: Db,
  hasher: NewPasswordHashing,
  token: string,
  fields: { username: string; email: string; password: string },
  nowUs: number,
): Promise<number> {
  if (await superuserExists(db)) throw new SuperuserExists();
  const link = await findPasswordLink(db, token, nowUs);
  if (!link || link.purpose !== 'first-superuser') throw new LinkNotValid();
  checkNewPassword(fields.password, fields);
  const hash = await hasher.hash(fields.password);
  return writeTransaction(db, async (trx) => {
    if (await superuserExists(trx)) throw new SuperuserExists();
    const used = await usePasswordLink(trx, token, nowUs);
    if (!used || used.purpose !== 'first-superuser') throw new LinkNotValid();
    const id = await createMember(trx, { username: fields.username, email: fields.email, superuser: true }, nowUs);
    await storePassword(trx, id, hash, nowUs);
    return id;
  });
}
