/**
 * The rules a new password must follow (set, change, reset), as Django's default validators
 * state them: long enough, not all digits, not too similar to the username or the e-mail address,
 * not a common password.
 */
import fs from 'node:fs';
import zlib from 'node:zlib';
import { said, type Said } from './said.js';

export const MIN_PASSWORD_LENGTH = 8;
// Django's UserAttributeSimilarityValidator's default.
const MAX_SIMILARITY = 0.7;

/**
 * common-passwords.txt.gz: Django's list of the 20,000 most common passwords (lowercased, by Royce
 * Williams), copied from Debian's python3-django (django/contrib/auth/), BSD-3-Clause like Django.
 * Beside this module in src/, and beside the bundle in dist/ (scripts/build.mjs copies it there);
 * `../` covers a bundle chunk in dist/chunks/.
 */
const LIST_LOCATIONS = [new URL('./common-passwords.txt.gz', import.meta.url), new URL('../common-passwords.txt.gz', import.meta.url)];

let commonPasswords: Set<string> | undefined;

/** The list, read once on first use (about 20,000 lines, a few milliseconds). */
function commonPasswordList(): Set<string> {
  if (commonPasswords === undefined) {
    const location = LIST_LOCATIONS.find((url) => fs.existsSync(url));
    // Missing means a broken install: refusing loudly beats silently accepting "password1".
    if (location === undefined) throw new Error(`common-passwords.txt.gz not found beside ${import.meta.url}`);
    const text = zlib.gunzipSync(fs.readFileSync(location)).toString('utf8');
    commonPasswords = new Set(text.split('\n').map((line) => line.trim()));
    commonPasswords.delete('');
  }
  return commonPasswords;
}

/** Python's SequenceMatcher.quick_ratio: twice the characters in common (as multisets) over both lengths. */
function quickRatio(a: string[], b: string[]): number {
  const available = new Map<string, number>();
  for (const c of b) available.set(c, (available.get(c) ?? 0) + 1);
  let matches = 0;
  for (const c of a) {
    const n = available.get(c) ?? 0;
    if (n > 0) {
      available.set(c, n - 1);
      matches += 1;
    }
  }
  return a.length + b.length === 0 ? 1 : (2 * matches) / (a.length + b.length);
}

/** Django's similarity check of one attribute: the whole value and each of its words (and, for an address, its local part). */
function tooSimilar(password: string, value: string): boolean {
  const lowered = value.toLowerCase();
  if (lowered === '') return false;
  const at = lowered.lastIndexOf('@');
  const parts = [...lowered.split(/[^\p{L}\p{N}\p{M}_]+/u), lowered, ...(at > 0 ? [lowered.slice(0, at)] : [])];
  const chars = [...password.toLowerCase()];
  return parts.some((part) => {
    const partChars = [...part];
    if (partChars.length === 0) return false;
    // Django skips a part so much shorter than the password that it cannot reach the ratio (exceeds_maximum_length_ratio).
    if (chars.length >= 10 * partChars.length && partChars.length < (MAX_SIMILARITY / 2) * chars.length) return false;
    return quickRatio(chars, partChars) >= MAX_SIMILARITY;
  });
}

/** The rule a new password breaks: its English message (the command line) and the same said for a page, or null. */
export function passwordRuleBroken(password: string, account: { username: string; email: string }): { message: string; said: Said } | null {
  if ([...password].length < MIN_PASSWORD_LENGTH)
    return {
      message: `This password is too short. It must contain at least ${MIN_PASSWORD_LENGTH} characters.`,
      said: said('users.password.too-short', { min: MIN_PASSWORD_LENGTH }),
    };
  if (/^\p{Nd}+$/u.test(password)) return { message: 'This password is entirely numeric.', said: said('users.password.numeric') };
  if (tooSimilar(password, account.username)) return { message: 'The password is too similar to the username.', said: said('users.password.like-username') };
  if (tooSimilar(password, account.email)) return { message: 'The password is too similar to the e-mail address.', said: said('users.password.like-email') };
  if (commonPasswordList().has(password.toLowerCase().trim())) return { message: 'This password is too common.', said: said('users.password.common') };
  return null;
}

/** The rule a new password breaks, as an English message, or null. */
export function passwordProblem(password: string, account: { username: string; email: string }): string | null {
  return passwordRuleBroken(password, account)?.message ?? null;
}
