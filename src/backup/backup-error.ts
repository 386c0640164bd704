/**
 * A backup or restore that cannot be done as asked: the message says why and what to do, and is
 * all the CLI prints (exit code 1). Nothing was changed.
 */
export class BackupError extends Error {
  override name = 'BackupError';
}
