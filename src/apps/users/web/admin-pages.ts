import type { MemberForAdmin, MemberSearch, MemberTokenRow } from '../admin.js';
import type { MemberLinkPurpose } from '../links.js';
import { RIGHTS, type GroupInfo, type Right } from '../rights.js';
import type { TokenInfo } from '../../../resources/tokens.js';
import { html, type Html } from '../../../web/html.js';
import { layout, type Site } from '../../../web/layout.js';
import { csrfInput } from '../../../web/form-parts.js';

/**
 * The superusers' admin pages (members.md §4, `/accounts/admin/`): members (a search, paginated),
 * one member's flags, groups, direct rights and a one-time link, the groups and their rights, and
 * every API token. Every value is escaped by `html`; every form carries the CSRF token.
 */

/** How a time is shown (the space's zone), given by the caller. */
export type DateText = (micros: number) => string;

/** Why a change was refused (a confirmation is the page's notice: handlers/notice.ts). */
function refusalOf(refusal: string | null): Html | string {
  return refusal === null ? '' : html`<p class="form-error" role="alert" id="admin-error">${refusal}</p>`;
}

function adminNav(current: 'home' | 'members' | 'groups' | 'tokens'): Html {
  const link = (key: typeof current, href: string, label: string) => html`<li><a href="${href}"${key === current ? html` aria-current="page"` : ''}>${label}</a></li>`;
  return html`<nav class="admin-nav" aria-label="Administration"><ul>${[
    link('home', '/accounts/admin/', 'Administration'),
    link('members', '/accounts/admin/members/', 'Members'),
    link('groups', '/accounts/admin/groups/', 'Groups'),
    link('tokens', '/accounts/admin/tokens/', 'API tokens'),
  ]}</ul></nav>`;
}

function yesNo(value: boolean): string {
  return value ? 'yes' : 'no';
}

/** `projects.add_project` → "add project" (its app is in the table's heading). */
function rightLabel(right: Right): string {
  return right.split('.')[1].replace('_', ' ');
}

export function adminHomePage(site: Site, counts: { members: number; groups: number; tokens: number }): Buffer {
  const main = html`<section class="admin" aria-labelledby="admin-heading">
${adminNav('home')}
<h1 id="admin-heading">Administration</h1>
<ul class="admin-links">
<li><a href="/accounts/admin/members/">Members</a> (${counts.members}): search, active, key holder, superuser, groups, rights, invitation and reset links</li>
<li><a href="/accounts/admin/groups/">Groups</a> (${counts.groups}) and their rights</li>
<li><a href="/accounts/admin/tokens/">API tokens</a> (${counts.tokens} active): door and admin tokens, members' personal tokens</li>
</ul>
</section>`;
  return layout(site, { title: 'Administration', main });
}

/** The members' search: a GET form, a page of results, and links to the other pages that keep the query. */
export function membersPage(site: Site, query: string, search: MemberSearch): Buffer {
  const pageUrl = (page: number) => `/accounts/admin/members/?${new URLSearchParams(query === '' ? { page: String(page) } : { q: query, page: String(page) }).toString()}`;
  const pager = [
    search.page > 1 ? html`<a href="${pageUrl(search.page - 1)}" rel="prev">Previous page</a>` : '',
    search.page < search.pages ? html`<a href="${pageUrl(search.page + 1)}" rel="next">Next page</a>` : '',
  ];
  const rows = search.members.map(
    (m) => html`<tr>
<th scope="row"><a href="/accounts/admin/members/${m.id}/">${m.username}</a></th>
<td>${yesNo(m.active)}</td><td>${yesNo(m.hasKey)}</td><td>${yesNo(m.superuser)}</td><td>${m.groups.join(', ')}</td>
</tr>`,
  );
  const main = html`<section class="admin" aria-labelledby="members-heading">
${adminNav('members')}
<h1 id="members-heading">Members</h1>
<form method="get" action="/accounts/admin/members/" role="search" class="admin-search">
<label for="member-search">Username contains</label>
<input id="member-search" name="q" type="search" value="${query}" autocapitalize="none" spellcheck="false">
<button type="submit">Search</button>
</form>
<p id="members-count">${search.total === 0 ? 'No member matches.' : `${search.total} ${search.total === 1 ? 'member matches' : 'members match'}; page ${search.page} of ${search.pages}.`}</p>
${
  search.members.length > 0
    ? html`<div class="table-scroll"><table id="members">
<caption>Members${query === '' ? '' : html` whose username contains “${query}”`}, page ${search.page} of ${search.pages}</caption>
<thead><tr><th scope="col">Username</th><th scope="col">Active</th><th scope="col">Key holder</th><th scope="col">Superuser</th><th scope="col">Groups</th></tr></thead>
<tbody>${rows}</tbody>
</table></div>`
    : ''
}
${search.pages > 1 ? html`<nav class="pager" aria-label="Pages">${pager}</nav>` : ''}
</section>`;
  return layout(site, { title: 'Members · Administration', main });
}

