import type { TObject } from '@sinclair/typebox';
import type { MessageKey, Words } from '../i18n/words.js';
import { CSRF_FIELD } from '../request/csrf.js';
import { formFields, memberIdOf, type Difference, type FieldShape, type FormValues } from './form-values.js';
import { html, type Html } from './html.js';
import { layout, type Site } from './layout.js';
import { described, fieldError, type FieldMessages } from './form-parts.js';

/**
 * The members' forms for projects, events and meetings (members.md §4): one labelled control per
 * writable field of the collection, named as the API names it, its message next to it (linked by
 * aria-describedby); members chosen by ticking those listed and finding more by name (the form
 * posts itself back: no script, no list of every member); a Markdown preview that posts the form
 * back; and an edit's version, so that saving over a newer one shows the differences instead.
 */

/**
 * What a kind of record's forms say of it, as message keys of its app's catalogue: one sentence
 * per key, since languages agree their words with the kind's gender (`Nouveau projet`,
 * `Nouvel événement`, `Nouvelle réunion`).
 */
export interface RecordFormWords {
  /** A new record's title: `New project` (a meeting's: `New meeting for {parent}`). */
  readonly new: MessageKey;
  /** An edit's title: `Edit: {name}`. */
  readonly edit: MessageKey;
  /** `The project was not saved: see the messages by the fields.` */
  readonly notSaved: MessageKey;
  /** A conflict's heading: `This project was changed after you opened the form`. */
  readonly changed: MessageKey;
  /** The edit form's link to the delete page: `Delete this project`. */
  readonly deleteThis: MessageKey;
  /** The delete page's heading: `Delete the project “{name}”?` */
  readonly deleteQuestion: MessageKey;
  /** The delete page's title and button: `Delete the project`. */
  readonly deleteTitle: MessageKey;
  /** `There is no such project.` */
  readonly notFound: MessageKey;
  /** `You may not add a project.` */
  readonly mayNotAdd: MessageKey;
  /** `You may not edit this project.` */
  readonly mayNotEdit: MessageKey;
  /** `You may not delete this project.` */
  readonly mayNotDelete: MessageKey;
  /** Why a record cannot be deleted now (an event still recorded by a meeting), when that can happen. */
  readonly inUse?: MessageKey;
  /** The fields' labels, by field name. */
  readonly fields: Readonly<Record<string, MessageKey>>;
  /** The names of a choice field's values, by field name then value. */
  readonly choices?: Readonly<Record<string, Readonly<Record<string, MessageKey>>>>;
}

/** A field's label in the page's language (its schema's title when the kind names it not). */
export function fieldLabel(words: Words, kind: RecordFormWords, name: string, title: string): string {
  const key = kind.fields[name];
  return key === undefined ? title : words.t(key);
}

/** A member as a form offers them to choose from (members.md §4): by username, never by e-mail address. */
export interface MemberChoice {
  id: number;
  username: string;
}

/** A member field's state: who is chosen (ticked), and the matches of a search, when one was made. */
export interface MemberPicker {
  chosen: readonly MemberChoice[];
  search: { query: string; matches: readonly MemberChoice[]; more: boolean } | null;
}

export interface RecordFormView {
  /** What the kind's forms say of it. */
  words: RecordFormWords;
  /** The collection's writable fields (resources/): the form's fields, in their order. */
  schema: TObject;
  title: string;
  /** Where the form posts (the page itself). */
  action: string;
  csrf: string;
  /** The version of the record an edit form was built from. */
  version: string | null;
  values: FormValues;
  errors: FieldMessages;
  /** The member fields' states, by field name. */
  members: Readonly<Record<string, MemberPicker>>;
  /** Fields set without a choice, shown as text and sent as they are: a new record's maintainer, a meeting's event. */
  fixed: Readonly<Record<string, string>>;
  /** The rendered Markdown of a preview, by field name. */
  previews: Readonly<Record<string, Html>>;
  /** Saving over a newer version: the fields that differ, with the members' names. */
  conflict: { differences: readonly Difference[]; names: ReadonlyMap<number, string> } | null;
  timeZone: string;
  /** Where "Cancel" goes (the record's page, or the previous one). */
  back: string;
  /** The record's delete page, for those who may delete it. */
  deleteLink: string | null;
}

