import type { TObject, TSchema } from '@sinclair/typebox';
import { EventRecord } from '../resources/events.js';
import { MeetingRecord } from '../resources/meetings.js';
import { OpeningRecord } from '../resources/openings.js';
import { ProjectRecord } from '../resources/projects.js';
import type { TokenInfo } from '../resources/tokens.js';
import { UserRecord } from '../resources/users.js';
import { mayWrite } from './auth.js';
import type { CollectionPath, RouteMatch } from './routes.js';
import { writable } from './writes.js';

const RECORDS: Record<CollectionPath, TObject> = {
  users: UserRecord,
  'space/openings': OpeningRecord,
  projects: ProjectRecord,
  meetings: MeetingRecord,
  events: EventRecord,
};

/** Fields a door token may set: only the state (the time is the server's). */
const DOOR_FIELDS = new Set(['is_open']);

/**
 * DRF's `actions` for OPTIONS: the fields of the method the caller may use there (POST on a
 * collection, PUT on a record), described as DRF's SimpleMetadata does. Undefined when the
 * caller may not write there.
 */
export function actionsFor(route: RouteMatch, token: TokenInfo | null): Record<string, Record<string, object>> | undefined {
  if (token === null || route.collection === null) return undefined;
  const method = route.kind === 'list' ? 'POST' : 'PUT';
  if (!mayWrite(token, route, method)) return undefined;
  const collection = route.collection!;
  const fields = writable[collection].fields;
  const writableNames = token.scope === 'admin' ? new Set(Object.keys(fields.properties)) : DOOR_FIELDS;
  const required = new Set(fields.required ?? []);
  const described: Record<string, object> = {};
  const names = [...Object.keys(RECORDS[collection].properties), ...Object.keys(fields.properties)];
  for (const name of new Set(names)) {
    const field = fields.properties[name] as TSchema | undefined;
    if (field && writableNames.has(name)) described[name] = describeWritable(field, required.has(name));
    else if (!field || !field.writeOnly) described[name] = describeReadOnly(name, (RECORDS[collection].properties[name] ?? field) as TSchema);
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
  return field.type === 'integer' || field.type === 'boolean' ? field.type : 'string';
}
