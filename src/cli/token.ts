import type { Config } from '../config.js';
import { openDatabase, type Db } from '../db/connection.js';
import { migrate } from '../installed-apps.js';
import { createToken, listTokens, revokeToken, TOKEN_SCOPES, TokenError, type TokenInfo } from '../resources/tokens.js';
import { formatIsoUtc } from '../time.js';
import { columns, type Command, UsageError } from '../command.js';

export const tokenCommand: Command = {
  name: 'token',
  summary: 'Create, list and revoke API tokens',
  usage: `hackerspace-api token create --name NAME --scope door|admin|kiosk
hackerspace-api token list
hackerspace-api token revoke NAME|ID

create   prints the new token's secret, alone on standard output (everything else goes to
         standard error), so that a script can capture it: it is shown this once and only a
         hash of it is stored. Scopes: door (may only record openings), admin (may write everything),
         kiosk (opens the slate's kiosk by the fridge: records purchases and their undo, nothing else).
list     names, scopes, creation, last-use and revocation times; never secrets.
revoke   by name or id; the token stops working at once.`,
  options: { name: { type: 'string' }, scope: { type: 'string' } },
  allowPositionals: true,
  async run(values, positionals, config) {
    const [action, ...rest] = positionals;
    if (action === 'create') {
      if (rest.length) throw new UsageError('create takes no positional arguments');
      if (typeof values.name !== 'string' || typeof values.scope !== 'string') throw new UsageError('create needs --name and --scope');
      return withTokens(config, async (db) => {
        const { token, secret } = await createToken(db, values.name as string, values.scope as string, Date.now() * 1000);
        process.stderr.write(`created token ${token.id} ${JSON.stringify(token.name)} (scope ${token.scope}); its secret follows, shown only now\n`);
        process.stdout.write(`${secret}\n`);
      });
    }
    if (action === 'list') {
      if (rest.length) throw new UsageError('list takes no arguments');
      return withTokens(config, async (db) => {
        process.stdout.write(formatList(await listTokens(db)));
      });
    }
    if (action === 'revoke') {
      if (rest.length !== 1) throw new UsageError('revoke takes one token name or id');
      return withTokens(config, async (db) => {
        const token = await revokeToken(db, rest[0], Date.now() * 1000);
        process.stderr.write(`revoked token ${token.id} ${JSON.stringify(token.name)}\n`);
      });
    }
    throw new UsageError(`expected create, list or revoke${action ? `, got ${JSON.stringify(action)}` : ''} (scopes: ${TOKEN_SCOPES.join(', ')})`);
  },
};

async function withTokens(config: Config, work: (db: Db) => Promise<void>): Promise<number> {
  const database = await openDatabase(config.database);
  try {
    await migrate(database.db);
    await work(database.db);
    return 0;
  } catch (error) {
    if (error instanceof TokenError) {
      process.stderr.write(`token: ${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    await database.close();
  }
}

function formatList(tokens: TokenInfo[]): string {
  const time = (us: number | null) => (us === null ? '-' : formatIsoUtc(Math.floor(us / 1_000_000) * 1_000_000));
  const rows = [
    ['ID', 'NAME', 'SCOPE', 'CREATED', 'LAST USED', 'REVOKED'],
    ...tokens.map((t) => [String(t.id), t.name, t.scope, time(t.createdUs), time(t.lastUsedUs), time(t.revokedUs)]),
  ];
  return columns(rows);
}
