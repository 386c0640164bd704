import { eventPage, interestedIn, meetingPage } from '../pages.js';
import { editAndDelete, markdownBlock, memberLink, people, postButton, recordActions, visitorInvitation, type DetailBuilder } from '../../../web/details.js';
import { html, type Html } from '../../../web/html.js';
import { layout } from '../../../web/layout.js';
import { EVENT_STATUS_NAMES, eventWhen } from './words.js';
import { isInterested, powersOver } from '../../users/index.js';

/** An event's page: its facts and description; for a member, who is interested, saying they are, and the buttons they may use. */
export const eventDetail: DetailBuilder = async (ctx, id, markdown) => {
  const event = await eventPage(ctx.db, id);
  if (event === undefined) return undefined;
  const { viewer } = ctx;
  let part: Html;
  let interestedFact = html``;
  if (viewer === null) part = visitorInvitation(`/events/${id}/`, 'to say you are interested');
  else {
    const [powers, interested, interestedPeople] = await Promise.all([powersOver(ctx.db, viewer.id, 'events', id), isInterested(ctx.db, viewer.id, id), interestedIn(ctx.db, id)]);
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
};

/** A meeting's page: its agenda and minutes; for a member, the buttons they may use. */
export const meetingDetail: DetailBuilder = async (ctx, id, markdown) => {
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
};
