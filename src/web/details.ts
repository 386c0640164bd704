import type { MessageKey, Words } from '../i18n/words.js';
import { CSRF_FIELD } from '../request/csrf.js';
import { loginUrl } from '../request/next-path.js';
import { html, type Html } from './html.js';
import type { PageContext, PageViewer } from './page-context.js';
import { wordsHtml } from './words-html.js';

/**
 * The record pages' kit (`/<kind>/<id>/`): each app builds its records' pages with it
 * (in its web/ folder). Built for a member (ctx.viewer), a record's page shows the buttons they may use
 * (members.md §4); the visitors' page, which the cache keeps, shows none, and a way to log in.
 */

/** A member as a record's page links to them: never the e-mail address. */
export interface UserName {
  id: number;
  username: string;
}

export type Markdown = (typeof import('./markdown.js'))['renderMarkdown'];
/** A record's page, or undefined when there is none (the caller answers 404). */
export type DetailBuilder = (ctx: PageContext, id: number, markdown: Markdown) => Promise<Buffer | undefined>;

/** A record's page by its builder, with Markdown at hand. */
export async function detailPage(build: DetailBuilder, ctx: PageContext, id: number): Promise<Buffer | undefined> {
  // Loaded with the first detail page: parsing markdown-it's 200 KB at every start cost 14 ms (204 → 190 ms).
  const { renderMarkdown } = await import('./markdown.js');
  return build(ctx, id, renderMarkdown);
}

/** The buttons a member may use on a record's page, with a line saying where they stand (`words`: the page's, for the section's label). */
export function recordActions(standing: string | null, buttons: Html[], words?: Words): Html {
  if (buttons.length === 0) return html``;
  return html`<section class="record-actions" aria-label="${words ? words.t('site.record.actions') : 'What you can do'}">
${standing === null ? '' : html`<p>${standing}</p>`}
<ul>${buttons.map((button) => html`<li>${button}</li>`)}</ul>
</section>`;
}

/** A POST button: a form of its own with the member's CSRF token (and any fixed fields). */
export function postButton(viewer: PageViewer, action: string, label: string, fields: Readonly<Record<string, string>> = {}): Html {
  const hidden = Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  return html`<form method="post" action="${action}"><input type="hidden" name="${CSRF_FIELD}" value="${viewer.csrf}">${hidden}<button type="submit">${label}</button></form>`;
}

/** The two links' labels in the page's language (`Modifier le projet`), from the app's catalogue. */
export interface EditAndDeleteLabels {
  readonly edit: string;
  readonly delete: string;
}

/**
 * The links to a record's edit and delete pages, those the member may use: labelled by the app's
 * own words (`labels`); an English noun (`project`) gives the English labels.
 */
export function editAndDelete(kind: string, id: number, powers: { readonly edit: boolean; readonly delete: boolean }, labels: string | EditAndDeleteLabels): Html[] {
  const { edit, delete: remove } = typeof labels === 'string' ? { edit: `Edit the ${labels}`, delete: `Delete the ${labels}` } : labels;
  return [
    ...(powers.edit ? [html`<a class="button" href="/${kind}/${id}/edit/">${edit}</a>`] : []),
    ...(powers.delete ? [html`<a class="button" href="/${kind}/${id}/delete/">${remove}</a>`] : []),
  ];
}

/**
 * The visitors' page: the same for every visitor, a way to log in and come back here. `purpose`
 * is the app's sentence with the link in it (`<link>Log in</link> to take part in this
 * project.`), or an English purpose after "Log in".
 */
export function visitorInvitation(path: string, purpose: string | { readonly words: Words; readonly key: MessageKey }): Html {
  if (typeof purpose === 'string') return html`<p class="record-actions"><a href="${loginUrl(path)}">Log in</a> ${purpose}.</p>`;
  return html`<p class="record-actions">${wordsHtml(purpose.words, purpose.key, {}, { link: (chunks) => html`<a href="${loginUrl(path)}">${chunks}</a>` })}</p>`;
}

export function memberLink(user: UserName): Html {
  return html`<a href="/members/${user.id}/">${user.username}</a>`;
}

/** Members' links, or `none` (in the page's language with `words`). */
export function people(users: UserName[], words?: Words): Html {
  if (users.length === 0) return html`${words ? words.t('site.record.none') : 'none'}`;
  return html`${users.map((user, i) => html`${i > 0 ? ', ' : ''}${memberLink(user)}`)}`;
}

export function markdownBlock(markdown: Markdown, heading: string, source: string): Html {
  if (source.trim() === '') return html``;
  return html`<section aria-label="${heading}"><h2>${heading}</h2><div class="markdown">${markdown(source, 3)}</div></section>`;
}
