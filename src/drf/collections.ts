import type { TObject } from '@sinclair/typebox';
import type { Db } from '../db/connection.js';
import type { VersionedTable } from '../db/table-versions.js';
import type { CollectionTable, Tables } from '../db/tables.js';
import type { AnnouncedWrites } from '../live/writes.js';
import type { AuditEntry } from '../resources/audit.js';
import type { PageWindow, RecordContext } from '../resources/record-context.js';
import type { TokenScope } from '../resources/tokens.js';
import type { ApiView } from './api-view.js';
import type { MemberWrites } from './member-writes.js';
import type { QueryPair } from './query.js';
import type { CollectionPath } from './routes.js';

/**
 * An API collection, declared once by the app that holds it (`src/apps/<app>/collections.ts`):
 * its table (whose declaration in the app's tables.ts gives its path under `/api/`), its records'
 * queries and writes, its record and writable-field schemas, DRF's view name, its place in the API
 * root, and the tables its responses are built from. Routing, the API root, reads, writes,
 * OPTIONS and the OpenAPI document derive from the apps' collections.
 */
export interface Collection<Path extends CollectionPath = CollectionPath, Table extends CollectionTable = CollectionTable> {
  /** Where it lives: `/api/<path>/` and `/api/<path>/<id>/` (its table's `collection`). */
  readonly path: Path;
  /** DRF's view name: `User` gives `User List` and `User Instance` (OPTIONS). */
  readonly viewName: string;
  /** Its place among the API root's keys (the original's router registered them in this order). */
  readonly rootOrder: number;
  /** The table its records are stored in. */
  readonly table: Table;
  /** Every table a page or record of it is built from: a write to any of them changes its responses. */
  readonly reads: readonly VersionedTable[];
  /** What a record looks like (OPTIONS describes its read-only fields from it). */
  readonly record: TObject;
  /** The fields a client may write, validated by drf/serializer.ts. */
  readonly fields: TObject;
  count(db: Db): Promise<number>;
  page(db: Db, window: PageWindow, query: readonly QueryPair[], ctx: RecordContext): Promise<unknown[]>;
  find(db: Db, id: number, ctx: RecordContext): Promise<unknown>;
  // Each collection's input is its own `fields`' type; readFields() validated it against them.
  /** Creates a record from validated fields; null where POST is not a plain create (the door's openings). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly create: ((db: Db, input: any, nowUs: number) => Promise<number>) | null;
  /** The API views beside it, at paths of their own, that read its table (the openings': the space's status, hours and stream). */
  readonly views?: readonly ApiView[];
  /** The API's POST where it is not a plain create (the openings': a door report, apps/space/handlers/door.ts). */
  readonly post?: (post: CollectionPost) => Promise<CollectionPosted>;
  /** Sets the given fields; false when there is no such record. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  update(db: Db, id: number, input: any, nowUs: number): Promise<boolean>;
  /** False when there is no such record; a ConflictError while others refer to it. */
  remove(db: Db, id: number): Promise<boolean>;
  /** What members may write in it, by its app's rules; no member writes it without. */
  readonly memberWrites?: MemberWrites;
  /** Read only, as the original's whole API was (its ReadOnlyPermission): GET, HEAD and OPTIONS, any other method 405. */
  readonly readOnly?: true;
}

/** A read-only collection's writes, which its routes never reach (they allow no write method). */
export const NO_WRITES = {
  readOnly: true,
  create: null,
  update: () => Promise.reject(new Error('a read-only collection is not updated')),
  remove: () => Promise.reject(new Error('a read-only collection is not deleted')),
} as const;

/** A POST on a collection that declares its own (`post`), as handlers/write.ts hands it over. */
export interface CollectionPost {
  readonly writes: AnnouncedWrites;
  /** The body's fields, read against the collection's writable fields (a 400 when they are not valid). */
  readonly fields: () => unknown;
  /** The token's scope. */
  readonly scope: TokenScope | 'member';
  /** The audit entry of the record it writes, but the record's id (status 201). */
  readonly audit: Omit<AuditEntry, 'recordId'>;
  readonly nowUs: number;
  readonly ctx: RecordContext;
}

/** What such a POST did: the record, and whether it recorded it (201 with its Location) or not (200: it was so already). */
export interface CollectionPosted {
  readonly created: boolean;
  readonly id: number;
  readonly record: unknown;
}

interface Declaration<Table extends CollectionTable, Row> extends Omit<Collection<CollectionPath, Table>, 'path' | 'page' | 'find'> {
  list: (db: Db, window: PageWindow, query: readonly QueryPair[]) => Promise<Row[]>;
  find: (db: Db, id: number) => Promise<Row | undefined>;
  toRecord: (row: Row, ctx: RecordContext) => unknown;
}

/** A table's collection path, as its declaration gives it. */
type PathOf<Table extends CollectionTable> = Tables[Table]['collection'];

export type { CollectionPath };

/** A collection of one of an app's tables (`tables`: its tables.ts, whose declaration gives the path). */
export function collection<const Table extends CollectionTable, Row>(
  tables: { readonly [T in Table]: { readonly collection: PathOf<T> } },
  { list, find, toRecord, ...rest }: Declaration<Table, Row>,
): Collection<PathOf<Table>, Table> {
  return {
    ...rest,
    path: tables[rest.table].collection,
    page: async (db, window, query, ctx) => (await list(db, window, query)).map((row) => toRecord(row, ctx)),
    find: async (db, id, ctx) => {
      const row = await find(db, id);
      return row === undefined ? undefined : toRecord(row, ctx);
    },
  };
}
