import type { VersionedTable } from './tables.js';

/**
 * The tables that API responses are built from (declared `versioned`: a row of table_versions each). Each has a version that every write bumps
 * (triggers of migration 0005, whoever writes: this process, another one, the CLI, SQL by hand)
 * and the time of its last change. A response cached under the versions of the tables it read
 * stays valid exactly until one of them changes; tokens and the audit log are not among them, so
 * authenticating (which stamps a token's last use) never empties the cache.
 */
export type { VersionedTable } from './tables.js';

/**
 * Tokens have a version too (migration 0008), bumped only when a token is revoked or deleted
 * (stamping a last use leaves it): no response is built from it, but the fast path trusts a token
 * it saw valid only under that version (cache/known-tokens.ts).
 */
export const TOKENS_TABLE = 'api_tokens';

export interface TableVersion {
  version: number;
  changedUs: number;
}

/** The versions of every table at one moment, as table_versions holds them (a row each); a new object whenever any of them changed. */
export type VersionSnapshot = Readonly<Record<VersionedTable | typeof TOKENS_TABLE, TableVersion>>;

/** A table without a row (a database migrated by another version?) reads as never changed: the tokens' here, the others' in versionOf. */
const NEVER_CHANGED: TableVersion = Object.freeze({ version: 0, changedUs: 0 });

export function snapshotOf(rows: ReadonlyArray<{ name: string; version: number | string; changed_us: number | string }>): VersionSnapshot {
  const snapshot: Record<string, TableVersion> = { [TOKENS_TABLE]: NEVER_CHANGED };
  for (const row of rows) snapshot[row.name] = { version: Number(row.version), changedUs: Number(row.changed_us) };
  return Object.freeze(snapshot);
}

/** A table's version in a snapshot. */
function versionOf(snapshot: VersionSnapshot, table: VersionedTable): TableVersion {
  return snapshot[table] ?? NEVER_CHANGED;
}

/** Whether some tables still have the versions that versionsOf() gave. */
export function sameVersions(snapshot: VersionSnapshot, tables: readonly VersionedTable[], versions: readonly number[]): boolean {
  for (let i = 0; i < tables.length; i++) if (versionOf(snapshot, tables[i]).version !== versions[i]) return false;
  return true;
}

/** The versions of some tables, in their order. */
export function versionsOf(snapshot: VersionSnapshot, tables: readonly VersionedTable[]): number[] {
  return tables.map((table) => versionOf(snapshot, table).version);
}

/** When the newest change among some tables was made (0 for none). */
export function lastChangeOf(snapshot: VersionSnapshot, tables: readonly VersionedTable[]): number {
  let newest = 0;
  for (const table of tables) newest = Math.max(newest, versionOf(snapshot, table).changedUs);
  return newest;
}

/** Whether two snapshots differ in any version, the tokens' included. */
export function anyChange(before: VersionSnapshot, after: VersionSnapshot): boolean {
  return before[TOKENS_TABLE].version !== after[TOKENS_TABLE].version || changedTables(before, after).length > 0;
}

/** The tables whose version differs between two snapshots (those responses are built from). */
export function changedTables(before: VersionSnapshot, after: VersionSnapshot): VersionedTable[] {
  const tables = new Set([...Object.keys(before), ...Object.keys(after)].filter((name) => name !== TOKENS_TABLE) as VersionedTable[]);
  return [...tables].filter((table) => versionOf(before, table).version !== versionOf(after, table).version);
}

/**
 * A read that must reflect every commit made before it was asked for, shared by the callers that
 * ask for it before it starts. A read starts when the event loop has handled the requests that
 * arrived together (setImmediate), so one round trip serves them all; callers arriving once it
 * has started wait for the next one (it may have started before their write committed). Up to
 * `maxRunning` reads overlap, so that a caller waits about one round trip, not two. When a read
 * fails, the callers waiting for the next one fail with it: the database is not answering, and a
 * second attempt would only double their wait for the same error.
 */
export class FreshRead<T> {
  private next: { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void; scheduled: boolean } | null = null;
  private running = 0;

  constructor(
    private readonly read: () => Promise<T>,
    private readonly maxRunning = 2,
  ) {}

  get(): Promise<T> {
    if (this.next === null) {
      let resolve!: (value: T) => void;
      let reject!: (error: unknown) => void;
      const promise = new Promise<T>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      this.next = { promise, resolve, reject, scheduled: false };
      this.schedule();
    }
    return this.next.promise;
  }

  private schedule(): void {
    const next = this.next;
    if (next === null || next.scheduled || this.running >= this.maxRunning) return;
    next.scheduled = true;
    setImmediate(() => this.start(next));
  }

  private start(next: NonNullable<FreshRead<T>['next']>): void {
    // Callers from now on need a read that starts after them.
    if (this.next === next) this.next = null;
    this.running++;
    this.read().then(
      (value) => {
        this.running--;
        next.resolve(value);
        this.schedule();
      },
      (error: unknown) => {
        this.running--;
        next.reject(error);
        const waiting = this.next;
        if (waiting !== null && !waiting.scheduled) {
          this.next = null;
          waiting.reject(error);
        }
        this.schedule();
      },
    );
  }
}
