import type { Config } from '../../../config.js';
import { openDatabase, type Db } from '../../../db/connection.js';
import { writeTransaction } from '../../../db/write-transaction.js';
import { readFields } from '../../../drf/serializer.js';
import { englishText } from '../../../drf/messages.js';
import { createMember, memberByName, linkForMember } from '../accounts.js';
import { grantRights, isRight, revokeRights, rightsOf, RIGHTS, type Right } from '../rights.js';
import { LINK_VALIDITY_US, setPasswordPath, type LinkPurpose, type MemberLinkPurpose } from '../links.js';
import { linkGoesByMail, Mailer, MailNotSent, mailPasswordLink } from '../mail.js';
import { Catalogue } from '../../../i18n/catalogue.js';
import { USERS_LOCALE } from '../words.js';
import { createStderrLogger } from '../../../log.js';
import { UserFields } from '../users.js';
import { FieldErrors } from '../../../resources/write-errors.js';
import { formatIsoUtc } from '../../../time.js';
import { columns, type Command, type CommandContext, UsageError } from '../../../command.js';

export const userCommand: Command = {
  name: 'user',
  summary: 'Create members, give them set-password links, list them, grant and revoke rights',
  usage: `hackerspace-api user create USERNAME --email ADDRESS [--superuser]
hackerspace-api user link USERNAME
hackerspace-api user list
hackerspace-api user grant|revoke USERNAME RIGHT…

create   adds a member who cannot log in yet, and prints a one-time link where they choose
         their password (valid ${hoursOf('invitation')} hours), alone on standard output. The username
         follows the API's rules (at most 150 characters, unique ignoring case).
link     prints a new one-time link for a member to set their password: a reset (valid
         ${hoursOf('reset')} hour) when they have one, else an invitation (valid ${hoursOf('invitation')} hours). Hand it over
         yourself: whoever holds it may set the password.
list     every member: username, active, superuser, key holder, last login, rights (\`all\`
         for a superuser, through groups included); never an e-mail address nor a password hash.
grant    gives a member rights directly; revoke takes direct grants away (rights held through
         a group or as a superuser stay, and are named). The rights:
         ${RIGHTS.join('\n         ')}

Links start with PUBLIC_URL, or http://HOST:PORT without it. With SMTP_URL and MAIL_FROM,
create and link also mail the link to the member's address (when they have one) and say so;
a mail the server does not take ends the command with exit code 1, and no link is printed.`,
  options: { email: { type: 'string' }, superuser: { type: 'boolean' } },
  allowPositionals: true,
  async run(values, positionals, config, context) {
    const [action, ...rest] = positionals;
    if (action === 'create') {
      if (rest.length !== 1) throw new UsageError('create takes one USERNAME');
      if (typeof values.email !== 'string') throw new UsageError('create needs --email ADDRESS');
      const email = values.email;
      return withMembers(config, context, async (db) => {
        const fields = readMemberFields(config, rest[0], email);
        const nowUs = Date.now() * 1000;
        const superuser = values.superuser === true;
        const { id, made } = await writeTransaction(db, async (trx) => {
          const id = await createMember(trx, { username: fields.username, email: fields.email, superuser }, nowUs);
          return { id, made: await linkForMember(trx, { id, hasUsablePassword: false }, nowUs) };
        });
        process.stderr.write(`created member ${id} ${JSON.stringify(fields.username)}${superuser ? ' (superuser)' : ''}\n`);
        await deliverLink(config, context, fields, made);
      });
    }
    if (superuserGiven(values)) throw new UsageError('--superuser goes with create only');
    if (values.email !== undefined) throw new UsageError('--email goes with create only');
    if (action === 'link') {
      if (rest.length !== 1) throw new UsageError('link takes one USERNAME');
      return withMembers(config, context, async (db) => {
        const member = await memberByName(db, rest[0]);
        if (!member) throw new MemberNotFound(rest[0]);
        const made = await writeTransaction(db, (trx) => linkForMember(trx, member, Date.now() * 1000));
        await deliverLink(config, context, member, made);
      });
    }
    if (action === 'list') {
      if (rest.length) throw new UsageError('list takes no arguments');
      return withMembers(config, context, async (db) => {
        process.stdout.write(formatTable(await listMembers(db)));
      });
    }
    if (action === 'grant' || action === 'revoke') {
      const [name, ...names] = rest;
      if (name === undefined || names.length === 0) throw new UsageError(`${action} takes USERNAME and at least one RIGHT`);
      const unknown = names.filter((right) => !isRight(right));
      if (unknown.length > 0) throw new UsageError(`unknown right ${unknown.map((r) => JSON.stringify(r)).join(', ')}: the rights are ${RIGHTS.join(', ')}`);
      const rights = names as Right[];
      return withMembers(config, context, async (db) => {
        const member = await memberByName(db, name);
        if (!member) throw new MemberNotFound(name);
        await writeTransaction(db, (trx) => (action === 'grant' ? grantRights(trx, member.id, rights) : revokeRights(trx, member.id, rights)));
        process.stderr.write(`${action === 'grant' ? 'granted' : 'revoked'} ${rights.join(', ')} ${action === 'grant' ? 'to' : 'from'} ${JSON.stringify(member.username)}\n`);
        if (action === 'revoke') {
          const held = await rightsOf(db, member.id);
          const kept = rights.filter((right) => held.rights.has(right));
          if (kept.length > 0) process.stderr.write(`${JSON.stringify(member.username)} still holds ${kept.join(', ')} ${held.superuser ? 'as a superuser' : 'through a group'}\n`);
        }
      });
    }
    throw new UsageError(`expected create, link, list, grant or revoke${action ? `, got ${JSON.stringify(action)}` : ''}`);
  },
};

