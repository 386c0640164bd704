import type { FastifyReply } from 'fastify';
import { lastValue } from '../../../drf/query.js';
import type { Db } from '../../../db/connection.js';
import { linkForMember } from '../accounts.js';
import { AdminError, listAllMemberTokens, revokeAnyMemberToken, memberForAdmin, searchMembers, updateMemberAccount, type MemberChanges, type MemberForAdmin } from '../admin.js';
import { LINK_VALIDITY_US, setPasswordPath } from '../links.js';
import { countPasskeys, removePasskeysOf } from '../passkeys.js';
import { endSessionsOf } from '../sessions.js';
import { linkGoesByMail, mailPasswordLink, MailNotSent, type LinkDelivery } from '../mail.js';
import { createGroup, deleteGroup, listGroups, renameGroup, RIGHTS, RightsError, setGroupRights, type GroupInfo } from '../rights.js';
import { createToken, listTokens, revokeTokenById, TOKEN_SCOPES, TokenError } from '../../../resources/tokens.js';
import { say } from '../said.js';
import { countUsers } from '../users.js';
import { field, type Form } from '../../../request/form.js';
import { adminHomePage, groupEditPage, groupsPage, memberEditPage, membersPage, tokensPage, type MadeLink, type MemberEdit } from '../web/admin-pages.js';
import { notFound, webWrite, type MemberExchange } from './member-pages.js';
import { seeOther, sendPage } from '../../../http/reply.js';
import { setNotice } from '../../../handlers/notice.js';

/**
 * The superusers' admin pages (members.md §4, `/accounts/admin/`). The route entries
 * (apps/users/routes/admin.ts) require a superuser, so each handler here runs for one, with the POST's
 * Origin and CSRF token already checked. Each change is one announced write transaction (the
 * users table's version moves, so cached pages and API answers end) with its audit entry, named
 * after the member and the web.
 */

type Admin<P = unknown> = MemberExchange<P>;

function viewerId(m: Admin): number {
  return m.viewer!.member.id;
}

/** A change made here, with the audit entry that names who made it from the web. */
function adminWrite<T>(m: Admin, collection: string, work: (trx: Db) => Promise<T>, recordId: (result: T) => number | null): Promise<T> {
  return webWrite(m, async (trx, audit) => {
    const result = await work(trx);
    await audit({ collection, recordId: recordId(result), status: 200 });
    return result;
  });
}

function db(m: Admin): Db {
  return m.ex.services.database.db;
}

export async function showAdminHome(m: Admin): Promise<FastifyReply> {
  const members = await countUsers(db(m));
  const groups = (await listGroups(db(m))).length;
  const operator = (await listTokens(db(m))).filter((t) => t.revokedUs === null).length;
  const personal = (await listAllMemberTokens(db(m))).filter((t) => t.revokedUs === null).length;
  return sendPage(m.ex.reply, 200, adminHomePage(m.site, { members, groups, tokens: operator + personal }));
}

export async function showMembers(m: Admin): Promise<FastifyReply> {
  const { query } = m.ex.facts.target;
  const q = (lastValue(query, 'q') ?? '').slice(0, 150);
  const page = Number.parseInt(lastValue(query, 'page') ?? '1', 10);
  const search = await searchMembers(db(m), q, Number.isFinite(page) ? page : 1);
  return sendPage(m.ex.reply, 200, membersPage(m.site, q, search));
}

/** A member's edit page as it stands, before a refusal or a link is added. */
async function memberEditOf(m: Admin, member: MemberForAdmin): Promise<Omit<MemberEdit, 'refusal' | 'link'>> {
  const passkeys = m.ex.services.config.members.passkeys ? await countPasskeys(db(m), member.id) : null;
  return { member, groups: await listGroups(db(m)), csrf: m.csrf, linkByMail: linkGoesByMail(m.ex.services.mailer, member), self: member.id === viewerId(m), passkeys };
}

/** `/accounts/admin/members/<id>/`: GET shows the form, POST saves it. */
export async function memberAccount(m: Admin<number>): Promise<FastifyReply> {
  const member = await memberForAdmin(db(m), m.ex.params);
  if (!member) return notFound(m);
  const edit = await memberEditOf(m, member);
  if (m.ex.facts.method !== 'POST') {
    return sendPage(m.ex.reply, 200, memberEditPage(m.site, { ...edit, refusal: null, link: null }));
  }
  const changes = memberChangesOf(m.form, edit.groups);
  try {
    await adminWrite(
      m,
      'users',
      (trx) => updateMemberAccount(trx, viewerId(m), member.id, changes, m.nowUs),
      () => member.id,
    );
  } catch (error) {
    if (!(error instanceof AdminError || error instanceof RightsError)) throw error;
    // The typed values are kept; nothing was saved.
    const typed: MemberForAdmin = {
      ...member,
      active: changes.active,
      hasKey: changes.hasKey,
      superuser: changes.superuser,
      groupIds: [...changes.groupIds],
      directRights: [...changes.directRights],
    };
    return sendPage(m.ex.reply, 422, memberEditPage(m.site, { ...edit, member: typed, refusal: say(m.site.words, error.said), link: null }));
  }
  setNotice(m.ex.reply, m.ex.facts, 'member-saved');
  return seeOther(m.ex.reply, `/accounts/admin/members/${member.id}/`);
}

