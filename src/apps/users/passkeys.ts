import { randomBytes } from 'node:crypto';
import { said, type Said } from './said.js';
import type {
  AuthenticationResponseJSON,
  AuthenticatorTransport,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { engineOf, type Db } from '../../db/connection.js';
import { hashSecretId, MEMBER_COLUMNS, memberOf, type Member, type MemberSession } from './sessions.js';

/** The library, loaded with the first ceremony: its ASN.1 and X.509 parts are most of a megabyte that no other command needs. */
const webauthn = () => import('@simplewebauthn/server');

/**
 * Passkeys (members.md §5): WebAuthn credentials that log a member in without a password,
 * through @simplewebauthn/server. A ceremony's challenge is stored only as its hash, in the
 * database, with the browser it was given to, and taken once by the answer that carries it,
 * whichever process receives it: a replayed answer, an expired challenge, one given to another
 * browser or for another member finds nothing. Passkeys are discoverable and user-verifying (a
 * PIN or a fingerprint on the device): the passkey is the whole login.
 */

/** How long a browser has to answer a challenge: the ceremony's timeout, and a little for the form to arrive. */
export const CHALLENGE_SECONDS = 300;
const CEREMONY_TIMEOUT_MS = (CHALLENGE_SECONDS - 30) * 1000;
const PRUNE_BATCH = 100;
export const PASSKEY_NAME_MAX = 100;
/** Passkeys per member: enough for every device one owns, few enough to list (attestation "none" lets a script make any number). */
export const PASSKEYS_PER_MEMBER = 25;
/** Longer than any credential a browser sends (a few kilobytes with RSA keys): refused unread. */
const MAX_RESPONSE_LENGTH = 64 * 1024;

/** How recent a login must be to add a passkey: a session taken over later cannot plant a way back in. */
export const RECENT_LOGIN_SECONDS = 15 * 60;

/** Whether a session began recently enough for its member to add a passkey. */
export function loginRecentEnough(session: Pick<MemberSession, 'startedUs'>, nowUs: number): boolean {
  return nowUs - session.startedUs <= RECENT_LOGIN_SECONDS * 1_000_000;
}

/** The site as WebAuthn names it: its host (the RP ID: no port, no scheme) and its origin. */
export interface RelyingParty {
  id: string;
  origin: string;
  name: string;
}

/** The relying party of a site whose base URL is `base` (PUBLIC_URL, or the request's). */
export function relyingPartyOf(base: string, siteName: string): RelyingParty {
  const url = new URL(base);
  return { id: url.hostname, origin: url.origin, name: siteName };
}

/** Why an answer was refused, whichever the ceremony. */
type AnswerProblem = 'malformed' | 'expired' | 'unverified';
/** Why a passkey was not added; the words are the page's. */
export type RegistrationProblem = AnswerProblem | 'taken' | 'too-many';
/** Why a passkey did not log in; the words are the page's. */
export type LoginProblem = AnswerProblem | 'unknown' | 'inactive';

export class PasskeyRefused<P extends RegistrationProblem | LoginProblem> extends Error {
  constructor(
    readonly problem: P,
    /** What the library said, for the log: the checks that failed (origins, types, counters), never a key or a challenge. */
    readonly detail?: string,
  ) {
    super(`passkey refused: ${problem}${detail === undefined ? '' : ` (${detail})`}`);
    this.name = 'PasskeyRefused';
  }
}

export class RegistrationRefused extends PasskeyRefused<RegistrationProblem> {}
export class LoginRefused extends PasskeyRefused<LoginProblem> {}

/** A member's passkey as their profile lists it. */
export interface PasskeyInfo {
  id: number;
  name: string;
  createdUs: number;
  lastUsedUs: number | null;
}

/** The query of a member's passkeys as the profile shows them (listPasskeys, findPasskey). */
function passkeysOf(db: Db, userId: number) {
  return db.selectFrom('passkeys').select(['id', 'name', 'created_us', 'last_used_us']).where('user_id', '=', userId);
}

function infoOf(row: { id: number; name: string; created_us: number; last_used_us: number | null }): PasskeyInfo {
  return { id: row.id, name: row.name, createdUs: row.created_us, lastUsedUs: row.last_used_us };
}

export async function listPasskeys(db: Db, userId: number): Promise<PasskeyInfo[]> {
  return (await passkeysOf(db, userId).orderBy('id').execute()).map(infoOf);
}

export async function findPasskey(db: Db, userId: number, id: number): Promise<PasskeyInfo | undefined> {
  const row = await passkeysOf(db, userId).where('id', '=', id).executeTakeFirst();
  return row === undefined ? undefined : infoOf(row);
}

/** The message when a name (already trimmed) cannot be one; its length in characters, as the other fields count. */
export function passkeyNameProblem(name: string): Said | null {
  if (name.includes('\0')) return said('users.form.null-characters');
  if ([...name].length > PASSKEY_NAME_MAX) return said('users.form.too-long', { max: PASSKEY_NAME_MAX });
  return null;
}

/** Renames the member's own passkey; false when it is not theirs. */
export async function renamePasskey(db: Db, userId: number, id: number, name: string): Promise<boolean> {
  const result = await db.updateTable('passkeys').set({ name }).where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Removes the member's own passkey: it logs no one in from now on. False when it is not theirs. */
export async function removePasskey(db: Db, userId: number, id: number): Promise<boolean> {
  const result = await db.deleteFrom('passkeys').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Removes every passkey of a member (an administrator's recovery of an account): how many there were. */
export async function removePasskeysOf(db: Db, userId: number): Promise<number> {
  const result = await db.deleteFrom('passkeys').where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** How many passkeys a member has. */
export async function countPasskeys(db: Db, userId: number): Promise<number> {
  return (await db.selectFrom('passkeys').select('id').where('user_id', '=', userId).execute()).length;
}

// ---- Registration ----

/** A registration's answer, checked: the passkey to store. */
export interface NewPasskey {
  credentialId: string;
  publicKey: string;
  counter: number;
  transports: string;
  /** The user handle the authenticator was given (the answer does not repeat it). */
  userHandle: string;
}

/**
 * The options for `navigator.credentials.create()`: a new challenge for this member in this
 * browser (`browserKey`: what the page's forms are tied to), their passkeys excluded (an
 * authenticator that holds one says so instead of making a second), and the member's one user
 * handle, so that an authenticator replaces rather than adds.
 */
export async function beginRegistration(db: Db, rp: RelyingParty, member: Member, browserKey: string, nowUs: number): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const existing = await db.selectFrom('passkeys').select(['credential_id', 'transports', 'user_handle']).where('user_id', '=', member.id).orderBy('id').execute();
  if (existing.length >= PASSKEYS_PER_MEMBER) throw new RegistrationRefused('too-many');
  const handle = existing[0]?.user_handle ?? randomBytes(32).toString('base64url');
  const fullName = `${member.firstName} ${member.lastName}`.trim();
  const options = await (
    await webauthn()
  ).generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: member.username,
    userID: Buffer.from(handle, 'base64url'),
    userDisplayName: fullName === '' ? member.username : fullName,
    timeout: CEREMONY_TIMEOUT_MS,
    attestationType: 'none',
    excludeCredentials: existing.map((row) => ({ id: row.credential_id, transports: transportsOf(row.transports) })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
  await storeChallenge(db, options.challenge, { purpose: 'register', userId: member.id, browserKey }, handle, nowUs);
  return options;
}

/**
 * Checks the browser's answer to a registration: the challenge taken (for good, whatever follows:
 * not in a transaction of the caller's), the attestation, the origin, the relying party and the
 * user's verification. The caller stores the passkey (storePasskey) in its own transaction.
 */
export async function verifyRegistration(db: Db, rp: RelyingParty, userId: number, browserKey: string, typedResponse: string, nowUs: number): Promise<NewPasskey> {
  const response = parseResponse(typedResponse, 'register') as unknown as RegistrationResponseJSON;
  const { challenge, userHandle } = await takeChallenge(db, response, { purpose: 'register', userId, browserKey }, nowUs);
  if (userHandle === null) throw new RegistrationRefused('expired', 'a registration challenge without a user handle');
  let verification;
  try {
    verification = await (
      await webauthn()
    ).verifyRegistrationResponse({ response, expectedChallenge: challenge, expectedOrigin: rp.origin, expectedRPID: rp.id, requireUserVerification: true });
  } catch (error) {
    throw new RegistrationRefused('unverified', (error as Error).message);
  }
  if (!verification.verified) throw new RegistrationRefused('unverified');
  const { credential } = verification.registrationInfo;
  return {
    credentialId: credential.id,
    publicKey: Buffer.from(credential.publicKey).toString('base64url'),
    counter: credential.counter,
    transports: (credential.transports ?? []).join(','),
    userHandle,
  };
}

/** Stores a checked passkey under `name`, in the caller's transaction; refused when another account has it or the member has the most allowed. */
export async function storePasskey(db: Db, userId: number, passkey: NewPasskey, name: string, nowUs: number): Promise<number> {
  const taken = await db.selectFrom('passkeys').select('id').where('credential_id', '=', passkey.credentialId).executeTakeFirst();
  if (taken !== undefined) throw new RegistrationRefused('taken');
  if ((await countPasskeys(db, userId)) >= PASSKEYS_PER_MEMBER) throw new RegistrationRefused('too-many');
  const row = await db
    .insertInto('passkeys')
    .values({
      user_id: userId,
      credential_id: passkey.credentialId,
      public_key: passkey.publicKey,
      counter: passkey.counter,
      transports: passkey.transports,
      user_handle: passkey.userHandle,
      name,
      created_us: nowUs,
      last_used_us: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

// ---- Login ----

/** The options for `navigator.credentials.get()`: a new challenge for this browser, no credentials named (the authenticator offers the site's passkeys). */
export async function beginLogin(db: Db, rp: RelyingParty, browserKey: string, nowUs: number): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const options = await (await webauthn()).generateAuthenticationOptions({ rpID: rp.id, userVerification: 'required', timeout: CEREMONY_TIMEOUT_MS });
  await storeChallenge(db, options.challenge, { purpose: 'login', userId: null, browserKey }, null, nowUs);
  return options;
}

/**
 * Checks the browser's answer to a login: the challenge taken, the passkey found by its credential
 * id and its user handle, the signature and the counter checked, its member active; then the
 * counter (only forward: of two answers racing, one wins), the passkey's last use and the
 * member's last login are written. The caller starts the session.
 */
export async function finishLogin(db: Db, rp: RelyingParty, browserKey: string, typedResponse: string, nowUs: number): Promise<{ member: Member; passkeyId: number }> {
  const response = parseResponse(typedResponse, 'login') as unknown as AuthenticationResponseJSON;
  const { challenge } = await takeChallenge(db, response, { purpose: 'login', userId: null, browserKey }, nowUs);
  const row = await db
    .selectFrom('passkeys')
    .innerJoin('users', 'users.id', 'passkeys.user_id')
    .select(['passkeys.id as passkey_id', 'passkeys.public_key', 'passkeys.counter', 'passkeys.transports', 'passkeys.user_handle', 'users.is_active', ...MEMBER_COLUMNS])
    .where('passkeys.credential_id', '=', response.id)
    .executeTakeFirst();
  if (row === undefined) throw new LoginRefused('unknown');
  // Discoverable credentials always return their user handle (WebAuthn §7.2, step 6).
  if (response.response.userHandle !== row.user_handle) throw new LoginRefused('unknown', 'user handle differs');
  let verification;
  try {
    verification = await (
      await webauthn()
    ).verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: { id: response.id, publicKey: Buffer.from(row.public_key, 'base64url'), counter: Number(row.counter), transports: transportsOf(row.transports) },
      requireUserVerification: true,
    });
  } catch (error) {
    throw new LoginRefused('unverified', (error as Error).message);
  }
  if (!verification.verified) throw new LoginRefused('unverified');
  if (!row.is_active) throw new LoginRefused('inactive');
  const counter = verification.authenticationInfo.newCounter;
  const moved = await db
    .updateTable('passkeys')
    .set({ counter, last_used_us: nowUs })
    .where('id', '=', row.passkey_id)
    // An authenticator that keeps no counter says 0 each time; one that does must go forward.
    .where('counter', counter === 0 ? '=' : '<', counter)
    .executeTakeFirst();
  if (Number(moved.numUpdatedRows) !== 1) throw new LoginRefused('unverified', 'the counter moved meanwhile, or the passkey was removed');
  await db.updateTable('users').set({ last_login_us: nowUs }).where('id', '=', row.id).execute();
  return { member: memberOf(row), passkeyId: row.passkey_id };
}

// ---- Challenges ----

interface Ceremony {
  purpose: 'register' | 'login';
  /** The member adding a passkey; null for a login. */
  userId: number | null;
  /** What the page's forms are tied to (its CSRF token): the answer must come from the browser that asked. */
  browserKey: string;
}

function refused(purpose: Ceremony['purpose'], problem: AnswerProblem, detail?: string): LoginRefused | RegistrationRefused {
  return purpose === 'login' ? new LoginRefused(problem, detail) : new RegistrationRefused(problem, detail);
}

/** Stores a challenge, in place of any other this browser was given; prunes a bounded batch of expired ones. */
async function storeChallenge(db: Db, challenge: string, ceremony: Ceremony, userHandle: string | null, nowUs: number): Promise<void> {
  const browserHash = hashSecretId(ceremony.browserKey);
  await db.deleteFrom('passkey_challenges').where('browser_hash', '=', browserHash).execute();
  await db
    .insertInto('passkey_challenges')
    .values({
      challenge_hash: hashSecretId(challenge),
      browser_hash: browserHash,
      purpose: ceremony.purpose,
      user_id: ceremony.userId,
      user_handle: userHandle,
      expires_us: nowUs + CHALLENGE_SECONDS * 1_000_000,
    })
    .execute();
  let expired = db.selectFrom('passkey_challenges').select('challenge_hash').where('expires_us', '<=', nowUs).orderBy('expires_us').limit(PRUNE_BATCH);
  if (engineOf(db) === 'postgres') expired = expired.forUpdate().skipLocked();
  await db.deleteFrom('passkey_challenges').where('challenge_hash', 'in', expired).execute();
}

/**
 * The challenge the answer signed, deleted in the same statement (one use, whichever process asks
 * first), if it was given to this browser, for this purpose (and this member), and has not expired.
 */
async function takeChallenge(
  db: Db,
  response: { response: { clientDataJSON: string } },
  ceremony: Ceremony,
  nowUs: number,
): Promise<{ challenge: string; userHandle: string | null }> {
  const challenge = challengeOf(response.response.clientDataJSON, ceremony.purpose);
  const row = await db.deleteFrom('passkey_challenges').where('challenge_hash', '=', hashSecretId(challenge)).returningAll().executeTakeFirst();
  const given = row !== undefined && row.expires_us > nowUs && row.purpose === ceremony.purpose && row.user_id === ceremony.userId;
  if (!given || row.browser_hash !== hashSecretId(ceremony.browserKey)) throw refused(ceremony.purpose, 'expired');
  return { challenge, userHandle: row.user_handle };
}

/** The challenge inside the client data, as the browser wrote it (base64url); malformed otherwise. */
function challengeOf(clientDataJSON: string, purpose: Ceremony['purpose']): string {
  let data: unknown;
  try {
    data = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8'));
  } catch {
    throw refused(purpose, 'malformed', 'client data is not JSON');
  }
  const challenge = (data as { challenge?: unknown } | null)?.challenge;
  if (typeof challenge !== 'string' || !/^[A-Za-z0-9_-]{16,128}$/.test(challenge)) throw refused(purpose, 'malformed', 'client data has no challenge');
  return challenge;
}

/** The form's `credential` field: the browser's PublicKeyCredential as JSON, checked in shape enough to be read safely. */
function parseResponse(text: string, purpose: Ceremony['purpose']): { id: string; rawId: string; type: 'public-key'; response: { clientDataJSON: string; userHandle?: string } } {
  if (text === '' || text.length > MAX_RESPONSE_LENGTH) throw refused(purpose, 'malformed', 'no credential');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw refused(purpose, 'malformed', 'credential is not JSON');
  }
  const base64url = (v: unknown) => typeof v === 'string' && /^[A-Za-z0-9_-]+={0,2}$/.test(v);
  const credential = value as { id?: unknown; rawId?: unknown; type?: unknown; response?: { clientDataJSON?: unknown; userHandle?: unknown; transports?: unknown } } | null;
  const inner = credential?.response;
  if (
    typeof credential !== 'object' ||
    credential === null ||
    !base64url(credential.id) ||
    !base64url(credential.rawId) ||
    credential.type !== 'public-key' ||
    typeof inner !== 'object' ||
    inner === null ||
    !base64url(inner.clientDataJSON) ||
    (inner.userHandle !== undefined && !base64url(inner.userHandle)) ||
    // Stored as the browser names them (the library passes them through): a few short words.
    (inner.transports !== undefined &&
      !(Array.isArray(inner.transports) && inner.transports.length <= 10 && inner.transports.every((t) => typeof t === 'string' && /^[a-z-]{1,32}$/.test(t))))
  ) {
    throw refused(purpose, 'malformed', 'credential has not the shape of a PublicKeyCredential');
  }
  return credential as ReturnType<typeof parseResponse>;
}

function transportsOf(stored: string): AuthenticatorTransport[] {
  return stored === '' ? [] : (stored.split(',') as AuthenticatorTransport[]);
}
