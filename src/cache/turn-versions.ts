import type { Socket } from 'node:net';
import type { VersionSnapshot } from '../db/table-versions.js';

/**
 * Above this many open connections, every request reads the versions itself. libuv gathers the
 * ready sockets of a poll phase with one epoll_wait of at most 1024 events, and waits again
 * within the same phase only after a full batch; below this count a phase never holds a second
 * batch (the few other descriptors a process polls included).
 */
export const MAX_SHARING_CONNECTIONS = 900;

/**
 * The table versions shared by the requests that one turn of the event loop reads from the
 * network (SQLite, where each read of them costs a lock on the shared-memory index: two system
 * calls). Sharing is exact: the requests of a turn were all sent before the poll returned, so
 * before the first of them read the versions, and a client's read that depends on a write was sent
 * after that write's answer. A socket that brings a second request in the same turn (sent after
 * the first one was answered, maybe after a write elsewhere) gets a new read; the shared versions
 * end with the turn (setImmediate runs after the poll phase); and with many connections, where a
 * turn could poll twice, nothing is shared. Only HTTP request handlers may call get(): they run in
 * the poll phase, right after the poll.
 */
export class TurnVersions {
  private snapshot: VersionSnapshot | null = null;
  private turn = 0;
  private readonly lastTurn = new WeakMap<Socket, number>();
  private readonly expire = () => {
    this.snapshot = null;
  };

  constructor(
    private readonly read: () => VersionSnapshot,
    private readonly openConnections: () => number,
  ) {}

  get(socket: Socket): VersionSnapshot {
    if (this.snapshot === null || this.lastTurn.get(socket) === this.turn || this.openConnections() >= MAX_SHARING_CONNECTIONS) {
      const first = this.snapshot === null;
      this.snapshot = this.read();
      this.turn++;
      if (first) setImmediate(this.expire);
    }
    this.lastTurn.set(socket, this.turn);
    return this.snapshot;
  }
}
