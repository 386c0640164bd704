/**
 * Checking and making members' password hashes, as Django does: every format the original may hold
 * is verified (hash-formats.ts), new and upgraded hashes are pbkdf2_sha256 so that an export still
 * logs members in on the original. Hashing runs off the event loop, a bounded number at a time,
 * with a bounded queue; an unknown account costs the same work as a real one. No HTTP here.
 */
import crypto from 'node:crypto';
import os from 'node:os';
import { MAX_PBKDF2_ITERATIONS, parseStoredHash, pbkdf2Digest } from './hash-formats.js';

export { passwordProblem } from './password-rules.js';

export interface PasswordCheck {
  /** True when the password matches the stored hash. */
  matches: boolean;
  /** When it matched but the hash is not pbkdf2_sha256 with the configured iterations: the new hash to store. Else null. */
  upgraded: string | null;
}

export interface HasherOptions {
  /** PBKDF2 iterations of new and upgraded hashes (the original's default: 1,200,000). */
  iterations: number;
  /** hashings at once (default: os.availableParallelism()) */
  concurrency?: number;
  /** hashings waiting at most; past it `HashingBusy` */
  queueLimit: number;
  log?: { warn(obj: object, msg: string): void };
}

/** Too many hashings are running and waiting: answer 503 with `Retry-After`. */
export class HashingBusy extends Error {
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number) {
    super(`password hashing is busy: retry after ${retryAfterSeconds} s`);
    this.name = 'HashingBusy';
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Django's salt alphabet (RANDOM_STRING_CHARS) and length: 22 characters of 62 are 131 bits. */
const SALT_ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const SALT_LENGTH = 22;
/** The salt of the stand-in check for an account that cannot log in; any fixed salt of the usual length. */
const DUMMY_SALT = 'unknownaccountdummysal';
const NO_MATCH: PasswordCheck = Object.freeze({ matches: false, upgraded: null });

function randomSalt(): string {
  let salt = '';
  for (let i = 0; i < SALT_LENGTH; i++) salt += SALT_ALPHABET[crypto.randomInt(SALT_ALPHABET.length)];
  return salt;
}

/**
 * A slot rests after a hash, when others wait, for as long as the hash took: a flood of wrong
 * passwords then keeps each slot's thread busy half the time, and the event loop its share of the core.
 */
const REST_PER_BUSY = 1;

/**
 * A counting semaphore with a bounded queue: at most `size` tasks run, at most `queueLimit` wait;
 * under a queue each slot rests between tasks (REST_PER_BUSY).
 */
export class HashingSlots {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  /** A moving average of a task's duration, for Retry-After. */
  private averageMs = 0;

  constructor(
    private readonly size: number,
    private readonly queueLimit: number,
  ) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running < this.size) this.running += 1;
    else if (this.waiting.length >= this.queueLimit) throw new HashingBusy(this.retryAfterSeconds());
    // A finishing task hands its slot over directly, so `running` stays counted.
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    const started = performance.now();
    try {
      return await task();
    } finally {
      const ms = performance.now() - started;
      this.averageMs = this.averageMs === 0 ? ms : 0.8 * this.averageMs + 0.2 * ms;
      const next = this.waiting.shift();
      if (next === undefined) this.running -= 1;
      // Timers may fire up to a millisecond early: rounded up and one more, the rest is never shorter.
      else setTimeout(next, Math.ceil(ms * REST_PER_BUSY) + 1);
    }
  }

  /** Long enough for the queue ahead to drain, rests included, from 1 s to a minute. */
  private retryAfterSeconds(): number {
    const seconds = Math.ceil((this.averageMs * (1 + REST_PER_BUSY) * (this.waiting.length + this.size)) / this.size / 1000);
    return Math.min(60, Math.max(1, seconds));
  }
}

export class PasswordHasher {
  private readonly iterations: number;
  private readonly maxIterations: number;
  private readonly slots: HashingSlots;
  private readonly log: HasherOptions['log'];
  /** The formats already logged as unknown or malformed: once each, never the hash. */
  private readonly warned = new Set<string>();

  constructor(options: HasherOptions) {
    const concurrency = options.concurrency ?? os.availableParallelism();
    if (!Number.isSafeInteger(options.iterations) || options.iterations < 1) throw new RangeError('iterations must be a positive integer');
    if (!Number.isSafeInteger(concurrency) || concurrency < 1) throw new RangeError('concurrency must be a positive integer');
    if (!Number.isSafeInteger(options.queueLimit) || options.queueLimit < 0) throw new RangeError('queueLimit must be a non-negative integer');
    this.iterations = options.iterations;
    // Our own hashes must verify even when PASSWORD_ITERATIONS is above the cap.
    this.maxIterations = Math.max(MAX_PBKDF2_ITERATIONS, options.iterations);
    this.slots = new HashingSlots(concurrency, options.queueLimit);
    this.log = options.log;
  }

  /**
   * stored === null means an unknown or inactive account or an unusable password: do the same work
   * as a real check (a pbkdf2_sha256 at the configured iterations against a dummy), return matches false.
   * Rejects with HashingBusy only; any stored string that cannot be checked does not match.
   */
  async verify(stored: string | null, password: string): Promise<PasswordCheck> {
    const parsed = stored === null ? null : parseStoredHash(stored, this.maxIterations);
    if (parsed?.kind === 'unknown') this.warnOnce(`unknown ${parsed.algorithm}`, { format: parsed.algorithm }, 'password hash format not supported: it never matches');
    if (parsed?.kind === 'malformed')
      this.warnOnce(`malformed ${parsed.algorithm}`, { format: parsed.algorithm }, 'password hash malformed or beyond the cost limits: it never matches');
    return this.slots.run(async () => {
      if (parsed === null || parsed.kind !== 'usable') {
        await pbkdf2Digest('sha256', password, DUMMY_SALT, this.iterations);
        return NO_MATCH;
      }
      let matches: boolean;
      try {
        matches = await parsed.matches(password);
      } catch {
        // A native library refusing a parameter the parser let through: the hash cannot be checked, so it does not match.
        this.warnOnce(`failed ${parsed.algorithm}`, { format: parsed.algorithm }, 'password hash could not be checked: it never matches');
        matches = false;
      }
      if (!matches) return NO_MATCH;
      const current = parsed.algorithm === 'pbkdf2_sha256' && parsed.iterations === this.iterations;
      return { matches: true, upgraded: current ? null : await this.newHash(password) };
    });
  }

  /** A new pbkdf2_sha256$<iterations>$<salt>$<base64> hash, salt ≥128 bits in Django's alphabet (a-zA-Z0-9, 22 chars as Django makes). */
  async hash(password: string): Promise<string> {
    return this.slots.run(() => this.newHash(password));
  }

  private async newHash(password: string): Promise<string> {
    const salt = randomSalt();
    const digest = await pbkdf2Digest('sha256', password, salt, this.iterations);
    return `pbkdf2_sha256$${this.iterations}$${salt}$${digest.toString('base64')}`;
  }

  private warnOnce(key: string, obj: object, msg: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.log?.warn(obj, msg);
  }
}
