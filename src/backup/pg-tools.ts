import { spawn } from 'node:child_process';

/**
 * How a PostgreSQL client program (pg_dump, pg_restore) reaches DATABASE_URL: the URL without its
 * password on the command line (where `ps` shows it to every user), the password in PGPASSWORD.
 */
export function connectionFor(url: string): { dbname: string; env: NodeJS.ProcessEnv } {
  const parsed = new URL(url);
  const env: NodeJS.ProcessEnv = {};
  if (parsed.password) env.PGPASSWORD = decodeURIComponent(parsed.password);
  parsed.password = '';
  const parameters: string[] = [];
  for (const [key, value] of parsed.searchParams) {
    if (key === 'password') env.PGPASSWORD = value;
    // libpq decodes %20 but not the form encoding's `+` (which node-pg reads as a space).
    else parameters.push(`${encodeURIComponent(key)}=${encodeURIComponent(value)}`);
  }
  parsed.search = parameters.length > 0 ? `?${parameters.join('&')}` : '';
  return { dbname: parsed.toString(), env };
}

export interface ToolResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end; null when it is not installed (not on PATH). */
export function runTool(program: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<ToolResult | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', (error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? resolve(null) : reject(error)));
    child.once('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr }));
  });
}

/**
 * A pg_dump archive's table of contents (`pg_restore --list`): one line per object,
 * `216; 1259 16389 TABLE public users postgres` (dump id; catalog ids; type, which may be several
 * words; then schema, name(s) and owner). Lines starting with `;` are comments.
 */
export interface Toc {
  /** The object lines, as listed: given back to pg_restore --use-list, minus the ones left out. */
  lines: string[];
  /** The tables, by schema. */
  tables: Array<{ schema: string; name: string }>;
}

const TABLE_LINE = /^\d+; \d+ \d+ TABLE (\S+) (\S+) \S+$/;
/** The schema itself (and its comment): the target's, created or kept by restore, never by pg_restore. */
const SCHEMA_LINE = /^\d+; \d+ \d+ (SCHEMA - |COMMENT - SCHEMA )/;

export function parseToc(list: string): Toc {
  const lines = list.split('\n').filter((line) => line.trim() !== '' && !line.startsWith(';'));
  const tables = lines.flatMap((line) => {
    const match = TABLE_LINE.exec(line);
    return match ? [{ schema: match[1], name: match[2] }] : [];
  });
  return { lines, tables };
}

/** The list for pg_restore --use-list: every object but the schema. */
export function withoutSchema(toc: Toc): string {
  return toc.lines.filter((line) => !SCHEMA_LINE.test(line)).join('\n') + '\n';
}

/** pg_dump's pattern for exactly one schema name (double quotes make it literal). */
export function schemaPattern(schema: string): string {
  return `"${schema.replaceAll('"', '""')}"`;
}

/** The first line of a tool's complaint, for a one-line message. */
export function firstLine(text: string): string {
  return (text.split('\n').find((line) => line.trim() !== '') ?? '').trim();
}