/** `/projects/new/`, `/projects/<id>/edit/`, and the same for events and meetings. */
export function recordFormPage(site: Site, view: RecordFormView): Buffer {
  const { words } = site;
  const failed = Object.keys(view.errors).length > 0;
  const main = html`<section class="record-form" aria-labelledby="form-heading">
<h1 id="form-heading">${view.title}</h1>
${view.conflict === null ? '' : conflictSection(words, view)}
${failed ? html`<p class="form-error" role="alert" id="form-problem">${words.t(view.words.notSaved)}</p>` : ''}
${view.errors.non_field_errors ? html`<p class="form-error" role="alert">${view.errors.non_field_errors.join(' ')}</p>` : ''}
<form method="post" action="${view.action}" class="stacked">
<input type="hidden" name="${CSRF_FIELD}" value="${view.csrf}">
${defaultButton(words)}
${view.version === null ? '' : html`<input type="hidden" name="version" value="${view.version}">`}
${formFields(view.schema).map((field) => fieldControl(words, view, field.name, fieldLabel(words, view.words, field.name, field.label), field.shape))}
<p class="buttons"><button type="submit" name="action" value="save">${words.t('site.form.save')}</button> <button type="submit" name="action" value="preview" class="secondary">${words.t(
    'site.form.preview',
  )}</button> <a href="${view.back}">${words.t('site.form.cancel')}</a>${
    view.deleteLink === null ? '' : html` <a href="${view.deleteLink}" class="danger">${words.t(view.words.deleteThis)}</a>`
  }</p>
</form>
${previewSection(words, view)}
</section>`;
  return layout(site, { title: view.title, main });
}

/**
 * Enter in a field sends the form with its first button: Save, not a member field's Find (a
 * filled search box still means a search). Hidden from view and from the Tab order: the visible
 * Save is at the end.
 */
function defaultButton(words: Words): Html {
  return html`<button type="submit" name="action" value="save" class="visually-hidden" tabindex="-1" aria-hidden="true">${words.t('site.form.save')}</button>`;
}

function fieldControl(words: Words, view: RecordFormView, name: string, label: string, shape: FieldShape): Html {
  const fixed = view.fixed[name];
  if (fixed !== undefined) {
    return html`<p class="fixed"><span class="label">${label}</span> <span id="${name}">${fixed}</span>${(view.values.get(name) ?? []).map(
      (value) => html`<input type="hidden" name="${name}" value="${value}">`,
    )}</p>`;
  }
  const value = view.values.get(name)?.[0] ?? '';
  const errors = view.errors;
  switch (shape.kind) {
    case 'member':
      return memberPicker(words, name, label, shape, view.members[name] ?? { chosen: [], search: null }, errors);
    case 'event':
      return html`<input type="hidden" name="${name}" value="${value}">`;
    case 'choice':
      return html`<p><label for="${name}">${label}</label>
<select id="${name}" name="${name}"${described(name, errors)}>${Object.entries(shape.labels).map(
        ([code, text]) => html`<option value="${code}"${code === value ? html` selected` : ''}>${choiceName(words, view.words, name, code, text)}</option>`,
      )}</select>
${fieldError(name, errors)}</p>`;
    case 'time':
      return html`<p><label for="${name}">${label}</label>
<span class="hint" id="${name}-hint">${words.t('site.form.time.hint', { zone: view.timeZone })}</span><input id="${name}" name="${name}" type="datetime-local"${value.length > 16 ? html` step="1"` : ''} value="${value}" aria-describedby="${name}-hint${errors[name]?.length ? html` ${name}-error` : ''}"${errors[name]?.length ? html` aria-invalid="true"` : ''}>
${fieldError(name, errors)}</p>`;
    case 'number':
      return html`<p><label for="${name}">${label}</label>
<input id="${name}" name="${name}" type="number" min="${shape.minimum}" max="${shape.maximum}" value="${value}"${described(name, errors)}>
${fieldError(name, errors)}</p>`;
    case 'url':
      return html`<p><label for="${name}">${label}</label>
<input id="${name}" name="${name}" type="url"${shape.maxLength ? html` maxlength="${shape.maxLength}"` : ''} value="${value}"${described(name, errors)}>
${fieldError(name, errors)}</p>`;
    case 'line':
      return html`<p><label for="${name}">${label}</label>
<input id="${name}" name="${name}" type="text" maxlength="${shape.maxLength}" value="${value}"${described(name, errors)}>
${fieldError(name, errors)}</p>`;
    case 'text':
      return html`<p><label for="${name}">${label}</label>
${shape.markdown ? html`<span class="hint" id="${name}-hint">${words.t('site.form.markdown.hint')}</span>` : ''}<textarea id="${name}" name="${name}" rows="${shape.markdown ? 10 : 3}"${
        shape.maxLength ? html` maxlength="${shape.maxLength}"` : ''
      }${described(name, errors)}>${value}</textarea>
${fieldError(name, errors)}</p>`;
  }
}

