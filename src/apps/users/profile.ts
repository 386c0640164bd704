import type { Db } from '../../db/connection.js';
import { EMAIL_PATTERN } from '../../resources/write-schema.js';
import { said, type Said } from './said.js';

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
  /** The language of their pages and mails, among those offered; '' for none (the browser's). */
  language: string;
}

export interface Profile extends ProfileFields {
  id: number;
  username: string;
}

/** The original's lengths (Django's AbstractUser: 150 for names, 254 for an address); a bound on a description. */
export const PROFILE_LIMITS = { first_name: 150, last_name: 150, email: 254, description: 20_000 } as const;

/** Messages by field of a profile refused, said in the page's language. */
export type ProfileMessages = Record<string, Said[]>;

/** A profile not saved: the messages by field. */
export class ProfileRefused extends Error {
  override name = 'ProfileRefused';
  constructor(readonly errors: ProfileMessages) {
    super('the profile was not saved');
  }
}

export async function readProfile(db: Db, userId: number): Promise<Profile | undefined> {
  const row = await db
    .selectFrom('users')
    .select(['id', 'username', 'first_name', 'last_name', 'email', 'description', 'newsletter', 'show_name', 'language'])
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
    language: row.language,
  };
}

/** Checks the fields (trimmed); the messages by field, or none. `languages`: those a member may choose. */
export function profileProblems(fields: ProfileFields, languages: readonly string[]): ProfileMessages {
  const errors: ProfileMessages = {};
  for (const name of ['first_name', 'last_name', 'email', 'description'] as const) {
    const value = fields[name];
    if (value.includes('\0')) errors[name] = [said('users.form.null-characters')];
    else if ([...value].length > PROFILE_LIMITS[name]) errors[name] = [said('users.form.too-long', { max: PROFILE_LIMITS[name] })];
  }
  // An address is needed for a reset link by mail: required here, unlike the API's optional field.
  if (errors.email === undefined) {
    if (fields.email === '') errors.email = [said('users.profile.email-needed')];
    else if (!EMAIL_PATTERN.test(fields.email)) errors.email = [said('users.form.email-invalid')];
  }
  if (fields.language !== '' && !languages.includes(fields.language)) errors.language = [said('users.profile.language-unknown')];
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
 * users table's version moves and cached pages end). ProfileRefused when a field is refused; false
 * when there is no such member.
 */
export async function updateProfile(db: Db, userId: number, typed: ProfileFields, languages: readonly string[], nowUs: number): Promise<boolean> {
  const fields = trimProfile(typed);
  const errors = profileProblems(fields, languages);
  if (errors.email === undefined && (await emailTaken(db, fields.email, userId))) errors.email = [said('users.profile.email-taken')];
  if (Object.keys(errors).length > 0) throw new ProfileRefused(errors);
  const result = await db
    .updateTable('users')
    .set({
      first_name: fields.first_name,
      last_name: fields.last_name,
      email: fields.email,
      description: fields.description,
      newsletter: fields.newsletter ? 1 : 0,
      show_name: fields.show_name ? 1 : 0,
      language: fields.language,
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
export async function memberForReset(db: Db, typed: string): Promise<{ id: number; username: string; email: string; language: string } | undefined> {
  const wanted = typed.trim().toUpperCase().toLowerCase();
  if (wanted === '') return undefined;
  const rows = await db.selectFrom('users').select(['id', 'username', 'email', 'language']).where('is_active', '=', 1).execute();
  const byName = rows.filter((row) => row.username.toUpperCase().toLowerCase() === wanted);
  const found = byName.length === 1 ? byName : rows.filter((row) => row.email !== '' && row.email.toLowerCase() === wanted);
  return found.length === 1 && found[0].email !== '' ? found[0] : undefined;
}
