import { createHash } from 'node:crypto';
import type { Db } from '../db/connection.js';
import { FixtureTimeFormatter } from './fixture-time.js';
import { codePoints, cutToCodePoints as cut } from './characters.js';

/**
 * The address an export gives a user the original could not hold as is (no address, or one an
 * earlier user has: the original requires a unique one), in the reserved `.invalid` domain. An
 * import turns it back into no address.
 */
export const NO_EMAIL_DOMAIN = 'no-email.invalid';
export function placeholderEmail(pk: number): string {
  return `user-${pk}@${NO_EMAIL_DOMAIN}`;
}

/** An address another user has, tagged to be unique: `local+dup-<pk>@domain`; null without an `@`. */
export function tagEmail(address: string, pk: number): string | null {
  const at = address.lastIndexOf('@');
  return at <= 0 ? null : `${address.slice(0, at)}+dup-${pk}${address.slice(at)}`;
}

/** The address an export wrote for user `pk`, as it was here. */
export function untagEmail(address: string, pk: number): string {
  if (address.endsWith(`@${NO_EMAIL_DOMAIN}`) && address !== NO_ORGANIZER_EMAIL) return '';
  const tag = `+dup-${pk}@`;
  const at = address.lastIndexOf(tag);
  return at > 0 && address.indexOf('@', at + tag.length) === -1 ? address.slice(0, at) + address.slice(at + tag.length - 1) : address;
}

/** The original requires an event's organizer: the export's stand-in for "none", undone by an import. */
export const NO_ORGANIZER_EMAIL = `no-organizer@${NO_EMAIL_DOMAIN}`;

/** The original's users.User.username max_length. */
const USERNAME_LENGTH = 30;
/** The original's users.User.email max_length. */
const EMAIL_LENGTH = 255;

/**
 * What an export does to values of ours that the original's schema cannot hold, so that any
 * database of ours loads into it (docs/migration.md says why each choice):
 * - text longer than the field's max_length is cut to it, in characters (code points);
 * - a username cut so is made unique again with `~2`, `~3`, … (the original's is unique);
 * - a user without an e-mail address gets `user-<pk>@no-email.invalid`, and one whose address
 *   an earlier user (by pk) has gets it tagged `local+dup-<pk>@domain` (the original requires a
 *   unique address); an import turns both back;
 * - events without an organizer get one stand-in user, after the real ones (an import removes it).
 * Everything else is written as stored.
 */
export class OriginalFit {
  readonly times = new FixtureTimeFormatter();
  private readonly seenEmails = new Set<string>();

  private constructor(
    /** Every username the export writes unchanged, and the ones it has made. */
    private readonly usernames: Set<string>,
    /** Every address in the database, so that a tagged one never takes another user's. */
    private readonly emails: ReadonlySet<string>,
    private readonly standIn: { pk: number; username: string; createdUs: number } | null,
  ) {}

  static async prepare(db: Db): Promise<OriginalFit> {
    const usernames = new Set<string>();
    const emails = new Set<string>();
    for (const { username, email } of await db.selectFrom('users').select(['username', 'email']).execute()) {
      if (codePoints(username) <= USERNAME_LENGTH) usernames.add(username);
      emails.add(email);
    }
    const organizerless = await db.selectFrom('events').select('id').where('organizer_id', 'is', null).limit(1).executeTakeFirst();
    if (!organizerless) return new OriginalFit(usernames, emails, null);
    const bounds = await db
      .selectFrom('users')
      .select((eb) => [eb.fn.max('id').as('maxId'), eb.fn.min('created_us').as('firstCreated')])
      .executeTakeFirstOrThrow();
    const username = unique(usernames, 'no-organizer');
    return new OriginalFit(usernames, emails, { pk: Number(bounds.maxId ?? 0) + 1, username, createdUs: Number(bounds.firstCreated ?? 0) });
  }

  text(value: string, maxLength: number): string {
    return value.length <= maxLength ? value : cut(value, maxLength);
  }

  username(name: string): string {
    if (name.length <= USERNAME_LENGTH || codePoints(name) <= USERNAME_LENGTH) return name;
    return unique(this.usernames, cut(name, USERNAME_LENGTH));
  }

  email(pk: number, address: string): string {
    const written = this.fittingEmail(pk, address);
    this.seenEmails.add(written);
    return written;
  }

  private fittingEmail(pk: number, address: string): string {
    if (address === '' || codePoints(address) > EMAIL_LENGTH) return placeholderEmail(pk);
    if (address !== NO_ORGANIZER_EMAIL && address.endsWith(`@${NO_EMAIL_DOMAIN}`)) return placeholderEmail(pk);
    if (!this.seenEmails.has(address)) return address;
    // An earlier user has it: the same mailbox, tagged with this user's pk (undone by an import).
    const tagged = tagEmail(address, pk);
    if (tagged === null || codePoints(tagged) > EMAIL_LENGTH || this.emails.has(tagged) || this.seenEmails.has(tagged)) return placeholderEmail(pk);
    return tagged;
  }

  /** The stand-in's pk, for an event without an organizer. */
  organizerStandInPk(): number {
    if (!this.standIn) throw new Error('an event without an organizer appeared during the export');
    return this.standIn.pk;
  }

  /**
   * The stand-in user's record, when some event needs it: nobody can log in as it, and every
   * field is derived from the data, so that two exports of the same data are identical.
   */
  organizerStandIn(): { pk: number; fields: Record<string, unknown> } | undefined {
    if (!this.standIn) return undefined;
    const { pk, username, createdUs } = this.standIn;
    const created = this.times.format(createdUs);
    return {
      pk,
      fields: {
        password: `!${createHash('sha1').update(`no-organizer ${pk}`).digest('hex')}`,
        last_login: null,
        is_superuser: false,
        username,
        email: NO_ORGANIZER_EMAIL,
        created,
        edited: created,
        first_name: '',
        last_name: '',
        balance: '0.00',
        has_key: false,
        hide_pamela: true,
        newsletter: false,
        is_active: false,
        description: 'Stands for "no organizer" (hackerspace-api export): the original requires one.',
        groups: [],
        user_permissions: [],
      },
    };
  }
}

/** `name`, or the first of `name~2`, `name~3`, … (cut to fit) that `taken` does not hold; then taken. */
function unique(taken: Set<string>, name: string): string {
  let candidate = name;
  for (let n = 2; taken.has(candidate); n++) candidate = cut(name, USERNAME_LENGTH - `~${n}`.length) + `~${n}`;
  taken.add(candidate);
  return candidate;
}
