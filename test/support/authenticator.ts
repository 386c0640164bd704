import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

/**
 * A software WebAuthn authenticator and client, written from the WebAuthn Level 3 specification
 * (https://www.w3.org/TR/webauthn-3/) with node:crypto and a CBOR encoder of its own: client data
 * (§5.8.1, serialized as §5.8.1.2 says), authenticator data (§6.1), the attestation object with
 * the "none" format (§6.5, §8.7), ES256 credential keys as COSE_Key EC2 maps in CTAP2 canonical
 * CBOR (§6.5.1.1, RFC 9053), and assertion signatures: ECDSA P-256 with SHA-256, DER-encoded, over
 * authenticatorData ‖ SHA-256(clientDataJSON) (§6.3.3). It imports nothing from the service nor
 * from its WebAuthn library, so that tests never compute what they expect with the code under test.
 * Answers are the JSON of PublicKeyCredential.toJSON() (§5.1.8, §5.1.9), binary fields base64url.
 * Each option a browser or an authenticator would set honestly can be overridden, for the tests
 * of what the service must refuse.
 */

// ---- The options the service sends (PublicKeyCredentialCreationOptionsJSON, …RequestOptionsJSON) ----

export interface CredentialDescriptorJSON {
  id: string;
  type: string;
  transports?: string[];
}

export interface CreationOptionsJSON {
  rp: { id?: string; name: string };
  user: { id: string; name: string; displayName: string };
  challenge: string;
  pubKeyCredParams: { type: string; alg: number }[];
  timeout?: number;
  excludeCredentials?: CredentialDescriptorJSON[];
  authenticatorSelection?: { residentKey?: string; requireResidentKey?: boolean; userVerification?: string; authenticatorAttachment?: string };
  attestation?: string;
  extensions?: Record<string, unknown>;
}

export interface RequestOptionsJSON {
  challenge: string;
  rpId?: string;
  timeout?: number;
  allowCredentials?: CredentialDescriptorJSON[];
  userVerification?: string;
  extensions?: Record<string, unknown>;
}

// ---- The answers (RegistrationResponseJSON, AuthenticationResponseJSON) ----

export interface RegistrationJSON {
  id: string;
  rawId: string;
  type: 'public-key';
  response: {
    clientDataJSON: string;
    attestationObject: string;
    authenticatorData: string;
    transports: string[];
    publicKey: string;
    publicKeyAlgorithm: number;
  };
  clientExtensionResults: Record<string, unknown>;
  authenticatorAttachment: 'platform' | 'cross-platform';
}

export interface AuthenticationJSON {
  id: string;
  rawId: string;
  type: 'public-key';
  response: { clientDataJSON: string; authenticatorData: string; signature: string; userHandle?: string };
  clientExtensionResults: Record<string, unknown>;
  authenticatorAttachment: 'platform' | 'cross-platform';
}

/** A discoverable credential the authenticator holds (a passkey). */
export interface SoftCredential {
  id: Buffer;
  privateKey: KeyObject;
  /** The COSE_Key of the public key, as registered. */
  cosePublicKey: Buffer;
  rpId: string;
  /** options.user.id at registration, base64url. */
  userHandle: string;
  signCount: number;
}

/** What a test may change in a ceremony, to make an answer the service must refuse. */
export interface CeremonyOverrides {
  /** The RP ID whose SHA-256 starts the authenticator data (default: the options' RP ID, else the origin's host). */
  rpId?: string;
  /** The challenge written into the client data (default: the options'). */
  challenge?: string;
  /** The client data's `type` (default "webauthn.create" or "webauthn.get"). */
  type?: string;
  /** The UV flag (default true: the user was verified). */
  userVerified?: boolean;
  /** The UP flag (default true). */
  userPresent?: boolean;
}

export interface RegistrationOverrides extends CeremonyOverrides {
  /** Registers this credential again (its id and key) instead of making a new one, ignoring excludeCredentials. */
  reuse?: SoftCredential;
  /** Makes the credential even when options.excludeCredentials names one this authenticator holds (a misbehaving authenticator). */
  ignoreExcluded?: boolean;
  /** The signature counter in the authenticator data (default 0). */
  counter?: number;
}

export interface AuthenticationOverrides extends CeremonyOverrides {
  /** Which of the authenticator's credentials answers (default: the most recent for the RP ID, or one the options allow). */
  credentialId?: string;
  /** The signature counter to report; the credential keeps it (default: its count plus one). */
  counter?: number;
  /** Signs with this key instead of the credential's (a forged signature). */
  signingKey?: KeyObject;
  /** The userHandle in the answer (default: the credential's; null leaves it out). */
  userHandle?: string | null;
}

