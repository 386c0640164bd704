import type { FastifyReply } from 'fastify';
import type { Collection } from '../drf/collections.js';
import { ApiError } from '../drf/errors.js';
import { lastValue } from '../drf/query.js';
import { englishText } from '../drf/messages.js';
import {
  StaleEdit,
  createRecord,
  deleteRecord,
  memberMayChooseOwner,
  memberMayCreate,
  memberMayDelete,
  memberMayEdit,
  recordVersion,
  updateRecord,
  userPath,
  webWriter,
  type RecordWrite,
} from '../drf/record-writes.js';
import { parseId } from '../drf/routes.js';
import type { RecordContext } from '../resources/record-context.js';
import { ConflictError, FieldErrors } from '../resources/write-errors.js';
import type { FieldMessages } from '../web/form-parts.js';
import type { TimeFormatter } from '../time.js';
import type { MessageKey } from '../i18n/words.js';
import { messagePage } from '../web/message-page.js';
import { differences, fieldProblems, formFields, memberIdOf, recordValues, typedValues, type FormValues } from '../web/form-values.js';
import type { Html } from '../web/html.js';
import { deletePage, recordFormPage, type MemberPicker, type RecordFormView } from '../web/record-forms.js';
import { seeOther, sendPage } from '../http/reply.js';
import type { FormExchange, FormMembers } from './form-members.js';
import type { RecordFormKind, RecordParent } from './record-form-kinds.js';
import { setNotice } from './notice.js';

/**
 * The members' forms for projects, events and meetings (members.md §4): new, edit and delete.
 * What the member may do is the core's (drf/record-writes.ts: the same rights, validation,
 * transaction and audit as the API); this module reads the form, asks, and answers with a page:
 * 422 with the messages, 409 with the differences, 303 to the record's page with a notice.
 */

/** What a form route knows besides the request: the kind of record, and the members to choose among. */
export interface RecordForms extends RecordFormKind {
  /** The members, to choose among and to look them up. */
  readonly members: FormMembers;
}

type Exchange = FormExchange;

const recordPage = (kind: string, id: number) => `/${kind}/${id}/`;
/** A parent's API path, as its field holds it. */
const parentPath = (parent: RecordParent, id: number | null) => `/api/${parent.kind}/${id}/`;
/** Where a deleted record's member goes: the list of its kind (a meeting: its event's page). */
const afterDelete = ({ kind, parent }: RecordForms, parentId: number | null) => (parent !== undefined && parentId !== null ? recordPage(parent.kind, parentId) : `/${kind}/`);

function viewer(m: Exchange): { id: number; username: string } {
  // memberPage ensures a viewer on pages that require a member.
  return m.viewer!.member;
}

function db(m: Exchange) {
  return m.ex.services.database.db;
}

// ---- answers that are not the form ----

function notFoundPage(m: Exchange, notFound: MessageKey): FastifyReply {
  const { words } = m.site;
  return sendPage(m.ex.reply, 404, messagePage(m.site, { title: words.t('site.form.not-found.title'), message: words.t(notFound) }));
}

/** `mayNot`: `You may not add a project.` */
function forbiddenPage(m: Exchange, mayNot: MessageKey): FastifyReply {
  const { words } = m.site;
  return sendPage(m.ex.reply, 403, messagePage(m.site, { title: words.t('site.form.forbidden.title'), message: `${words.t(mayNot)} ${words.t('site.form.forbidden.ask')}` }));
}

/** The core's refusals as pages (a right lost or a record deleted between the page and the post). */
function refusal(m: Exchange, forms: RecordForms, error: unknown, mayNot: MessageKey): FastifyReply {
  if (error instanceof ApiError && error.status === 404) return notFoundPage(m, forms.words.notFound);
  if (error instanceof ApiError && error.status === 403) return forbiddenPage(m, mayNot);
  throw error;
}

/** The core's messages of a refused form in the page's language. */
function problems(m: Exchange, forms: RecordForms, values: FormValues, error: FieldErrors): FieldMessages {
  return fieldProblems(m.site.words, forms.collection.fields, values, error.worded(englishText), m.ex.services.config.timeZone);
}

// ---- the record as a form shows it ----

/** A wall-clock time in TIME_ZONE as a `datetime-local` input holds it: seconds only when there are some. */
function wallTime(times: TimeFormatter, micros: number): string {
  const local = times.format(micros).slice(0, 19);
  return local.endsWith(':00') ? local.slice(0, 16) : local;
}

