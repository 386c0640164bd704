import { EVENT_STATUSES } from '../resources/events.js';
import { PROJECT_STATUSES } from '../resources/projects.js';
import type { FieldReader } from './field-reader.js';

/** The original's models, in Django's dependency order (the order `dumpdata` writes them). */
export const MODEL_ORDER = ['users.user', 'space.spacestatus', 'projects.project', 'events.event', 'events.meeting'] as const;
export type ModelName = (typeof MODEL_ORDER)[number];

export type ModelTable = 'users' | 'openings' | 'projects' | 'events' | 'meetings';

/** A many-to-many field, stored in a join table of (owner, target) rows. */
export interface LinkSpec {
  field: string;
  table: LinkTable;
  ownerColumn: string;
  targetColumn: string;
}

export type LinkTable = 'project_participants' | 'meeting_members' | 'project_dependencies' | 'event_interested' | 'user_groups' | 'user_permissions';

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

export interface ModelSpec {
  model: ModelName;
  table: ModelTable;
  /** The table's columns besides `id`, in the order `read` returns their values. */
  columns: readonly string[];
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

const users: ModelSpec = {
  model: 'users.user',
  table: 'users',
  columns: [
    'username',
    'email',
    'has_key',
    'password',
    'last_login_us',
    'is_superuser',
    'created_us',
    'edited_us',
    'first_name',
    'last_name',
    'balance_cents',
    'hide_pamela',
    'newsletter',
    'is_active',
    'description',
  ],
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
  links: [
    { field: 'groups', table: 'user_groups', ownerColumn: 'user_id', targetColumn: 'group_id' },
    { field: 'user_permissions', table: 'user_permissions', ownerColumn: 'user_id', targetColumn: 'permission_id' },
  ],
  unique: {
    field: 'username',
    column: 'username',
    index: 0,
    describe: (value, otherPk, where) => `${JSON.stringify(value)} is already the username of users.user pk ${otherPk} ${where === 'file' ? 'in this file' : 'in the database'}`,
  },
};

const openings: ModelSpec = {
  model: 'space.spacestatus',
  table: 'openings',
  columns: ['time_us', 'is_open'],
  fields: new Set(['time', 'is_open']),
  read: (f) => ({ values: [f.time('time'), f.boolean('is_open')] }),
};

const projects: ModelSpec = {
  model: 'projects.project',
  table: 'projects',
  columns: ['title', 'maintainer_id', 'status', 'progress', 'short_description', 'content', 'created_us', 'modified_us', 'picture'],
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
  links: [
    { field: 'participants', table: 'project_participants', ownerColumn: 'project_id', targetColumn: 'user_id' },
    { field: 'dependencies', table: 'project_dependencies', ownerColumn: 'project_id', targetColumn: 'dependency_id' },
  ],
};

const events: ModelSpec = {
  model: 'events.event',
  table: 'events',
  columns: ['title', 'place', 'start_us', 'stop_us', 'status', 'organizer_id', 'description', 'picture', 'is_talk'],
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
  links: [{ field: 'interested', table: 'event_interested', ownerColumn: 'event_id', targetColumn: 'user_id' }],
};

const meetings: ModelSpec = {
  model: 'events.meeting',
  table: 'meetings',
  columns: ['event_id', 'agenda', 'minutes', 'pad', 'ongoing'],
  fields: new Set(['event', 'OJ', 'PV', 'members', 'pad', 'ongoing']),
  read: (f) => ({
    values: [f.reference('event'), f.string('OJ', ''), f.string('PV', ''), f.string('pad', ''), f.boolean('ongoing', false)],
    links: [f.references('members')],
  }),
  links: [{ field: 'members', table: 'meeting_members', ownerColumn: 'meeting_id', targetColumn: 'user_id' }],
  unique: {
    field: 'event',
    column: 'event_id',
    index: 0,
    describe: (value, otherPk, where) =>
      `events.event pk ${String(value)} already has a meeting (events.meeting pk ${otherPk} ${where === 'file' ? 'in this file' : 'in the database'}); an event has at most one meeting`,
  },
};

export const MODEL_SPECS: ReadonlyMap<string, ModelSpec> = new Map([users, openings, projects, events, meetings].map((spec) => [spec.model, spec]));
