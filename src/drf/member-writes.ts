import type { Db } from '../db/connection.js';

/**
 * What members may write in a collection, through their tokens or their forms (members.md §3),
 * as the collection's app rules it with the rights the users app keeps: the one write path
 * (record-writes.ts) asks it in the write's transaction. A collection without it is written by
 * no member.
 */
export interface MemberWrites {
  /**
   * Its model's rights, as Django names them (`projects.add_project`): a member's token needs `add`
   * to POST, `change` to PUT or PATCH and `delete` to DELETE, unless the record itself may allow
   * it (`mayEdit`, `addedByRecord`), which the write checks once the record is known.
   */
  readonly rights: { readonly add: string; readonly change: string; readonly delete: string };
  /** Whether a member without the add right may still add, as the new record's fields allow (a meeting, by its event's organizer). */
  readonly addedByRecord?: boolean;
  /** May the member create a record with these fields (a meeting's `event`: its organizer may)? */
  mayCreate(db: Db, userId: number, input: unknown): Promise<boolean>;
  /** May the member edit this record (the right, or being its maintainer or organizer)? */
  mayEdit(db: Db, userId: number, id: number): Promise<boolean>;
  /** May the member, who may edit the record, give it these fields (an organizer may not move a meeting to another's event)? */
  mayEditTo?(db: Db, userId: number, id: number, input: unknown): Promise<boolean>;
  /** May the member delete the collection's records? */
  mayDelete(db: Db, userId: number): Promise<boolean>;
  /** The field naming who answers for a new record (maintainer, organizer): a member who may not choose another is set there on the web (members.md §4). */
  readonly owner?: { readonly field: string; mayChoose(db: Db, userId: number): Promise<boolean> };
}
