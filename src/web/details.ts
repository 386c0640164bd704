import { powersOver, type RecordKind, type RecordPowers } from '../apps/users/rights.js';
import { isInterested, isParticipant } from '../apps/users/taking-part.js';
import { eventPage, interestedIn, meetingPage, memberPage, projectPage, type UserName } from '../resources/overview.js';
import { CSRF_FIELD } from '../request/csrf.js';
import { loginUrl } from '../request/next-path.js';
import { html, type Html } from './html.js';
import { layout } from './layout.js';
import type { PageContext, PageViewer } from './page-context.js';
import { EVENT_STATUS_NAMES, PROJECT_STATUS_NAMES, eventWhen } from './words.js';

/** The detail pages' kinds, by the first segment of their path (`/projects/7/`). */
export const DETAIL_KINDS = ['projects', 'meetings', 'events', 'members'] as const;
export type DetailKind = (typeof DETAIL_KINDS)[number];

/**
 * A page for one record, or undefined when there is none (the caller answers 404). Built for a
 * member (ctx.viewer), a project's, event's or meeting's page shows the buttons they may use
 * (members.md §4) and what their last one did; the visitors' page, which the cache keeps, shows
 * none, and a way to log in to take part.
 */
export async function detailPage(kind: DetailKind, ctx: PageContext, id: number): Promise<Buffer | undefined> {
  // Loaded with the first detail page: parsing markdown-it's 200 KB at every start cost 14 ms (204 → 190 ms).
  const { renderMarkdown } = await import('./markdown.js');
  return BUILDERS[kind](ctx, id, renderMarkdown);
}

type Markdown = (typeof import('./markdown.js'))['renderMarkdown'];
type Builder = (ctx: PageContext, id: number, markdown: Markdown) => Promise<Buffer | undefined>;

const BUILDERS: Record<DetailKind, Builder> = {
  async projects(ctx, id, markdown) {
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
  },

  async events(ctx, id, markdown) {
    const event = await eventPage(ctx.db, id);
    if (event === undefined) return undefined;
    const { viewer } = ctx;
    let part: Html;
    let interestedFact = html``;
    if (viewer === null) part = visitorInvitation(`/events/${id}/`, 'to say you are interested');
    else {
      const [powers, interested, interestedPeople] = await Promise.all([
        powersOver(ctx.db, viewer.id, 'events', id),
        isInterested(ctx.db, viewer.id, id),
        interestedIn(ctx.db, id),
      ]);
      interestedFact = html`<dt>Interested</dt><dd>${people(interestedPeople)}</dd>`;
      part = recordActions(interested ? 'You are interested in this event.' : null, [
        postButton(viewer, `/events/${id}/interested/`, interested ? 'I am no longer interested' : 'I am interested', { interested: interested ? 'no' : 'yes' }),
        ...(powers.addMeeting && event.meeting_id === null ? [html`<a class="button" href="/meetings/new/?event=${id}">Add its meeting</a>`] : []),
        ...editAndDelete('events', id, powers, 'event'),
      ]);
    }
    const main = html`<article class="detail">
<h1>${event.title}</h1>
<dl class="facts">
<dt>When</dt><dd>${eventWhen(event, ctx.times)}</dd>
<dt>Where</dt><dd>${event.place || 'to be announced'}</dd>
<dt>Status</dt><dd>${EVENT_STATUS_NAMES[event.status] ?? event.status}</dd>
<dt>Organizer</dt><dd>${event.organizer === null ? 'none' : memberLink(event.organizer)}</dd>
${event.meeting_id === null ? '' : html`<dt>Meeting</dt><dd><a href="/meetings/${event.meeting_id}/">Agenda and minutes</a></dd>`}
${interestedFact}
</dl>
${part}
${markdownBlock(markdown, 'Description', event.description)}
<p class="raw"><a href="/api/events/${event.id}/">This event in the API</a> · <a href="/events/">All events</a> · <a href="/events.ics">Calendar feed</a></p>
</article>`;
    return layout(ctx.site, { title: event.title, main });
  },

  async meetings(ctx, id, markdown) {
    const meeting = await meetingPage(ctx.db, id);
    if (meeting === undefined) return undefined;
    const { viewer } = ctx;
    const part = viewer === null ? html`` : recordActions(null, editAndDelete('meetings', id, await powersOver(ctx.db, viewer.id, 'meetings', id), 'meeting'));
    const main = html`<article class="detail">
<h1>Meeting: ${meeting.title}</h1>
<dl class="facts">
<dt>When</dt><dd>${meeting.start_us === null ? 'date to be announced' : ctx.times.date(meeting.start_us)}</dd>
<dt>Event</dt><dd><a href="/events/${meeting.event_id}/">${meeting.title}</a></dd>
<dt>Present</dt><dd>${people(meeting.members)}</dd>
${meeting.ongoing ? html`<dt>Status</dt><dd>Ongoing</dd>` : ''}
</dl>
${part}
${markdownBlock(markdown, 'Agenda', meeting.agenda)}
${markdownBlock(markdown, 'Minutes', meeting.minutes)}
<p class="raw"><a href="/api/meetings/${meeting.id}/">This meeting in the API</a></p>
</article>`;
    return layout(ctx.site, { title: `Meeting: ${meeting.title}`, main });
  },

  async members(ctx, id, markdown) {
    const projectsOn = ctx.site.appsOn.has('projects');
    const member = await memberPage(ctx.db, id, projectsOn);
    if (member === undefined) return undefined;
    const projectList = (projects: { id: number; title: string }[]) =>
      projects.length === 0 ? html`none` : html`<ul>${projects.map((p) => html`<li><a href="/projects/${p.id}/">${p.title}</a></li>`)}</ul>`;
    const main = html`<article class="detail">
<h1>${member.username}</h1>
${member.fullName === null ? '' : html`<p class="lead">${member.fullName}</p>`}
<dl class="facts">
<dt>Key holder</dt><dd>${member.hasKey ? 'Yes' : 'No'}</dd>
${
  projectsOn
    ? html`<dt>Maintains</dt><dd>${projectList(member.maintains)}</dd>
<dt>Takes part in</dt><dd>${projectList(member.participates)}</dd>
`
    : ''
}</dl>
${markdownBlock(markdown, 'About', member.description)}
<p class="raw"><a href="/api/users/${member.id}/">This member in the API</a></p>
</article>`;
    return layout(ctx.site, { title: member.username, main });
  },
};

