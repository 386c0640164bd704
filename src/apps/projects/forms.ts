import type { RecordFormKind } from '../../handlers/record-form-kinds.js';
import { PROJECTS } from './collections.js';
import { PROJECT_STATUS_NAMES } from './web/words.js';

/** The projects' forms (members.md §4): `/projects/new/`, `/projects/<id>/edit/` and `/projects/<id>/delete/`. */
export const PROJECT_FORMS: RecordFormKind = {
  kind: 'projects',
  words: {
    new: 'projects.form.new',
    edit: 'projects.form.edit',
    notSaved: 'projects.form.not-saved',
    changed: 'projects.form.changed',
    deleteThis: 'projects.form.delete-this',
    deleteQuestion: 'projects.form.delete-question',
    deleteTitle: 'projects.form.delete-title',
    notFound: 'projects.form.not-found',
    mayNotAdd: 'projects.form.may-not-add',
    mayNotEdit: 'projects.form.may-not-edit',
    mayNotDelete: 'projects.form.may-not-delete',
    fields: {
      title: 'projects.field.title',
      maintainer: 'projects.field.maintainer',
      participants: 'projects.field.participants',
      status: 'projects.field.status',
      progress: 'projects.field.progress',
      short_description: 'projects.field.short_description',
      content: 'projects.field.content',
    },
    choices: { status: PROJECT_STATUS_NAMES },
  },
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