/**
 * A member field: the members chosen, ticked (a list: checkboxes; one: radio buttons), then a
 * search whose matches come back unticked below them. "Find" posts the whole form back, so that
 * nothing typed is lost; Enter in the search box finds too (the handler reads a filled box so).
 */
/** A choice's name in the page's language (the schema's label when the kind names it not). */
function choiceName(words: Words, kind: RecordFormWords, field: string, code: string, label: string): string {
  const key = kind.choices?.[field]?.[code];
  return key === undefined ? label : words.t(key);
}

function memberPicker(words: Words, name: string, label: string, shape: { many: boolean; nullable: boolean }, picker: MemberPicker, errors: FieldMessages): Html {
  const type = shape.many ? 'checkbox' : 'radio';
  const chosenIds = new Set(picker.chosen.map((m) => m.id));
  const option = (member: MemberChoice, checked: boolean) =>
    html`<li><label><input type="${type}" name="${name}" value="/api/users/${member.id}/"${checked ? html` checked` : ''}> ${member.username}</label></li>`;
  const nobody =
    !shape.many && shape.nullable
      ? html`<li><label><input type="radio" name="${name}" value=""${picker.chosen.length === 0 ? html` checked` : ''}> ${words.t('site.form.members.nobody')}</label></li>`
      : '';
  const search = picker.search;
  const matches = search === null ? [] : search.matches.filter((m) => !chosenIds.has(m.id));
  return html`<fieldset class="members" id="${name}-field"${described(name, errors)}>
<legend>${label}</legend>
${
  picker.chosen.length === 0 && nobody === ''
    ? html`<p class="hint">${shape.many ? words.t('site.form.members.none-yet') : words.t('site.form.members.none-chosen')}</p>`
    : html`<ul class="choices">${nobody}${picker.chosen.map((m) => option(m, true))}</ul>`
}
${
  search === null
    ? ''
    : html`<p class="hint" role="status" id="${name}-matches">${
        search.query === ''
          ? words.t('site.form.members.type')
          : matches.length === 0
            ? words.t('site.form.members.no-match', { query: search.query })
            : html`${
                shape.many
                  ? words.t('site.form.members.found-many', { count: matches.length, query: search.query })
                  : words.t('site.form.members.found-one', { count: matches.length, query: search.query })
              }${search.more ? html` ${words.t('site.form.members.more')}` : ''}`
      }</p>
${matches.length === 0 ? '' : html`<ul class="choices found">${matches.map((m) => option(m, false))}</ul>`}`
}
<p class="find"><label for="${name}_find">${words.t('site.form.members.find')}</label>
<span class="find-row"><input id="${name}_find" name="${name}_find" type="search" autocomplete="off" value=""> <button type="submit" name="action" value="find:${name}" class="secondary">${words.t(
    'site.form.members.find-button',
  )}</button></span></p>
${fieldError(name, errors)}
</fieldset>`;
}

