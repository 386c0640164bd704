import { openDatabase } from '../../../db/connection.js';
import { type Command, UsageError } from '../../../command.js';
import { checkLedger } from '../ledger.js';
import { formatCents } from '../money.js';

/** `hackerspace-api ledger check`: every member's kept balance against the sum of their entries (ledger.md §3). */
export const ledgerCommand: Command = {
  name: 'ledger',
  summary: "Check that every member's balance is the sum of their ledger entries",
  usage: `hackerspace-api ledger check

check    recomputes every member's balance from the ledger and compares it with the balance
         kept on the member. Prints one line per member that differs (id, username, kept,
         from the entries) and exits 1; exits 0 and says so when every balance agrees.`,
  options: {},
  allowPositionals: true,
  async run(_values, positionals, config, context) {
    if (positionals.length !== 1 || positionals[0] !== 'check') throw new UsageError('expected: ledger check');
    const database = await openDatabase(config.database);
    try {
      await context.migrate(database.db);
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
