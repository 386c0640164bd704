import type { Database } from './schema.js';

/**
 * A table, declared once by the part that holds it (an app's tables.ts, or db/tables.ts for the
 * machinery's): its columns, what keeps it (counts, versions),
 * the collection and the original's model it holds, what it refers to, and its named indexes.
 * The counted and versioned tables, the collection registry's tables, the interchange models'
 * order, the join tables and the import's reference checks are derived from here;
 * test/registry.test.ts checks that migrating a new database gives exactly this.
 * Migrations never import it: each spells out the tables it touches as they were then.
 */
export interface TableDeclaration<Row> {
  /** Every column (the compiler checks them against schema.ts). */
  readonly columns: readonly (keyof Row & string)[];
  /** Its row count is kept in collection_counts by triggers, so that `count` never scans it. */
  readonly counted?: true;
  /** Every write bumps its version in table_versions (responses are built from it). */
  readonly versioned?: true;
  /** The API collection it stores, by its path under `/api/` (drf/collections.ts). */
  readonly collection?: string;
  /** The original's model it stores (`app.model`, as Django fixtures name it), for import and export. */
  readonly model?: string;
  /**
   * Several of the original's models it stores (the ledger's entries: four transaction models),
   * each of their rows found by its own columns, not by `id`: the app keeps their records during an
   * import and writes them at its end (interchange/models.ts KeptModels), and its declaration of
   * each pages them back for the export.
   */
  readonly models?: readonly string[];
  /** Columns of ours that the original's model lacks: an import leaves them as they are, an export skips them. */
  readonly localColumns?: readonly (keyof Row & string)[];
  /** A join table of a many-to-many field: the owner's column and the target's. */
  readonly link?: { readonly owner: keyof Row & string; readonly target: keyof Row & string };
  readonly foreignKeys?: readonly ForeignKey<Row>[];
  /** Indexes created by name (not those a primary key or a unique column makes). */
  readonly indexes?: readonly string[];
  /** The engines it exists on, when not every one (handle.ts's Engine; importing it would close a cycle). */
  readonly engines?: readonly ('sqlite' | 'postgres')[];
}

export interface ForeignKey<Row> {
  readonly column: keyof Row & string;
  readonly references: keyof Database;
  /** What deleting the referenced row does: refused (restrict, no action) or this row goes too (cascade). */
  readonly onDelete: 'restrict' | 'cascade' | 'no action';
}