/** A one-time link made for a member: mailed to their address, or shown once on the page that answers the button. */
export type MadeLink = { purpose: MemberLinkPurpose; validHours: number } & ({ delivery: 'mailed' } | { delivery: 'hand-over'; url: string });

export interface MemberEdit {
  member: MemberForAdmin;
  groups: readonly GroupInfo[];
  csrf: string;
  refusal: string | null;
  link: MadeLink | null;
  /** Whether a link made for the member goes by mail (the button says so). */
  linkByMail: boolean;
  /** The member looking at the page (the form says what they may not do to themselves). */
  self: boolean;
  /** How many passkeys the member has; null when PASSKEYS is false. */
  passkeys: number | null;
}

function checkbox(name: string, id: string, label: Html | string, checked: boolean): Html {
  return html`<p class="check"><input type="checkbox" id="${id}" name="${name}" value="on"${checked ? html` checked` : ''}> <label for="${id}">${label}</label></p>`;
}

/** What the page says of a link just made: where it was mailed (never the address), or the link itself, this once. */
function madeLinkNotice(username: string, link: MadeLink | null): Html | string {
  if (link === null) return '';
  const kind = link.purpose === 'invitation' ? 'Invitation' : 'Reset';
  const lasting = `It works once, for ${link.validHours} ${link.validHours === 1 ? 'hour' : 'hours'}`;
  if (link.delivery === 'mailed') {
    return html`<aside class="notice" role="status" aria-labelledby="link-heading"><h2 id="link-heading">${kind} link sent</h2>
<p id="link-mailed">The link was sent to the member's address. ${lasting}.</p></aside>`;
  }
  return html`<aside class="notice" aria-labelledby="link-heading"><h2 id="link-heading">${kind} link</h2>
<p>Hand this link to ${username}. ${lasting}, and is not shown again.</p>
<p><label for="one-time-link">Link</label> <input id="one-time-link" type="text" readonly value="${link.url}" size="60"></p></aside>`;
}

/** One member: their flags, groups and direct rights (one form), and the button that makes a one-time link. */
export function memberEditPage(site: Site, edit: MemberEdit): Buffer {
  const { member } = edit;
  const action = `/accounts/admin/members/${member.id}/`;
  const main = html`<section class="admin" aria-labelledby="member-heading">
${adminNav('members')}
<h1 id="member-heading">${member.username}</h1>
${refusalOf(edit.refusal)}
${madeLinkNotice(member.username, edit.link)}
<p><a href="/members/${member.id}/">Public page</a></p>
<form method="post" action="${action}" class="stacked admin-member">
${csrfInput(edit.csrf)}
<fieldset><legend>Account</legend>
${checkbox('is_active', 'is_active', 'Active (may log in)', member.active)}
${checkbox('has_key', 'has_key', 'Key holder', member.hasKey)}
${checkbox('is_superuser', 'is_superuser', 'Superuser (every right, and these pages)', member.superuser)}
${edit.self ? html`<p class="hint">You cannot deactivate yourself or remove your own superuser status.</p>` : ''}
</fieldset>
<fieldset><legend>Groups</legend>
${edit.groups.length === 0 ? html`<p>There are no groups. <a href="/accounts/admin/groups/">Create one</a>.</p>` : edit.groups.map((g) => checkbox(`group_${g.id}`, `group_${g.id}`, g.name, member.groupIds.includes(g.id)))}
</fieldset>
<fieldset><legend>Rights granted directly</legend>
${RIGHTS.map((right) => checkbox(right, `right-${right}`, html`<code>${right}</code>`, member.directRights.includes(right)))}
</fieldset>
<p><button type="submit">Save</button></p>
</form>
<form method="post" action="${action}link/" class="stacked">
${csrfInput(edit.csrf)}
<p><button type="submit" id="make-link">${member.hasUsablePassword ? 'Make a password reset link' : 'Make an invitation link'}${edit.linkByMail ? ' and mail it' : ''}</button></p>
</form>
${edit.passkeys === null ? '' : passkeysOfMember(action, edit.csrf, edit.passkeys)}
</section>`;
  return layout(site, { title: `${member.username} · Administration`, main });
}

