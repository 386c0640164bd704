import type { Static, TObject, TSchema } from '@sinclair/typebox';
import { FieldErrors, message, type FieldMessages, type Message } from '../resources/write-errors.js';
import { EMAIL_PATTERN, type RelationTarget } from '../resources/write-schema.js';
import { localInstant, parseLocalMicros, parseIsoMicros } from '../time.js';
import { decodePath, parseId, type RouteMatch } from './routes.js';

/**
 * DRF's serializer fields, driven by a resource's writable-field schema (resources/write-schema.ts):
 * turns a request's data (a JSON object, or a form's fields) into validated values, or throws
 * FieldErrors with DRF's messages, every field's at once.
 */

/** A parsed request body: a JSON value, or form fields (each with all its values, in order). */
export type RequestData = { kind: 'json'; value: unknown } | { kind: 'form'; fields: Map<string, string[]> };

/** create: required fields must be there; replace (PUT): the same, absent optional fields kept; patch: anything goes. */
export type WriteMode = 'create' | 'replace' | 'patch';

export interface ReadOptions {
  mode: WriteMode;
  /** The zone a date-time without an offset is read in (DRF reads it in the current time zone). */
  timeZone: string;
  /** The API route a decoded path names (the route table's), for hyperlinked relations. */
  routeOf: ApiPathMatch;
  /**
   * Refuse a local time the clocks skip or show twice (a form's, members.md §4), instead of
   * reading it as Django does (fold=0).
   */
  strictLocalTimes?: boolean;
}

/** The API route of a percent-decoded path, or null when none matches. */
export type ApiPathMatch = (decodedPath: string) => RouteMatch | null;

const REQUIRED = 'This field is required.';
const NOT_NULL = 'This field may not be null.';

export function readFields<S extends TObject>(schema: S, data: RequestData, options: ReadOptions): Partial<Static<S>> {
  const source = sourceOf(data);
  const values: Record<string, unknown> = {};
  const errors: FieldMessages = {};
  const required = new Set(schema.required ?? []);
  for (const [name, field] of Object.entries<TSchema>(schema.properties)) {
    const present = source.has(name, isMany(field));
    if (!present) {
      const formDefault = data.kind === 'form' && options.mode !== 'patch' ? formFieldDefault(field, required.has(name)) : undefined;
      if (formDefault !== undefined) values[name] = formDefault;
      else if (required.has(name) && options.mode !== 'patch') errors[name] = [REQUIRED];
      continue;
    }
    const result = readField(field, source.get(name, isMany(field)), data.kind === 'form', options);
    if ('error' in result) errors[name] = [result.error];
    else values[name] = result.value;
  }
  if (Object.keys(errors).length > 0) throw new FieldErrors(errors);
  return values;
}

/**
 * A form cannot say "empty list" or "false": as in DRF, a list it leaves out is empty and an
 * unchecked box is false. Required booleans (the door's `is_open`) must still be sent, so that a
 * truncated report is never read as "closed".
 */
function formFieldDefault(field: TSchema, required: boolean): unknown {
  if (isMany(field)) return [];
  if (nonNull(field).type === 'boolean' && !required) return false;
  return undefined;
}

interface Source {
  has(name: string, many: boolean): boolean;
  get(name: string, many: boolean): unknown;
}

function sourceOf(data: RequestData): Source {
  if (data.kind === 'form') {
    return {
      has: (name) => data.fields.has(name),
      get: (name, many) => (many ? data.fields.get(name) : data.fields.get(name)!.at(-1)),
    };
  }
  const value = data.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new FieldErrors({
      non_field_errors: [value === null ? 'No data provided' : message('Invalid data. Expected a dictionary, but got {datatype}.', { datatype: pythonType(value) })],
    });
  }
  const object = value as Record<string, unknown>;
  return { has: (name) => Object.hasOwn(object, name), get: (name) => object[name] };
}

type FieldResult = { value: unknown } | { error: Message };

