import { randomInt } from 'node:crypto';

const ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/**
 * What Django's `make_password(None)` stores for an account that cannot log in with a password:
 * `!` and 40 random letters and digits (UNUSABLE_PASSWORD_PREFIX, UNUSABLE_PASSWORD_SUFFIX_LENGTH).
 * Users made here get one, so that an export loads into the original as accounts nobody can use
 * until an administrator sets a password there.
 */
export function unusablePassword(): string {
  let suffix = '';
  for (let i = 0; i < 40; i++) suffix += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return `!${suffix}`;
}
