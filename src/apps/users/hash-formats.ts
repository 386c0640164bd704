/**
 * The password hash formats Django (and the original's own `mediawiki` hasher) store, parsed and
 * checked here. Every check compares in constant time and runs its hashing on libuv's threadpool
 * (node:crypto's async functions, napi-rs's async tasks), never on the event loop. A stored string
 * that does not parse, or whose cost would be a denial of service, is `malformed`: it never matches
 * and nothing throws.
 */
import crypto from 'node:crypto';
import { promisify } from 'node:util';
import { hashRaw as argon2HashRaw, type Algorithm as Argon2Algorithm, type Version as Argon2Version } from '@node-rs/argon2';
import { verify as bcryptVerify } from '@node-rs/bcrypt';

const pbkdf2 = promisify(crypto.pbkdf2);
const scrypt = promisify<crypto.BinaryLike, crypto.BinaryLike, number, crypto.ScryptOptions, Buffer>(crypto.scrypt);

/** What a stored password field holds. */
export type StoredHash =
  | { kind: 'usable'; algorithm: string; iterations: number | null; matches(password: string): Promise<boolean> }
  | { kind: 'unusable' }
  | { kind: 'unknown'; algorithm: string }
  | { kind: 'malformed'; algorithm: string };

// Ten times the 1,000,000–1,200,000 Django 5–6 use: a stored hash costlier than that is an attack on the login, not an account.
export const MAX_PBKDF2_ITERATIONS = 12_000_000;
// Django's bcrypt cost is 12; each step doubles the work, so 16 is sixteen times that (seconds per login).
const MAX_BCRYPT_COST = 16;
// Django's argon2 uses m=102400 KiB (100 MiB), t=2, p=8: allow 2.5 times its memory and 8 times its passes, no more per login.
const MAX_ARGON2_MEMORY_KIB = 256 * 1024;
const MAX_ARGON2_TIME = 16;
const MAX_ARGON2_PARALLELISM = 64;
// Django's scrypt uses N=2^14, r=8, p=1 (16 MiB, work N·r·p = 2^17): allow 256 MiB and 32 times the work.
const MAX_SCRYPT_MEMORY = 256 * 1024 * 1024;
const MAX_SCRYPT_WORK = 2 ** 22;

/** A decimal integer without sign, leading zeros or exponent, within [min, max]; else null. */
function boundedInteger(text: string, min: number, max: number): number | null {
  if (!/^[1-9][0-9]{0,9}$/.test(text)) return null;
  const value = Number(text);
  return value >= min && value <= max ? value : null;
}

/** Standard base64, decoded only when `text` is exactly its canonical encoding (padded or, for PHC strings, not). */
function strictBase64(text: string, padded: boolean): Buffer | null {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text)) return null;
  const bytes = Buffer.from(text, 'base64');
  const canonical = bytes.toString('base64');
  return bytes.length > 0 && (padded ? canonical : canonical.replace(/=+$/, '')) === text ? bytes : null;
}

/** Lowercase hex of `length` bytes; else null. */
function strictHex(text: string, length: number): Buffer | null {
  return new RegExp(`^[0-9a-f]{${length * 2}}$`).test(text) ? Buffer.from(text, 'hex') : null;
}

function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

function md5(text: string): Buffer {
  return crypto.createHash('md5').update(text, 'utf8').digest();
}

/** Django's PBKDF2 hashers: `<algorithm>$<iterations>$<salt>$<base64>`, the salt as UTF-8, the digest's own length. */
export async function pbkdf2Digest(digest: 'sha256' | 'sha1', password: string, salt: string, iterations: number): Promise<Buffer> {
  return pbkdf2(password, salt, iterations, digest === 'sha256' ? 32 : 20, digest);
}

function parsePbkdf2(algorithm: string, digest: 'sha256' | 'sha1', rest: string[], maxIterations: number): StoredHash {
  const malformed: StoredHash = { kind: 'malformed', algorithm };
  if (rest.length !== 3) return malformed;
  const [iterationsText, salt, encoded] = rest;
  const iterations = boundedInteger(iterationsText, 1, maxIterations);
  const expected = strictBase64(encoded, true);
  if (iterations === null || salt === '' || expected === null || expected.length !== (digest === 'sha256' ? 32 : 20)) return malformed;
  return {
    kind: 'usable',
    algorithm,
    iterations,
    matches: async (password) => sameBytes(await pbkdf2Digest(digest, password, salt, iterations), expected),
  };
}

/** Django's Argon2 hasher: `argon2` + argon2-cffi's PHC string without its leading `$argon2`; no `v=` means version 0x10. */
function parseArgon2(rest: string[]): StoredHash {
  const malformed: StoredHash = { kind: 'malformed', algorithm: 'argon2' };
  // The package's const enums by value (isolated modules cannot read an ambient const enum).
  const variants: Record<string, Argon2Algorithm> = { argon2d: 0, argon2i: 1, argon2id: 2 };
  const [variant, ...fields] = rest;
  if (!Object.hasOwn(variants, variant)) return malformed;
  let version: Argon2Version = 0; // 0x10
  if (fields.length === 4) {
    const v = fields.shift();
    if (v === 'v=19')
      version = 1; // 0x13
    else if (v !== 'v=16') return malformed;
  }
  if (fields.length !== 3) return malformed;
  const [params, saltText, hashText] = fields;
  const m = /^m=([0-9]+),t=([0-9]+),p=([0-9]+)$/.exec(params);
  if (m === null) return malformed;
  const parallelism = boundedInteger(m[3], 1, MAX_ARGON2_PARALLELISM);
  const timeCost = boundedInteger(m[2], 1, MAX_ARGON2_TIME);
  const memoryCost = parallelism === null ? null : boundedInteger(m[1], 8 * parallelism, MAX_ARGON2_MEMORY_KIB);
  const salt = strictBase64(saltText, false);
  const expected = strictBase64(hashText, false);
  if (parallelism === null || timeCost === null || memoryCost === null || salt === null || salt.length < 8 || expected === null || expected.length < 4) {
    return malformed;
  }
  const options = { algorithm: variants[variant], version, memoryCost, timeCost, parallelism, salt, outputLen: expected.length };
  return { kind: 'usable', algorithm: 'argon2', iterations: null, matches: async (password) => sameBytes(await argon2HashRaw(password, options), expected) };
}

