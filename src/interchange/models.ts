import type { Db } from '../db/connection.js';
import { modelTablesOf, type LinkTable, type ModelName, type ModelTable, type Tables } from '../db/tables.js';
import type { FieldReader } from './field-reader.js';
import type { OriginalFit } from './original-fit.js';

export type { LinkTable, ModelName, ModelTable };

/** A many-to-many field, stored in a join table of (owner, target) rows. */
export interface LinkSpec {
  field: string;
  table: LinkTable;
  ownerColumn: string;
  targetColumn: string;
}

/** A many-to-many field stored in a join table, with the columns its declaration (the app's tables.ts) gives it. */
export function link<Table extends LinkTable>(
  field: string,
  tables: { readonly [T in Table]: { readonly link: { readonly owner: string; readonly target: string } } },
  table: Table,
): LinkSpec {
  const { owner, target } = tables[table].link;
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

/** A record as an export writes it: its pk and its Django fixture fields. */
export interface ExportedRecord {
  pk: number;
  fields: Record<string, unknown>;
}

/**
 * One of the original's models, declared by the app that holds it: how a fixture's record is
 * read into a row of its table, and how its rows are written back as fixture records.
 */
export interface ModelDeclaration {
  /** The fixture fields we read; any other field is skipped and counted. */
  fields: ReadonlySet<string>;
  read(fields: FieldReader, defaults: ImportDefaults, pk: number): ParsedRow;
  /** Fields the API never shows: their values stay out of every message. */
  privateFields?: ReadonlySet<string>;
  links?: readonly LinkSpec[];
  unique?: UniqueSpec;
  /** A page of its records after a pk, in pk order, as Django fixture fields (the export). */
  page(db: Db, afterPk: number, limit: number, fit: OriginalFit): Promise<ExportedRecord[]>;
}

/** An app's model declarations, one for each model its tables store (`tables` is its tables.ts): the compiler names a missing one. */
export type ModelDeclarations<AppTables> = { readonly [Model in ModelOf<AppTables>]: ModelDeclaration };
type ModelOf<AppTables> = {
  [T in keyof AppTables]: AppTables[T] extends { model: infer Model extends string }
    ? Model
    : AppTables[T] extends { models: readonly (infer Model extends string)[] }
      ? Model
      : never;
}[keyof AppTables];

/** One model's import and export: its declaration, its table and that table's columns. */
export interface ModelSpec extends ModelDeclaration {
  model: ModelName;
  table: ModelTable;
  /** The table's columns besides `id` and its local ones (its declaration), in the order `read` returns their values; none for a table of several models. */
  columns: readonly string[];
  /** Its table stores other models too (`models` in the table's declaration): its rows are not found by `id`, and an app keeps its records. */
  shared: boolean;
}

/**
 * Models whose records an app keeps during an import and writes at its end, once all of them are
 * known (the users app's Django auth models, whose natural keys resolve against each other; the
 * stock app's transaction models, which share the ledger's table and whose sum meets the members'
 * balances there). Every model of a table of several models is kept by its app.
 */
export interface KeptModels {
  readonly models: ReadonlySet<string>;
  /** What keeps them during one import. */
  start(): KeptRecords;
}

export interface KeptRecords {
  /** Keeps a record of one of its models; its pk may be absent (natural primary keys). */
  accept(spec: ModelSpec, pk: unknown, fields: Record<string, unknown>): void;
  /** Another model's record with the references it resolves at the end taken out. */
  fieldsOf(spec: ModelSpec, pk: number, fields: Record<string, unknown>): Record<string, unknown>;
  /** Writes the kept records, after every other row (the apps' in the installed order) and before the references are checked; what the operator should know of it, if anything. */
  finish(db: Db, defaults: ImportDefaults): Promise<readonly string[] | void>;
}

/** The original's models that import and export handle, and what they derive from the tables' declarations. */
export interface InstalledModels {
  /** Each model's spec by its name, in Django's dependency order (the order `dumpdata` writes them). */
  readonly specs: ReadonlyMap<string, ModelSpec>;
  /** The tables, in their order. */
  readonly tables: Tables;
  /** The models that apps keep until an import's end. */
  readonly kept: readonly KeptModels[];
}

/** The models of these tables (in their order, Django's), each with its app's declaration. */
export function installedModels(tables: Tables, declared: Readonly<Record<string, ModelDeclaration>>, kept: readonly KeptModels[]): InstalledModels {
  const specs = new Map<string, ModelSpec>();
  for (const { model, table, shared } of modelTablesOf(tables)) {
    const reading = declared[model];
    if (reading === undefined) throw new Error(`${model}: no installed app declares how it is read and written`);
    if (shared && !kept.some((keeper) => keeper.models.has(model))) throw new Error(`${model}: ${table} stores other models too, so its app must keep its records (keptModels)`);
    const declaration = tables[table] as { columns: readonly string[]; localColumns?: readonly string[] };
    const columns = shared ? [] : declaration.columns.filter((column) => column !== 'id' && !(declaration.localColumns ?? []).includes(column));
    specs.set(model, { model, table, columns, shared, ...reading });
  }
  const undeclared = Object.keys(declared).find((model) => !specs.has(model));
  if (undeclared !== undefined) throw new Error(`${undeclared}: no table stores it`);
  return { specs, tables, kept };
}
