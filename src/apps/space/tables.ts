import type { Database } from '../../db/schema.js';
import type { TableDeclaration } from '../../db/table-declaration.js';

/** The space app's tables, declared once (db/table-declaration.ts); in Django's dependency order, join tables after their owner. */
export const SPACE_TABLES = {
  openings: {
    columns: ['id', 'time_us', 'is_open'],
    counted: true,
    versioned: true,
    collection: 'space/openings',
    model: 'space.spacestatus',
    indexes: ['openings_time_id'],
  },
  opening_buckets: { columns: ['level', 'bucket', 'n'] },
} as const satisfies { readonly [T in 'openings' | 'opening_buckets']: TableDeclaration<Database[T]> };

/** The space app's tables, added to every table's declaration (db/tables.ts). */
declare module '../../db/tables.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the declaration merges SpaceTables's members into Tables.
  interface Tables extends SpaceTables {}
}
type SpaceTables = typeof SPACE_TABLES;
