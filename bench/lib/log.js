// Logging and failure for the benchmark drivers.
//
// log() writes progress to stderr with the time; a BenchFailure carries the exit status the driver
// ends with: 1 for a failure (a command failed, a server died, a wrong answer), 2 for bad usage.
// A missed target is not an exception: the drivers count their verdicts and exit 3 at the end.

export class BenchFailure extends Error {
  constructor(message, status = 1) {
    super(message);
    this.status = status;
  }
}

/** Stops the run with a failure (exit 1 after cleanup). */
export function fail(message) {
  throw new BenchFailure(message, 1);
}

/** Stops the run with a usage error (exit 2). */
export function usageError(message) {
  throw new BenchFailure(message, 2);
}

export function log(message) {
  const time = new Date().toTimeString().slice(0, 8);
  process.stderr.write(`[${time}] ${message}\n`);
}

/** A database URL with its password masked, for messages. */
export function safeUrl(url) {
  return String(url).replace(/^([a-z]+:\/\/[^:@/]*):[^@/]*@/, '$1:***@');
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