function previewSection(words: Words, view: RecordFormView): Html {
  const shown = Object.entries(view.previews);
  if (shown.length === 0) return html``;
  const labels = Object.fromEntries(formFields(view.schema).map((f) => [f.name, fieldLabel(words, view.words, f.name, f.label)]));
  return html`<section class="preview" aria-labelledby="preview-heading"><h2 id="preview-heading">${words.t('site.form.preview')}</h2>
${shown.map(([name, rendered]) => html`<h3>${labels[name] ?? name}</h3><div class="markdown">${rendered}</div>`)}
</section>`;
}

function conflictSection(words: Words, view: RecordFormView): Html {
  const { differences, names } = view.conflict!;
  const fields = formFields(view.schema);
  const shown = (name: string, values: readonly string[]) => {
    const field = fields.find((f) => f.name === name);
    const members = field?.shape.kind === 'member';
    const texts = members
      ? values.map((v) => names.get(memberIdOf(v) ?? -1) ?? v)
      : field?.shape.kind === 'choice'
        ? values.map((v) => choiceName(words, view.words, name, v, v))
        : values;
    return texts.length === 0 || texts.join('') === '' ? html`<em>${words.t('site.form.conflict.empty')}</em>` : texts.join(', ');
  };
  return html`<section class="conflict form-error" role="alert" aria-labelledby="conflict-heading">
<h2 id="conflict-heading">${words.t(view.words.changed)}</h2>
<p>${words.t('site.form.conflict.nothing-saved')} ${differences.length === 0 ? words.t('site.form.conflict.same') : words.t('site.form.conflict.differs')} ${words.t(
    'site.form.conflict.again',
  )}</p>
${
  differences.length === 0
    ? ''
    : html`<table><thead><tr><th scope="col">${words.t('site.form.conflict.field')}</th><th scope="col">${words.t('site.form.conflict.saved')}</th><th scope="col">${words.t(
        'site.form.conflict.yours',
      )}</th></tr></thead><tbody>${differences.map(
        (d) => html`<tr><th scope="row">${fieldLabel(words, view.words, d.name, d.label)}</th><td>${shown(d.name, d.saved)}</td><td>${shown(d.name, d.typed)}</td></tr>`,
      )}</tbody></table>`
}
</section>`;
}

export interface DeleteView {
  /** What the kind's forms say of it. */
  words: RecordFormWords;
  /** What the record is called (a project's title; a meeting's event). */
  name: string;
  action: string;
  csrf: string;
  back: string;
  /** Why it cannot be deleted now (a 409: an event still recorded by a meeting), or null. */
  problem: string | null;
}

/** `/<kind>/<id>/delete/`: what will be deleted, and the button that does it. */
export function deletePage(site: Site, view: DeleteView): Buffer {
  const { words } = site;
  const title = words.t(view.words.deleteQuestion, { name: view.name });
  const main = html`<section class="account-form" aria-labelledby="delete-heading">
<h1 id="delete-heading">${title}</h1>
${view.problem === null ? '' : html`<p class="form-error" role="alert">${view.problem}</p>`}
<p>${words.t('site.form.delete.undone')}</p>
<form method="post" action="${view.action}" class="stacked">
<input type="hidden" name="${CSRF_FIELD}" value="${view.csrf}">
<p class="buttons"><button type="submit" class="danger">${words.t(view.words.deleteTitle)}</button> <a href="${view.back}">${words.t('site.form.cancel')}</a></p>
</form>
</section>`;
  return layout(site, { title: words.t(view.words.deleteTitle), main });
}
