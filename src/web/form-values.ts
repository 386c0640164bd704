import type { TObject, TSchema } from '@sinclair/typebox';
import { readDecimal, type Words } from '../i18n/words.js';
import type { FormLists } from '../request/form.js';
import { localInstant } from '../time.js';

/**
 * A record form's values as the browser sends and shows them, one list of strings per field of
 * the collection's writable fields (resources/): a member as their API path (`/api/users/5/`, a
 * hyperlink as the API's write fields take it), a time as the wall-clock time in TIME_ZONE
 * (`2026-03-29T19:00`). Pure: the same values go to the page, to the one write path
 * (drf/record-writes.ts) and to a conflict's differences.
 */
export type FormValues = ReadonlyMap<string, readonly string[]>;

/** How a form shows one writable field, read from its schema. */
export type FieldShape =
  | { kind: 'member'; many: boolean; nullable: boolean }
  | { kind: 'event' }
  | { kind: 'choice'; labels: Readonly<Record<string, string>> }
  | { kind: 'time' }
  | { kind: 'number'; minimum: number; maximum: number }
  | { kind: 'url'; maxLength: number | undefined }
  | { kind: 'line'; maxLength: number }
  | { kind: 'text'; maxLength: number | undefined; markdown: boolean };

/** Lines up to this length are one-line inputs; longer text is a text area. */
const LINE_LENGTH = 300;

function nonNull(field: TSchema): TSchema {
  return ((field.anyOf as TSchema[] | undefined) ?? []).find((s) => s.type !== 'null') ?? field;
}

export function shapeOf(field: TSchema): FieldShape {
  const inner = nonNull(field);
  const nullable = inner !== field;
  if (inner.type === 'array') return { kind: 'member', many: true, nullable };
  if (inner['x-relation'] === 'users') return { kind: 'member', many: false, nullable };
  if (inner['x-relation'] === 'events') return { kind: 'event' };
  if (inner.enum) return { kind: 'choice', labels: inner['x-labels'] as Record<string, string> };
  if (inner.format === 'date-time') return { kind: 'time' };
  if (inner.type === 'integer') return { kind: 'number', minimum: inner.minimum as number, maximum: inner.maximum as number };
  if (inner.format === 'uri') return { kind: 'url', maxLength: inner.maxLength as number | undefined };
  const maxLength = inner.maxLength as number | undefined;
  if (maxLength !== undefined && maxLength <= LINE_LENGTH) return { kind: 'line', maxLength };
  // Long text without a bound is the records' Markdown (content, description, agenda, minutes).
  return { kind: 'text', maxLength, markdown: maxLength === undefined };
}

/** The fields of a schema, in its order, with their labels and shapes. */
export function formFields(schema: TObject): { name: string; label: string; shape: FieldShape }[] {
  return Object.entries<TSchema>(schema.properties).map(([name, field]) => ({ name, label: field.title as string, shape: shapeOf(field) }));
}

/**
 * The fields of a posted form that belong to the schema: every value of a list (the members
 * ticked), the first of any other field (as request/form.ts reads a field sent twice).
 */
export function typedValues(schema: TObject, lists: FormLists): Map<string, string[]> {
  const values = new Map<string, string[]>();
  for (const { name, shape } of formFields(schema)) {
    const sent = lists.get(name);
    if (sent === undefined) continue;
    values.set(name, shape.kind === 'member' && shape.many ? [...sent] : shape.kind === 'number' ? [typedNumber(sent[0])] : [sent[0]]);
  }
  return values;
}

/**
 * A number as people of any of our languages type it (`50`, `50,0`, `1 000`), as the API reads
 * it (`50`, `1000`); anything else as typed, for the validation to refuse (`1,5` is no whole number).
 */
function typedNumber(text: string): string {
  const value = readDecimal(text);
  return value !== null && Number.isSafeInteger(value) ? String(value) : text;
}

/**
 * The messages of a form's refused fields in the page's language: the core (the API's
 * validation) decides which fields fail; each failing field's message is said again from its
 * shape and what was typed, in the same order of checks as the API's. A message none of these
 * explains is kept as the core gave it.
 */