function superuserGiven(values: Record<string, unknown>): boolean {
  return values.superuser !== undefined;
}

function hoursOf(purpose: LinkPurpose): number {
  return LINK_VALIDITY_US[purpose] / 3_600_000_000;
}

function validity(purpose: LinkPurpose): string {
  const hours = hoursOf(purpose);
  return `${hours} hour${hours === 1 ? '' : 's'}`;
}

/**
 * Mails a member the link just made for them when mail is configured and they have an address
 * (members.md §4), saying so, then prints it alone on standard output for the operator. A mail
 * the server did not take is a refusal (exit 1) and the link is not printed: whoever runs the
 * command again gets a new one.
 */
async function deliverLink(
  config: Config,
  context: CommandContext,
  member: { username: string; email: string; language?: string },
  made: { token: string; purpose: MemberLinkPurpose },
): Promise<void> {
  const { token, purpose } = made;
  const name = JSON.stringify(member.username);
  const mailer = config.members.mail === null ? null : new Mailer(config.members.mail, createStderrLogger(config.logLevel));
  let mailed = '';
  if (linkGoesByMail(mailer, member)) {
    try {
      // The space's name as the pages show it: the SpaceAPI file is read only for a mail.
      // In the member's language, else the space's (LANGUAGE_CODE); the users app's catalogues hold the mail's words.
      const catalogue = Catalogue.read([USERS_LOCALE], config);
      const words = catalogue.words(member.language ? member.language : catalogue.defaultLanguage);
      await mailPasswordLink(mailer, member, purpose, { spaceName: context.spaceName(config), baseUrl: siteBase(config), token, words, nowUs: Date.now() * 1000 });
      mailed = " sent to the member's address; here it is too";
    } catch (error) {
      if (error instanceof MailNotSent)
        throw new Refused(`the ${purpose} mail for ${name} could not be sent (${error.code}): try again later with \`hackerspace-api user link ${name}\``);
      throw error;
    } finally {
      mailer.close();
    }
  }
  process.stderr.write(`${purpose} link for ${name}${mailed}, once, valid ${validity(purpose)}:\n`);
  process.stdout.write(`${linkUrl(config, token)}\n`);
}

