import { projectPage } from '../pages.js';
import { markdownBlock, memberLink, people, postButton, recordActions, type DetailBuilder } from '../../../web/details.js';
import { html, type Html } from '../../../web/html.js';
import { layout } from '../../../web/layout.js';
import { wordsHtml } from '../../../web/words-html.js';
import { loginUrl } from '../../../request/next-path.js';
import { progressText } from './list.js';
import { PROJECT_STATUS_NAMES } from './words.js';
import { isParticipant, powersOver } from '../../users/index.js';

/** A project's page (members.md §4): its facts and text; for a member, joining or leaving it and the edit and delete buttons they may use. */
export const projectDetail: DetailBuilder = async (ctx, id, markdown) => {
  const project = await projectPage(ctx.db, id);
  if (project === undefined) return undefined;
  const { viewer, words } = ctx;
  let part: Html;
  if (viewer === null)
    part = html`<p class="record-actions">${wordsHtml(words, 'projects.detail.login', {}, { login: (chunks) => html`<a href="${loginUrl(`/projects/${id}/`)}">${chunks}</a>` })}</p>`;
  else {
    const [powers, takesPart] = await Promise.all([powersOver(ctx.db, viewer.id, 'projects', id), isParticipant(ctx.db, viewer.id, id)]);
    part = recordActions(
      takesPart ? words.t('projects.detail.taking-part') : null,
      [
        takesPart ? postButton(viewer, `/projects/${id}/leave/`, words.t('projects.detail.leave')) : postButton(viewer, `/projects/${id}/join/`, words.t('projects.detail.join')),
        ...(powers.edit ? [html`<a class="button" href="/projects/${id}/edit/">${words.t('projects.detail.edit')}</a>`] : []),
        ...(powers.delete ? [html`<a class="button" href="/projects/${id}/delete/">${words.t('projects.form.delete-title')}</a>`] : []),
      ],
      words,
    );
  }
  const status = PROJECT_STATUS_NAMES[project.status];
  const progress = progressText(words, project.progress);
  const main = html`<article class="detail">
<h1>${project.title}</h1>
<p class="lead">${project.short_description}</p>
<dl class="facts">
<dt>${words.t('projects.field.status')}</dt><dd>${status === undefined ? project.status : words.t(status)}</dd>
<dt>${words.t('projects.field.progress')}</dt><dd><progress max="100" value="${project.progress}" aria-label="${words.t('projects.field.progress')}">${progress}</progress> ${progress}</dd>
<dt>${words.t('projects.field.maintainer')}</dt><dd>${memberLink(project.maintainer)}</dd>
<dt>${words.t('projects.field.participants')}</dt><dd>${project.participants.length === 0 ? words.t('projects.detail.nobody') : people(project.participants, words)}</dd>
</dl>
${part}
${markdownBlock(markdown, words.t('projects.detail.about'), project.content)}
<p class="raw"><a href="/api/projects/${project.id}/">${words.t('projects.detail.api')}</a> · <a href="/projects/">${words.t('projects.detail.all')}</a></p>
</article>`;
  return layout(ctx.site, { title: project.title, main });
};
