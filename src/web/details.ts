import type { Db } from '../db/connection.js';
import { eventPage, meetingPage, memberPage, projectPage, type UserName } from '../resources/overview.js';
import type { PageTimes } from './format.js';
import { html, type Html } from './html.js';
import { layout, type Site } from './layout.js';
import { EVENT_STATUS_NAMES, PROJECT_STATUS_NAMES, eventWhen } from './words.js';

/** The detail pages' kinds, by the first segment of their path (`/projects/7/`). */
export const DETAIL_KINDS = ['projects', 'meetings', 'events', 'members'] as const;
export type DetailKind = (typeof DETAIL_KINDS)[number];

/** A page for one record, or undefined when there is none (the caller answers 404). */
export async function detailPage(kind: DetailKind, db: Db, id: number, site: Site, times: PageTimes): Promise<Buffer | undefined> {
  // Loaded with the first detail page: parsing markdown-it's 200 KB at every start cost 14 ms (204 → 190 ms).
  const { renderMarkdown } = await import('./markdown.js');
  return BUILDERS[kind](db, id, site, times, renderMarkdown);
}

type Markdown = (typeof import('./markdown.js'))['renderMarkdown'];
type Builder = (db: Db, id: number, site: Site, times: PageTimes, markdown: Markdown) => Promise<Buffer | undefined>;

const BUILDERS: Record<DetailKind, Builder> = {
  async projects(db, id, site, _times, markdown) {
    const project = await projectPage(db, id);
    if (project === undefined) return undefined;
    const main = html`<article class="detail">
<h1>${project.title}</h1>
<p class="lead">${project.short_description}</p>
<dl class="facts">
<dt>Status</dt><dd>${PROJECT_STATUS_NAMES[project.status] ?? project.status}</dd>
<dt>Progress</dt><dd><progress max="100" value="${project.progress}" aria-label="Progress">${project.progress} %</progress> ${project.progress} %</dd>
<dt>Maintainer</dt><dd>${memberLink(project.maintainer)}</dd>
<dt>Participants</dt><dd>${people(project.participants)}</dd>
</dl>
${markdownBlock(markdown, 'About the project', project.content)}
<p class="raw"><a href="/api/projects/${project.id}/">This project in the API</a></p>
</article>`;
    return layout(site, { title: project.title, main });
  },

  async events(db, id, site, times, markdown) {
    const event = await eventPage(db, id);
    if (event === undefined) return undefined;
    const main = html`<article class="detail">
<h1>${event.title}</h1>
<dl class="facts">
<dt>When</dt><dd>${eventWhen(event, times)}</dd>
<dt>Where</dt><dd>${event.place || 'to be announced'}</dd>
<dt>Status</dt><dd>${EVENT_STATUS_NAMES[event.status] ?? event.status}</dd>
<dt>Organizer</dt><dd>${event.organizer === null ? 'none' : memberLink(event.organizer)}</dd>
${event.meeting_id === null ? '' : html`<dt>Meeting</dt><dd><a href="/meetings/${event.meeting_id}/">Agenda and minutes</a></dd>`}
</dl>
${markdownBlock(markdown, 'Description', event.description)}
<p class="raw"><a href="/api/events/${event.id}/">This event in the API</a> · <a href="/events.ics">Calendar feed</a></p>
</article>`;
    return layout(site, { title: event.title, main });
  },

  async meetings(db, id, site, times, markdown) {
    const meeting = await meetingPage(db, id);
    if (meeting === undefined) return undefined;
    const main = html`<article class="detail">
<h1>Meeting: ${meeting.title}</h1>
<dl class="facts">
<dt>When</dt><dd>${meeting.start_us === null ? 'date to be announced' : times.date(meeting.start_us)}</dd>
<dt>Event</dt><dd><a href="/events/${meeting.event_id}/">${meeting.title}</a></dd>
<dt>Present</dt><dd>${people(meeting.members)}</dd>
${meeting.ongoing ? html`<dt>Status</dt><dd>Ongoing</dd>` : ''}
</dl>
${markdownBlock(markdown, 'Agenda', meeting.agenda)}
${markdownBlock(markdown, 'Minutes', meeting.minutes)}
<p class="raw"><a href="/api/meetings/${meeting.id}/">This meeting in the API</a></p>
</article>`;
    return layout(site, { title: `Meeting: ${meeting.title}`, main });
  },

  async members(db, id, site, _times, markdown) {
    const member = await memberPage(db, id);
    if (member === undefined) return undefined;
    const projectList = (projects: { id: number; title: string }[]) =>
      projects.length === 0 ? html`none` : html`<ul>${projects.map((p) => html`<li><a href="/projects/${p.id}/">${p.title}</a></li>`)}</ul>`;
    const main = html`<article class="detail">
<h1>${member.username}</h1>
${member.fullName === null ? '' : html`<p class="lead">${member.fullName}</p>`}
<dl class="facts">
<dt>Key holder</dt><dd>${member.hasKey ? 'Yes' : 'No'}</dd>
<dt>Maintains</dt><dd>${projectList(member.maintains)}</dd>
<dt>Takes part in</dt><dd>${projectList(member.participates)}</dd>
</dl>
${markdownBlock(markdown, 'About', member.description)}
<p class="raw"><a href="/api/users/${member.id}/">This member in the API</a></p>
</article>`;
    return layout(site, { title: member.username, main });
  },
};

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
