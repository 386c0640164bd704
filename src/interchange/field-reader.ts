import { MAX_ID } from '../db/schema.js';
import { parseFixtureTime } from './fixture-time.js';
import { FieldError, show } from './import-error.js';
import { codePoints } from './characters.js';

/** A date-time that would parse if it had a UTC offset: worth its own message. */
const NAIVE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?$/;

/**
 * Typed access to a fixture record's `fields`. Each reader checks the JSON type strictly, since
 * a value of the wrong type means the file is not what we think it is, and throws a FieldError
 * naming the field. A missing field takes the column's default when it has one.
 */
export class FieldReader {
  /**
   * `privateFields`: fields the API never shows (password hashes, names, balances, …): a message
   * about one describes its value, never shows it, since messages are printed and logged.
   */
  constructor(
    private readonly fields: Record<string, unknown>,
    private readonly privateFields: ReadonlySet<string> = NONE,
  ) {}

  /** `maxLength`: the original's max_length, for fields only an import writes (the API checks its own). */
  string(name: string, fallback?: string, maxLength?: number): string {
    const value = this.get(name, fallback);
    if (typeof value !== 'string') throw this.wrongType(name, value, 'a string');
    return this.storable(name, value, maxLength);
  }

  /** A string, or null when the record does not give the field. */
  givenString(name: string, maxLength?: number): string | null {
    return Object.hasOwn(this.fields, name) ? this.string(name, undefined, maxLength) : null;
  }

  /** A string or null (a TextField with null=True). */
  nullableString(name: string, fallback: string | null): string | null {
    const value = this.get(name, fallback);
    if (value === null) return null;
    if (typeof value !== 'string') throw this.wrongType(name, value, 'a string or null');
    return this.storable(name, value);
  }

  /** A FileField: a path, '' or null, kept apart as the original keeps them; '' when missing. */
  path(name: string, maxLength: number): string | null {
    const value = this.get(name, '');
    if (value === null) return null;
    if (typeof value !== 'string') throw this.wrongType(name, value, 'a string or null');
    return this.storable(name, value, maxLength);
  }

  /**
   * A DecimalField(maxDigits, places) as a whole number of its smallest unit (hundredths for 2
   * places), from a JSON string ("40.00", as Django writes it) or number; 0 when missing.
   */
  decimal(name: string, maxDigits: number, places: number): number {
    const value = this.get(name, '0');
    const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
    const reason = `must be a decimal number with at most ${maxDigits - places} digits before the point and ${places} after it`;
    if (typeof text !== 'string') throw this.wrongType(name, value, 'a decimal number');
    const match = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text.trim());
    if (!match || (match[2] === '' && !match[3])) throw new FieldError(name, `${reason}, got ${this.describe(name, value)}`);
    const whole = match[2].replace(/^0+(?=\d)/, '');
    const fraction = (match[3] ?? '').replace(/0+$/, '');
    if (whole.length > maxDigits - places || fraction.length > places) throw new FieldError(name, `${reason}, got ${this.describe(name, value)}`);
    const units = Number(whole || '0') * 10 ** places + Number(fraction.padEnd(places, '0') || '0');
    return match[1] === '-' ? -units : units;
  }

  /** PostgreSQL text cannot hold NUL; refusing it on every engine keeps the engines equal. */
  private storable(name: string, value: string, maxLength?: number): string {
    if (value.includes('\u0000')) throw new FieldError(name, `"${name}" contains a NUL character (\\u0000), which cannot be stored`);
    // Django counts characters (code points), as PostgreSQL's varchar does.
    if (maxLength !== undefined && value.length > maxLength && codePoints(value) > maxLength) {
      throw new FieldError(name, `is longer than the original's ${maxLength} characters (${codePoints(value)})`);
    }
    return value;
  }

  /** Stored as 0/1. */
  boolean(name: string, fallback?: boolean): number {
    const value = this.get(name, fallback);
    if (typeof value !== 'boolean') throw this.wrongType(name, value, 'true or false');
    return value ? 1 : 0;
  }

  integer(name: string, min: number, max: number): number {
    const value = this.get(name);
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      throw new FieldError(name, `must be a whole number from ${min} to ${max}, got ${this.describe(name, value)}`);
    }
    return value;
  }

  choice<T extends string>(name: string, choices: readonly T[]): T {
    const value = this.get(name);
    if (!(choices as readonly unknown[]).includes(value)) {
      throw new FieldError(name, `must be one of ${choices.map((c) => `"${c}"`).join(', ')}, got ${this.describe(name, value)}`);
    }
    return value as T;
  }

  /** Instants as integer microseconds. */
  time(name: string): number {
    const value = this.get(name);
    if (value === null) throw new FieldError(name, 'must be a date-time, got null');
    return this.micros(name, value);
  }

  nullableTime(name: string): number | null {
    const value = this.get(name, null);
    return value === null ? null : this.micros(name, value);
  }

  /** A foreign key: the pk of another record. */
  reference(name: string): number {
    const value = this.get(name);
    if (!isPk(value)) throw new FieldError(name, `must be the pk of a record (a positive whole number), got ${this.describe(name, value)}`);
    return value;
  }

  nullableReference(name: string): number | null {
    const value = this.get(name, null);
    return value === null ? null : this.reference(name);
  }

  /** Whether the record gives the field (a model's default applies otherwise). */
  has(name: string): boolean {
    return Object.hasOwn(this.fields, name);
  }

  /** A many-to-many field: a list of pks, duplicates dropped. */
  references(name: string): number[] {
    const value = this.get(name, []);
    if (!Array.isArray(value)) throw this.wrongType(name, value, 'a list of pks');
    for (const item of value) {
      if (!isPk(item)) throw new FieldError(name, `must list pks (positive whole numbers), found ${this.describe(name, item)}`);
    }
    return [...new Set(value as number[])];
  }

  private get(name: string, fallback?: unknown): unknown {
    if (Object.hasOwn(this.fields, name)) return this.fields[name];
    if (fallback === undefined) throw new FieldError(name, 'is missing');
    return fallback;
  }

  private micros(name: string, value: unknown): number {
    if (typeof value !== 'string') throw this.wrongType(name, value, 'an ISO 8601 date-time string');
    const micros = parseFixtureTime(value);
    if (micros !== null && Number.isSafeInteger(micros)) return micros;
    if (micros !== null) throw new FieldError(name, `${this.describe(name, value)} is too far from 1970 to be stored to the microsecond`);
    if (NAIVE_TIME.test(value.trim())) {
      throw new FieldError(name, `${this.describe(name, value)} has no UTC offset (add "Z" or "+HH:MM"; a time without one is ambiguous)`);
    }
    throw new FieldError(name, `${this.describe(name, value)} is not an ISO 8601 date-time with a UTC offset`);
  }

  private wrongType(name: string, value: unknown, expected: string): FieldError {
    return new FieldError(name, `must be ${expected}, got ${this.describe(name, value)}`);
  }

  /** Messages are printed and logged: an e-mail address or a private field's value is described, never shown. */
  private describe(name: string, value: unknown): string {
    if (name !== 'email' && !this.privateFields.has(name)) return show(value);
    return `a ${Array.isArray(value) ? 'list' : value === null ? 'null' : typeof value}`;
  }
}

const NONE: ReadonlySet<string> = new Set();

/** A positive 32-bit integer: Django's AutoField, and our integer id columns on every engine. */
export function isPk(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 && value <= MAX_ID;
}