/** The AAGUID of this authenticator: all zeros, as attestation "none" makes it anyway (§6.5.1). */
const AAGUID = Buffer.alloc(16);
const ES256 = -7;

/** Authenticator data flags (§6.1). */
const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

/** The refusal of an authenticator, as the browser reports it (a DOMException's name). */
export class AuthenticatorError extends Error {
  constructor(
    readonly domName: 'InvalidStateError' | 'NotAllowedError' | 'NotSupportedError',
    message: string,
  ) {
    super(`${domName}: ${message}`);
    this.name = 'AuthenticatorError';
  }
}

export class SoftAuthenticator {
  readonly credentials: SoftCredential[] = [];

  /**
   * navigator.credentials.create() on `origin` with the service's options: a new ES256 credential,
   * discoverable and user-verified, attested with "none" (§5.1.3 for the client, §6.3.2 for the authenticator).
   */
  register(options: CreationOptionsJSON, origin: string, overrides: RegistrationOverrides = {}): RegistrationJSON {
    const rpId = options.rp.id ?? new URL(origin).hostname;
    if (!options.pubKeyCredParams.some((param) => param.type === 'public-key' && param.alg === ES256)) {
      throw new AuthenticatorError('NotSupportedError', 'ES256 is not among pubKeyCredParams');
    }
    if (overrides.reuse === undefined && !overrides.ignoreExcluded) {
      const held = new Set(this.credentials.filter((c) => c.rpId === rpId).map((c) => c.id.toString('base64url')));
      if ((options.excludeCredentials ?? []).some((descriptor) => held.has(descriptor.id))) {
        throw new AuthenticatorError('InvalidStateError', 'a credential in excludeCredentials is held by this authenticator');
      }
    }
    const clientDataJSON = clientData(overrides.type ?? 'webauthn.create', overrides.challenge ?? options.challenge, origin);
    let credential = overrides.reuse;
    if (credential === undefined) {
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const jwk = publicKey.export({ format: 'jwk' });
      const cosePublicKey = encodeCbor(
        new Map<CborValue, CborValue>([
          [1, 2], // kty: EC2
          [3, ES256], // alg
          [-1, 1], // crv: P-256
          [-2, Buffer.from(jwk.x!, 'base64url')],
          [-3, Buffer.from(jwk.y!, 'base64url')],
        ]),
      );
      credential = { id: randomBytes(32), privateKey, cosePublicKey, rpId, userHandle: options.user.id, signCount: 0 };
      // One credential per RP and user handle (§6.3.2 step 7): an older one of the same account is replaced.
      const same = this.credentials.findIndex((c) => c.rpId === rpId && c.userHandle === options.user.id);
      if (same !== -1) this.credentials.splice(same, 1);
      this.credentials.push(credential);
    }
    const counter = overrides.counter ?? 0;
    const attestedCredentialData = Buffer.concat([AAGUID, uint16(credential.id.length), credential.id, credential.cosePublicKey]);
    const flags = flagsOf(overrides) | AT;
    const authenticatorData = Buffer.concat([sha256(overrides.rpId ?? rpId), Buffer.from([flags]), uint32(counter), attestedCredentialData]);
    const attestationObject = encodeCbor(
      new Map<CborValue, CborValue>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authenticatorData],
      ]),
    );
    const publicKeyDer = publicKeyOf(credential.privateKey.export({ format: 'jwk' }));
    const id = credential.id.toString('base64url');
    return {
      id,
      rawId: id,
      type: 'public-key',
      response: {
        clientDataJSON: clientDataJSON.toString('base64url'),
        attestationObject: attestationObject.toString('base64url'),
        authenticatorData: authenticatorData.toString('base64url'),
        transports: ['internal'],
        publicKey: publicKeyDer.toString('base64url'),
        publicKeyAlgorithm: ES256,
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /**
   * navigator.credentials.get() on `origin` with the service's options: an assertion by a
   * discoverable credential of the RP ID (§5.1.4 for the client, §6.3.3 for the authenticator).
   */
  authenticate(options: RequestOptionsJSON, origin: string, overrides: AuthenticationOverrides = {}): AuthenticationJSON {
    const rpId = options.rpId ?? new URL(origin).hostname;
    const allowed = new Set((options.allowCredentials ?? []).map((descriptor) => descriptor.id));
    const candidates = this.credentials.filter(
      (c) =>
        (overrides.credentialId === undefined ? c.rpId === rpId : c.id.toString('base64url') === overrides.credentialId) &&
        (allowed.size === 0 || allowed.has(c.id.toString('base64url'))),
    );
    const credential = candidates.at(-1);
    if (credential === undefined) throw new AuthenticatorError('NotAllowedError', `no credential for ${rpId}`);
    credential.signCount = overrides.counter ?? credential.signCount + 1;
    const clientDataJSON = clientData(overrides.type ?? 'webauthn.get', overrides.challenge ?? options.challenge, origin);
    const authenticatorData = Buffer.concat([sha256(overrides.rpId ?? rpId), Buffer.from([flagsOf(overrides)]), uint32(credential.signCount)]);
    const signature = sign('sha256', Buffer.concat([authenticatorData, sha256(clientDataJSON)]), {
      key: overrides.signingKey ?? credential.privateKey,
      dsaEncoding: 'der',
    });
    const id = credential.id.toString('base64url');
    const userHandle = overrides.userHandle === undefined ? credential.userHandle : overrides.userHandle;
    return {
      id,
      rawId: id,
      type: 'public-key',
      response: {
        clientDataJSON: clientDataJSON.toString('base64url'),
        authenticatorData: authenticatorData.toString('base64url'),
        signature: signature.toString('base64url'),
        ...(userHandle === null ? {} : { userHandle }),
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }
}

/** A new P-256 private key, for forged signatures. */
export function otherKey(): KeyObject {
  return generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
}

/** The client data of §5.8.1, serialized in the order of §5.8.1.2 (type, challenge, origin, crossOrigin). */
function clientData(type: string, challenge: string, origin: string): Buffer {
  return Buffer.from(`{"type":${JSON.stringify(type)},"challenge":${JSON.stringify(challenge)},"origin":${JSON.stringify(origin)},"crossOrigin":false}`, 'utf8');
}

function flagsOf(overrides: CeremonyOverrides): number {
  return (overrides.userPresent === false ? 0 : UP) | (overrides.userVerified === false ? 0 : UV);
}

function sha256(data: string | Buffer): Buffer {
  return createHash('sha256').update(data).digest();
}

function uint16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
}

function uint32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

/** The SubjectPublicKeyInfo (DER) of a P-256 public key given as a JWK, as getPublicKey() returns it. */
function publicKeyOf(jwk: { x?: string; y?: string }): Buffer {
  // SEQUENCE { SEQUENCE { id-ecPublicKey, prime256v1 }, BIT STRING 0x04 ‖ x ‖ y }
  const prefix = Buffer.from('3059301306072a8648ce3d020106082a8648ce3d030107034200', 'hex');
  return Buffer.concat([prefix, Buffer.from([0x04]), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
}

// ---- CBOR (RFC 8949), the subset WebAuthn uses, in CTAP2 canonical form ----

export type CborValue = number | string | Uint8Array | CborValue[] | Map<CborValue, CborValue>;

/** Encodes integers (safe range), byte strings, text strings, arrays and maps; map keys sorted as CTAP2 canonical CBOR asks (shorter encoding first, then bytewise). */
export function encodeCbor(value: CborValue): Buffer {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new Error(`CBOR: only integers are encoded, not ${value}`);
    return value >= 0 ? head(0, value) : head(1, -1 - value);
  }
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  if (Array.isArray(value)) return Buffer.concat([head(4, value.length), ...value.map(encodeCbor)]);
  const entries = [...value].map(([k, v]) => [encodeCbor(k), encodeCbor(v)] as const);
  entries.sort(([a], [b]) => a.length - b.length || Buffer.compare(a, b));
  return Buffer.concat([head(5, entries.length), ...entries.flat()]);
}

/** The initial byte(s) of a data item: major type and argument, in the shortest form. */
function head(major: number, argument: number): Buffer {
  const type = major << 5;
  if (argument < 24) return Buffer.from([type | argument]);
  if (argument < 0x100) return Buffer.from([type | 24, argument]);
  if (argument < 0x10000) return Buffer.concat([Buffer.from([type | 25]), uint16(argument)]);
  if (argument < 0x100000000) return Buffer.concat([Buffer.from([type | 26]), uint32(argument)]);
  const b = Buffer.alloc(9);
  b[0] = type | 27;
  b.writeBigUInt64BE(BigInt(argument), 1);
  return b;
}
