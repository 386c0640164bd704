import { memberCounts } from '../pages.js';
import type { DashboardPanel } from '../../../web/dashboard.js';
import { html, type Html } from '../../../web/html.js';

/** The members' part of the dashboard: how many there are, and how many hold a key. */
export const USERS_PANELS: readonly DashboardPanel[] = [
  { place: 'column', order: 3, reads: ['users'], build: async ({ db }) => ({ html: membersSection(await memberCounts(db)) }) },
];

function membersSection({ members, keyHolders }: { members: number; keyHolders: number }): Html {
  return html`<section class="members" aria-labelledby="members-heading">
<h2 id="members-heading">Members</h2>
<p class="members-count">${members} ${members === 1 ? 'member' : 'members'}, ${keyHolders} of whom ${keyHolders === 1 ? 'holds' : 'hold'} a key.</p>
</section>`;
}
