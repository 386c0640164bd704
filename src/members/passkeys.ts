import { randomBytes } from 'node:crypto';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { engineOf, type Db } from '../db/connection.js';
import { hashSecretId } from './sessions.js';
import type { Member, MemberSession } from './sessions.js';

/**
 * Passkeys (members.md §5): WebAuthn credentials that log a member in without a password, through
 * @simplewebauthn/server. A ceremony's challenge is stored only as its hash, in the database, and
 * taken once by the answer that carries it, whichever process receives it: a replayed answer, an
 * expired challenge or one given for another member finds nothing. Passkeys are discoverable and
 * user-verifying (a PIN or a fingerprint on the device): the passkey is the whole login.
 */

/** How long a browser has to answer a challenge: the ceremony's timeout, and a little for the form to arrive. */
export const CHALLENGE_SECONDS = 300;
const CEREMONY_TIMEOUT_MS = (CHALLENGE_SECONDS - 30) * 1000;
const PRUNE_BATCH = 100;
export const PASSKEY_NAME_MAX = 100;
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

/** Why a passkey did not log in or was not added; the words are the page's. */
export type PasskeyProblem = 'malformed' | 'expired' | 'unknown' | 'inactive' | 'unverified' | 'taken';

export class PasskeyRefused extends Error {
  constructor(
    readonly problem: PasskeyProblem,
    /** What the library said, for the log (never a secret: the answer's checks, not its contents). */
    readonly detail?: string,
  ) {
    super(`passkey refused: ${problem}${detail === undefined ? '' : ` (${detail})`}`);
    this.name = 'PasskeyRefused';
  }
}

/** A member's passkey as their profile lists it. */
export interface PasskeyInfo {
  id: number;
  name: string;
  createdUs: number;
  lastUsedUs: number | null;
}

export async function listPasskeys(db: Db, userId: number): Promise<PasskeyInfo[]> {
  const rows = await db.selectFrom('passkeys').select(['id', 'name', 'created_us', 'last_used_us']).where('user_id', '=', userId).orderBy('id').execute();
  return rows.map((row) => ({ id: row.id, name: row.name, createdUs: row.created_us, lastUsedUs: row.last_used_us }));
}

export async function findPasskey(db: Db, userId: number, id: number): Promise<PasskeyInfo | undefined> {
  return (await listPasskeys(db, userId)).find((passkey) => passkey.id === id);
}