/** Links and times spelled as a form sends them: members and events by their API paths, times on the wall clock. */
function formContext(times: TimeFormatter): RecordContext {
  return {
    userUrl: userPath,
    eventUrl: (id) => `/api/events/${id}/`,
    meetingUrl: (id) => `/api/meetings/${id}/`,
    mediaUrl: (path) => path,
    time: (micros) => wallTime(times, micros),
    avatar: () => '',
    avatarField: 'avatar',
  };
}

async function savedValues(m: Exchange, collection: Collection, id: number): Promise<Map<string, string[]> | undefined> {
  const record = (await collection.find(db(m), id, formContext(m.ex.services.times))) as Record<string, unknown> | undefined;
  return record === undefined ? undefined : recordValues(collection.fields, record);
}

// ---- the form page ----

interface FormState {
  values: FormValues;
  errors: FieldMessages;
  version: string | null;
  /** The field a search was made for, and what was typed. */
  search: { field: string; query: string } | null;
  previews: Readonly<Record<string, Html>>;
  conflict: RecordFormView['conflict'];
}

/** Where the form stands: a new record's page (its event for a meeting) or a record's edit page. */
interface Target {
  forms: RecordForms;
  /** The record edited; null for a new one. */
  id: number | null;
  /** A new record's parent (a new meeting's event). */
  parentId: number | null;
}

const EMPTY: Omit<FormState, 'values'> = { errors: {}, version: null, search: null, previews: {}, conflict: null };

async function formAnswer(m: Exchange, target: Target, status: number, state: FormState): Promise<FastifyReply> {
  const { forms, id } = target;
  const { kind, collection, parent, members: people } = forms;
  const me = viewer(m);
  const values = new Map(state.values);
  const fixed: Record<string, string> = {};
  const owner = collection.memberWrites?.owner?.field ?? null;
  if (id === null && owner !== null && !(await memberMayChooseOwner(db(m), me.id, collection))) {
    fixed[owner] = m.site.words.t('site.form.you', { username: me.username });
    values.set(owner, [userPath(me.id)]);
  }
  if (parent !== undefined) {
    const parentId = target.parentId ?? Number(new RegExp(`^/api/${parent.kind}/([0-9]+)/$`).exec(values.get(parent.field)?.[0] ?? '')?.[1]);
    fixed[parent.field] = (await parent.titleOf(db(m), parentId)) ?? '';
    values.set(parent.field, [parentPath(parent, parentId)]);
  }
  const members: Record<string, MemberPicker> = {};
  for (const field of formFields(collection.fields)) {
    if (field.shape.kind !== 'member' || fixed[field.name] !== undefined) continue;
    const ids = (values.get(field.name) ?? []).map(memberIdOf).filter((n): n is number => n !== null);
    const search = state.search?.field === field.name ? { query: state.search.query, ...(await people.find(db(m), state.search.query)) } : null;
    members[field.name] = { chosen: await people.byId(db(m), ids), search };
  }
  const name = id === null ? null : await forms.nameOf(db(m), id);
  const conflict = state.conflict;
  const view: RecordFormView = {
    words: forms.words,
    schema: collection.fields,
    title: id === null ? m.site.words.t(forms.words.new, { parent: parent === undefined ? '' : fixed[parent.field] }) : m.site.words.t(forms.words.edit, { name: name ?? '' }),
    action: m.ex.facts.target.rawPath + (target.parentId === null || id !== null ? '' : `?${parent!.field}=${target.parentId}`),
    csrf: m.csrf,
    version: state.version,
    values,
    errors: state.errors,
    members,
    fixed,
    previews: state.previews,
    conflict,
    timeZone: m.ex.services.config.timeZone,
    back: id !== null ? recordPage(kind, id) : target.parentId !== null ? recordPage(parent!.kind, target.parentId) : '/',
    deleteLink: id !== null && (await memberMayDelete(db(m), me.id, collection)) ? `/${kind}/${id}/delete/` : null,
  };
  return sendPage(m.ex.reply, status, recordFormPage(m.site, view));
}

/** The names of the members a conflict's differences mention. */
async function namesIn(m: Exchange, people: FormMembers, values: readonly (readonly string[])[]): Promise<Map<number, string>> {
  const ids = values
    .flat()
    .map(memberIdOf)
    .filter((n): n is number => n !== null);
  return new Map((await people.byId(db(m), ids)).map((member) => [member.id, member.username]));
}

