import type { DatabaseHandle, Db } from '../db/connection.js';
import type { VersionedTable } from '../db/table-versions.js';
import { writeTransaction } from '../db/write-transaction.js';

/**
 * What a write sees besides its transaction: what the watcher read as the transaction began
 * (under the write lock). The app that supplies the watcher declares its fields (module
 * augmentation, as the apps' schema.ts do for Kysely's Database).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by the watching app's augmentation.
export interface WriteScope {}

/**
 * What the write transactions watch (the space's state: the latest opening), supplied by the app
 * that owns it: read as each transaction begins, read again when the transaction changed one of
 * its tables, and the change announced after the commit.
 */
export interface ChangeWatcher<Scope, Change> {
  /** The tables whose writes may change what is watched: only a transaction that changed one of them reads it again. */
  readonly tables: readonly VersionedTable[];
  /** Under the write lock, as the transaction begins: what the transaction's work sees. */
  before(trx: Db): Promise<Scope>;
  /** In the transaction, after its work changed one of `tables`: the change since `before` (told to other processes in the transaction where the engine can), or null. */
  since(trx: Db, before: Scope): Promise<Change | null>;
  /** After the commit of a change (never throws, never waits). */
  announce(change: Change): void;
}

/**
 * The serving process's write transactions, which announce what they change themselves, so that
 * no caller can forget to: after the commit, this process's response cache learns of the write at
 * once (DatabaseHandle.noteWrite) when a table responses are built from changed, and a change of
 * what the watcher watches goes to its `announce` (the space's: the stream, the webhooks' worker,
 * MQTT; other processes through PostgreSQL NOTIFY in the transaction). A change is also recorded
 * in the transaction itself (`record`: the webhook outbox's deliveries), so that it commits with
 * the change or not at all. Only a transaction that changed the watched tables reads them again.
 */
export class AnnouncedWrites<Scope = WriteScope, Change = unknown> {
  private readonly watch: {
    readonly watcher: ChangeWatcher<Scope, Change>;
    record(trx: Db, change: Change): Promise<void>;
  };

  constructor(
    private readonly database: DatabaseHandle,
    watcher: ChangeWatcher<Scope, Change>,
    record: (trx: Db, change: Change) => Promise<void> = async () => {},
  ) {
    this.watch = { watcher, record };
  }

  async run<T>(work: (trx: Db, scope: Scope) => Promise<T>): Promise<T> {
    const { watcher } = this.watch;
    let changed = false;
    let change: Change | null = null;
    let before: Scope | undefined;
    const result = await writeTransaction(
      this.database.db,
      async (trx) => {
        before = await watcher.before(trx);
        return work(trx, before);
      },
      async (trx, changedTables) => {
        changed = changedTables.length > 0;
        if (watcher.tables.some((table) => changedTables.includes(table))) change = await watcher.since(trx, before!);
        if (change !== null) await this.watch.record(trx, change);
      },
    );
    if (changed) this.database.noteWrite();
    if (change !== null) watcher.announce(change);
    return result;
  }
}
