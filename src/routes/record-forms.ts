import type { FormMembers } from '../handlers/form-members.js';
import type { RecordFormKind } from '../handlers/record-form-kinds.js';
import { showDelete, showEdit, showNew, submitDelete, submitEdit, submitNew, type RecordForms } from '../handlers/record-forms.js';
import { fixedPaths, type Route, type RoutePath } from '../http/route.js';

/**
 * The members' forms for projects, events and meetings (members.md §4): `/<kind>/new/` (a
 * meeting's: `/meetings/new/?event=<id>`), `/<kind>/<id>/edit/` and `/<kind>/<id>/delete/`. Before
 * the record pages in the route table: `/projects/new/` is no project's page.
 */
/** The id part of `/<kind>/<id>/<action>/`, as typed (the handler reads it: a 404 page for anything but a record's id). */
function recordPath(kind: string, action: 'edit' | 'delete') {
  const pattern = new RegExp(`^/${kind}/([^/]{1,40})/${action}/$`);
  return ({ raw }: RoutePath): string | null => pattern.exec(raw)?.[1] ?? null;
}

/** The forms of a kind of record its app declares, with the pages for members only that the users app makes. */
export function formRoutes(declaration: RecordFormKind, members: FormMembers): Route[] {
  const forms: RecordForms = { ...declaration, members };
  const { kind } = forms;
  const post = (m: { ex: { facts: { method: string } } }) => m.ex.facts.method === 'POST';
  return [
    members.page({
      name: `new ${kind}`,
      template: `/${kind}/new/`,
      match: fixedPaths(`/${kind}/new/`),
      methods: ['GET', 'POST'],
      handle: (m) => (post(m) ? submitNew(m, forms) : showNew(m, forms)),
    }),
    members.page({
      name: `edit ${kind}`,
      template: `/${kind}/{id}/edit/`,
      match: recordPath(kind, 'edit'),
      methods: ['GET', 'POST'],
      handle: (m) => (post(m) ? submitEdit(m, forms, m.ex.params) : showEdit(m, forms, m.ex.params)),
    }),
    members.page({
      name: `delete ${kind}`,
      template: `/${kind}/{id}/delete/`,
      match: recordPath(kind, 'delete'),
      methods: ['GET', 'POST'],
      handle: (m) => (post(m) ? submitDelete(m, forms, m.ex.params) : showDelete(m, forms, m.ex.params)),
    }),
  ];
}
