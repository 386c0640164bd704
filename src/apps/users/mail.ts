import type { Transporter } from 'nodemailer';
import type { MailSettings } from '../../config.js';
import type { Logger } from '../../log.js';
import type { Words } from '../../i18n/words.js';
import { LINK_VALIDITY_US, setPasswordPath, type MemberLinkPurpose } from './links.js';

/** A mail the server did not take (unreachable, refused, timed out): the page says to try again later. */
export class MailNotSent extends Error {
  override name = 'MailNotSent';
  constructor(readonly code: string) {
    super(`the mail could not be sent (${code}): try again later`);
  }
}

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
}

/** A CA to trust besides the system's (tests; an operator sets NODE_EXTRA_CA_CERTS instead). */
export interface MailerOptions {
  ca?: string;
}

/**
 * Sends mail through SMTP_URL (nodemailer): on `smtps://` TLS from the start, on `smtp://`
 * STARTTLS whenever the server offers it, certificates checked. Each mail is one connection:
 * invitations and resets are rare. Logs say which mail and how it went (its message id, an
 * error's code), never the address nor the link.
 */
export class Mailer {
  private transport: Promise<Transporter> | null = null;

  constructor(
    private readonly settings: MailSettings,
    private readonly log: Pick<Logger, 'info' | 'warn'>,
    private readonly options: MailerOptions = {},
  ) {}

  async send(mail: OutgoingMail): Promise<void> {
    const transport = await this.transportOnce();
    let info: { messageId: string; accepted?: unknown[]; rejected?: unknown[] };
    try {
      info = await transport.sendMail({ from: this.settings.from, to: mail.to, subject: mail.subject, text: mail.text });
    } catch (error) {
      // Only the code: nodemailer's messages repeat the server's reply, which may quote the address.
      const { code, responseCode } = error as { code?: unknown; responseCode?: unknown };
      const reason = typeof code === 'string' ? code : 'EUNKNOWN';
      this.log.warn({ smtp: this.settings.url, code: reason, responseCode: typeof responseCode === 'number' ? responseCode : undefined }, 'mail not sent');
      throw new MailNotSent(reason);
    }
    if ((info.rejected?.length ?? 0) > 0 || (info.accepted?.length ?? 0) === 0) {
      this.log.warn({ smtp: this.settings.url, messageId: info.messageId, code: 'EENVELOPE' }, 'mail not sent: the recipient was refused');
      throw new MailNotSent('EENVELOPE');
    }
    this.log.info({ smtp: this.settings.url, messageId: info.messageId }, 'mail sent');
  }

  /** Closes the transport (no connection stays open between mails; this frees its resources). */
  close(): void {
    void this.transport?.then((transport) => transport.close());
    this.transport = null;
  }

  // nodemailer is loaded with the first mail: a service without mail never loads it.
  private transportOnce(): Promise<Transporter> {
    this.transport ??= import('nodemailer').then(({ default: nodemailer }) => {
      const { host, port, secure, username, password } = this.settings;
      return nodemailer.createTransport({
        host,
        port,
        secure,
        auth: username === null ? undefined : { user: username, pass: password ?? '' },
        tls: { minVersion: 'TLSv1.2', ...(this.options.ca ? { ca: this.options.ca } : {}) },
        // A page waits for the answer: fail within seconds rather than nodemailer's minutes.
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 30_000,
        disableFileAccess: true,
        disableUrlAccess: true,
        logger: false,
      });
    });
    return this.transport;
  }
}

export interface LinkMailFacts {
  /** The space's name, as the pages show it. */
  spaceName: string;
  /** The site's base URL, without a trailing slash (PUBLIC_URL, or the request's). */
  baseUrl: string;
  token: string;
  username: string;
  /** The recipient's words: their chosen language, else the space's (LANGUAGE_CODE). */
  words: Words;
  /** When the link was made: its mail says until when it works. */
  nowUs: number;
}

/** How a set-password link reaches its member: mailed to their address, or handed over by whoever made it. */
export type LinkDelivery = 'mailed' | 'hand-over';

/** Whether a link made for `member` is mailed to them: mail is configured and they have an address. */
export function linkGoesByMail(mailer: Mailer | null, member: { email: string }): mailer is Mailer {
  return mailer !== null && member.email !== '';
}

/**
 * Mails a member their invitation or reset link (members.md §4) when mail is configured and they
 * have an address; else 'hand-over': the caller shows the link to whoever made it. Throws
 * MailNotSent when the server did not take the mail (Mailer logged it, without address or link).
 */
export async function mailPasswordLink(
  mailer: Mailer | null,
  member: { username: string; email: string },
  purpose: MemberLinkPurpose,
  link: Omit<LinkMailFacts, 'username'>,
): Promise<LinkDelivery> {
  if (!linkGoesByMail(mailer, member)) return 'hand-over';
  await mailer.send({ to: member.email, ...passwordLinkMail(purpose, { ...link, username: member.username }) });
  return 'mailed';
}

/** The invitation or reset mail for a set-password link: plain text, the link absolute, in the recipient's language. */
export function passwordLinkMail(purpose: MemberLinkPurpose, facts: LinkMailFacts): { subject: string; text: string } {
  const w = facts.words;
  // A name goes into a header: one line.
  const space = facts.spaceName.replace(/\s+/g, ' ').trim();
  const link = `${facts.baseUrl}${setPasswordPath(facts.token)}`;
  const validUs = LINK_VALIDITY_US[purpose];
  const validity = `${w.t('users.mail.validity', { hours: validUs / 3_600_000_000 })} ${w.t('users.mail.until', { until: w.longDateTime(facts.nowUs + validUs) })}`;
  if (purpose === 'invitation') {
    return {
      subject: w.t('users.mail.invitation.subject', { space }),
      text: [
        w.t('users.mail.invitation.hello'),
        '',
        w.t('users.mail.invitation.invited', { space, username: facts.username }),
        w.t('users.mail.invitation.choose'),
        '',
        link,
        '',
        `${validity} ${w.t('users.mail.invitation.expired')}`,
        '',
      ].join('\n'),
    };
  }
  return {
    subject: w.t('users.mail.reset.subject', { space }),
    text: [
      w.t('users.mail.reset.hello', { username: facts.username }),
      '',
      w.t('users.mail.reset.asked', { space }),
      '',
      link,
      '',
      `${validity} ${w.t('users.mail.reset.ignore')}`,
      '',
    ].join('\n'),
  };
}
