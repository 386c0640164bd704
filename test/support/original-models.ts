import { parseIsoMicros } from '../../src/time.js';

/*
 * The judge of "our export loads into the original": every constraint that the original's
 * models (UrLab/incubator: users/models.py, space/models.py, projects/models.py, events/models.py,
 * stock/models.py, with Django's AbstractBaseUser and PermissionsMixin) declare, written down here from those
 * models and NOT from our export code, so that a mistake in one is caught by the other. It checks
 * what `manage.py loaddata` enforces (the fields exist, NOT NULL, unique, foreign keys, the
 * PositiveIntegerField check) and what the models declare beyond the database (max_length, which
 * SQLite does not enforce, choices, MaxValueValidator, the DecimalField's digits). Not checked:
 * validators that the original's own data fails (EmailValidator on IDN addresses, URLValidator)
 * and form-only rules (blank=False, the case-insensitive username validator).
 */

type Field =
  | { kind: 'char'; max: number; null?: boolean; unique?: boolean; choices?: readonly string[]; file?: boolean }
  | { kind: 'text'; null?: boolean }
  | { kind: 'bool' }
  | { kind: 'datetime'; null?: boolean }
  | { kind: 'date' }
  | { kind: 'decimal'; digits: number; places: number }
  | { kind: 'positive'; max?: number }
  | { kind: 'fk'; to: string; null?: boolean; unique?: boolean }
  | { kind: 'm2m'; to: string };

export const ORIGINAL_MODELS: Record<string, Record<string, Field>> = {
  'users.user': {
    password: { kind: 'char', max: 128 },
    last_login: { kind: 'datetime', null: true },
    is_superuser: { kind: 'bool' },
    username: { kind: 'char', max: 30, unique: true },
    email: { kind: 'char', max: 255, unique: true },
    created: { kind: 'datetime' },
    edited: { kind: 'datetime' },
    first_name: { kind: 'char', max: 127 },
    last_name: { kind: 'char', max: 127 },
    balance: { kind: 'decimal', digits: 6, places: 2 },
    has_key: { kind: 'bool' },
    hide_pamela: { kind: 'bool' },
    newsletter: { kind: 'bool' },
    is_active: { kind: 'bool' },
    // TextField(max_length=255, null=True): a TextField's max_length is a form widget's only.
    description: { kind: 'text', null: true },
    groups: { kind: 'm2m', to: 'auth.group' },
    user_permissions: { kind: 'm2m', to: 'auth.permission' },
  },
  'space.spacestatus': {
    time: { kind: 'datetime' },
    is_open: { kind: 'bool' },
  },
  'projects.project': {
    title: { kind: 'char', max: 300 },
    maintainer: { kind: 'fk', to: 'users.user' },
    participants: { kind: 'm2m', to: 'users.user' },
    created: { kind: 'datetime' },
    modified: { kind: 'datetime' },
    status: { kind: 'char', max: 1, choices: ['p', 'i', 'f', 'a', 'd'] },
    progress: { kind: 'positive', max: 100 },
    dependencies: { kind: 'm2m', to: 'projects.project' },
    // ResizedImageField(null=True, blank=True): an ImageField, varchar(100).
    picture: { kind: 'char', max: 100, null: true, file: true },
    short_description: { kind: 'char', max: 1000 },
    content: { kind: 'text' },
  },
  'events.event': {
    title: { kind: 'char', max: 300 },
    place: { kind: 'char', max: 300 },
    start: { kind: 'datetime', null: true },
    stop: { kind: 'datetime', null: true },
    status: { kind: 'char', max: 1, choices: ['r', 'i'] },
    organizer: { kind: 'fk', to: 'users.user' },
    description: { kind: 'text' },
    picture: { kind: 'char', max: 100, null: true, file: true },
    interested: { kind: 'm2m', to: 'users.user' },
    is_talk: { kind: 'bool' },
  },
  'events.meeting': {
    event: { kind: 'fk', to: 'events.event', unique: true },
    OJ: { kind: 'text' },
    PV: { kind: 'text' },
    members: { kind: 'm2m', to: 'users.user' },
    // URLField: varchar(200).
    pad: { kind: 'char', max: 200 },
    ongoing: { kind: 'bool' },
  },
  // stock/models.py: Transaction (abstract) gives every transaction `user` and `when`.
  'stock.category': {
    name: { kind: 'char', max: 100 },
  },
  'stock.product': {
    name: { kind: 'char', max: 100 },
    price: { kind: 'decimal', digits: 6, places: 2 },
    category: { kind: 'fk', to: 'stock.category' },
    active: { kind: 'bool' },
  },
  'stock.transfertransaction': {
    user: { kind: 'fk', to: 'users.user' },
    when: { kind: 'datetime' },
    receiver: { kind: 'fk', to: 'users.user' },
    amount: { kind: 'decimal', digits: 6, places: 2 },
  },
  'stock.topuptransaction': {
    user: { kind: 'fk', to: 'users.user' },
    when: { kind: 'datetime' },
    amount: { kind: 'decimal', digits: 6, places: 2 },
    topup_type: { kind: 'char', max: 20, choices: ['BANK', 'CASH'] },
  },
  'stock.producttransaction': {
    user: { kind: 'fk', to: 'users.user' },
    when: { kind: 'datetime' },
    product: { kind: 'fk', to: 'stock.product' },
  },
  'stock.misctransaction': {
    user: { kind: 'fk', to: 'users.user' },
    when: { kind: 'datetime' },
    // A DecimalField takes a negative amount (a misc transaction of ours that credits the member).
    amount: { kind: 'decimal', digits: 6, places: 2 },
    info: { kind: 'text' },
  },
  'stock.fundzone': {
    name: { kind: 'char', max: 50 },
    method: { kind: 'char', max: 4, choices: ['BANK', 'CASH'] },
  },
  'stock.paymenttransaction': {
    user: { kind: 'fk', to: 'users.user' },
    when: { kind: 'datetime' },
    amount: { kind: 'decimal', digits: 6, places: 2 },
    way: { kind: 'char', max: 1, choices: ['a', 'b'] },
    // FileField(upload_to="souches", null=True, blank=True): varchar(100).
    receipt: { kind: 'char', max: 100, null: true, file: true },
    zone: { kind: 'fk', to: 'stock.fundzone', null: true },
    comments: { kind: 'char', max: 200, null: true },
    payment_date: { kind: 'date' },
  },
  'stock.refundtransaction': {
    user: { kind: 'fk', to: 'users.user' },
    when: { kind: 'datetime' },
    title: { kind: 'char', max: 200 },
    amount: { kind: 'decimal', digits: 6, places: 2 },
    payment: { kind: 'fk', to: 'stock.paymenttransaction', null: true },
    receipt: { kind: 'char', max: 100, null: true, file: true },
  },
};

