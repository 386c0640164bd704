import type { TSchema } from '@sinclair/typebox';
import { mayWrite, memberRightFor, type Caller } from './auth.js';
import type { Collection } from './collections.js';
import type { RouteMatch } from './routes.js';

/** What DRF's views say they parse. */
export const PARSES = ['application/json', 'application/x-www-form-urlencoded'];

/** DRF's metadata for OPTIONS on an API route (not a view's: drf/api-view.ts), with `actions` when the caller may write there. */
export function optionsBody(route: RouteMatch, token: Caller | null, collection: Collection | null) {
  if (route.kind === 'root') {
    return { name: 'Api Root', description: 'The default basic root view for DefaultRouter', renders: ['application/json'], parses: PARSES };
  }
  if (route.kind === 'schema') {
    return {
      name: 'Schema',
      description: 'This API described in OpenAPI 3.1 (JSON): every route, its parameters, bodies and answers.',
      renders: ['application/json'],
      parses: PARSES,
    };
  }
  const view = collection!.viewName;
  const body = { name: `${view} ${route.kind === 'list' ? 'List' : 'Instance'}`, description: '', renders: ['application/json'], parses: PARSES };
  const actions = actionsFor(route, collection!, token);
  return actions ? { ...body, actions } : body;
}

/** Fields a door token may set: only the state (the time is the server's). */
const DOOR_FIELDS = new Set(['is_open']);

/**
 * DRF's `actions` for OPTIONS: the fields of the method the caller may use there (POST on a
 * collection, PUT on a record), described as DRF's SimpleMetadata does. Undefined when the
 * caller may not write there (nobody may in a read-only collection).
 */
export function actionsFor(route: RouteMatch, collection: Collection, token: Caller | null): Record<string, Record<string, object>> | undefined {
  // A read-only collection (the original's ReadOnlyPermission) refuses every write: DRF describes no action there.
  if (token === null || route.collection === null || collection.readOnly === true) return undefined;
  const method = route.kind === 'list' ? 'POST' : 'PUT';
  if (!mayWrite(token, route, method, collection.memberWrites)) return undefined;
  // A member's token: only where the owner holds the right itself (being a maintainer or an organizer is known only per record).
  if (token.scope === 'member' && !token.rights.has(memberRightFor(route, method, collection.memberWrites)!)) return undefined;
  const { fields, record } = collection;
  const writableNames = token.scope === 'door' ? DOOR_FIELDS : new Set(Object.keys(fields.properties));
  const required = new Set(fields.required ?? []);
  const described: Record<string, object> = {};
  const names = [...Object.keys(record.properties), ...Object.keys(fields.properties)];
  for (const name of new Set(names)) {
    const field = fields.properties[name] as TSchema | undefined;
    if (field && writableNames.has(name)) described[name] = describeWritable(field, required.has(name));
    else if (!field || !field.writeOnly) described[name] = describeReadOnly(name, record.properties[name] ?? field!);
  }
  return { [method]: described };
}

function describeWritable(field: TSchema, required: boolean): object {
  const inner = field.anyOf ? (field.anyOf as TSchema[]).find((s) => s.type !== 'null')! : field;
  const info: Record<string, unknown> = { type: fieldType(inner, false), required, read_only: false, label: field.title ?? inner.title };
  if (inner.maxLength !== undefined) info.max_length = inner.maxLength;
  if (inner.minimum !== undefined) info.min_value = inner.minimum;
  if (inner.maximum !== undefined) info.max_value = inner.maximum;
  if (inner['x-labels']) {
    info.choices = Object.entries(inner['x-labels'] as Record<string, string>).map(([value, display_name]) => ({ value, display_name }));
  }
  return info;
}

function describeReadOnly(name: string, field: TSchema): object {
  const label = name === 'id' ? 'ID' : name.charAt(0).toUpperCase() + name.slice(1).replace(/_/g, ' ');
  return { type: fieldType(field.anyOf ? (field.anyOf as TSchema[])[0] : field, true), required: false, read_only: true, label };
}

/** DRF's names: hyperlinks are a `field`, lists of them too; a writable URL is a `url`. */
function fieldType(field: TSchema, readOnly: boolean): string {
  if (field['x-relation'] || field.type === 'array') return 'field';
  if (field.enum) return 'choice';
  if (field.format === 'date-time') return 'datetime';
  if (field.format === 'email') return 'email';
  if (field.format === 'uri') return readOnly ? 'field' : 'url';
  return field.type === 'integer' || field.type === 'boolean' ? (field.type as string) : 'string';
}
