import { EVENT_STATUSES } from '../resources/events.js';
import { PROJECT_STATUSES } from '../resources/projects.js';
import type { FieldReader } from './field-reader.js';

/** The original's models, in Django's dependency order (the order `dumpdata` writes them). */
export const MODEL_ORDER = ['users.user', 'space.spacestatus', 'projects.project', 'events.event', 'events.meeting'] as const;
export type ModelName = (typeof MODEL_ORDER)[number];

export type ModelTable = 'users' | 'openings' | 'projects' | 'events' | 'meetings';

/** A many-to-many field, stored in a join table of (owner, user) rows. */
export interface LinkSpec {
  field: 'participants' | 'members';
  table: 'project_participants' | 'meeting_members';
  ownerColumn: 'project_id' | 'meeting_id';
}

/** A column besides `id` that must be unique: checked before insert to name the offending record. */
export interface UniqueSpec {
  field: string;
  column: 'username' | 'event_id';
  /** Index of the column's value in the row's `values`. */
  index: number;
  describe(value: unknown, otherPk: number, where: 'file' | 'database'): string;
}

/** One fixture record turned into a row: column values in `columns` order, and linked user ids. */
export interface ParsedRow {
  values: unknown[];
  links?: number[];
}

export interface ModelSpec {
  model: ModelName;
  table: ModelTable;
  /** The table's columns besides `id`, in the order `read` returns their values. */
  columns: readonly string[];
  /** The fixture fields we read; any other field is skipped and counted. */
  fields: ReadonlySet<string>;
  read(fields: FieldReader): ParsedRow;
  link?: LinkSpec;
  unique?: UniqueSpec;
}

const users: ModelSpec = {
  model: 'users.user',
  table: 'users',
  columns: ['username', 'email', 'has_key'],
  fields: new Set(['username', 'email', 'has_key']),
  read: (f) => ({ values: [f.string('username'), f.string('email', ''), f.boolean('has_key', false)] }),
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
  columns: ['title', 'maintainer_id', 'status', 'progress', 'short_description', 'content', 'created_us', 'modified_us'],
  fields: new Set(['title', 'maintainer', 'participants', 'status', 'progress', 'short_description', 'content', 'created', 'modified']),
  read: (f) => ({
    values: [
      f.string('title'),
      f.reference('maintainer'),
      f.choice('status', PROJECT_STATUSES),
      f.integer('progress', 0, 100),
      f.string('short_description', ''),
      f.string('content', ''),
      f.nullableTime('created'),
      f.nullableTime('modified'),
    ],
    links: f.references('participants'),
  }),
  link: { field: 'participants', table: 'project_participants', ownerColumn: 'project_id' },
};

const events: ModelSpec = {
  model: 'events.event',
  table: 'events',
  columns: ['title', 'place', 'start_us', 'stop_us', 'status', 'organizer_id', 'description', 'picture'],
  fields: new Set(['title', 'place', 'start', 'stop', 'status', 'organizer', 'description', 'picture']),
  read: (f) => ({
    values: [
      f.string('title'),
      f.string('place', ''),
      f.nullableTime('start'),
      f.nullableTime('stop'),
      f.choice('status', EVENT_STATUSES),
      f.nullableReference('organizer'),
      f.string('description', ''),
      f.optionalPath('picture'),
    ],
  }),
};

const meetings: ModelSpec = {
  model: 'events.meeting',
  table: 'meetings',
  columns: ['event_id', 'agenda', 'minutes', 'pad', 'ongoing'],
  fields: new Set(['event', 'OJ', 'PV', 'members', 'pad', 'ongoing']),
  read: (f) => ({
    values: [f.reference('event'), f.string('OJ', ''), f.string('PV', ''), f.string('pad', ''), f.boolean('ongoing', false)],
    links: f.references('members'),
  }),
  link: { field: 'members', table: 'meeting_members', ownerColumn: 'meeting_id' },
  unique: {
    field: 'event',
    column: 'event_id',
    index: 0,
    describe: (value, otherPk, where) =>
      `events.event pk ${String(value)} already has a meeting (events.meeting pk ${otherPk} ${where === 'file' ? 'in this file' : 'in the database'}); an event has at most one meeting`,
  },
};

export const MODEL_SPECS: ReadonlyMap<string, ModelSpec> = new Map([users, openings, projects, events, meetings].map((spec) => [spec.model, spec]));