/** "Preview" and "Find" post the form back: the page again, as typed, with the rendering or the matches. Null for "Save". */
async function formBack(m: Exchange, target: Target, values: FormValues, version: string | null): Promise<FastifyReply | null> {
  const action = m.form.get('action') ?? 'save';
  const fields = formFields(target.forms.collection.fields);
  if (action === 'preview') {
    // Loaded on demand, as the detail pages do (markdown-it is 200 KB to parse).
    const { renderMarkdown } = await import('../web/markdown.js');
    const previews: Record<string, Html> = {};
    for (const field of fields) {
      const text = values.get(field.name)?.[0] ?? '';
      if (field.shape.kind === 'text' && field.shape.markdown && text.trim() !== '') previews[field.name] = renderMarkdown(text, 4);
    }
    return formAnswer(m, target, 200, { ...EMPTY, values, version, previews });
  }
  // A search box with something in it means a search, whichever button sent the form (Enter in the box sends the first: Save).
  const pickers = fields.filter((f) => f.shape.kind === 'member');
  const filled = pickers.filter((f) => (m.form.get(`${f.name}_find`) ?? '').trim() !== '');
  const searched = filled.find((f) => action === `find:${f.name}`) ?? filled[0] ?? pickers.find((f) => action === `find:${f.name}`);
  if (searched === undefined) return null;
  return formAnswer(m, target, 200, { ...EMPTY, values, version, search: { field: searched.name, query: (m.form.get(`${searched.name}_find`) ?? '').trim() } });
}

function recordWrite(m: Exchange): RecordWrite {
  const { services, facts } = m.ex;
  return {
    writes: services.writes,
    writer: webWriter(viewer(m)),
    method: 'POST',
    path: facts.target.rawPath,
    status: 303,
    nowUs: m.nowUs,
    ctx: formContext(services.times),
    read: { timeZone: services.config.timeZone, routeOf: services.routeOf, strictLocalTimes: true },
  };
}

// ---- new ----

/** A new record's parent, from its query parameter (`?event=`): its id, or null when absent or not a number. */
function parentOfQuery(m: Exchange, parent: RecordParent): number | null {
  const value = lastValue(m.ex.facts.target.query, parent.field);
  return value === undefined ? null : parseId(value);
}

/** Who may open a new form: the add right (a meeting: also its event's organizer); the parent must exist. */
async function newTarget(m: Exchange, forms: RecordForms): Promise<Target | FastifyReply> {
  const { collection, parent } = forms;
  const parentId = parent === undefined ? null : parentOfQuery(m, parent);
  if (parent !== undefined && (parentId === null || (await parent.titleOf(db(m), parentId)) === undefined)) return notFoundPage(m, parent.notFound);
  const input = parent === undefined ? {} : { [parent.field]: parentId };
  if (!(await memberMayCreate(db(m), viewer(m).id, collection, input))) return forbiddenPage(m, forms.words.mayNotAdd);
  if (parent !== undefined) {
    const existing = await parent.existing(db(m), parentId!);
    if (existing !== undefined) return seeOther(m.ex.reply, `/${forms.kind}/${existing}/edit/`);
  }
  return { forms, id: null, parentId };
}

export async function showNew(m: Exchange, forms: RecordForms): Promise<FastifyReply> {
  const target = await newTarget(m, forms);
  if (!('forms' in target)) return target;
  return formAnswer(m, target, 200, { ...EMPTY, values: forms.blank(userPath(viewer(m).id)) });
}

export async function submitNew(m: Exchange, forms: RecordForms): Promise<FastifyReply> {
  const { kind, collection, parent } = forms;
  const target = await newTarget(m, forms);
  if (!('forms' in target)) return target;
  const values = typedValues(collection.fields, m.lists);
  if (parent !== undefined) values.set(parent.field, [parentPath(parent, target.parentId)]);
  const back = await formBack(m, target, values, null);
  if (back !== null) return back;
  try {
    const { id } = await createRecord(recordWrite(m), collection, { kind: 'form', fields: values });
    setNotice(m.ex.reply, m.ex.facts, `${kind}-created`);
    return seeOther(m.ex.reply, recordPage(kind, id));
  } catch (error) {
    if (error instanceof FieldErrors) return formAnswer(m, target, 422, { ...EMPTY, values, errors: problems(m, forms, values, error) });
    return refusal(m, forms, error, forms.words.mayNotAdd);
  }
}

// ---- edit ----