/** A name as typed, trimmed; the message when it cannot be one. */
export function passkeyNameProblem(name: string): string | null {
  if (name.includes('\0')) return 'Null characters are not allowed.';
  if ([...name].length > PASSKEY_NAME_MAX) return `Ensure this field has no more than ${PASSKEY_NAME_MAX} characters.`;
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

// ---- Registration ----

/**
 * The options for `navigator.credentials.create()`: a new challenge for this member, their
 * passkeys excluded (an authenticator that holds one says so instead of making a second), and
 * the member's one user handle, so that an authenticator replaces rather than adds.
 */
export async function beginRegistration(db: Db, rp: RelyingParty, member: Member, nowUs: number): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const existing = await db.selectFrom('passkeys').select(['credential_id', 'transports', 'user_handle']).where('user_id', '=', member.id).orderBy('id').execute();
  const handle = existing[0]?.user_handle ?? randomBytes(32).toString('base64url');
  const fullName = `${member.firstName} ${member.lastName}`.trim();
  const options = await generateRegistrationOptions({
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
  await storeChallenge(db, options.challenge, { purpose: 'register', userId: member.id, userHandle: handle }, nowUs);
  return options;
}

/**
 * Checks the browser's answer to a registration and stores the passkey under `name`. Not in a
 * transaction of the caller's: the challenge is taken first, for good, whatever follows.
 */
export async function finishRegistration(db: Db, rp: RelyingParty, userId: number, typedResponse: string, name: string, nowUs: number): Promise<PasskeyInfo> {
  const response = parseResponse(typedResponse) as RegistrationResponseJSON;
  const { challenge, userHandle } = await takeChallenge(db, response, { purpose: 'register', userId }, nowUs);
  let verification;
  try {
    verification = await verifyRegistrationResponse({ response, expectedChallenge: challenge, expectedOrigin: rp.origin, expectedRPID: rp.id, requireUserVerification: true });
  } catch (error) {
    throw new PasskeyRefused('unverified', (error as Error).message);
  }
  if (!verification.verified) throw new PasskeyRefused('unverified');
  const { credential } = verification.registrationInfo;
  try {
    const row = await db
      .insertInto('passkeys')
      .values({
        user_id: userId,
        credential_id: credential.id,
        public_key: Buffer.from(credential.publicKey).toString('base64url'),
        counter: credential.counter,
        transports: (credential.transports ?? []).join(','),
        // The handle the authenticator was given (the registration's answer does not repeat it).
        user_handle: userHandle ?? '',
        name,
        created_us: nowUs,
        last_used_us: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { id: row.id, name, createdUs: nowUs, lastUsedUs: null };
  } catch (error) {
    const taken = await db.selectFrom('passkeys').select('id').where('credential_id', '=', credential.id).executeTakeFirst();
    if (taken !== undefined) throw new PasskeyRefused('taken');
    throw error;
  }
}

// ---- Login ----

/** The options for `navigator.credentials.get()`: a new challenge, no credentials named (the authenticator offers the site's passkeys). */
export async function beginLogin(db: Db, rp: RelyingParty, nowUs: number): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const options = await generateAuthenticationOptions({ rpID: rp.id, userVerification: 'required', timeout: CEREMONY_TIMEOUT_MS });
  await storeChallenge(db, options.challenge, { purpose: 'login', userId: null, userHandle: null }, nowUs);
  return options;
}

/**
 * Checks the browser's answer to a login: the challenge taken, the passkey found by its credential
 * id, its member active, the signature and the counter checked; then the counter, the passkey's
 * last use and the member's last login are written. The caller starts the session.
 */
export async function finishLogin(db: Db, rp: RelyingParty, typedResponse: string, nowUs: number): Promise<{ member: Member; passkeyId: number }> {
  const response = parseResponse(typedResponse) as AuthenticationResponseJSON;
  const { challenge } = await takeChallenge(db, response, { purpose: 'login', userId: null }, nowUs);
  const row = await db
    .selectFrom('passkeys')
    .innerJoin('users', 'users.id', 'passkeys.user_id')
    .select([
      'passkeys.id as passkey_id',
      'passkeys.public_key',
      'passkeys.counter',
      'passkeys.transports',
      'passkeys.user_handle',
      'users.id',
      'users.username',
      'users.first_name',
      'users.last_name',
      'users.is_superuser',
      'users.is_active',
    ])
    .where('passkeys.credential_id', '=', response.id)
    .executeTakeFirst();
  if (row === undefined) throw new PasskeyRefused('unknown');
  const presentedHandle = response.response.userHandle;
  if (presentedHandle !== undefined && presentedHandle !== row.user_handle) throw new PasskeyRefused('unknown', 'user handle differs');
  let verification;
  try {
    verification = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: { id: response.id, publicKey: Buffer.from(row.public_key, 'base64url'), counter: Number(row.counter), transports: transportsOf(row.transports) },
      requireUserVerification: true,
    });
  } catch (error) {
    throw new PasskeyRefused('unverified', (error as Error).message);
  }
  if (!verification.verified) throw new PasskeyRefused('unverified');
  if (!row.is_active) throw new PasskeyRefused('inactive');
  await db.updateTable('passkeys').set({ counter: verification.authenticationInfo.newCounter, last_used_us: nowUs }).where('id', '=', row.passkey_id).execute();
  await db.updateTable('users').set({ last_login_us: nowUs }).where('id', '=', row.id).execute();
  const member: Member = { id: row.id, username: row.username, firstName: row.first_name, lastName: row.last_name, isSuperuser: Boolean(row.is_superuser) };
  return { member, passkeyId: row.passkey_id };
}

// ---- Challenges ----

interface Ceremony {
  purpose: 'register' | 'login';
  /** The member adding a passkey; null for a login. */
  userId: number | null;
}

async function storeChallenge(db: Db, challenge: string, ceremony: Ceremony & { userHandle: string | null }, nowUs: number): Promise<void> {
  await db
    .insertInto('passkey_challenges')
    .values({
      challenge_hash: hashSecretId(challenge),
      purpose: ceremony.purpose,
      user_id: ceremony.userId,
      user_handle: ceremony.userHandle,
      expires_us: nowUs + CHALLENGE_SECONDS * 1_000_000,
    })
    .execute();
  let expired = db.selectFrom('passkey_challenges').select('challenge_hash').where('expires_us', '<=', nowUs).orderBy('expires_us').limit(PRUNE_BATCH);
  if (engineOf(db) === 'postgres') expired = expired.forUpdate().skipLocked();
  await db.deleteFrom('passkey_challenges').where('challenge_hash', 'in', expired).execute();
}

/**
 * The challenge the answer signed, deleted in the same statement (one use, whichever process asks
 * first), if it was given for this purpose (and this member) and has not expired.
 */
async function takeChallenge(
  db: Db,
  response: { response: { clientDataJSON: string } },
  ceremony: Ceremony,
  nowUs: number,
): Promise<{ challenge: string; userHandle: string | null }> {
  const challenge = challengeOf(response.response.clientDataJSON);
  const row = await db.deleteFrom('passkey_challenges').where('challenge_hash', '=', hashSecretId(challenge)).returningAll().executeTakeFirst();
  if (row === undefined || row.expires_us <= nowUs || row.purpose !== ceremony.purpose || row.user_id !== ceremony.userId) throw new PasskeyRefused('expired');
  return { challenge, userHandle: row.user_handle };
}

/** The challenge inside the client data, as the browser wrote it (base64url); malformed otherwise. */
function challengeOf(clientDataJSON: string): string {
  let data: unknown;
  try {
    data = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8'));
  } catch {
    throw new PasskeyRefused('malformed', 'client data is not JSON');
  }
  const challenge = (data as { challenge?: unknown } | null)?.challenge;
  if (typeof challenge !== 'string' || !/^[A-Za-z0-9_-]{16,128}$/.test(challenge)) throw new PasskeyRefused('malformed', 'client data has no challenge');
  return challenge;
}

/** The form's `credential` field: the browser's PublicKeyCredential as JSON, checked in shape enough to be read safely. */
function parseResponse(text: string): { id: string; rawId: string; type: 'public-key'; response: { clientDataJSON: string; userHandle?: string } } {
  if (text === '' || text.length > MAX_RESPONSE_LENGTH) throw new PasskeyRefused('malformed', 'no credential');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new PasskeyRefused('malformed', 'credential is not JSON');
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
    throw new PasskeyRefused('malformed', 'credential has not the shape of a PublicKeyCredential');
  }
  return credential as ReturnType<typeof parseResponse>;
}

function transportsOf(stored: string): AuthenticatorTransport[] {
  return stored === '' ? [] : (stored.split(',') as AuthenticatorTransport[]);
}
