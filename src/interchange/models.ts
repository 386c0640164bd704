import { MODEL_TABLES, TABLES, type LinkTable, type ModelName, type ModelTable } from '../db/tables.js';
import { EVENT_STATUSES } from '../apps/events/events.js';
import { PROJECT_STATUSES } from '../apps/projects/projects.js';
import type { FieldReader } from './field-reader.js';

export type { LinkTable, ModelName, ModelTable };

/** The original's models, in Django's dependency order (the order `dumpdata` writes them): db/tables.ts's `model`s. */
export const MODEL_ORDER: readonly ModelName[] = MODEL_TABLES.map(({ model }) => model);

/** A many-to-many field, stored in a join table of (owner, target) rows. */
export interface LinkSpec {
  field: string;
  table: LinkTable;
  ownerColumn: string;
  targetColumn: string;
}

/** A many-to-many field stored in a join table, with the columns db/tables.ts declares for it. */
function link(field: string, table: LinkTable): LinkSpec {
  const { owner, target } = TABLES[table].link;
  return { field, table, ownerColumn: owner, targetColumn: target };
}

/** A column besides `id` that must be unique: checked before insert to name the offending record. */
export interface UniqueSpec {
  field: string;
  column: 'username' | 'event_id';
  /** Index of the column's value in the row's `values`. */
  index: number;
  describe(value: unknown, otherPk: number, where: 'file' | 'database'): string;
}

/** One fixture record turned into a row: column values in `columns` order, and the pks of each link in `links` order. */
export interface ParsedRow {
  values: unknown[];
  links?: number[][];
}

/** What a record that does not give a field gets: what the original gives a record made now. */
export interface ImportDefaults {
  /** The import's start, to the millisecond (the API's clock). */
  nowUs: number;
  password(): string;
}

/** One model's import: its table and how its fixture records are read. */
export interface ModelSpec extends ModelReading {
  model: ModelName;
  table: ModelTable;
  /** The table's columns besides `id` and its local ones (db/tables.ts), in the order `read` returns their values. */
  columns: readonly string[];
}

interface ModelReading {
  /** The fixture fields we read; any other field is skipped and counted. */
  fields: ReadonlySet<string>;
  read(fields: FieldReader, defaults: ImportDefaults, pk: number): ParsedRow;
  /** Fields the API never shows: their values stay out of every message. */
  privateFields?: ReadonlySet<string>;
  links?: readonly LinkSpec[];
  unique?: UniqueSpec;
}

/**
 * The address an export gives a user the original could not hold as is (no address, or one an
 * earlier user has: the original requires a unique one), in the reserved `.invalid` domain. An
 * import turns it back into no address.
 */
export const NO_EMAIL_DOMAIN = 'no-email.invalid';
export function placeholderEmail(pk: number): string {
  return `user-${pk}@${NO_EMAIL_DOMAIN}`;
}

/** An address another user has, tagged to be unique: `local+dup-<pk>@domain`; null without an `@`. */
export function tagEmail(address: string, pk: number): string | null {
  const at = address.lastIndexOf('@');
  return at <= 0 ? null : `${address.slice(0, at)}+dup-${pk}${address.slice(at)}`;
}

/** The address an export wrote for user `pk`, as it was here. */
function untagEmail(address: string, pk: number): string {
  if (address.endsWith(`@${NO_EMAIL_DOMAIN}`) && address !== NO_ORGANIZER_EMAIL) return '';
  const tag = `+dup-${pk}@`;
  const at = address.lastIndexOf(tag);
  return at > 0 && address.indexOf('@', at + tag.length) === -1 ? address.slice(0, at) + address.slice(at + tag.length - 1) : address;
}

/** The original requires an event's organizer: the export's stand-in for "none", undone by an import. */
export const NO_ORGANIZER_EMAIL = `no-organizer@${NO_EMAIL_DOMAIN}`;

const users: ModelReading = {
  fields: new Set([
    'username',
    'email',
    'has_key',
    'password',
    'last_login',
    'is_superuser',
    'created',
    'edited',
    'first_name',
    'last_name',
    'balance',
    'hide_pamela',
    'newsletter',
    'is_active',
    'description',
    'groups',
    'user_permissions',
  ]),
  read: (f, d, pk) => {
    const created = f.nullableTime('created') ?? d.nowUs;
    return {
      values: [
        f.string('username'),
        untagEmail(f.string('email', '', 255), pk),
        f.boolean('has_key', false),
        f.givenString('password', 128) ?? d.password(),
        f.nullableTime('last_login'),
        f.boolean('is_superuser', false),
        created,
        f.nullableTime('edited') ?? created,
        f.string('first_name', '', 127),
        f.string('last_name', '', 127),
        f.decimal('balance', 6, 2),
        f.boolean('hide_pamela', false),
        f.boolean('newsletter', true),
        f.boolean('is_active', true),
        f.nullableString('description', ''),
      ],
      links: [f.references('groups'), f.references('user_permissions')],
    };
  },
  privateFields: new Set([
    'password',
    'last_login',
    'is_superuser',
    'created',
    'edited',
    'first_name',
    'last_name',
    'balance',
    'hide_pamela',
    'newsletter',
    'is_active',
    'description',
    'groups',
    'user_permissions',
  ]),
  links: [link('groups', 'user_groups'), link('user_permissions', 'user_permissions')],
  unique: {
    field: 'username',
    column: 'username',
    index: 0,
    describe: (value, otherPk, where) => `${JSON.stringify(value)} is already the username of users.user pk ${otherPk} ${where === 'file' ? 'in this file' : 'in the database'}`,
  },
};