/** The buttons a member may use on a record's page, with a line saying where they stand. */
function recordActions(standing: string | null, buttons: Html[]): Html {
  if (buttons.length === 0) return html``;
  return html`<section class="record-actions" aria-label="What you can do">
${standing === null ? '' : html`<p>${standing}</p>`}
<ul>${buttons.map((button) => html`<li>${button}</li>`)}</ul>
</section>`;
}

/** A POST button: a form of its own with the member's CSRF token (and any fixed fields). */
function postButton(viewer: PageViewer, action: string, label: string, fields: Readonly<Record<string, string>> = {}): Html {
  const hidden = Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  return html`<form method="post" action="${action}"><input type="hidden" name="${CSRF_FIELD}" value="${viewer.csrf}">${hidden}<button type="submit">${label}</button></form>`;
}

/** The links to a record's edit and delete pages, those the member may use. */
function editAndDelete(kind: RecordKind, id: number, powers: RecordPowers, noun: string): Html[] {
  return [
    ...(powers.edit ? [html`<a class="button" href="/${kind}/${id}/edit/">Edit the ${noun}</a>`] : []),
    ...(powers.delete ? [html`<a class="button" href="/${kind}/${id}/delete/">Delete the ${noun}</a>`] : []),
  ];
}

/** The visitors' page: the same for every visitor, a way to log in and come back here. */
function visitorInvitation(path: string, purpose: string): Html {
  return html`<p class="record-actions"><a href="${loginUrl(path)}">Log in</a> ${purpose}.</p>`;
}

function memberLink(user: UserName): Html {
  return html`<a href="/members/${user.id}/">${user.username}</a>`;
}

function people(users: UserName[]): Html {
  if (users.length === 0) return html`none`;
  return html`${users.map((user, i) => html`${i > 0 ? ', ' : ''}${memberLink(user)}`)}`;
}

function markdownBlock(markdown: Markdown, heading: string, source: string): Html {
  if (source.trim() === '') return html``;
  return html`<section aria-label="${heading}"><h2>${heading}</h2><div class="markdown">${markdown(source, 3)}</div></section>`;
}