function readField(field: TSchema, raw: unknown, form: boolean, options: ReadOptions): FieldResult {
  const inner = nonNull(field);
  const allowsNull = inner !== field;
  // A form cannot send null: an empty value means null where null is allowed (DRF's html input).
  // A relation reads an empty string as null in any body (DRF's RelatedField.run_validation).
  if (raw === null || (raw === '' && ((form && allowsNull) || inner['x-relation']))) return allowsNull ? { value: null } : { error: NOT_NULL };
  if (inner['x-relation']) return readRelation(raw, inner['x-relation'] as RelationTarget, options.routeOf);
  if (inner.type === 'array') return readRelations(raw, inner.items as TSchema, options.routeOf);
  if (inner.enum) return readChoice(raw, inner.enum as string[]);
  if (inner.format === 'date-time') return readDateTime(raw, options.timeZone, options.strictLocalTimes === true);
  if (inner.type === 'integer') return readInteger(raw, inner.minimum as number | undefined, inner.maximum as number | undefined);
  if (inner.type === 'boolean') return readBoolean(raw);
  return readText(raw, inner);
}

function nonNull(field: TSchema): TSchema {
  if (!field.anyOf) return field;
  return (field.anyOf as TSchema[]).find((s) => s.type !== 'null') ?? field;
}

function isMany(field: TSchema): boolean {
  return nonNull(field).type === 'array';
}

/** DRF's CharField: numbers are text too; surrounding whitespace is trimmed (trim_whitespace). */
function readText(raw: unknown, field: TSchema): FieldResult {
  if (typeof raw !== 'string' && !(typeof raw === 'number' && Number.isFinite(raw))) return { error: 'Not a valid string.' };
  const value = String(raw).trim();
  if (value.includes('\0')) return { error: 'Null characters are not allowed.' };
  if (value === '') return field['x-not-blank'] ? { error: 'This field may not be blank.' } : { value };
  // Lengths in characters (code points), as Python counts them.
  if (field.maxLength !== undefined && [...value].length > field.maxLength) {
    return { error: message('Ensure this field has no more than {max_length} characters.', { max_length: field.maxLength as number }) };
  }
  if (field.format === 'email' && !EMAIL_PATTERN.test(value)) return { error: 'Enter a valid email address.' };
  if (field.format === 'uri' && !isWebUrl(value)) return { error: 'Enter a valid URL.' };
  return { value };
}

function isWebUrl(value: string): boolean {
  try {
    const url = new URL(value);
    // Django's URLValidator: http, https, ftp and ftps.
    return ['http:', 'https:', 'ftp:', 'ftps:'].includes(url.protocol) && url.hostname !== '' && !/\s/.test(value);
  } catch {
    return false;
  }
}

function readInteger(raw: unknown, minimum: number | undefined, maximum: number | undefined): FieldResult {
  let value: number;
  if (typeof raw === 'number' && Number.isInteger(raw)) value = raw;
  else if (typeof raw === 'string' && /^\s*[+-]?\d{1,15}(\.0*)?\s*$/.test(raw)) value = parseInt(raw.trim(), 10);
  else return { error: 'A valid integer is required.' };
  if (maximum !== undefined && value > maximum) return { error: message('Ensure this value is less than or equal to {max_value}.', { max_value: maximum }) };
  if (minimum !== undefined && value < minimum) return { error: message('Ensure this value is greater than or equal to {min_value}.', { min_value: minimum }) };
  return { value };
}

const TRUE = new Set(['t', 'T', 'y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON', '1']);
const FALSE = new Set(['f', 'F', 'n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF', '0']);

/** DRF's BooleanField: true/false, 1/0, and its words. */
function readBoolean(raw: unknown): FieldResult {
  if (raw === true || raw === 1) return { value: true };
  if (raw === false || raw === 0) return { value: false };
  if (typeof raw === 'string' && TRUE.has(raw)) return { value: true };
  if (typeof raw === 'string' && FALSE.has(raw)) return { value: false };
  return { error: 'Must be a valid boolean.' };
}

