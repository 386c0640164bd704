import type { DatabaseHandle, Db } from '../db/connection.js';
import { writeTransaction } from '../db/write-transaction.js';
import { currentSpaceState, type SpaceState } from '../apps/space/openings.js';
import { spaceChangeSince } from '../apps/space/live/space-changes.js';

/** What a write sees besides its transaction. */
export interface WriteScope {
  /** The space's state when the transaction began (under the write lock). */
  readonly spaceBefore: SpaceState;
}

/**
 * The serving process's write transactions, which announce what they change themselves, so that
 * no caller can forget to: after the commit, this process's response cache learns of the write at
 * once (DatabaseHandle.noteWrite) when a table responses are built from changed, and a change of the space's state (the latest opening) goes to
 * the stream and the webhooks' worker (`announce`), and to other processes through PostgreSQL NOTIFY in
 * the transaction (space-changes.ts). A change is also recorded in the transaction itself
 * (`record`: the webhook outbox's deliveries), so that it commits with the change or not at all.
 * Only a transaction that changed the openings reads the state again.
 */
export class AnnouncedWrites {
  constructor(
    private readonly database: DatabaseHandle,
    private readonly announce: (state: SpaceState) => void,
    private readonly record: (trx: Db, state: SpaceState) => Promise<void> = async () => {},
  ) {}

  async run<T>(work: (trx: Db, scope: WriteScope) => Promise<T>): Promise<T> {
    let changed = false;
    let change: SpaceState | null = null;
    let spaceBefore: SpaceState | undefined;
    const result = await writeTransaction(
      this.database.db,
      async (trx) => {
        spaceBefore = await currentSpaceState(trx);
        return work(trx, { spaceBefore });
      },
      async (trx, changedTables) => {
        changed = changedTables.length > 0;
        if (changedTables.includes('openings')) change = await spaceChangeSince(trx, spaceBefore!);
        if (change !== null) await this.record(trx, change);
      },
    );
    if (changed) this.database.noteWrite();
    if (change !== null) this.announce(change);
    return result;
  }
}
