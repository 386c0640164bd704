import { openDatabase } from '../../../db/connection.js';
import { type Command, UsageError } from '../../../command.js';
import { checkLedger } from '../ledger.js';
import { formatCents } from '../money.js';
import { Catalogue } from '../../../i18n/catalogue.js';
import { createStderrLogger } from '../../../log.js';
import { Mailer } from '../../users/index.js';
import { sendReminders } from '../reminders.js';
import { STOCK_LOCALE } from '../words.js';

/**
 * `hackerspace-api ledger check`: every member's kept balance against the sum of their entries
 * (ledger.md §3); `ledger remind`: a mail to every member in debt (ledger.md §1).
 */
export const ledgerCommand: Command = {
  name: 'ledger',
  summary: "Check that every member's balance is the sum of their ledger entries",
  usage: `hackerspace-api ledger check
       hackerspace-api ledger remind

check    recomputes every member's balance from the ledger and compares it with the balance
         kept on the member. Prints one line per member that differs (id, username, kept,
         from the entries) and exits 1; exits 0 and says so when every balance agrees.
remind   mails every active member whose balance is below zero their balance and how to top
         up, in their language (SMTP_URL and MAIL_FROM). Says how many were sent, names the
         members whose mail failed or who have no address; exits 1 when a mail failed or mail
         is not configured.`,
  options: {},
  allowPositionals: true,
  async run(_values, positionals, config, context) {
    if (positionals.length !== 1 || (positionals[0] !== 'check' && positionals[0] !== 'remind')) throw new UsageError('expected: ledger check, or ledger remind');
    if (positionals[0] === 'remind' && config.members.mail === null) {
      process.stderr.write('ledger remind: mail is not configured (set SMTP_URL and MAIL_FROM): no reminder sent\n');
      return 1;
    }
    const database = await openDatabase(config.database);
    try {
      await context.migrate(database.db);
      if (positionals[0] === 'remind') {
        const mailer = new Mailer(config.members.mail!, createStderrLogger(config.logLevel));
        try {
          const catalogue = Catalogue.read([STOCK_LOCALE], config);
          const base = config.publicUrl ?? `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
          const report = await sendReminders(database.db, (mail) => mailer.send(mail), {
            spaceName: context.spaceName(config),
            baseUrl: base,
            wordsOf: (language) => catalogue.words(language === '' ? catalogue.defaultLanguage : language),
          });
          for (const name of report.noAddress) process.stdout.write(`no address: ${JSON.stringify(name)}\n`);
          for (const name of report.failed) process.stdout.write(`failed: ${JSON.stringify(name)}\n`);
          process.stdout.write(`ledger remind: ${report.sent.length} sent, ${report.failed.length} failed, ${report.noAddress.length} without an address\n`);
          return report.failed.length > 0 ? 1 : 0;
        } finally {
          mailer.close();
        }
      }
      const disagreements = await checkLedger(database.db);
      for (const d of disagreements) {
        process.stdout.write(`member ${d.userId} ${JSON.stringify(d.username)}: kept ${formatCents(d.keptCents)}, entries ${formatCents(d.entriesCents)}\n`);
      }
      if (disagreements.length > 0) {
        process.stderr.write(`ledger: ${disagreements.length} balance(s) differ from their entries\n`);
        return 1;
      }
      process.stdout.write('ledger: every balance is the sum of its entries\n');
      return 0;
    } finally {
      await database.close();
    }
  },
};