/** The site's base URL for links printed here and in the log: PUBLIC_URL, else the address serve listens on. */
export function siteBase(config: Pick<Config, 'publicUrl' | 'host' | 'port'>): string {
  if (config.publicUrl !== null) return config.publicUrl;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return `http://${host}:${config.port}`;
}

/** The absolute address of a set-password link. */
export function linkUrl(config: Pick<Config, 'publicUrl' | 'host' | 'port'>, token: string): string {
  return `${siteBase(config)}${setPasswordPath(token)}`;
}

/** The API's validation of a user's fields (the same messages as POST /api/users/). */
function readMemberFields(config: Config, username: string, email: string): { username: string; email: string } {
  try {
    const fields = readFields(
      UserFields,
      {
        kind: 'form',
        fields: new Map([
          ['username', [username]],
          ['email', [email]],
        ]),
      },
      { mode: 'create', timeZone: config.timeZone, routeOf: () => null },
    );
    return { username: fields.username!, email: fields.email ?? '' };
  } catch (error) {
    if (error instanceof FieldErrors) throw new RefusedFields(error);
    throw error;
  }
}

/** A refusal to print (exit code 1): an unknown member, a field the API would refuse. */
class Refused extends Error {}

class MemberNotFound extends Refused {
  constructor(name: string) {
    super(`no member named ${JSON.stringify(name)}`);
  }
}

class RefusedFields extends Refused {
  constructor(errors: FieldErrors) {
    super(
      Object.entries(errors.worded(englishText))
        .map(([field, messages]) => `${field}: ${messages.join(' ')}`)
        .join('; '),
    );
  }
}

async function withMembers(config: Config, context: CommandContext, work: (db: Db) => Promise<void>): Promise<number> {
  const database = await openDatabase(config.database);
  try {
    await context.migrate(database.db);
    await work(database.db);
    return 0;
  } catch (error) {
    const refusal = error instanceof FieldErrors ? new RefusedFields(error) : error;
    if (refusal instanceof Refused) {
      process.stderr.write(`user: ${refusal.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    await database.close();
  }
}

interface MemberRow {
  id: number;
  username: string;
  active: boolean;
  superuser: boolean;
  keyHolder: boolean;
  lastLoginUs: number | null;
  /** `all` for an active superuser, `-` for none, else the rights' names. */
  rights: string;
}

/** Every member, by username; never an address nor a hash (neither column is read). */
async function listMembers(db: Db): Promise<MemberRow[]> {
  const rows = await db.selectFrom('users').select(['id', 'username', 'is_active', 'is_superuser', 'has_key', 'last_login_us']).orderBy('username').orderBy('id').execute();
  const members: MemberRow[] = [];
  for (const row of rows) {
    const held = await rightsOf(db, row.id);
    members.push({
      id: row.id,
      username: row.username,
      active: row.is_active === 1,
      superuser: row.is_superuser === 1,
      keyHolder: row.has_key === 1,
      lastLoginUs: row.last_login_us,
      rights: held.superuser && held.active ? 'all' : held.rights.size === 0 ? '-' : RIGHTS.filter((right) => held.rights.has(right)).join(','),
    });
  }
  return members;
}

function formatTable(members: MemberRow[]): string {
  const yes = (value: boolean) => (value ? 'yes' : 'no');
  const time = (us: number | null) => (us === null ? '-' : formatIsoUtc(Math.floor(us / 1_000_000) * 1_000_000));
  const rows = [
    ['USERNAME', 'ACTIVE', 'SUPERUSER', 'KEY', 'LAST LOGIN', 'RIGHTS'],
    ...members.map((m) => [JSON.stringify(m.username).slice(1, -1), yes(m.active), yes(m.superuser), yes(m.keyHolder), time(m.lastLoginUs), m.rights]),
  ];
  return columns(rows);
}
