import fs from 'node:fs';
import path from 'node:path';
import { BackupError } from './backup-error.js';

/**
 * A backup is written under a temporary name beside its target and renamed when complete and on
 * disk, so that FILE is always either absent, the previous backup, or a whole new one.
 */
export function partialPath(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.partial`);
}

/** Fails at once, before anything is written, when FILE cannot be created where it is asked for. */
export function checkTargetDirectory(file: string): void {
  const dir = path.dirname(path.resolve(file));
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dir);
  } catch (error) {
    throw new BackupError(`cannot write ${file}: the directory ${dir} does not exist (${(error as NodeJS.ErrnoException).code})`);
  }
  if (!stat.isDirectory()) throw new BackupError(`cannot write ${file}: ${dir} is not a directory`);
}

/** Syncs the finished temporary file, renames it to `file` and syncs the directory, so the rename survives a crash. */
export async function commitPartial(partial: string, file: string): Promise<void> {
  await syncPath(partial, 'r+');
  await fs.promises.rename(partial, file);
  await syncPath(path.dirname(path.resolve(file)), 'r').catch(() => {});
}

/** Removes a temporary file and whatever SQLite left beside it. */
export async function removePartial(partial: string): Promise<void> {
  for (const suffix of ['', '-journal', '-wal', '-shm']) await fs.promises.rm(partial + suffix, { force: true });
}

async function syncPath(target: string, flags: string): Promise<void> {
  const handle = await fs.promises.open(target, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** What a file's first bytes say it is. */
export type BackupKind = 'sqlite' | 'pg_dump';

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
const PG_DUMP_MAGIC = Buffer.from('PGDMP', 'latin1');

/** The head as text, if it is UTF-8 without control characters (one in a hundred random heads starts with `[` or `{`). */
function textOf(head: Buffer): string | null {
  let text: string;
  try {
    // `stream`: the head may end inside a character.
    text = new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
  } catch {
    return null;
  }
  // eslint-disable-next-line no-control-regex
  return /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text) ? null : text;
}

/** Reads the head of a backup file: an SQLite database or a pg_dump archive, or a clear error. */
export async function kindOfBackup(file: string): Promise<BackupKind> {
  let head: Buffer;
  try {
    const handle = await fs.promises.open(file, 'r');
    try {
      const { buffer, bytesRead } = await handle.read(Buffer.alloc(16), 0, 16, 0);
      head = buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : `${code ?? ''} ${(error as Error).message}`.trim();
    throw new BackupError(`cannot read the backup ${file}: ${why}`);
  }
  if (head.length >= SQLITE_MAGIC.length && head.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC)) return 'sqlite';
  if (head.subarray(0, PG_DUMP_MAGIC.length).equals(PG_DUMP_MAGIC)) return 'pg_dump';
  const text = textOf(head);
  if (text !== null && /^\s*[[{]/.test(text)) {
    throw new BackupError(`${file} is not a backup but JSON (an \`export\`?): load a dumpdata fixture with \`hackerspace-api import\``);
  }
  throw new BackupError(`${file} is not a backup made by \`hackerspace-api backup\`: expected an SQLite database or a pg_dump archive`);
}