/** An account taken over keeps any passkey planted in it: removing them all is part of giving it back. */
function passkeysOfMember(action: string, csrf: string, count: number): Html {
  if (count === 0) return html`<p id="member-passkeys">No passkey.</p>`;
  return html`<form method="post" action="${action}passkeys/remove/" class="stacked">
${csrfInput(csrf)}
<p id="member-passkeys">${count === 1 ? '1 passkey' : `${count} passkeys`}: they log in without a password. If the account was taken over, remove them (the member is logged out everywhere too), then give them a reset link.</p>
<p><button type="submit" class="danger" id="remove-passkeys">Remove all passkeys and log out</button></p>
</form>`;
}

export interface GroupsView {
  groups: readonly GroupInfo[];
  csrf: string;
  refusal: string | null;
  /** The name typed in the creation form, kept when it was refused. */
  newName: string;
}

/** The groups with their rights among the nine, and a form to create one. */
export function groupsPage(site: Site, view: GroupsView): Buffer {
  const rows = view.groups.map(
    (g) => html`<tr>
<th scope="row"><a href="/accounts/admin/groups/${g.id}/">${g.name}</a></th>
<td>${g.rights.length === 0 ? 'none' : html`<ul class="rights">${g.rights.map((r) => html`<li><code>${r}</code></li>`)}</ul>`}${g.otherPermissions > 0 ? html`<p>other permissions: ${g.otherPermissions}</p>` : ''}</td>
<td>${g.members}</td>
</tr>`,
  );
  const main = html`<section class="admin" aria-labelledby="groups-heading">
${adminNav('groups')}
<h1 id="groups-heading">Groups</h1>
${refusalOf(view.refusal)}
${
  view.groups.length === 0
    ? html`<p>There are no groups yet.</p>`
    : html`<div class="table-scroll"><table id="groups">
<caption>Groups and the rights they grant</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Rights</th><th scope="col">Members</th></tr></thead>
<tbody>${rows}</tbody>
</table></div>`
}
<h2 id="new-group-heading">New group</h2>
<form method="post" action="/accounts/admin/groups/" class="stacked" aria-labelledby="new-group-heading">
${csrfInput(view.csrf)}
<p><label for="group-name">Name</label>
<input id="group-name" name="name" type="text" maxlength="150" required value="${view.newName}"></p>
<p><button type="submit">Create group</button></p>
</form>
</section>`;
  return layout(site, { title: 'Groups · Administration', main });
}

export interface GroupEdit {
  group: GroupInfo;
  csrf: string;
  refusal: string | null;
  /** The name typed, kept when it was refused. */
  name: string;
}

/** One group: its name and its rights among the nine (its other permissions are kept as they are); deleting it. */
export function groupEditPage(site: Site, edit: GroupEdit): Buffer {
  const { group } = edit;
  const action = `/accounts/admin/groups/${group.id}/`;
  const main = html`<section class="admin" aria-labelledby="group-heading">
${adminNav('groups')}
<h1 id="group-heading">Group ${group.name}</h1>
${refusalOf(edit.refusal)}
<p>${group.members} ${group.members === 1 ? 'member' : 'members'}.${group.otherPermissions > 0 ? ` Other permissions: ${group.otherPermissions} (kept as they are).` : ''}</p>
<form method="post" action="${action}" class="stacked">
${csrfInput(edit.csrf)}
<p><label for="group-name">Name</label>
<input id="group-name" name="name" type="text" maxlength="150" required value="${edit.name}"></p>
<fieldset><legend>Rights</legend>
${RIGHTS.map((right) => checkbox(right, `right-${right}`, html`<code>${right}</code> (${rightLabel(right)})`, group.rights.includes(right)))}
</fieldset>
<p><button type="submit">Save</button></p>
</form>
<form method="post" action="${action}delete/" class="stacked">
${csrfInput(edit.csrf)}
<p><button type="submit" id="delete-group">Delete this group</button> (its members lose what it grants)</p>
</form>
</section>`;
  return layout(site, { title: `Group ${group.name} · Administration`, main });
}

