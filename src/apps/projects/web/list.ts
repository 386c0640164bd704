import { projectSummaries, type ProjectSummary } from '../pages.js';
import type { Words } from '../../../i18n/words.js';
import { html, type Html } from '../../../web/html.js';
import { layout } from '../../../web/layout.js';
import type { PageContext } from '../../../web/page-context.js';
import { wordsHtml } from '../../../web/words-html.js';
import { PROJECT_STATUS_NAMES } from './words.js';
import { newLink } from '../../users/index.js';

/** The projects' list, as the original has it (members.md §4): every project by status; built for a member who may add one, it offers "New project". */

/** A project's progress as its bar and its text show it: `50 %`. */
export function progressText(words: Words, progress: number): string {
  return words.t('projects.progress', { progress });
}

/** The projects grouped by status, in the status names' order; `level` is the groups' heading level. */
export function projectGroups(words: Words, projects: readonly ProjectSummary[], level: 2 | 3): Html {
  const groups = Object.entries(PROJECT_STATUS_NAMES)
    .map(([status, name]) => ({ status, name: words.t(name), projects: projects.filter((p) => p.status === status) }))
    .filter((group) => group.projects.length > 0);
  if (groups.length === 0) return html`<p>${words.t('projects.list.empty')}</p>`;
  const card = (p: ProjectSummary) => html`<li class="card"><a href="/projects/${p.id}/">${p.title}</a>
<progress max="100" value="${p.progress}" aria-label="${words.t('projects.list.progress-of', { title: p.title })}">${progressText(words, p.progress)}</progress> <span class="progress-text">${progressText(
    words,
    p.progress,
  )}</span>
<span class="maintainer">${wordsHtml(words, 'projects.list.by', { username: p.maintainer.username }, { member: (chunks) => html`<a href="/members/${p.maintainer.id}/">${chunks}</a>` })}</span></li>`;
  const heading = (text: Html) => (level === 2 ? html`<h2>${text}</h2>` : html`<h3>${text}</h3>`);
  return html`${groups.map(
    (group) => html`${heading(html`${group.name} <span class="count">${words.t('projects.list.count', { count: group.projects.length })}</span>`)}
<ul class="cards">${group.projects.map(card)}</ul>`,
  )}`;
}

/** `/projects/`: every project, by status. */
export async function projectListPage(ctx: PageContext): Promise<Buffer> {
  const { words } = ctx;
  const [projects, add] = await Promise.all([projectSummaries(ctx.db), newLink(ctx, 'projects.add_project', '/projects/new/', words.t('projects.form.new'))]);
  const main = html`<section class="projects" aria-labelledby="projects-heading">
<h1 id="projects-heading">${words.t('projects.list.title')}</h1>
${add}
${projectGroups(words, projects, 2)}
</section>`;
  return layout(ctx.site, { title: words.t('projects.list.title'), main });
}
