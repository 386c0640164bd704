import { projectsOf, projectSummaries, type ProjectSummary } from '../pages.js';
import type { Words } from '../../../i18n/words.js';
import type { DashboardPanel } from '../../../web/dashboard.js';
import { html, type Html } from '../../../web/html.js';
import { wordsHtml } from '../../../web/words-html.js';
import { projectGroups } from './list.js';
import { PROJECT_STATUS_NAMES } from './words.js';

/** The projects' parts of the dashboard: a member's own, and every project by status after the columns. */
export const PROJECTS_PANELS: readonly DashboardPanel[] = [
  {
    place: 'mine',
    order: 1,
    reads: [],
    build: async ({ db, viewer, words }) => {
      const projects = await projectsOf(db, viewer!.id);
      const status = (code: string) => {
        const key = PROJECT_STATUS_NAMES[code];
        return key === undefined ? code : words.t(key);
      };
      return {
        html: html`<section aria-labelledby="my-projects-heading">
<h3 id="my-projects-heading">${words.t('projects.panel.mine')}</h3>
${
  projects.length === 0
    ? html`<p>${wordsHtml(words, 'projects.panel.mine-empty', {}, { link: (chunks) => html`<a href="/projects/">${chunks}</a>` })}</p>`
    : html`<ul>${projects.map((p) => html`<li><a href="/projects/${p.id}/">${p.title}</a> <span class="count">${status(p.status)}</span></li>`)}</ul>`
}
</section>`,
      };
    },
  },
  // Each project names its maintainer.
  { place: 'after', order: 0, reads: ['projects', 'users'], build: async ({ db, words }) => ({ html: projectsSection(words, await projectSummaries(db)) }) },
];

function projectsSection(words: Words, projects: ProjectSummary[]): Html {
  return html`<section class="projects" aria-labelledby="projects-heading">
<h2 id="projects-heading">${words.t('projects.list.title')}</h2>
${projectGroups(words, projects, 3)}
</section>`;
}
