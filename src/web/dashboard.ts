import type { VersionedTable } from '../db/table-versions.js';
import { html, type Html } from './html.js';
import { layout } from './layout.js';
import type { PageContext } from './page-context.js';

/**
 * A part of the dashboard at `/` (web.md §3), declared by the app it shows: its place, in the
 * page's order (`state`, the member's own under "Yours", `before` the columns, a `column`,
 * `after` them), its order there, the tables it is built from, and its markup (and, for the
 * state, the page's title).
 */
export interface DashboardPanel {
  readonly place: 'state' | 'mine' | 'before' | 'column' | 'after';
  readonly order: number;
  readonly reads: readonly VersionedTable[];
  build(ctx: PageContext): Promise<{ html: Html; title?: string }>;
}

/** The tables the dashboard of these panels is built from: a write to any of them ends its cached copies. */
export function dashboardReads(panels: readonly DashboardPanel[]): VersionedTable[] {
  return [...new Set(panels.flatMap((panel) => panel.reads))];
}

/** The dashboard: the state first, then the member's own, the opening hours, the columns (events, meetings, members) and the projects, as the apps that are on declare them. */
export async function dashboardPage(ctx: PageContext, panels: readonly DashboardPanel[]): Promise<Buffer> {
  const shown = panels.filter((panel) => panel.place !== 'mine' || ctx.viewer !== null).sort((a, b) => a.order - b.order);
  const built = await Promise.all(shown.map(async (panel) => ({ place: panel.place, ...(await panel.build(ctx)) })));
  const at = (place: DashboardPanel['place']) => built.filter((part) => part.place === place).map((part) => part.html);
  const lines = (parts: Html[]) => parts.map((part, i) => html`${i > 0 ? '\n' : ''}${part}`);
  const title = built.find((part) => part.title !== undefined)?.title ?? ctx.words.t('site.nav.dashboard');
  const mine = at('mine');
  const main = html`${lines(at('state'))}
${mine.length === 0 ? '' : mineSection(ctx, mine)}
${lines(at('before'))}
<div class="columns">
${lines(at('column'))}
</div>
${lines(at('after'))}`;
  return layout(ctx.site, { title, main, scripts: ['live.js'] });
}

/** For a member (members.md §4): what is theirs, before what everyone sees. Their dashboard is built for them, never cached. */
function mineSection({ words }: PageContext, parts: Html[]): Html {
  return html`<section class="mine" aria-labelledby="mine-heading">
<h2 id="mine-heading">${words.t('site.dashboard.mine')}</h2>
<div class="columns">
${parts.map((part, i) => html`${i > 0 ? '\n' : ''}${part}`)}
</div>
</section>`;
}
