import type { Words } from '../i18n/words.js';
import { CSRF_FIELD } from '../request/csrf.js';
import { html, type Html } from './html.js';
import type { PageContext, PageViewer } from './page-context.js';

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
export function recordActions(standing: string | null, buttons: Html[], words: Words): Html {
  if (buttons.length === 0) return html``;
  return html`<section class="record-actions" aria-label="${words.t('site.record.actions')}">
${standing === null ? '' : html`<p>${standing}</p>`}
<ul>${buttons.map((button) => html`<li>${button}</li>`)}</ul>
</section>`;
}

/** A POST button: a form of its own with the member's CSRF token (and any fixed fields). */
export function postButton(viewer: PageViewer, action: string, label: string, fields: Readonly<Record<string, string>> = {}): Html {
  const hidden = Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  return html`<form method="post" action="${action}"><input type="hidden" name="${CSRF_FIELD}" value="${viewer.csrf}">${hidden}<button type="submit">${label}</button></form>`;
}

export function memberLink(user: UserName): Html {
  return html`<a href="/members/${user.id}/">${user.username}</a>`;
}

/** Members' links, or `none` in the page's language. */
export function people(users: UserName[], words: Words): Html {
  if (users.length === 0) return html`${words.t('site.record.none')}`;
  return html`${users.map((user, i) => html`${i > 0 ? ', ' : ''}${memberLink(user)}`)}`;
}

export function markdownBlock(markdown: Markdown, heading: string, source: string): Html {
  if (source.trim() === '') return html``;
  return html`<section aria-label="${heading}"><h2>${heading}</h2><div class="markdown">${markdown(source, 3)}</div></section>`;
}