/** The form's checkboxes: present (`on`) when ticked, absent when not, as browsers send them. */
function ticked(form: Form, name: string): boolean {
  return form.has(name);
}

function memberChangesOf(form: Form, groups: readonly GroupInfo[]): MemberChanges {
  return {
    active: ticked(form, 'is_active'),
    hasKey: ticked(form, 'has_key'),
    superuser: ticked(form, 'is_superuser'),
    groupIds: groups.filter((g) => ticked(form, `group_${g.id}`)).map((g) => g.id),
    directRights: RIGHTS.filter((r) => ticked(form, r)),
  };
}

/**
 * POST `/accounts/admin/members/<id>/link/`: a one-time link (an invitation, or a reset for a
 * member who has a password), mailed to the member when mail is configured and they have an
 * address (members.md §4), else shown once to hand over.
 */
export async function makeMemberLink(m: Admin<number>): Promise<FastifyReply> {
  const member = await memberForAdmin(db(m), m.ex.params);
  if (!member) return notFound(m);
  const edit = await memberEditOf(m, member);
  if (!member.active) {
    const refusal = m.site.words.t('users.admin.inactive-link');
    return sendPage(m.ex.reply, 422, memberEditPage(m.site, { ...edit, refusal, link: null }));
  }
  const made = await adminWrite(
    m,
    'users',
    (trx) => linkForMember(trx, member, m.nowUs),
    () => member.id,
  );
  const { purpose, token } = made;
  const baseUrl = m.ex.facts.base ?? '';
  let delivery: LinkDelivery;
  try {
    // In the member's language, else the space's (LANGUAGE_CODE): not the superuser's.
    const words = m.ex.services.catalogue.words(member.language !== '' ? member.language : m.ex.services.catalogue.defaultLanguage);
    delivery = await mailPasswordLink(m.ex.services.mailer, member, purpose, { spaceName: m.site.name, baseUrl, token, words, nowUs: m.nowUs });
  } catch (error) {
    if (!(error instanceof MailNotSent)) throw error;
    // The Mailer logged it (its code, never the address); the link made stays unknown to anyone and expires.
    const refusal = m.site.words.t('users.admin.mail-not-sent', { purpose });
    return sendPage(m.ex.reply, 503, memberEditPage(m.site, { ...edit, refusal, link: null }));
  }
  const validHours = LINK_VALIDITY_US[purpose] / 3_600_000_000;
  const link: MadeLink = delivery === 'mailed' ? { delivery, purpose, validHours } : { delivery, purpose, validHours, url: `${baseUrl}${setPasswordPath(token)}` };
  return sendPage(m.ex.reply, 200, memberEditPage(m.site, { ...edit, refusal: null, link }));
}

/** `/accounts/admin/groups/`: GET lists them, POST creates one. */
export async function groups(m: Admin): Promise<FastifyReply> {
  if (m.ex.facts.method !== 'POST') {
    return sendPage(m.ex.reply, 200, groupsPage(m.site, { groups: await listGroups(db(m)), csrf: m.csrf, refusal: null, newName: '' }));
  }
  const name = field(m.form, 'name');
  try {
    const id = await adminWrite(
      m,
      'groups',
      (trx) => createGroup(trx, name),
      (made) => made,
    );
    setNotice(m.ex.reply, m.ex.facts, 'group-created');
    return seeOther(m.ex.reply, `/accounts/admin/groups/${id}/`);
  } catch (error) {
    if (!(error instanceof RightsError)) throw error;
    return sendPage(m.ex.reply, 422, groupsPage(m.site, { groups: await listGroups(db(m)), csrf: m.csrf, refusal: say(m.site.words, error.said), newName: name }));
  }
}

/** `/accounts/admin/groups/<id>/`: GET shows the form, POST saves its name and its rights among the nine. */
export async function group(m: Admin<number>): Promise<FastifyReply> {
  const found = (await listGroups(db(m))).find((g) => g.id === m.ex.params);
  if (!found) return notFound(m);
  if (m.ex.facts.method !== 'POST') {
    return sendPage(m.ex.reply, 200, groupEditPage(m.site, { group: found, csrf: m.csrf, refusal: null, name: found.name }));
  }
  const name = field(m.form, 'name');
  const rights = RIGHTS.filter((r) => ticked(m.form, r));
  try {
    await adminWrite(
      m,
      'groups',
      async (trx) => {
        await renameGroup(trx, found.id, name);
        await setGroupRights(trx, found.id, rights);
      },
      () => found.id,
    );
  } catch (error) {
    if (!(error instanceof RightsError)) throw error;
    const typed: GroupInfo = { ...found, rights };
    return sendPage(m.ex.reply, 422, groupEditPage(m.site, { group: typed, csrf: m.csrf, refusal: say(m.site.words, error.said), name }));
  }
  setNotice(m.ex.reply, m.ex.facts, 'group-saved');
  return seeOther(m.ex.reply, `/accounts/admin/groups/${found.id}/`);
}