function readChoice(raw: unknown, choices: string[]): FieldResult {
  const text = typeof raw === 'string' ? raw : typeof raw === 'number' || typeof raw === 'boolean' ? pythonRepr(raw) : null;
  if (text !== null && choices.includes(text)) return { value: text };
  return { error: message('"{input}" is not a valid choice.', { input: text ?? JSON.stringify(raw) }) };
}

const DATETIME_FORMAT = message('Datetime has wrong format. Use one of these formats instead: {format}.', { format: 'YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z]' });

function readDateTime(raw: unknown, timeZone: string, strict: boolean): FieldResult {
  if (typeof raw !== 'string') return { error: DATETIME_FORMAT };
  const local = strict ? readStrictLocal(raw, timeZone) : null;
  if (local !== null && 'error' in local) return local;
  const value = parseIsoMicros(raw) ?? local?.value ?? parseLocalMicros(raw, timeZone);
  if (value === null) return { error: DATETIME_FORMAT };
  // Microseconds are exact in a double up to 2^53 (the year 2255), and Django stops at 9999.
  if (Math.abs(value) > Number.MAX_SAFE_INTEGER) return { error: 'Datetime is out of the supported range (years up to 2255).' };
  return { value };
}

/** A local time read strictly: its instant, the reason it has none, or null (not a local time: read as the API reads it). */
function readStrictLocal(raw: string, timeZone: string): { value: number } | { error: Message } | null {
  const reading = localInstant(raw, timeZone);
  if (reading === null) return null;
  if ('micros' in reading) return { value: reading.micros };
  if (reading.problem === 'skipped') return { error: `This time does not exist in ${timeZone}: the clocks skip it when summer time begins. Choose another time.` };
  return { error: `This time happens twice in ${timeZone}: the clocks go back over it when summer time ends. Choose a time outside that hour.` };
}

/**
 * DRF's HyperlinkedRelatedField: the path of the URL (any host, query ignored) must be the
 * target collection's detail route. Whether the record exists is checked in the write's
 * transaction, by the resource module.
 */
function readRelation(raw: unknown, target: RelationTarget, routeOf: ApiPathMatch): FieldResult {
  if (typeof raw !== 'string') return { error: message('Incorrect type. Expected URL string, received {data_type}.', { data_type: pythonType(raw) }) };
  let path: string;
  try {
    path = new URL(raw, 'http://relative.invalid').pathname;
  } catch {
    return { error: 'Invalid hyperlink - No URL match.' };
  }
  const decoded = decodePath(path);
  const route = decoded === null ? null : routeOf(decoded);
  if (route === null) return { error: 'Invalid hyperlink - No URL match.' };
  if (route.kind !== 'detail' || route.collection !== target) return { error: 'Invalid hyperlink - Incorrect URL match.' };
  const id = parseId(route.id!);
  return id === null ? { error: 'Invalid hyperlink - Object does not exist.' } : { value: id };
}

function readRelations(raw: unknown, item: TSchema, routeOf: ApiPathMatch): FieldResult {
  if (!Array.isArray(raw)) return { error: message('Expected a list of items but got type "{input_type}".', { input_type: pythonType(raw) }) };
  const ids: number[] = [];
  for (const element of raw) {
    const result = readRelation(element, item['x-relation'] as RelationTarget, routeOf);
    if ('error' in result) return result;
    ids.push(result.value as number);
  }
  return { value: ids };
}

/** How Python names a JSON value's type, for DRF's messages. */
function pythonType(value: unknown): string {
  if (value === null) return 'NoneType';
  if (Array.isArray(value)) return 'list';
  switch (typeof value) {
    case 'string':
      return 'str';
    case 'boolean':
      return 'bool';
    case 'number':
      return Number.isInteger(value) ? 'int' : 'float';
    default:
      return 'dict';
  }
}

function pythonRepr(value: number | boolean): string {
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  return String(value);
}
