import type { Db } from '../../db/connection.js';
import { FieldErrors, type FieldMessages } from '../../resources/write-errors.js';
import { EMAIL_PATTERN } from '../../resources/write-schema.js';

/**
 * A member's own profile (members.md §3): what every active member may change about themselves.
 * Names as the original's columns, so that the form's fields are the API's and Django's.
 */
export interface ProfileFields {
  first_name: string;
  last_name: string;
  email: string;
  /** Markdown, shown on their public page. */
  description: string;
  newsletter: boolean;
  /** Whether their public page shows their first and last name (ours, not the original's). */
  show_name: boolean;
}

export interface Profile extends ProfileFields {
  id: number;
  username: string;
}

/** The original's lengths (Django's AbstractUser: 150 for names, 254 for an address); a bound on a description. */
export const PROFILE_LIMITS = { first_name: 150, last_name: 150, email: 254, description: 20_000 } as const;

export const EMAIL_TAKEN = 'Another member has this e-mail address.';

export async function readProfile(db: Db, userId: number): Promise<Profile | undefined> {
  const row = await db
    .selectFrom('users')
    .select(['id', 'username', 'first_name', 'last_name', 'email', 'description', 'newsletter', 'show_name'])
    .where('id', '=', userId)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    id: row.id,
    username: row.username,
    first_name: row.first_name,
    last_name: row.last_name,
    email: row.email,
    description: row.description ?? '',
    newsletter: row.newsletter === 1,
    show_name: row.show_name === 1,
  };
}

/** Trims the text fields (as the API's CharField) and checks them; the messages by field, or none. */
export function profileProblems(fields: ProfileFields): FieldMessages {
  const errors: FieldMessages = {};
  for (const name of ['first_name', 'last_name', 'email', 'description'] as const) {
    const value = fields[name];
    if (value.includes('\0')) errors[name] = ['Null characters are not allowed.'];
    else if ([...value].length > PROFILE_LIMITS[name]) errors[name] = [`Ensure this field has no more than ${PROFILE_LIMITS[name]} characters.`];
  }
  // An address is needed for a reset link by mail: required here, unlike the API's optional field.
  if (errors.email === undefined) {
    if (fields.email === '') errors.email = ['Your e-mail address is needed to send you a reset link.'];
    else if (!EMAIL_PATTERN.test(fields.email)) errors.email = ['Enter a valid email address.'];
  }
  return errors;
}

/** Surrounding whitespace removed from the text fields, as the API does (a description keeps its inner lines). */
export function trimProfile(fields: ProfileFields): ProfileFields {
  return { ...fields, first_name: fields.first_name.trim(), last_name: fields.last_name.trim(), email: fields.email.trim(), description: fields.description.trim() };
}

/**
 * Whether another member has this address, ignoring case: a reset by mail must reach one member.
 * Compared here, not in SQL (lower() is ASCII-only on SQLite), as usernames are.
 */
async function emailTaken(db: Db, email: string, exceptId: number): Promise<boolean> {
  const wanted = email.toLowerCase();
  const rows = await db.selectFrom('users').select(['id', 'email']).where('id', '!=', exceptId).execute();
  return rows.some((row) => row.email.toLowerCase() === wanted);
}

/**
 * Saves a member's profile, in the caller's write transaction (the announced writes, so that the
 * users table's version moves and cached pages end). FieldErrors when a field is refused; false
 * when there is no such member.
 */
export async function updateProfile(db: Db, userId: number, typed: ProfileFields, nowUs: number): Promise<boolean> {
  const fields = trimProfile(typed);
  const errors = profileProblems(fields);
  if (errors.email === undefined && (await emailTaken(db, fields.email, userId))) errors.email = [EMAIL_TAKEN];
  if (Object.keys(errors).length > 0) throw new FieldErrors(errors);
  const result = await db
    .updateTable('users')
    .set({
      first_name: fields.first_name,
      last_name: fields.last_name,
      email: fields.email,
      description: fields.description,
      newsletter: fields.newsletter ? 1 : 0,
      show_name: fields.show_name ? 1 : 0,
      edited_us: nowUs,
    })
    .where('id', '=', userId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * The member a reset is asked for: by username (ignoring case, as the login does) or by e-mail
 * address; only an active one with an address. Undefined otherwise, and the page says the same.
 */
export async function memberForReset(db: Db, typed: string): Promise<{ id: number; username: string; email: string } | undefined> {
  const wanted = typed.trim().toUpperCase().toLowerCase();
  if (wanted === '') return undefined;
  const rows = await db.selectFrom('users').select(['id', 'username', 'email']).where('is_active', '=', 1).execute();
  const byName = rows.filter((row) => row.username.toUpperCase().toLowerCase() === wanted);
  const found = byName.length === 1 ? byName : rows.filter((row) => row.email !== '' && row.email.toLowerCase() === wanted);
  return found.length === 1 && found[0].email !== '' ? found[0] : undefined;
}
