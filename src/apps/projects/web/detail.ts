import { projectPage } from '../pages.js';
import { editAndDelete, markdownBlock, memberLink, people, postButton, recordActions, visitorInvitation, type DetailBuilder } from '../../../web/details.js';
import { html, type Html } from '../../../web/html.js';
import { layout } from '../../../web/layout.js';
import { PROJECT_STATUS_NAMES } from './words.js';
import { isParticipant, powersOver } from '../../users/index.js';

/** A project's page (members.md §4): its facts and text; for a member, joining or leaving it and the edit and delete buttons they may use. */
export const projectDetail: DetailBuilder = async (ctx, id, markdown) => {
  const project = await projectPage(ctx.db, id);
  if (project === undefined) return undefined;
  const { viewer } = ctx;
  let part: Html;
  if (viewer === null) part = visitorInvitation(`/projects/${id}/`, 'to take part in this project');
  else {
    const [powers, takesPart] = await Promise.all([powersOver(ctx.db, viewer.id, 'projects', id), isParticipant(ctx.db, viewer.id, id)]);
    part = recordActions(takesPart ? 'You take part in this project.' : null, [
      takesPart ? postButton(viewer, `/projects/${id}/leave/`, 'Leave the project') : postButton(viewer, `/projects/${id}/join/`, 'Join the project'),
      ...editAndDelete('projects', id, powers, 'project'),
    ]);
  }
  const main = html`<article class="detail">
<h1>${project.title}</h1>
<p class="lead">${project.short_description}</p>
<dl class="facts">
<dt>Status</dt><dd>${PROJECT_STATUS_NAMES[project.status] ?? project.status}</dd>
<dt>Progress</dt><dd><progress max="100" value="${project.progress}" aria-label="Progress">${project.progress} %</progress> ${project.progress} %</dd>
<dt>Maintainer</dt><dd>${memberLink(project.maintainer)}</dd>
<dt>Participants</dt><dd>${people(project.participants)}</dd>
</dl>
${part}
${markdownBlock(markdown, 'About the project', project.content)}
<p class="raw"><a href="/api/projects/${project.id}/">This project in the API</a> · <a href="/projects/">All projects</a></p>
</article>`;
  return layout(ctx.site, { title: project.title, main });
};
