import type { MemberForAdmin, MemberSearch, MemberTokenRow } from '../admin.js';
import type { MemberLinkPurpose } from '../links.js';
import { RIGHTS, type GroupInfo, type Right } from '../rights.js';
import type { TokenInfo } from '../../../resources/tokens.js';
import type { MessageKey, Words } from '../../../i18n/words.js';
import { html, type Html, type HtmlValue } from '../../../web/html.js';
import { layout, type Site } from '../../../web/layout.js';
import { csrfInput } from '../../../web/form-parts.js';
import { wordsHtml } from '../../../web/words-html.js';

/**
 * The superusers' admin pages (members.md §4, `/accounts/admin/`): members (a search, paginated),
 * one member's flags, groups, direct rights and a one-time link, the groups and their rights, and
 * every API token. Every value is escaped by `html`; every form carries the CSRF token.
 */

/** How a time is shown (the space's zone, the page's language), given by the caller. */
export type DateText = (micros: number) => string;

/** Each right in words (its code name is shown beside it). */
const RIGHT_LABELS: Readonly<Record<Right, MessageKey>> = {
  'projects.add_project': 'users.right.add-project',
  'projects.change_project': 'users.right.change-project',
  'projects.delete_project': 'users.right.delete-project',
  'events.add_event': 'users.right.add-event',
  'events.change_event': 'users.right.change-event',
  'events.delete_event': 'users.right.delete-event',
  'events.add_meeting': 'users.right.add-meeting',
  'events.change_meeting': 'users.right.change-meeting',
  'events.delete_meeting': 'users.right.delete-meeting',
  'users.change_balance': 'users.right.change-balance',
  'stock.add_category': 'users.right.add-category',
  'stock.change_category': 'users.right.change-category',
  'stock.delete_category': 'users.right.delete-category',
  'stock.add_product': 'users.right.add-product',
  'stock.change_product': 'users.right.change-product',
  'stock.delete_product': 'users.right.delete-product',
  'stock.view_paymenttransaction': 'users.right.treasury',
};

/** Why a change was refused (a confirmation is the page's notice: handlers/notice.ts). */
function refusalOf(refusal: string | null): Html | string {
  return refusal === null ? '' : html`<p class="form-error" role="alert" id="admin-error">${refusal}</p>`;
}

function adminNav(w: Words, current: 'home' | 'members' | 'groups' | 'tokens'): Html {
  const link = (key: typeof current, href: string, label: string) => html`<li><a href="${href}"${key === current ? html` aria-current="page"` : ''}>${label}</a></li>`;
  return html`<nav class="admin-nav" aria-label="${w.t('users.admin.title')}"><ul>${[
    link('home', '/accounts/admin/', w.t('users.admin.title')),
    link('members', '/accounts/admin/members/', w.t('users.admin.members')),
    link('groups', '/accounts/admin/groups/', w.t('users.admin.groups')),
    link('tokens', '/accounts/admin/tokens/', w.t('users.admin.tokens')),
  ]}</ul></nav>`;
}

function yesNo(w: Words, value: boolean): string {
  return value ? w.t('users.admin.yes') : w.t('users.admin.no');
}

/** A page's title within the administration. */
function adminTitle(w: Words, page: string): string {
  return w.t('users.admin.page-title', { page });
}

export function adminHomePage(site: Site, counts: { members: number; groups: number; tokens: number }): Buffer {
  const w = site.words;
  const link = (href: string) => (chunks: HtmlValue[]) => html`<a href="${href}">${chunks}</a>`;
  const main = html`<section class="admin" aria-labelledby="admin-heading">
${adminNav(w, 'home')}
<h1 id="admin-heading">${w.t('users.admin.title')}</h1>
<ul class="admin-links">
<li>${wordsHtml(w, 'users.admin.home-members', { count: counts.members }, { link: link('/accounts/admin/members/') })}</li>
<li>${wordsHtml(w, 'users.admin.home-groups', { count: counts.groups }, { link: link('/accounts/admin/groups/') })}</li>
<li>${wordsHtml(w, 'users.admin.home-tokens', { count: counts.tokens }, { link: link('/accounts/admin/tokens/') })}</li>
</ul>
</section>`;
  return layout(site, { title: w.t('users.admin.title'), main });
}