const openings: ModelReading = {
  fields: new Set(['time', 'is_open']),
  read: (f) => ({ values: [f.time('time'), f.boolean('is_open')] }),
};

const projects: ModelReading = {
  fields: new Set(['title', 'maintainer', 'participants', 'status', 'progress', 'short_description', 'content', 'created', 'modified', 'dependencies', 'picture']),
  read: (f, d) => {
    const created = f.nullableTime('created') ?? d.nowUs;
    return {
      values: [
        f.string('title'),
        f.reference('maintainer'),
        f.choice('status', PROJECT_STATUSES),
        f.integer('progress', 0, 100),
        f.string('short_description', ''),
        f.string('content', ''),
        created,
        f.nullableTime('modified') ?? created,
        f.path('picture', 100),
      ],
      links: [f.references('participants'), f.references('dependencies')],
    };
  },
  links: [link('participants', 'project_participants'), link('dependencies', 'project_dependencies')],
};

const events: ModelReading = {
  fields: new Set(['title', 'place', 'start', 'stop', 'status', 'organizer', 'description', 'picture', 'interested', 'is_talk']),
  read: (f) => ({
    values: [
      f.string('title'),
      f.string('place', ''),
      f.nullableTime('start'),
      f.nullableTime('stop'),
      f.choice('status', EVENT_STATUSES),
      f.nullableReference('organizer'),
      f.string('description', ''),
      f.path('picture', 100),
      f.boolean('is_talk', false),
    ],
    links: [f.references('interested')],
  }),
  links: [link('interested', 'event_interested')],
};

const meetings: ModelReading = {
  fields: new Set(['event', 'OJ', 'PV', 'members', 'pad', 'ongoing']),
  read: (f) => ({
    values: [f.reference('event'), f.string('OJ', ''), f.string('PV', ''), f.string('pad', ''), f.boolean('ongoing', false)],
    links: [f.references('members')],
  }),
  links: [link('members', 'meeting_members')],
  unique: {
    field: 'event',
    column: 'event_id',
    index: 0,
    describe: (value, otherPk, where) =>
      `events.event pk ${String(value)} already has a meeting (events.meeting pk ${otherPk} ${where === 'file' ? 'in this file' : 'in the database'}); an event has at most one meeting`,
  },
};

// Django's auth models, kept whole for the round trip (members.md §3). Natural keys (dumpdata's
// --natural-foreign and --natural-primary) are turned into pks before these read a record
// (auth-models.ts).

const contentTypes: ModelReading = {
  fields: new Set(['app_label', 'model']),
  read: (f) => ({ values: [f.string('app_label', undefined, 100), f.string('model', undefined, 100)] }),
};

const permissions: ModelReading = {
  fields: new Set(['name', 'content_type', 'codename']),
  read: (f) => ({ values: [f.reference('content_type'), f.string('codename', undefined, 100), f.string('name', undefined, 255)] }),
};

const groups: ModelReading = {
  fields: new Set(['name', 'permissions']),
  read: (f) => ({ values: [f.string('name', undefined, 150)], links: [f.references('permissions')] }),
  links: [link('permissions', 'group_permissions')],
};

/** How each model's fixture records are read: the compiler names a model of db/tables.ts without one. */
const READINGS: Readonly<Record<ModelName, ModelReading>> = {
  'contenttypes.contenttype': contentTypes,
  'auth.permission': permissions,
  'auth.group': groups,
  'users.user': users,
  'space.spacestatus': openings,
  'projects.project': projects,
  'events.event': events,
  'events.meeting': meetings,
};

export const MODEL_SPECS: ReadonlyMap<string, ModelSpec> = new Map(
  MODEL_TABLES.map(({ model, table }) => [model, { model, table, columns: columnsOf(table), ...READINGS[model] }]),
);

/** A model's columns besides `id` that the original also has. */
function columnsOf(table: ModelTable): string[] {
  const declared: { columns: readonly string[]; localColumns?: readonly string[] } = TABLES[table];
  return declared.columns.filter((column) => column !== 'id' && !(declared.localColumns ?? []).includes(column));
}
