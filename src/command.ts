import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Kysely } from 'kysely';
import type { Config } from './config.js';

/** One subcommand of `hackerspace-api`: its help text and what it does with its arguments. */
export interface Command {
  name: string;
  summary: string;
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  allowPositionals?: boolean;
  /** `config` is the environment, read once by main.ts and passed to whatever needs it; `context`, what the installed apps make of it. */
  run(values: Record<string, string | boolean | undefined>, positionals: string[], config: Config, context: CommandContext): Promise<number | void>;
}

/** What a command of an app gets from the installed list (cli/main.ts), which no app may import. */
export interface CommandContext {
  /** Brings a database's schema up to date with the installed apps; the migrations it applied. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's migrations run on any database type.
  migrate(db: Kysely<any>): Promise<string[]>;
  /** The space's name as the pages show it (the SpaceAPI file's, else SPACE_NAME); reads the SpaceAPI file. */
  spaceName(config: Config): string;
}

/** A user mistake on the command line: printed without a stack trace, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export function parseCommandArgs(command: Command, argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: command.allowPositionals ?? false,
      strict: true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** Reads a whole-number option, failing with a message that names it. */
export function integerOption(values: Record<string, unknown>, name: string, fallback: number): number {
  const raw = values[name];
  if (raw === undefined) return fallback;
  if (typeof raw !== 'string' || !/^\d+$/.test(raw)) throw new UsageError(`--${name} expects a whole number, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

/** Rows as text columns, two spaces apart, each line ending with its last cell: the listings' format. */
export function columns(rows: readonly (readonly string[])[]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return (
    rows
      .map((r) =>
        r
          .map((cell, i) => cell.padEnd(widths[i]))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}