/** The members' search: a GET form, a page of results, and links to the other pages that keep the query. */
export function membersPage(site: Site, query: string, search: MemberSearch): Buffer {
  const w = site.words;
  const pageUrl = (page: number) => `/accounts/admin/members/?${new URLSearchParams(query === '' ? { page: String(page) } : { q: query, page: String(page) }).toString()}`;
  const pager = [
    search.page > 1 ? html`<a href="${pageUrl(search.page - 1)}" rel="prev">${w.t('users.admin.previous-page')}</a>` : '',
    search.page < search.pages ? html`<a href="${pageUrl(search.page + 1)}" rel="next">${w.t('users.admin.next-page')}</a>` : '',
  ];
  const rows = search.members.map(
    (m) => html`<tr>
<th scope="row"><a href="/accounts/admin/members/${m.id}/">${m.username}</a></th>
<td>${yesNo(w, m.active)}</td><td>${yesNo(w, m.hasKey)}</td><td>${yesNo(w, m.superuser)}</td><td>${m.groups.join(', ')}</td>
</tr>`,
  );
  const main = html`<section class="admin" aria-labelledby="members-heading">
${adminNav(w, 'members')}
<h1 id="members-heading">${w.t('users.admin.members')}</h1>
<form method="get" action="/accounts/admin/members/" role="search" class="admin-search">
<label for="member-search">${w.t('users.admin.search-label')}</label>
<input id="member-search" name="q" type="search" value="${query}" autocapitalize="none" spellcheck="false">
<button type="submit">${w.t('users.admin.search')}</button>
</form>
<p id="members-count">${search.total === 0 ? w.t('users.admin.no-match') : w.t('users.admin.matches', { count: search.total, page: search.page, pages: search.pages })}</p>
${
  search.members.length > 0
    ? html`<div class="table-scroll"><table id="members">
<caption>${query === '' ? w.t('users.admin.members-caption', { page: search.page, pages: search.pages }) : w.t('users.admin.members-caption-query', { query, page: search.page, pages: search.pages })}</caption>
<thead><tr><th scope="col">${w.t('users.form.username')}</th><th scope="col">${w.t('users.admin.active')}</th><th scope="col">${w.t('users.admin.key-holder')}</th><th scope="col">${w.t('users.admin.superuser')}</th><th scope="col">${w.t('users.admin.groups')}</th></tr></thead>
<tbody>${rows}</tbody>
</table></div>`
    : ''
}
${search.pages > 1 ? html`<nav class="pager" aria-label="${w.t('users.admin.pages')}">${pager}</nav>` : ''}
</section>`;
  return layout(site, { title: adminTitle(w, w.t('users.admin.members')), main });
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
function madeLinkNotice(w: Words, username: string, link: MadeLink | null): Html | string {
  if (link === null) return '';
  const invitation = link.purpose === 'invitation';
  if (link.delivery === 'mailed') {
    return html`<aside class="notice" role="status" aria-labelledby="link-heading"><h2 id="link-heading">${invitation ? w.t('users.admin.invitation-sent') : w.t('users.admin.reset-sent')}</h2>
<p id="link-mailed">${w.t('users.admin.link-mailed', { hours: link.validHours })}</p></aside>`;
  }
  return html`<aside class="notice" aria-labelledby="link-heading"><h2 id="link-heading">${invitation ? w.t('users.admin.invitation-link') : w.t('users.admin.reset-link')}</h2>
<p>${w.t('users.admin.link-hand-over', { username, hours: link.validHours })}</p>
<p><label for="one-time-link">${w.t('users.admin.link')}</label> <input id="one-time-link" type="text" readonly value="${link.url}" size="60"></p></aside>`;
}

/** One member: their flags, groups and direct rights (one form), and the button that makes a one-time link. */
export function memberEditPage(site: Site, edit: MemberEdit): Buffer {
  const w = site.words;
  const { member } = edit;
  const action = `/accounts/admin/members/${member.id}/`;
  const linkButton = member.hasUsablePassword
    ? edit.linkByMail
      ? w.t('users.admin.make-reset-mail')
      : w.t('users.admin.make-reset')
    : edit.linkByMail
      ? w.t('users.admin.make-invitation-mail')
      : w.t('users.admin.make-invitation');
  const main = html`<section class="admin" aria-labelledby="member-heading">
${adminNav(w, 'members')}
<h1 id="member-heading">${member.username}</h1>
${refusalOf(edit.refusal)}
${madeLinkNotice(w, member.username, edit.link)}
<p><a href="/members/${member.id}/">${w.t('users.admin.public-page')}</a></p>
<form method="post" action="${action}" class="stacked admin-member">
${csrfInput(edit.csrf)}
<fieldset><legend>${w.t('users.admin.account')}</legend>
${checkbox('is_active', 'is_active', w.t('users.admin.active-label'), member.active)}
${checkbox('has_key', 'has_key', w.t('users.admin.key-holder'), member.hasKey)}
${checkbox('is_superuser', 'is_superuser', w.t('users.admin.superuser-label'), member.superuser)}
${edit.self ? html`<p class="hint">${w.t('users.admin.self-hint')}</p>` : ''}
</fieldset>
<fieldset><legend>${w.t('users.admin.groups')}</legend>
${
  edit.groups.length === 0
    ? html`<p>${wordsHtml(w, 'users.admin.no-groups-create', {}, { link: (chunks) => html`<a href="/accounts/admin/groups/">${chunks}</a>` })}</p>`
    : edit.groups.map((g) => checkbox(`group_${g.id}`, `group_${g.id}`, g.name, member.groupIds.includes(g.id)))
}
</fieldset>
<fieldset><legend>${w.t('users.admin.direct-rights')}</legend>
${RIGHTS.map((right) => checkbox(right, `right-${right}`, html`<code>${right}</code> (${w.t(RIGHT_LABELS[right])})`, member.directRights.includes(right)))}
</fieldset>
<p><button type="submit">${w.t('users.form.save')}</button></p>
</form>
<form method="post" action="${action}link/" class="stacked">
${csrfInput(edit.csrf)}
<p><button type="submit" id="make-link">${linkButton}</button></p>
</form>
${edit.passkeys === null ? '' : passkeysOfMember(w, action, edit.csrf, edit.passkeys)}
</section>`;
  return layout(site, { title: adminTitle(w, member.username), main });
}

/** An account taken over keeps any passkey planted in it: removing them all is part of giving it back. */
function passkeysOfMember(w: Words, action: string, csrf: string, count: number): Html {
  if (count === 0) return html`<p id="member-passkeys">${w.t('users.admin.no-passkey')}</p>`;
  return html`<form method="post" action="${action}passkeys/remove/" class="stacked">
${csrfInput(csrf)}
<p id="member-passkeys">${w.t('users.admin.passkeys', { count })}</p>
<p><button type="submit" class="danger" id="remove-passkeys">${w.t('users.admin.remove-passkeys')}</button></p>
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
  const w = site.words;
  const rows = view.groups.map(
    (g) => html`<tr>
<th scope="row"><a href="/accounts/admin/groups/${g.id}/">${g.name}</a></th>
<td>${g.rights.length === 0 ? w.t('users.admin.no-rights') : html`<ul class="rights">${g.rights.map((r) => html`<li><code>${r}</code></li>`)}</ul>`}${g.otherPermissions > 0 ? html`<p>${w.t('users.admin.other-permissions', { count: g.otherPermissions })}</p>` : ''}</td>
<td>${w.number(g.members)}</td>
</tr>`,
  );
  const main = html`<section class="admin" aria-labelledby="groups-heading">
${adminNav(w, 'groups')}
<h1 id="groups-heading">${w.t('users.admin.groups')}</h1>
${refusalOf(view.refusal)}
${
  view.groups.length === 0
    ? html`<p>${w.t('users.admin.no-groups')}</p>`
    : html`<div class="table-scroll"><table id="groups">
<caption>${w.t('users.admin.groups-caption')}</caption>
<thead><tr><th scope="col">${w.t('users.admin.name')}</th><th scope="col">${w.t('users.admin.rights')}</th><th scope="col">${w.t('users.admin.members')}</th></tr></thead>
<tbody>${rows}</tbody>
</table></div>`
}
<h2 id="new-group-heading">${w.t('users.admin.new-group')}</h2>
<form method="post" action="/accounts/admin/groups/" class="stacked" aria-labelledby="new-group-heading">
${csrfInput(view.csrf)}
<p><label for="group-name">${w.t('users.admin.name')}</label>
<input id="group-name" name="name" type="text" maxlength="150" required value="${view.newName}"></p>
<p><button type="submit">${w.t('users.admin.create-group')}</button></p>
</form>
</section>`;
  return layout(site, { title: adminTitle(w, w.t('users.admin.groups')), main });
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
  const w = site.words;
  const { group } = edit;
  const action = `/accounts/admin/groups/${group.id}/`;
  const heading = w.t('users.admin.group-title', { name: group.name });
  const main = html`<section class="admin" aria-labelledby="group-heading">
${adminNav(w, 'groups')}
<h1 id="group-heading">${heading}</h1>
${refusalOf(edit.refusal)}
<p>${w.t('users.admin.group-members', { count: group.members })}${group.otherPermissions > 0 ? ` ${w.t('users.admin.group-other-permissions', { count: group.otherPermissions })}` : ''}</p>
<form method="post" action="${action}" class="stacked">
${csrfInput(edit.csrf)}
<p><label for="group-name">${w.t('users.admin.name')}</label>
<input id="group-name" name="name" type="text" maxlength="150" required value="${edit.name}"></p>
<fieldset><legend>${w.t('users.admin.rights')}</legend>
${RIGHTS.map((right) => checkbox(right, `right-${right}`, html`<code>${right}</code> (${w.t(RIGHT_LABELS[right])})`, group.rights.includes(right)))}
</fieldset>
<p><button type="submit">${w.t('users.form.save')}</button></p>
</form>
<form method="post" action="${action}delete/" class="stacked">
${csrfInput(edit.csrf)}
<p><button type="submit" id="delete-group">${w.t('users.admin.delete-group')}</button> ${w.t('users.admin.delete-group-hint')}</p>
</form>
</section>`;
  return layout(site, { title: adminTitle(w, heading), main });
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
  const w = site.words;
  const never = w.t('users.when.never');
  const operatorRows = view.operatorTokens.map(
    (t) => html`<tr>
<th scope="row">${t.name}</th><td>${t.scope}</td><td>${view.date(t.createdUs)}</td><td>${when(view.date, t.lastUsedUs, never)}</td>
<td>${
      t.revokedUs !== null
        ? w.t('users.admin.revoked-on', { date: view.date(t.revokedUs) })
        : html`<form method="post" action="/accounts/admin/tokens/${t.id}/revoke/">${csrfInput(view.csrf)}<button type="submit" aria-label="${w.t('users.admin.revoke-token', { name: t.name })}">${w.t('users.tokens.revoke')}</button></form>`
    }</td>
</tr>`,
  );
  const memberRows = view.memberTokens.map(
    (t) => html`<tr>
<td><a href="/accounts/admin/members/${t.ownerId}/">${t.owner}</a></td><th scope="row">${t.name}</th><td>${view.date(t.createdUs)}</td><td>${when(view.date, t.lastUsedUs, never)}</td>
<td>${
      t.revokedUs !== null
        ? w.t('users.admin.revoked-on', { date: view.date(t.revokedUs) })
        : html`<form method="post" action="/accounts/admin/member-tokens/${t.id}/revoke/">${csrfInput(view.csrf)}<button type="submit" aria-label="${w.t('users.admin.revoke-member-token', { owner: t.owner, name: t.name })}">${w.t('users.tokens.revoke')}</button></form>`
    }</td>
</tr>`,
  );
  const main = html`<section class="admin" aria-labelledby="tokens-heading">
${adminNav(w, 'tokens')}
<h1 id="tokens-heading">${w.t('users.admin.tokens')}</h1>
${refusalOf(view.refusal)}
${
  view.created !== null
    ? html`<aside class="notice" aria-labelledby="secret-heading"><h2 id="secret-heading">${w.t('users.admin.token-made', { name: view.created.name, scope: view.created.scope })}</h2>
<p>${w.t('users.admin.copy-secret')}</p>
<p><label for="token-secret">${w.t('users.tokens.secret')}</label> <input id="token-secret" type="text" readonly value="${view.created.secret}" size="60"></p></aside>`
    : ''
}
<h2 id="new-token-heading">${w.t('users.admin.new-token')}</h2>
<form method="post" action="/accounts/admin/tokens/" class="stacked" aria-labelledby="new-token-heading">
${csrfInput(view.csrf)}
<p><label for="token-name">${w.t('users.admin.name')}</label>
<input id="token-name" name="name" type="text" maxlength="100" required value="${view.newName}"></p>
<fieldset><legend>${w.t('users.admin.scope')}</legend>
<p class="check"><input type="radio" id="scope-door" name="scope" value="door" checked> <label for="scope-door">${wordsHtml(w, 'users.admin.scope-door', { scope: 'door' }, { code: (chunks) => html`<code>${chunks}</code>` })}</label></p>
<p class="check"><input type="radio" id="scope-admin" name="scope" value="admin"> <label for="scope-admin">${wordsHtml(w, 'users.admin.scope-admin', { scope: 'admin' }, { code: (chunks) => html`<code>${chunks}</code>` })}</label></p>
</fieldset>
<p><button type="submit">${w.t('users.admin.create-token')}</button></p>
</form>
${
  view.operatorTokens.length === 0
    ? html`<p>${w.t('users.admin.no-operator-tokens')}</p>`
    : html`<div class="table-scroll"><table id="operator-tokens">
<caption>${w.t('users.admin.operator-tokens')}</caption>
<thead><tr><th scope="col">${w.t('users.admin.name')}</th><th scope="col">${w.t('users.admin.scope')}</th><th scope="col">${w.t('users.tokens.created')}</th><th scope="col">${w.t('users.admin.last-use')}</th><th scope="col">${w.t('users.admin.revoked')}</th></tr></thead>
<tbody>${operatorRows}</tbody>
</table></div>`
}
${
  view.memberTokens.length === 0
    ? html`<p>${w.t('users.admin.no-member-tokens')}</p>`
    : html`<div class="table-scroll"><table id="member-tokens">
<caption>${w.t('users.admin.member-tokens')}</caption>
<thead><tr><th scope="col">${w.t('users.admin.owner')}</th><th scope="col">${w.t('users.admin.name')}</th><th scope="col">${w.t('users.tokens.created')}</th><th scope="col">${w.t('users.admin.last-use')}</th><th scope="col">${w.t('users.admin.revoked')}</th></tr></thead>
<tbody>${memberRows}</tbody>
</table></div>`
}
</section>`;
  return layout(site, { title: adminTitle(w, w.t('users.admin.tokens')), main });
}
