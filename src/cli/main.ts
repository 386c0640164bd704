import { availableParallelism } from 'node:os';
import { ConfigError, loadConfig } from '../config.js';
import { auditCommand } from './audit.js';
import { backupCommand } from './backup.js';
import { parseCommandArgs, UsageError, type Command, type CommandContext } from '../command.js';
import { loadSpaceApi, spaceNameOf } from '../apps/space/spaceapi/config-file.js';
import { INSTALLED_APPS, migrate } from '../installed-apps.js';
import { demoCommand } from './demo.js';
import { exportCommand } from './export.js';
import { importCommand } from './import.js';
import { migrateCommand } from './migrate.js';
import { restoreCommand } from './restore.js';
import { serveCommand } from './serve.js';
import { tokenCommand } from './token.js';
import { webhooksCommand } from './webhooks.js';

// Password hashing (one per core) shares libuv's threadpool with compression and DNS: room for both.
process.env.UV_THREADPOOL_SIZE ??= String(availableParallelism() + 4);

/** The service's commands, the installed apps' among them (`AppDeclaration.commands`: `user`). */
const commands: Command[] = [
  serveCommand,
  migrateCommand,
  importCommand,
  exportCommand,
  demoCommand,
  tokenCommand,
  ...INSTALLED_APPS.flatMap((app) => app.commands ?? []),
  auditCommand,
  webhooksCommand,
  backupCommand,
  restoreCommand,
];

/** What the installed apps make of the configuration, for the commands of apps (which may not import the installed list). */
const CONTEXT: CommandContext = { migrate, spaceName: (config) => spaceNameOf(loadSpaceApi(config), config) };

function mainHelp(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    'Usage: hackerspace-api <command> [options]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    "Run `hackerspace-api <command> --help` for a command's options.",
    'Configuration comes from environment variables (see README): DATABASE_URL, HOST, PORT, …',
    '',
  ].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(mainHelp());
    return name === undefined ? 2 : 0;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    process.stderr.write(`unknown command ${JSON.stringify(name)}\n\n${mainHelp()}`);
    return 2;
  }
  try {
    const { values, positionals } = parseCommandArgs(command, rest);
    if (values.help) {
      process.stdout.write(`${command.usage}\n`);
      return 0;
    }
    return (await command.run(values, positionals, loadConfig(), CONTEXT)) ?? 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${command.name}: ${error.message}\n(see hackerspace-api ${command.name} --help)\n`);
      return 2;
    }
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
      return 78;
    }
    throw error;
  }
}

const code = await main(process.argv.slice(2));
if (code !== 0) process.exitCode = code;
