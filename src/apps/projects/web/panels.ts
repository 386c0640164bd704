import { projectsOf, projectSummaries, type ProjectSummary } from '../pages.js';
import type { DashboardPanel } from '../../../web/dashboard.js';
import { html, type Html } from '../../../web/html.js';
import { projectGroups } from './list.js';
import { PROJECT_STATUS_NAMES } from './words.js';

/** The projects' parts of the dashboard: a member's own, and every project by status after the columns. */
export const PROJECTS_PANELS: readonly DashboardPanel[] = [
  {
    place: 'mine',
    order: 1,
    reads: [],
    build: async ({ db, viewer }) => {
      const projects = await projectsOf(db, viewer!.id);
      return {
        html: html`<section aria-labelledby="my-projects-heading">
<h3 id="my-projects-heading">Your projects</h3>
${projects.length === 0 ? html`<p>You take part in no project yet. <a href="/projects/">See the projects</a>.</p>` : html`<ul>${projects.map((p) => html`<li><a href="/projects/${p.id}/">${p.title}</a> <span class="count">${PROJECT_STATUS_NAMES[p.status] ?? p.status}</span></li>`)}</ul>`}
</section>`,
      };
    },
  },
  // Each project names its maintainer.
  { place: 'after', order: 0, reads: ['projects', 'users'], build: async ({ db }) => ({ html: projectsSection(await projectSummaries(db)) }) },
];

function projectsSection(projects: ProjectSummary[]): Html {
  return html`<section class="projects" aria-labelledby="projects-heading">
<h2 id="projects-heading">Projects</h2>
${projectGroups(projects, 3)}
</section>`;
}
