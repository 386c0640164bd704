import { html, type Html } from '../../../web/html.js';
import type { PageContext } from '../../../web/page-context.js';
import { rightsOf, type Right } from '../rights.js';

/** A "New …" link for a member who holds the right to add one; nothing for visitors. */
export async function newLink(ctx: PageContext, right: Right, href: string, label: string): Promise<Html> {
  if (ctx.viewer === null) return html``;
  const { rights } = await rightsOf(ctx.db, ctx.viewer.id);
  return rights.has(right) ? html`<p class="record-actions"><a class="button" href="${href}">${label}</a></p>` : html``;
}
