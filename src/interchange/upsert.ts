import { CompiledQuery } from 'kysely';
import { engineOf, type Db } from '../db/connection.js';
import type { LinkSpec, ModelSpec } from './models.js';

/** SQLite's limit on bound parameters per statement (SQLITE_MAX_VARIABLE_NUMBER since 3.32; PostgreSQL allows 65,535). */
export const MAX_PARAMETERS = 32_766;
/** Rows per statement: large enough that per-statement costs vanish, small enough to stay quick. */
const MAX_ROWS = 4_000;

export interface PendingRow {
  pk: number;
  values: unknown[];
  /** The pks of each of the model's links, in its `links` order. */
  links?: number[][];
}

/** How many rows of a model go into one multi-row statement. */
export function batchRows(spec: ModelSpec): number {
  return Math.min(MAX_ROWS, Math.floor(MAX_PARAMETERS / (spec.columns.length + 1)));
}

/**
 * Inserts or updates rows by pk, then replaces their join-table rows. Statements are built
 * here as text because the columns are fixed by the model specs and a multi-row VALUES list
 * through the query builder costs more than the insert itself.
 */
export async function upsertRows(db: Db, spec: ModelSpec, rows: readonly PendingRow[]): Promise<void> {
  if (rows.length === 0) return;
  const parameters: unknown[] = [];
  for (const row of rows) parameters.push(row.pk, ...row.values);
  await db.executeQuery(rawQuery(db, upsertSql(spec, rows.length), parameters));
  for (const [index, link] of (spec.links ?? []).entries()) await replaceLinks(db, link, index, rows);
}

const statementCache = new Map<string, string>();

function upsertSql(spec: ModelSpec, rowCount: number): string {
  const key = `${spec.table}:${rowCount}`;
  const cached = statementCache.get(key);
  if (cached !== undefined) return cached;
  const columns = spec.columns.map(quote);
  const tuple = `(${['?', ...columns.map(() => '?')].join(', ')})`;
  const text =
    `insert into ${quote(spec.table)} ("id", ${columns.join(', ')}) values ${repeat(tuple, rowCount)}` +
    ` on conflict ("id") do update set ${columns.map((c) => `${c} = excluded.${c}`).join(', ')}`;
  // Only full batches repeat; caching every partial size would just hold memory.
  if (rowCount === batchRows(spec)) statementCache.set(key, text);
  return text;
}

/** A many-to-many field is replaced as a whole, as Django's loaddata does. */
async function replaceLinks(db: Db, link: LinkSpec, index: number, rows: readonly PendingRow[]): Promise<void> {
  const owner = quote(link.ownerColumn);
  for (const part of chunks(
    rows.map((r) => r.pk),
    MAX_PARAMETERS,
  )) {
    await db.executeQuery(rawQuery(db, `delete from ${quote(link.table)} where ${owner} in (${repeat('?', part.length)})`, part));
  }
  const pairs: number[] = [];
  for (const row of rows) for (const target of row.links?.[index] ?? []) pairs.push(row.pk, target);
  for (const part of chunks(pairs, MAX_PARAMETERS - (MAX_PARAMETERS % 2))) {
    const sql = `insert into ${quote(link.table)} (${owner}, ${quote(link.targetColumn)}) values ${repeat('(?, ?)', part.length / 2)}` + ' on conflict do nothing';
    await db.executeQuery(rawQuery(db, sql, part));
  }
}

/**
 * A statement written with `?` placeholders, numbered `$1, $2, …` for PostgreSQL. Only for text
 * built here, which holds no `?` other than placeholders.
 */
export function rawQuery(db: Db, text: string, parameters: readonly unknown[]): CompiledQuery {
  if (engineOf(db) === 'sqlite') return CompiledQuery.raw(text, [...parameters]);
  let n = 0;
  return CompiledQuery.raw(
    text.replace(/\?/g, () => `$${++n}`),
    [...parameters],
  );
}

function quote(identifier: string): string {
  return `"${identifier}"`;
}

function repeat(item: string, count: number): string {
  return new Array<string>(count).fill(item).join(', ');
}

export function chunks<T>(items: readonly T[], size: number): T[][] {
  const result: T[][] = [];
  for (let i = 0; i < items.length; i += size) result.push(items.slice(i, i + size));
  return result;
}