export function fieldProblems(words: Words, schema: TObject, values: FormValues, errors: Readonly<Record<string, readonly string[]>>, timeZone: string): Record<string, string[]> {
  const fields = new Map(Object.entries<TSchema>(schema.properties));
  const out: Record<string, string[]> = {};
  for (const [name, messages] of Object.entries(errors)) {
    const field = fields.get(name);
    const said = field === undefined ? null : problemOf(words, field, values.get(name), timeZone);
    out[name] = said === null ? [...messages] : [said];
  }
  return out;
}

/** The first problem of a typed value, in the page's language; null when none of the checks below finds it. */
function problemOf(words: Words, field: TSchema, typed: readonly string[] | undefined, timeZone: string): string | null {
  const shape = shapeOf(field);
  const inner = nonNull(field);
  const nullable = inner !== field;
  if (typed === undefined) return words.t('site.form.error.required');
  // A member who does not exist (any more), or none where one is needed.
  if (shape.kind === 'member') return words.t(!shape.many && !nullable && (typed[0] ?? '') === '' ? 'site.form.error.null' : 'site.form.error.no-member');
  const value = typed[0] ?? '';
  if (value === '' && nullable) return null;
  switch (shape.kind) {
    case 'event':
      return words.t('site.form.error.no-member');
    case 'choice':
      return shape.labels[value] === undefined ? words.t('site.form.error.choice', { value }) : null;
    case 'time': {
      const reading = localInstant(value, timeZone);
      if (reading !== null && 'problem' in reading)
        return words.t(reading.problem === 'skipped' ? 'site.form.error.time-skipped' : 'site.form.error.time-repeated', { zone: timeZone });
      return reading === null ? words.t('site.form.error.time-format') : null;
    }
    case 'number': {
      if (!/^\s*[+-]?\d{1,15}(\.0*)?\s*$/.test(value)) return words.t('site.form.error.integer');
      const n = parseInt(value.trim(), 10);
      if (n > shape.maximum) return words.t('site.form.error.max-value', { max: shape.maximum });
      if (n < shape.minimum) return words.t('site.form.error.min-value', { min: shape.minimum });
      return null;
    }
    case 'url':
    case 'line':
    case 'text': {
      const text = value.trim();
      if (text === '') return inner['x-not-blank'] ? words.t('site.form.error.blank') : null;
      if (shape.maxLength !== undefined && [...text].length > shape.maxLength) return words.t('site.form.error.max-length', { max: shape.maxLength });
      return shape.kind === 'url' ? words.t('site.form.error.url') : null;
    }
  }
}

/** A record as the API shows it (spelled with the forms' context: paths and wall-clock times) as form values. */
export function recordValues(schema: TObject, record: Readonly<Record<string, unknown>>): Map<string, string[]> {
  const values = new Map<string, string[]>();
  for (const { name } of formFields(schema)) {
    const value = record[name];
    if (value === undefined) continue;
    values.set(name, Array.isArray(value) ? value.map(textOf) : [textOf(value)]);
  }
  return values;
}

/** A record's value as a form's text: strings and numbers as they are, null as an empty field. */
function textOf(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

/** The id of a member's API path (`/api/users/5/`, or a full URL to it), or null. */
export function memberIdOf(value: string): number | null {
  let path: string;
  try {
    path = new URL(value, 'http://form.invalid').pathname;
  } catch {
    return null;
  }
  const digits = /^\/api\/users\/([0-9]{1,15})\/$/.exec(path)?.[1];
  return digits === undefined ? null : Number(digits);
}

/** One field where the saved record and the typed form differ. */
export interface Difference {
  name: string;
  label: string;
  saved: readonly string[];
  typed: readonly string[];
}

/** The fields whose saved value differs from the typed one (lists compared as sets; text as the API trims it). */
export function differences(schema: TObject, saved: FormValues, typed: FormValues): Difference[] {
  const normal = (values: readonly string[] | undefined, many: boolean) => {
    const trimmed = (values ?? []).map((v) => v.trim());
    return many ? [...new Set(trimmed)].sort() : trimmed.slice(0, 1);
  };
  const found: Difference[] = [];
  for (const { name, label, shape } of formFields(schema)) {
    const many = shape.kind === 'member' && shape.many;
    const a = normal(saved.get(name), many);
    const b = normal(typed.get(name), many);
    if (a.join('\n') !== b.join('\n')) found.push({ name, label, saved: a, typed: b });
  }
  return found;
}
