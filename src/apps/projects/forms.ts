import type { RecordFormKind } from '../../handlers/record-form-kinds.js';
import { PROJECTS } from './collections.js';

/** The projects' forms (members.md §4): `/projects/new/`, `/projects/<id>/edit/` and `/projects/<id>/delete/`. */
export const PROJECT_FORMS: RecordFormKind = {
  kind: 'projects',
  noun: 'project',
  aNoun: 'a project',
  notices: { created: 'projects.notice.created', saved: 'projects.notice.saved', deleted: 'projects.notice.deleted' },
  collection: PROJECTS,
  nameOf: async (db, id) => (await db.selectFrom('projects').select('title').where('id', '=', id).executeTakeFirst())?.title,
  // The schema's first status, progress 0, the member as its maintainer and a participant.
  blank: (me) =>
    new Map([
      ['status', ['p']],
      ['progress', ['0']],
      ['maintainer', [me]],
      ['participants', [me]],
    ]),
};