/** POST `/accounts/admin/groups/<id>/delete/`. */
export async function removeGroup(m: Admin<number>): Promise<FastifyReply> {
  const found = (await listGroups(db(m))).find((g) => g.id === m.ex.params);
  if (!found) return notFound(m);
  await adminWrite(
    m,
    'groups',
    (trx) => deleteGroup(trx, found.id),
    () => found.id,
  );
  setNotice(m.ex.reply, m.ex.facts, 'group-deleted');
  return seeOther(m.ex.reply, '/accounts/admin/groups/');
}

async function tokensAnswer(
  m: Admin,
  status: number,
  refusal: string | null,
  created: { name: string; scope: string; secret: string } | null,
  newName: string,
): Promise<FastifyReply> {
  const words = m.site.words;
  const view = {
    operatorTokens: await listTokens(db(m)),
    memberTokens: await listAllMemberTokens(db(m)),
    csrf: m.csrf,
    refusal,
    created,
    newName,
    date: (micros: number) => words.dateTime(micros),
  };
  return sendPage(m.ex.reply, status, tokensPage(m.site, view));
}

/** `/accounts/admin/tokens/`: GET lists every token, POST creates an operator token and shows its secret once. */
export async function tokens(m: Admin): Promise<FastifyReply> {
  if (m.ex.facts.method !== 'POST') return tokensAnswer(m, 200, null, null, '');
  const name = field(m.form, 'name');
  const scope = field(m.form, 'scope');
  try {
    const made = await adminWrite(
      m,
      'tokens',
      (trx) => createToken(trx, name, scope, m.nowUs),
      (result) => result.token.id,
    );
    return tokensAnswer(m, 200, null, { name: made.token.name, scope: made.token.scope, secret: made.secret }, '');
  } catch (error) {
    if (!(error instanceof TokenError)) throw error;
    return tokensAnswer(m, 422, tokenRefusal(m, name, scope), null, name);
  }
}

/** Why resources/tokens.ts refused a new operator token, in the page's words (its own message is the command line's). */
function tokenRefusal(m: Admin, name: string, scope: string): string {
  const w = m.site.words;
  const clean = name.trim();
  if (clean === '' || clean.length > TOKEN_NAME_MAX) return w.t('users.admin.token-name-length', { max: TOKEN_NAME_MAX });
  if (!(TOKEN_SCOPES as readonly string[]).includes(scope)) return w.t('users.admin.token-scope', { scopes: TOKEN_SCOPES.join(', ') });
  return w.t('users.admin.token-name-taken', { name: clean });
}

/** resources/tokens.ts' bound on a token's name. */
const TOKEN_NAME_MAX = 100;

/** POST `/accounts/admin/members/<id>/passkeys/remove/`: every passkey of the member and every session, as when an account is given back. */
export async function removeMemberPasskeys(m: Admin<number>): Promise<FastifyReply> {
  const member = await memberForAdmin(db(m), m.ex.params);
  if (!member) return notFound(m);
  await adminWrite(
    m,
    'passkeys',
    async (trx) => {
      await removePasskeysOf(trx, member.id);
      await endSessionsOf(trx, member.id);
    },
    () => member.id,
  );
  setNotice(m.ex.reply, m.ex.facts, 'member-passkeys-removed');
  return seeOther(m.ex.reply, `/accounts/admin/members/${member.id}/`);
}

/** POST `/accounts/admin/tokens/<id>/revoke/`. */
export async function revokeOperatorToken(m: Admin<number>): Promise<FastifyReply> {
  const active = (await listTokens(db(m))).find((t) => t.id === m.ex.params && t.revokedUs === null);
  if (!active) return notFound(m);
  await adminWrite(
    m,
    'tokens',
    (trx) => revokeTokenById(trx, active.id, m.nowUs),
    () => active.id,
  );
  setNotice(m.ex.reply, m.ex.facts, 'token-revoked');
  return seeOther(m.ex.reply, '/accounts/admin/tokens/');
}

/** POST `/accounts/admin/member-tokens/<id>/revoke/`. */
export async function revokePersonalToken(m: Admin<number>): Promise<FastifyReply> {
  const active = (await listAllMemberTokens(db(m))).find((t) => t.id === m.ex.params && t.revokedUs === null);
  if (!active) return notFound(m);
  await adminWrite(
    m,
    'member_tokens',
    (trx) => revokeAnyMemberToken(trx, m.ex.params, m.nowUs),
    () => m.ex.params,
  );
  setNotice(m.ex.reply, m.ex.facts, 'token-revoked');
  return seeOther(m.ex.reply, '/accounts/admin/tokens/');
}