export interface TokensView {
  operatorTokens: readonly TokenInfo[];
  memberTokens: readonly MemberTokenRow[];
  csrf: string;
  refusal: string | null;
  /** A token just made: its secret, shown this once. */
  created: { name: string; scope: string; secret: string } | null;
  /** The name typed in the creation form, kept when it was refused. */
  newName: string;
  date: DateText;
}

function when(date: DateText, micros: number | null, none: string): Html | string {
  return micros === null ? none : date(micros);
}

/** Every API token: the operators' (door, admin), with creation and revocation; the members' personal ones, with revocation. */
export function tokensPage(site: Site, view: TokensView): Buffer {
  const operatorRows = view.operatorTokens.map(
    (t) => html`<tr>
<th scope="row">${t.name}</th><td>${t.scope}</td><td>${view.date(t.createdUs)}</td><td>${when(view.date, t.lastUsedUs, 'never')}</td>
<td>${
      t.revokedUs !== null
        ? html`revoked ${view.date(t.revokedUs)}`
        : html`<form method="post" action="/accounts/admin/tokens/${t.id}/revoke/">${csrfInput(view.csrf)}<button type="submit" aria-label="Revoke token ${t.name}">Revoke</button></form>`
    }</td>
</tr>`,
  );
  const memberRows = view.memberTokens.map(
    (t) => html`<tr>
<td><a href="/accounts/admin/members/${t.ownerId}/">${t.owner}</a></td><th scope="row">${t.name}</th><td>${view.date(t.createdUs)}</td><td>${when(view.date, t.lastUsedUs, 'never')}</td>
<td>${
      t.revokedUs !== null
        ? html`revoked ${view.date(t.revokedUs)}`
        : html`<form method="post" action="/accounts/admin/member-tokens/${t.id}/revoke/">${csrfInput(view.csrf)}<button type="submit" aria-label="Revoke ${t.owner}'s token ${t.name}">Revoke</button></form>`
    }</td>
</tr>`,
  );
  const main = html`<section class="admin" aria-labelledby="tokens-heading">
${adminNav('tokens')}
<h1 id="tokens-heading">API tokens</h1>
${refusalOf(view.refusal)}
${
  view.created !== null
    ? html`<aside class="notice" aria-labelledby="secret-heading"><h2 id="secret-heading">Token ${view.created.name} (${view.created.scope})</h2>
<p>Copy its secret now: it is not shown again.</p>
<p><label for="token-secret">Secret</label> <input id="token-secret" type="text" readonly value="${view.created.secret}" size="60"></p></aside>`
    : ''
}
<h2 id="new-token-heading">New operator token</h2>
<form method="post" action="/accounts/admin/tokens/" class="stacked" aria-labelledby="new-token-heading">
${csrfInput(view.csrf)}
<p><label for="token-name">Name</label>
<input id="token-name" name="name" type="text" maxlength="100" required value="${view.newName}"></p>
<fieldset><legend>Scope</legend>
<p class="check"><input type="radio" id="scope-door" name="scope" value="door" checked> <label for="scope-door">door (records the space's state)</label></p>
<p class="check"><input type="radio" id="scope-admin" name="scope" value="admin"> <label for="scope-admin">admin (writes every record)</label></p>
</fieldset>
<p><button type="submit">Create token</button></p>
</form>
${
  view.operatorTokens.length === 0
    ? html`<p>There are no operator tokens.</p>`
    : html`<div class="table-scroll"><table id="operator-tokens">
<caption>Operator tokens</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Scope</th><th scope="col">Created</th><th scope="col">Last use</th><th scope="col">Revoked</th></tr></thead>
<tbody>${operatorRows}</tbody>
</table></div>`
}
${
  view.memberTokens.length === 0
    ? html`<p>No member has a personal token.</p>`
    : html`<div class="table-scroll"><table id="member-tokens">
<caption>Members' personal tokens</caption>
<thead><tr><th scope="col">Owner</th><th scope="col">Name</th><th scope="col">Created</th><th scope="col">Last use</th><th scope="col">Revoked</th></tr></thead>
<tbody>${memberRows}</tbody>
</table></div>`
}
</section>`;
  return layout(site, { title: 'API tokens · Administration', main });
}