/** The record of an edit or delete page: 404 when unknown, 403 without the right. */
async function editTarget(m: Exchange, forms: RecordForms, rawId: string, may: 'edit' | 'delete'): Promise<Target | FastifyReply> {
  const { collection, words } = forms;
  const id = parseId(rawId);
  const me = viewer(m).id;
  if (id === null || (await forms.nameOf(db(m), id)) === undefined) return notFoundPage(m, words.notFound);
  const allowed = may === 'edit' ? await memberMayEdit(db(m), me, collection, id) : await memberMayDelete(db(m), me, collection);
  if (!allowed) return forbiddenPage(m, may === 'edit' ? words.mayNotEdit : words.mayNotDelete);
  return { forms, id, parentId: null };
}

export async function showEdit(m: Exchange, forms: RecordForms, rawId: string): Promise<FastifyReply> {
  const { collection } = forms;
  const target = await editTarget(m, forms, rawId, 'edit');
  if (!('forms' in target)) return target;
  const [values, version] = [await savedValues(m, collection, target.id!), await recordVersion(db(m), collection, target.id!)];
  if (values === undefined || version === undefined) return notFoundPage(m, forms.words.notFound);
  return formAnswer(m, target, 200, { ...EMPTY, values, version });
}

export async function submitEdit(m: Exchange, forms: RecordForms, rawId: string): Promise<FastifyReply> {
  const { kind, collection, parent } = forms;
  const target = await editTarget(m, forms, rawId, 'edit');
  if (!('forms' in target)) return target;
  const id = target.id!;
  const values = typedValues(collection.fields, m.lists);
  // A meeting stays with its event: the form shows it, never changes it.
  if (parent !== undefined) values.set(parent.field, [parentPath(parent, await parent.ofRecord(db(m), id))]);
  const version = m.form.get('version') ?? '';
  const back = await formBack(m, target, values, version);
  if (back !== null) return back;
  try {
    await updateRecord(recordWrite(m), collection, id, () => ({ kind: 'form', fields: values }), 'replace', version);
    setNotice(m.ex.reply, m.ex.facts, `${kind}-saved`);
    return seeOther(m.ex.reply, recordPage(kind, id));
  } catch (error) {
    if (error instanceof FieldErrors) return formAnswer(m, target, 422, { ...EMPTY, values, version, errors: problems(m, forms, values, error) });
    if (error instanceof StaleEdit) return conflictAnswer(m, target, values);
    return refusal(m, forms, error, forms.words.mayNotEdit);
  }
}

/** Saved over a newer version: nothing written; the differences, what was typed, and the current version (saving again is deliberate). */
async function conflictAnswer(m: Exchange, target: Target, values: FormValues): Promise<FastifyReply> {
  const { collection, members, words } = target.forms;
  const saved = await savedValues(m, collection, target.id!);
  const version = await recordVersion(db(m), collection, target.id!);
  if (saved === undefined || version === undefined) return notFoundPage(m, words.notFound);
  const found = differences(collection.fields, saved, values);
  const names = await namesIn(
    m,
    members,
    found.flatMap((d) => [d.saved, d.typed]),
  );
  return formAnswer(m, target, 409, { ...EMPTY, values, version, conflict: { differences: found, names } });
}

// ---- delete ----

async function deleteAnswer(m: Exchange, target: Target, status: number, problem: string | null): Promise<FastifyReply> {
  const { forms, id } = target;
  const { kind } = forms;
  const page = deletePage(m.site, {
    words: forms.words,
    name: (await forms.nameOf(db(m), id!)) ?? '',
    action: `/${kind}/${id}/delete/`,
    csrf: m.csrf,
    back: recordPage(kind, id!),
    problem,
  });
  return sendPage(m.ex.reply, status, page);
}

export async function showDelete(m: Exchange, forms: RecordForms, rawId: string): Promise<FastifyReply> {
  const target = await editTarget(m, forms, rawId, 'delete');
  if (!('forms' in target)) return target;
  return deleteAnswer(m, target, 200, null);
}

export async function submitDelete(m: Exchange, forms: RecordForms, rawId: string): Promise<FastifyReply> {
  const { kind, collection, parent } = forms;
  const target = await editTarget(m, forms, rawId, 'delete');
  if (!('forms' in target)) return target;
  const id = target.id!;
  const parentId = parent === undefined ? null : await parent.ofRecord(db(m), id);
  try {
    await deleteRecord(recordWrite(m), collection, id);
  } catch (error) {
    if (error instanceof ConflictError) return deleteAnswer(m, target, 409, forms.words.inUse === undefined ? error.message : m.site.words.t(forms.words.inUse));
    return refusal(m, forms, error, forms.words.mayNotDelete);
  }
  setNotice(m.ex.reply, m.ex.facts, `${kind}-deleted`);
  return seeOther(m.ex.reply, afterDelete(forms, parentId));
}