/** Django's bcrypt hashers: `bcrypt$` or `bcrypt_sha256$` + the modular crypt string (`$2b$12$…`). */
function parseBcrypt(algorithm: 'bcrypt' | 'bcrypt_sha256', rest: string[]): StoredHash {
  const malformed: StoredHash = { kind: 'malformed', algorithm };
  const modular = rest.join('$');
  const m = /^\$2[aby]\$([0-9]{2})\$[./A-Za-z0-9]{53}$/.exec(modular);
  const cost = m === null ? null : Number(m[1]);
  if (cost === null || cost < 4 || cost > MAX_BCRYPT_COST) return malformed;
  // bcrypt_sha256: the lowercase hex SHA-256 of the password, so that bcrypt's 72-byte limit does not cut long ones.
  const input = (password: string) => (algorithm === 'bcrypt' ? password : crypto.createHash('sha256').update(password, 'utf8').digest('hex'));
  // The Rust bcrypt crate behind @node-rs/bcrypt compares the digests in constant time.
  return { kind: 'usable', algorithm, iterations: null, matches: (password) => bcryptVerify(input(password), modular) };
}

/** Django's scrypt hasher: `scrypt$<N>$<salt>$<r>$<p>$<base64>`, 64 bytes. */
function parseScrypt(rest: string[]): StoredHash {
  const malformed: StoredHash = { kind: 'malformed', algorithm: 'scrypt' };
  if (rest.length !== 5) return malformed;
  const [nText, salt, rText, pText, encoded] = rest;
  const N = boundedInteger(nText, 2, MAX_SCRYPT_WORK);
  const r = boundedInteger(rText, 1, MAX_SCRYPT_WORK);
  const p = boundedInteger(pText, 1, MAX_SCRYPT_WORK);
  const expected = strictBase64(encoded, true);
  if (N === null || r === null || p === null || salt === '' || expected === null || expected.length !== 64) return malformed;
  if ((N & (N - 1)) !== 0 || 128 * N * r > MAX_SCRYPT_MEMORY || N * r * p > MAX_SCRYPT_WORK) return malformed;
  // maxmem: Node's default (32 MiB) refuses Django's own parameters; the caps above bound it.
  const options = { N, r, p, maxmem: 128 * N * r + 128 * r * p + 1024 * 1024 };
  return { kind: 'usable', algorithm: 'scrypt', iterations: null, matches: async (password) => sameBytes(await scrypt(password, salt, 64, options), expected) };
}

/** Django's salted MD5 hasher: `md5$<salt>$<hex>` = MD5(salt + password). */
function parseMd5(rest: string[]): StoredHash {
  const expected = rest.length === 2 ? strictHex(rest[1], 16) : null;
  if (expected === null) return { kind: 'malformed', algorithm: 'md5' };
  const salt = rest[0];
  return { kind: 'usable', algorithm: 'md5', iterations: null, matches: async (password) => sameBytes(md5(salt + password), expected) };
}

/** The original's own hasher: `mediawiki$<salt>$<hex>` = MD5(`<salt>-<hex MD5 of password>`), or MD5(password) when the salt is empty. */
function parseMediawiki(rest: string[]): StoredHash {
  const expected = rest.length === 2 ? strictHex(rest[1], 16) : null;
  if (expected === null) return { kind: 'malformed', algorithm: 'mediawiki' };
  const salt = rest[0];
  const digest = (password: string) => (salt === '' ? md5(password) : md5(`${salt}-${md5(password).toString('hex')}`));
  return { kind: 'usable', algorithm: 'mediawiki', iterations: null, matches: async (password) => sameBytes(digest(password), expected) };
}

/** A name fit for a log line: the text before the first `$` when it looks like an algorithm's name, never any of the hash. */
function algorithmName(prefix: string): string {
  return /^[a-z][a-z0-9_]{0,39}$/.test(prefix) ? prefix : '(no algorithm prefix)';
}

/** What `stored` is; `maxIterations` caps PBKDF2 (at least the configured iterations, so that our own hashes verify). */
export function parseStoredHash(stored: string, maxIterations: number): StoredHash {
  if (stored.startsWith('!')) return { kind: 'unusable' };
  const parts = stored.split('$');
  const [algorithm, ...rest] = parts;
  if (parts.length < 2) return { kind: 'unknown', algorithm: '(no algorithm prefix)' };
  switch (algorithm) {
    case 'pbkdf2_sha256':
      return parsePbkdf2(algorithm, 'sha256', rest, maxIterations);
    case 'pbkdf2_sha1':
      return parsePbkdf2(algorithm, 'sha1', rest, maxIterations);
    case 'argon2':
      return parseArgon2(rest);
    case 'bcrypt':
    case 'bcrypt_sha256':
      return parseBcrypt(algorithm, rest);
    case 'scrypt':
      return parseScrypt(rest);
    case 'md5':
      return parseMd5(rest);
    case 'mediawiki':
      return parseMediawiki(rest);
    default:
      return { kind: 'unknown', algorithm: algorithmName(algorithm) };
  }
}
