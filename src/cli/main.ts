import { availableParallelism } from 'node:os';
import { ConfigError, loadConfig } from '../config.js';
import { auditCommand } from './audit.js';
import { backupCommand } from './backup.js';
import { parseCommandArgs, UsageError, type Command } from './command.js';
import { demoCommand } from './demo.js';
import { exportCommand } from './export.js';
import { importCommand } from './import.js';
import { migrateCommand } from './migrate.js';
import { restoreCommand } from './restore.js';
import { serveCommand } from './serve.js';
import { tokenCommand } from './token.js';
import { userCommand } from './user.js';
import { webhooksCommand } from './webhooks.js';

// Password hashing (one per core) shares libuv's threadpool with compression and DNS: room for both.
process.env.UV_THREADPOOL_SIZE ??= String(availableParallelism() + 4);

const commands: Command[] = [
  serveCommand,
  migrateCommand,
  importCommand,
  exportCommand,
  demoCommand,
  tokenCommand,
  userCommand,
  auditCommand,
  webhooksCommand,
  backupCommand,
  restoreCommand,
];

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
    return (await command.run(values, positionals, loadConfig())) ?? 0;
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
