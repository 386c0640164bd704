import type { Db } from '../../db/connection.js';
import { foldCase } from './users.js';
import { writeTransaction } from '../../db/write-transaction.js';
import { clearLoginFailures, loginWait, recordLoginFailure } from './login-throttle.js';
import type { PasswordHasher } from './passwords.js';
import { memberOf, type Member } from './sessions.js';

export type LoginResult = { kind: 'ok'; member: Member } | { kind: 'wrong' } | { kind: 'throttled'; retryAfterSeconds: number };

export interface LoginAttempt {
  /** What was typed as the username: a username in any case, or an e-mail address. */
  username: string;
  password: string;
  /** The client's address, as the throttling counts it. */
  client: string;
}

interface Candidate {
  id: number;
  username: string;
  password: string;
  is_active: number;
  is_superuser: number;
  first_name: string;
  last_name: string;
  language: string;
}

/**
 * Checks a password login (members.md §1, §2). A throttled attempt is refused before any hashing,
 * whatever the password. An unknown name, an inactive account or an unusable password costs the
 * same hashing as a real check and gives the same 'wrong'. On success the hash is upgraded in the
 * same call when the hasher says so, last_login_us is set and the pair's failures are cleared;
 * the caller then starts the session. HashingBusy from the hasher propagates (503), recording
 * nothing. Not to be called inside a transaction: the hashing would hold it open.
 */
export async function logIn(db: Db, hasher: PasswordHasher, attempt: LoginAttempt, nowUs: number): Promise<LoginResult> {
  const wait = await loginWait(db, attempt.username, attempt.client, nowUs);
  if (wait > 0) return { kind: 'throttled', retryAfterSeconds: wait };
  const user = await findLoginUser(db, attempt.username);
  const usable = user !== null && user.is_active !== 0 && isUsablePassword(user.password);
  const check = await hasher.verify(usable ? user.password : null, attempt.password);
  if (!usable || !check.matches) {
    await recordLoginFailure(db, attempt.username, attempt.client, nowUs);
    return { kind: 'wrong' };
  }
  await writeTransaction(db, async (trx) => {
    await trx.updateTable('users').set({ last_login_us: nowUs }).where('id', '=', user.id).execute();
    // Only over the hash just checked: a password changed meanwhile is not overwritten by the old one's upgrade.
    if (check.upgraded !== null) await trx.updateTable('users').set({ password: check.upgraded }).where('id', '=', user.id).where('password', '=', user.password).execute();
    await clearLoginFailures(trx, attempt.username, attempt.client);
  });
  return { kind: 'ok', member: memberOf(user) };
}

/** Django's unusable passwords (make_password(None): '!…') and an empty one never log in. */
function isUsablePassword(stored: string): boolean {
  return stored !== '' && !stored.startsWith('!');
}

/**
 * The user a typed name designates: the one whose username it is, ignoring case in the full Unicode
 * sense (foldCase, as the original looks it up and as usernames are kept unique; an exact match
 * wins should two differ only in case); else the one whose e-mail address it is, ignoring case,
 * when no other user has that address. The name is read as Django's login form does: NFKC,
 * without surrounding spaces. SQL's lower() folds only ASCII on SQLite and under PostgreSQL's "C"
 * collation, so names are compared here: one scan of two short columns, next to a hashing that
 * costs far more, and never for a throttled attempt.
 */
async function findLoginUser(db: Db, typedName: string): Promise<Candidate | null> {
  const name = typedName.normalize('NFKC').trim();
  if (name === '') return null;
  const folded = foldCase(name);
  const names = await db.selectFrom('users').select(['id', 'username', 'email']).orderBy('id').execute();
  const byUsername = names.filter((user) => foldCase(user.username) === folded);
  const byEmail = names.filter((user) => user.email !== '' && foldCase(user.email) === folded);
  const chosen =
    byUsername.length > 0 ? (byUsername.find((user) => user.username === name) ?? (byUsername.length === 1 ? byUsername[0] : null)) : byEmail.length === 1 ? byEmail[0] : null;
  if (chosen === null) return null;
  const user = await db
    .selectFrom('users')
    .select(['id', 'username', 'password', 'is_active', 'is_superuser', 'first_name', 'last_name', 'language'])
    .where('id', '=', chosen.id)
    .executeTakeFirst();
  return user ?? null;
}
