/**
 * Waiting for events instead of for wall-clock time. Integration tests wait for the thing itself
 * (an answer, a log line, a state); the timeout here is only a safety net, generous on purpose,
 * so that an event that never comes fails its test with a clear message instead of hanging the
 * run. It is not a measured duration: how fast things happen is for bench/.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export const SAFETY_MS = 30_000;

function gaveUp(what: string, safetyMs: number): Error {
  return new Error(`gave up waiting for ${what} after ${safetyMs / 1000} s (a safety timeout, not a measured duration: it never happened)`);
}

/** `promise`'s value, or a failure naming `what` if it has not settled after `safetyMs`. */
export async function within<T>(promise: Promise<T>, what: string, safetyMs = SAFETY_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const safety = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(gaveUp(what, safetyMs)), safetyMs);
  });
  try {
    return await Promise.race([promise, safety]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Resolves once `check()` holds, for states that emit no event of their own (checked every
 * `everyMs`); fails naming `what` if it still does not hold after `safetyMs`.
 */
export async function until(check: () => boolean | Promise<boolean>, what: string, safetyMs = SAFETY_MS, everyMs = 10): Promise<void> {
  const deadline = Date.now() + safetyMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw gaveUp(what, safetyMs);
    await sleep(everyMs);
  }
}
