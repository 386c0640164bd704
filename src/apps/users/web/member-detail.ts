import { findMemberPage } from '../pages.js';
import { markdownBlock, type DetailBuilder } from '../../../web/details.js';
import { html } from '../../../web/html.js';
import { layout } from '../../../web/layout.js';

/** A member's public page: their name, whether they hold a key and, with the projects on, the projects they maintain and take part in. */
export const memberDetail: DetailBuilder = async (ctx, id, markdown) => {
  const projectsOn = ctx.site.appsOn.has('projects');
  const member = await findMemberPage(ctx.db, id, projectsOn);
  if (member === undefined) return undefined;
  const w = ctx.words;
  const projectList = (projects: { id: number; title: string }[]) =>
    projects.length === 0 ? w.t('users.member.none') : html`<ul>${projects.map((p) => html`<li><a href="/projects/${p.id}/">${p.title}</a></li>`)}</ul>`;
  const main = html`<article class="detail">
<h1>${member.username}</h1>
${member.fullName === null ? '' : html`<p class="lead">${member.fullName}</p>`}
<dl class="facts">
<dt>${w.t('users.member.key-holder')}</dt><dd>${member.hasKey ? w.t('users.member.yes') : w.t('users.member.no')}</dd>
${
  projectsOn
    ? html`<dt>${w.t('users.member.maintains')}</dt><dd>${projectList(member.maintains)}</dd>
<dt>${w.t('users.member.takes-part')}</dt><dd>${projectList(member.participates)}</dd>
`
    : ''
}</dl>
${markdownBlock(markdown, w.t('users.member.about'), member.description)}
<p class="raw"><a href="/api/users/${member.id}/">${w.t('users.member.in-api')}</a></p>
</article>`;
  return layout(ctx.site, { title: member.username, main });
};
