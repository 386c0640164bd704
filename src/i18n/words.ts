import { IntlMessageFormat } from 'intl-messageformat';

/**
 * The keys of every catalogue: each owner of words (the site's, each app's) adds its English
 * catalogue's keys here with `declare module`, so a key that no catalogue has does not compile.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- its keys are the catalogues' owners'.
export interface MessageKeys {}
export type MessageKey = Extract<keyof MessageKeys, string>;

/** The keys of an English catalogue, for a `MessageKeys` augmentation. */
export type KeysOf<Catalogue> = { readonly [K in keyof Catalogue]: true };

/** A message's placeholders: `{name}`, `{count, plural, …}`. */
export type MessageValues = Readonly<Record<string, string | number>>;

/** The messages of one language, by key; ICU MessageFormat. */
export type Messages = Readonly<Record<string, string>>;

/** How one language says things: its messages (with their fallbacks) and its formats of dates and numbers. */
export interface Speech {
  /** The BCP 47 tag of `<html lang>` and of the `language` choice. */
  readonly lang: string;
  /** The locale Intl formats with (the pseudo-language's is English). */
  readonly locale: string;
  /** The messages looked in, in order: the language's, LANGUAGE_CODE's, English. */
  readonly chain: readonly Messages[];
  /** Wraps every message and formatted value (the pseudo-language); the identity otherwise. */
  readonly wrap: ((text: string) => string) | null;
  readonly timeZone: string;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/**
 * Every word a page, form or mail shows, in one language: messages by key (ICU MessageFormat:
 * plurals and placeholders in the language's own rules), dates and times in the space's zone,
 * numbers and money. Made once per language by the catalogue and shared by every request.
 */
export class Words {
  private readonly compiled = new Map<string, IntlMessageFormat>();
  #date: Intl.DateTimeFormat | undefined;
  #dateTime: Intl.DateTimeFormat | undefined;
  #longDateTime: Intl.DateTimeFormat | undefined;
  #relative: Intl.RelativeTimeFormat | undefined;
  #number: Intl.NumberFormat | undefined;
  readonly #money = new Map<string, Intl.NumberFormat>();

  constructor(private readonly speech: Speech) {}

  get lang(): string {
    return this.speech.lang;
  }

  get locale(): string {
    return this.speech.locale;
  }

  /** The message `key` with its placeholders filled in. */
  t(key: MessageKey, values?: MessageValues): string {
    const text = this.format(key, values) as string;
    return this.wrapped(typeof text === 'string' ? text : String(text));
  }

  /**
   * The message's parts, with each `<tag>…</tag>` made by `tags` (a link, `<code>` in a
   * sentence): the strings are the message's text and values, still to be escaped.
   */
  parts<T extends object>(key: MessageKey, values: MessageValues, tags: Readonly<Record<string, (chunks: (string | T)[]) => T>>): (string | T)[] {
    const out = this.format(key, { ...values, ...tags });
    const parts = (Array.isArray(out) ? out : [out]) as (string | T)[];
    const wrap = this.speech.wrap;
    if (wrap === null) return parts;
    const [open, close] = wrap('\u0000').split('\u0000');
    return [open, ...parts, close];
  }

  /** `3 déc. 2026, 19:00`, in the space's zone. */
  dateTime(micros: number): string {
    this.#dateTime ??= new Intl.DateTimeFormat(this.locale, { timeZone: this.speech.timeZone, dateStyle: 'medium', timeStyle: 'short' });
    return this.wrapped(this.#dateTime.format(micros / 1000));
  }

  /** `mardi 3 décembre 2026 à 19:00`, in the space's zone. */
  longDateTime(micros: number): string {
    this.#longDateTime ??= new Intl.DateTimeFormat(this.locale, { timeZone: this.speech.timeZone, dateStyle: 'full', timeStyle: 'short' });
    return this.wrapped(this.#longDateTime.format(micros / 1000));
  }

  /** `3 déc. 2026`, in the space's zone. */
  date(micros: number): string {
    this.#date ??= new Intl.DateTimeFormat(this.locale, { timeZone: this.speech.timeZone, dateStyle: 'medium' });
    return this.wrapped(this.#date.format(micros / 1000));
  }

  /** `il y a 3 minutes`, `dans 2 jours`, `à l’instant`: the largest whole unit. */
  ago(micros: number, nowMs: number): string {
    const ms = micros / 1000 - nowMs;
    const abs = Math.abs(ms);
    this.#relative ??= new Intl.RelativeTimeFormat(this.locale, { numeric: 'auto' });
    if (abs < MINUTE_MS) return this.wrapped(this.#relative.format(0, 'second'));
    if (abs < HOUR_MS) return this.wrapped(this.#relative.format(Math.trunc(ms / MINUTE_MS), 'minute'));
    if (abs < DAY_MS) return this.wrapped(this.#relative.format(Math.trunc(ms / HOUR_MS), 'hour'));
    return this.wrapped(this.#relative.format(Math.trunc(ms / DAY_MS), 'day'));
  }

  /** `1 234,5` in French, `1,234.5` in English. */
  number(value: number): string {
    this.#number ??= new Intl.NumberFormat(this.locale, { maximumFractionDigits: 2 });
    return this.wrapped(this.#number.format(value));
  }

  /** `1,50 €` in French, `€1.50` in English. */
  money(amount: number, currency = 'EUR'): string {
    let format = this.#money.get(currency);
    if (format === undefined) {
      format = new Intl.NumberFormat(this.locale, { style: 'currency', currency });
      this.#money.set(currency, format);
    }
    return this.wrapped(format.format(amount));
  }

  private wrapped(text: string): string {
    const wrap = this.speech.wrap;
    return wrap === null ? text : wrap(text);
  }

  private format(key: MessageKey, values: Record<string, unknown> | undefined): unknown {
    let message = this.compiled.get(key);
    if (message === undefined) {
      message = new IntlMessageFormat(this.message(key), this.locale, undefined, { ignoreTag: false });
      this.compiled.set(key, message);
    }
    return message.format(values as Record<string, string | number>);
  }

  private message(key: string): string {
    for (const messages of this.speech.chain) {
      const text = messages[key];
      if (text !== undefined) return text;
    }
    // The compiler admits only keys of the English catalogue, and CI checks that it has them all.
    throw new Error(`no catalogue has the message ${JSON.stringify(key)}`);
  }
}

/**
 * Reads a number as people of any of our languages type it: `1,50`, `1.50`, `1 234,5`,
 * `1.234,5`, `1,234.5`. Null when it is no number.
 */
export function readDecimal(text: string): number | null {
  let t = text.trim().replace(/[\s\u00a0\u202f']/g, '');
  if (!/^[+-]?[0-9.,]+$/.test(t) || !/[0-9]/.test(t)) return null;
  const lastComma = t.lastIndexOf(',');
  const lastDot = t.lastIndexOf('.');
  // The last separator is the decimal one when both appear; a lone comma is decimal (`1,50`).
  const decimal = lastComma > lastDot ? ',' : '.';
  const grouping = decimal === ',' ? '.' : ',';
  const [whole, ...fraction] = t.split(decimal);
  if (fraction.length > 1) return null;
  if (whole.includes(grouping) && !/^[+-]?[0-9]{1,3}(?:[.,][0-9]{3})+$/.test(whole)) return null;
  t = whole.replaceAll(grouping, '') + (fraction.length === 1 ? '.' + fraction[0] : '');
  if (!/^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$/.test(t)) return null;
  return Number(t);
}
