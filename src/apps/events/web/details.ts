import { eventPage, interestedIn, meetingPage } from '../pages.js';
import { markdownBlock, memberLink, people, postButton, recordActions, type DetailBuilder, type UserName } from '../../../web/details.js';
import { html, type Html } from '../../../web/html.js';
import { layout } from '../../../web/layout.js';
import { wordsHtml } from '../../../web/words-html.js';
import type { Words } from '../../../i18n/words.js';
import { loginUrl } from '../../../request/next-path.js';
import { eventStatus, eventWhen } from './words.js';
import { isInterested, powersOver } from '../../users/index.js';

/** Members, or "none" in the page's language. */
function members(words: Words, users: UserName[]): Html | string {
  return users.length === 0 ? words.t('events.detail.nobody') : people(users, words);
}

/** An event's page: its facts and description; for a member, who is interested, saying they are, and the buttons they may use. */
export const eventDetail: DetailBuilder = async (ctx, id, markdown) => {
  const event = await eventPage(ctx.db, id);
  if (event === undefined) return undefined;
  const { viewer, words } = ctx;
  let part: Html;
  let interestedFact = html``;
  if (viewer === null)
    part = html`<p class="record-actions">${wordsHtml(words, 'events.detail.login', {}, { login: (chunks) => html`<a href="${loginUrl(`/events/${id}/`)}">${chunks}</a>` })}</p>`;
  else {
    const [powers, interested, interestedPeople] = await Promise.all([powersOver(ctx.db, viewer.id, 'events', id), isInterested(ctx.db, viewer.id, id), interestedIn(ctx.db, id)]);
    interestedFact = html`<dt>${words.t('events.detail.interested')}</dt><dd>${members(words, interestedPeople)}</dd>`;
    part = recordActions(
      interested ? words.t('events.detail.you-are-interested') : null,
      [
        postButton(viewer, `/events/${id}/interested/`, interested ? words.t('events.detail.not-interested') : words.t('events.detail.interested-button'), {
          interested: interested ? 'no' : 'yes',
        }),
        ...(powers.addMeeting && event.meeting_id === null ? [html`<a class="button" href="/meetings/new/?event=${id}">${words.t('events.detail.add-meeting')}</a>`] : []),
        ...(powers.edit ? [html`<a class="button" href="/events/${id}/edit/">${words.t('events.detail.edit')}</a>`] : []),
        ...(powers.delete ? [html`<a class="button" href="/events/${id}/delete/">${words.t('events.form.delete-title')}</a>`] : []),
      ],
      words,
    );
  }
  const main = html`<article class="detail">
<h1>${event.title}</h1>
<dl class="facts">
<dt>${words.t('events.detail.when')}</dt><dd>${
    event.start_us === null ? eventWhen(event, words, true) : html`<time datetime="${ctx.zone.format(event.start_us)}">${eventWhen(event, words, true)}</time>`
  }</dd>
<dt>${words.t('events.detail.where')}</dt><dd>${event.place || words.t('events.detail.place-unknown')}</dd>
<dt>${words.t('events.field.status')}</dt><dd>${eventStatus(words, event.status)}</dd>
<dt>${words.t('events.field.organizer')}</dt><dd>${event.organizer === null ? words.t('events.detail.nobody') : memberLink(event.organizer)}</dd>
${event.meeting_id === null ? '' : html`<dt>${words.t('events.detail.meeting')}</dt><dd><a href="/meetings/${event.meeting_id}/">${words.t('events.detail.agenda-minutes')}</a></dd>`}
${interestedFact}
</dl>
${part}
${markdownBlock(markdown, words.t('events.field.description'), event.description)}
<p class="raw"><a href="/api/events/${event.id}/">${words.t('events.detail.api')}</a> · <a href="/events/">${words.t('events.detail.all')}</a> · <a href="/events.ics">${words.t(
    'events.detail.feed',
  )}</a></p>
</article>`;
  return layout(ctx.site, { title: event.title, main });
};

/** A meeting's page: its agenda and minutes; for a member, the buttons they may use. */
export const meetingDetail: DetailBuilder = async (ctx, id, markdown) => {
  const meeting = await meetingPage(ctx.db, id);
  if (meeting === undefined) return undefined;
  const { viewer, words } = ctx;
  let part = html``;
  if (viewer !== null) {
    const powers = await powersOver(ctx.db, viewer.id, 'meetings', id);
    part = recordActions(
      null,
      [
        ...(powers.edit ? [html`<a class="button" href="/meetings/${id}/edit/">${words.t('events.meeting.edit')}</a>`] : []),
        ...(powers.delete ? [html`<a class="button" href="/meetings/${id}/delete/">${words.t('events.meeting.form.delete-title')}</a>`] : []),
      ],
      words,
    );
  }
  const title = words.t('events.meeting.title', { title: meeting.title });
  const main = html`<article class="detail">
<h1>${title}</h1>
<dl class="facts">
<dt>${words.t('events.detail.when')}</dt><dd>${
    meeting.start_us === null ? words.t('events.when.unknown') : html`<time datetime="${ctx.zone.format(meeting.start_us)}">${words.longDateTime(meeting.start_us)}</time>`
  }</dd>
<dt>${words.t('events.meeting.field.event')}</dt><dd><a href="/events/${meeting.event_id}/">${meeting.title}</a></dd>
<dt>${words.t('events.meeting.field.members')}</dt><dd>${members(words, meeting.members)}</dd>
${meeting.ongoing ? html`<dt>${words.t('events.field.status')}</dt><dd>${words.t('events.meeting.ongoing')}</dd>` : ''}
</dl>
${part}
${markdownBlock(markdown, words.t('events.meeting.field.OJ'), meeting.agenda)}
${markdownBlock(markdown, words.t('events.meeting.field.PV'), meeting.minutes)}
<p class="raw"><a href="/api/meetings/${meeting.id}/">${words.t('events.meeting.api')}</a></p>
</article>`;
  return layout(ctx.site, { title, main });
};
