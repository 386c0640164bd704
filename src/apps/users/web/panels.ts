import { memberCounts } from '../pages.js';
import type { DashboardPanel } from '../../../web/dashboard.js';
import { html, type Html } from '../../../web/html.js';
import type { Words } from '../../../i18n/words.js';

/** The members' part of the dashboard: how many there are, and how many hold a key. */
export const USERS_PANELS: readonly DashboardPanel[] = [
  { place: 'column', order: 3, reads: ['users'], build: async ({ db, words }) => ({ html: membersSection(words, await memberCounts(db)) }) },
];

function membersSection(w: Words, { members, keyHolders }: { members: number; keyHolders: number }): Html {
  return html`<section class="members" aria-labelledby="members-heading">
<h2 id="members-heading">${w.t('users.panel.heading')}</h2>
<p class="members-count">${w.t('users.panel.count', { members, keyHolders })}</p>
</section>`;
}
