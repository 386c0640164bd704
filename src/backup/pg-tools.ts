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
  const given = parsed.searchParams.get('password');
  if (given !== null) {
    env.PGPASSWORD = given;
    parsed.searchParams.delete('password');
  }
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

/** The objects of a pg_dump archive's table of contents (`pg_restore --list`), one per line. */
export interface TocEntry {
  line: string;
  type: string;
  schema: string;
  name: string;
}

/** `216; 1259 16389 TABLE public users postgres`: id; catalog ids, type (may be several words), schema, name, owner. */
const TOC_LINE = /^\d+; \d+ \d+ ([A-Z][A-Z ]*?) (\S+) (\S+)(?: (\S+))?$/;

export function parseToc(list: string): TocEntry[] {
  const entries: TocEntry[] = [];
  for (const line of list.split('\n')) {
    if (line.startsWith(';') || line.trim() === '') continue;
    const match = TOC_LINE.exec(line);
    if (match) entries.push({ line, type: match[1], schema: match[2], name: match[3] });
  }
  return entries;
}

/** pg_dump's pattern for exactly one schema name (double quotes make it literal). */
export function schemaPattern(schema: string): string {
  return `"${schema.replaceAll('"', '""')}"`;
}

/** The first line of a tool's complaint, for a one-line message. */
export function firstLine(text: string): string {
  return (text.split('\n').find((line) => line.trim() !== '') ?? '').trim();
}
