import type { Db } from '../../db/connection.js';
import type { Words } from '../../i18n/words.js';

/**
 * Debt reminders (ledger.md §1): every member whose balance is below zero gets a mail with their
 * balance and how to top up, in their language (their profile's, else LANGUAGE_CODE). The
 * original's `accounts/debtmails/` crashed; this one says how many mails were sent and which
 * failed. Free of HTTP: the superusers' page and `hackerspace-api ledger remind` both call
 * `sendReminders`.
 */

export interface Debtor {
  id: number;
  username: string;
  email: string;
  language: string;
  balanceCents: number;
}

/** The active members whose balance is below zero, by username. */
export async function debtors(db: Db): Promise<Debtor[]> {
  const rows = await db
    .selectFrom('users')
    .select(['id', 'username', 'email', 'language', 'balance_cents'])
    .where('balance_cents', '<', 0)
    .where('is_active', '=', 1)
    .orderBy('username')
    .execute();
  return rows.map((row) => ({ id: row.id, username: row.username, email: row.email, language: row.language, balanceCents: Number(row.balance_cents) }));
}

/** The reminder for one member: plain text, in the words of their language. */
export function reminderMail(words: Words, facts: { spaceName: string; baseUrl: string; username: string; balanceCents: number }): { subject: string; text: string } {
  // A name goes into a header: one line.
  const space = facts.spaceName.replace(/\s+/g, ' ').trim();
  const balance = words.money(facts.balanceCents / 100);
  return {
    subject: words.t('stock.reminder.mail.subject', { space }),
    text: [
      words.t('stock.reminder.mail.hello', { username: facts.username }),
      '',
      words.t('stock.reminder.mail.balance', { space, balance }),
      '',
      words.t('stock.reminder.mail.how'),
      '',
      `${facts.baseUrl}/accounts/balance`,
      '',
      words.t('stock.reminder.mail.thanks'),
      '',
    ].join('\n'),
  };
}

/** How the reminders went: the members mailed, and those not (no address, or the server did not take the mail). */
export interface ReminderReport {
  readonly sent: readonly string[];
  readonly noAddress: readonly string[];
  readonly failed: readonly string[];
}

/** What sends one mail (the users app's Mailer): throws when the server did not take it. */
export type SendMail = (mail: { to: string; subject: string; text: string }) => Promise<void>;

/** Mails every member in debt their reminder, one after the other; a failure is counted, never thrown. */
export async function sendReminders(db: Db, send: SendMail, facts: { spaceName: string; baseUrl: string; wordsOf: (language: string) => Words }): Promise<ReminderReport> {
  const sent: string[] = [];
  const noAddress: string[] = [];
  const failed: string[] = [];
  for (const member of await debtors(db)) {
    if (member.email === '') {
      noAddress.push(member.username);
      continue;
    }
    const mail = reminderMail(facts.wordsOf(member.language), { ...facts, username: member.username, balanceCents: member.balanceCents });
    try {
      await send({ to: member.email, ...mail });
      sent.push(member.username);
    } catch {
      failed.push(member.username);
    }
  }
  return { sent, noAddress, failed };
}
