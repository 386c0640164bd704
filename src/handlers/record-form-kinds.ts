import type { Db } from '../db/connection.js';
import type { Collection } from '../drf/collections.js';
import type { MessageKey } from '../i18n/words.js';
import type { FormValues } from '../web/form-values.js';
import type { RecordNotices } from '../web/notices.js';
import type { RecordFormWords } from '../web/record-forms.js';

/** A kind of record that members add, edit and delete with forms (members.md §4), as its app declares it (`apps/projects/forms.ts`…). */
export interface RecordFormKind {
  /** The first segment of its pages' paths: `/projects/new/`, `/projects/7/edit/`, `/projects/7/`. */
  readonly kind: string;
  /** What its forms say of it (`New project`, `Delete the project “{name}”?`…), as keys of its app's catalogue. */
  readonly words: RecordFormWords;
  /** What its forms' notices say: `The project is saved.` */
  readonly notices: RecordNotices;
  /** Its API collection: the forms write through it, as the API does. */
  readonly collection: Collection;
  /** What a record is called on its pages (a project's title; a meeting's event's title, which its `words` name it by); undefined when there is no such record. */
  nameOf(db: Db, id: number): Promise<string | undefined>;
  /** The values of an empty form for the member of this API path: the schema's first choices, the member in their own lists. */
  blank(me: string): FormValues;
  /** The record each of its records belongs to (a meeting's event), when there is one. */
  readonly parent?: RecordParent;
}

/**
 * The record a record belongs to (a meeting's event): named by the new record's page
 * (`/meetings/new/?event=7`), shown on its forms as fixed, never changed by them; one record of
 * the kind at most belongs to each.
 */
export interface RecordParent {
  /** The field that names it, and the new form's query parameter: `event`. */
  readonly field: string;
  /** The first segment of its pages' and API paths: `events`. */
  readonly kind: string;
  /** `There is no such event.` */
  readonly notFound: MessageKey;
  /** Its title; undefined when there is no such record. */
  titleOf(db: Db, id: number): Promise<string | undefined>;
  /** The one that a record of the kind belongs to; null when there is no such record. */
  ofRecord(db: Db, id: number): Promise<number | null>;
  /** The record of the kind that already belongs to it, if any. */
  existing(db: Db, parentId: number): Promise<number | undefined>;
}