interface FixtureRecord {
  model: string;
  pk: unknown;
  fields: Record<string, unknown>;
}

const isPk = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v > 0 && v <= 2_147_483_647;
const length = (s: string) => [...s].length;

/**
 * Every way `records` breaks the original's constraints, as `model pk N: field: reason` lines
 * (empty when it would load). Records of other models are reported too: a freshly migrated
 * original has no data, so an export should hold only these models.
 */
export function originalViolations(records: readonly FixtureRecord[]): string[] {
  const problems: string[] = [];
  const pks = new Map<string, Set<number>>();
  for (const r of records) {
    if (!ORIGINAL_MODELS[r.model]) problems.push(`record of an unknown model ${r.model}`);
    else if (!isPk(r.pk)) problems.push(`${r.model} pk ${String(r.pk)}: not a valid pk`);
    else {
      const seen = pks.get(r.model) ?? new Set<number>();
      if (seen.has(r.pk)) problems.push(`${r.model} pk ${r.pk}: pk appears twice`);
      seen.add(r.pk);
      pks.set(r.model, seen);
    }
  }
  const uniques = new Map<string, Map<unknown, number>>();
  for (const r of records) {
    const model = ORIGINAL_MODELS[r.model];
    if (!model || !isPk(r.pk)) continue;
    const where = (field: string) => `${r.model} pk ${String(r.pk)}: ${field}:`;
    for (const name of Object.keys(r.fields)) if (!model[name]) problems.push(`${where(name)} the model has no such field`);
    for (const [name, field] of Object.entries(model)) {
      if (!Object.hasOwn(r.fields, name)) {
        problems.push(`${where(name)} missing`);
        continue;
      }
      const value = r.fields[name];
      const fail = (reason: string) => problems.push(`${where(name)} ${reason}`);
      if (value === null) {
        if (field.kind === 'm2m' || !('null' in field) || !field.null) fail('NOT NULL');
        continue;
      }
      switch (field.kind) {
        case 'char':
        case 'text':
          if (typeof value !== 'string') fail('not a string');
          else if (field.kind === 'char' && length(value) > field.max) fail(`longer than max_length ${field.max} (${length(value)})`);
          else if (field.kind === 'char' && field.choices && !field.choices.includes(value)) fail(`not one of the choices`);
          break;
        case 'bool':
          if (typeof value !== 'boolean') fail('not a boolean');
          break;
        case 'datetime':
          if (typeof value !== 'string' || !/(Z|[+-]\d\d:\d\d)$/.test(value) || parseIsoMicros(value) === null) fail('not an aware date-time');
          break;
        case 'date':
          if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value) || new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) !== value) fail('not a date');
          break;
        case 'decimal': {
          const match = typeof value === 'string' ? /^-?(\d+)\.(\d+)$/.exec(value) : null;
          if (!match || match[2].length > field.places || match[1].replace(/^0+(?=\d)/, '').length > field.digits - field.places)
            fail(`not a decimal(${field.digits}, ${field.places})`);
          break;
        }
        case 'positive':
          if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 2_147_483_647) fail('not a positive integer');
          else if (field.max !== undefined && value > field.max) fail(`above MaxValueValidator(${field.max})`);
          break;
        case 'fk':
          if (!isPk(value)) fail('not a pk');
          else if (!pks.get(field.to)?.has(value)) fail(`refers to ${field.to} pk ${value}, which the file does not hold`);
          break;
        case 'm2m':
          if (!Array.isArray(value) || !value.every(isPk)) fail('not a list of pks');
          else if (new Set(value).size !== value.length) fail('lists a pk twice');
          // auth.group and auth.permission rows are not among these models: they must exist in the target already.
          else if (ORIGINAL_MODELS[field.to]) for (const pk of value) if (!pks.get(field.to)?.has(pk)) fail(`refers to ${field.to} pk ${pk}, which the file does not hold`);
          break;
      }
      const unique = (field.kind === 'char' || field.kind === 'fk') && field.unique;
      if (unique && value !== null) {
        const key = `${r.model}.${name}`;
        const holders = uniques.get(key) ?? new Map<unknown, number>();
        const other = holders.get(value);
        if (other !== undefined) fail(`UNIQUE: the same value as pk ${other}`);
        holders.set(value, r.pk);
        uniques.set(key, holders);
      }
    }
  }
  return problems;
}
