import type { Db } from '../db/connection.js';
import { modelTablesOf, referencesOf, type Reference, type TableName } from '../db/tables.js';
import { recordError, type ImportError } from './import-error.js';
import type { InstalledModels, ModelSpec } from './models.js';
import { rawQuery } from './upsert.js';

/** A record whose reference points nowhere: its pk and the missing target's pk. */
interface Orphan {
  pk: number | string;
  target: number | string;
}

interface ReferenceCheck {
  model: string;
  field: string;
  target: string;
  /** The anti-join: rows of `table` whose `column` is set and names no row of `references`, by `owner` then target. */
  table: TableName;
  owner: string;
  column: string;
  references: TableName;
}

/**
 * Every reference of every model, from the foreign keys its tables declare: a model's own
 * (Django's column for field `x` is `x_id`), then those of its many-to-many fields' join tables.
 * A join table's key to its owner is not checked: the owner is the record being imported.
 */
function referenceChecks(models: InstalledModels): ReferenceCheck[] {
  const modelTables = modelTablesOf(models.tables);
  const references = referencesOf(models.tables);
  const modelOf = (table: TableName): string => {
    const found = modelTables.find((entry) => entry.table === table);
    if (found === undefined) throw new Error(`${table} stores no model of the original`);
    return found.model;
  };
  // A table of several models is checked once, under its first model's name (their app checks each record's references itself).
  const checked = new Set<string>();
  return [...models.specs.values()]
    .flatMap((spec) => referencesOfModel(spec, references, modelOf))
    .filter((check) => {
      const key = `${check.table}.${check.owner}.${check.column}`;
      return !checked.has(key) && checked.add(key) !== undefined;
    });
}

function referencesOfModel(spec: ModelSpec, references: readonly Reference[], modelOf: (table: TableName) => string): ReferenceCheck[] {
  const model = spec.model;
  const own = references
    .filter((key) => key.table === spec.table)
    .map((key) => ({
      model,
      field: key.column.replace(/_id$/, ''),
      target: modelOf(key.references),
      table: key.table,
      owner: 'id',
      column: key.column,
      references: key.references,
    }));
  const linked = (spec.links ?? []).flatMap((link) =>
    references
      .filter((key) => key.table === link.table && key.column === link.targetColumn)
      .map((key) => ({
        model,
        field: link.field,
        target: modelOf(key.references),
        table: key.table,
        owner: link.ownerColumn,
        column: key.column,
        references: key.references,
      })),
  );
  return [...own, ...linked];
}

async function findOrphan(db: Db, check: ReferenceCheck): Promise<Orphan | undefined> {
  const { table, owner, column, references } = check;
  const result = await db.executeQuery<Orphan>(
    rawQuery(
      db,
      `select r."${owner}" as "pk", r."${column}" as "target" from "${table}" r left join "${references}" t on t."id" = r."${column}"
        where r."${column}" is not null and t."id" is null order by r."${owner}", r."${column}" limit 1`,
      [],
    ),
  );
  return result.rows[0];
}

/**
 * Run once after all rows are written, so that records may come in any order and refer to rows
 * that were already in the database; the database held no orphans before, so any orphan now
 * comes from the file. The first record (in model order, then pk) that refers to a record that
 * exists nowhere.
 */
export async function findMissingReference(db: Db, models: InstalledModels): Promise<ImportError | null> {
  for (const check of referenceChecks(models)) {
    const orphan = await findOrphan(db, check);
    if (orphan) {
      return recordError(check.model, Number(orphan.pk), `refers to ${check.target} pk ${Number(orphan.target)}, which is neither in the file nor in the database`, check.field);
    }
  }
  return null;
}
