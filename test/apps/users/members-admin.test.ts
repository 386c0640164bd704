/**
 * The superusers' admin pages over real HTTP on the engine under test (members.md §3, §4
 * `/accounts/admin/`, "Invitations and resets", §6): only superusers (a member gets 403 pages, a
 * visitor the login page), members searched and paginated among 2,000, a member's flags, groups
 * and direct rights, deactivation ending sessions, one-time links, groups, operator tokens made
 * and revoked, refused forms changing nothing, and script shown as text.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { findPasswordLink } from '../../../src/apps/users/links.js';
import { groupsOf, permissionIdOf, rightsOf } from '../../../src/apps/users/rights.js';
import { request, type HttpResponse } from '../../support/http.js';
import { addMember, Browser, csrfOf, logIn, noticeOf, TEST_ITERATIONS } from '../../support/members.js';
import { startServer, type TestServer } from '../../support/server.js';

const PASSWORD = 'correct horse battery';
const PRIVATE = 'private, no-store';
const SCRIPT = '<script>alert(1)</script>';

/** Every admin address and what it answers (with an id that exists where one is needed). */
function adminPaths(memberId: number, groupId: number, tokenId: number): { get: string[]; post: string[] } {
  return {
    get: [
      '/accounts/admin/',
      '/accounts/admin/members/',
      `/accounts/admin/members/${memberId}/`,
      '/accounts/admin/groups/',
      `/accounts/admin/groups/${groupId}/`,
      '/accounts/admin/tokens/',
    ],
    post: [
      `/accounts/admin/members/${memberId}/`,
      `/accounts/admin/members/${memberId}/link/`,
      '/accounts/admin/groups/',
      `/accounts/admin/groups/${groupId}/`,
      `/accounts/admin/groups/${groupId}/delete/`,
      '/accounts/admin/tokens/',
      `/accounts/admin/tokens/${tokenId}/revoke/`,
      `/accounts/admin/member-tokens/1/revoke/`,
    ],
  };
}

/** The admin page of a member, as the superuser's browser gets it. */
async function memberPage(browser: Browser, id: number): Promise<HttpResponse> {
  const res = await browser.get(`/accounts/admin/members/${id}/`);
  assert.equal(res.status, 200, res.body.slice(0, 300));
  return res;
}

/** The fields the member's form sends as a browser would: the ticked boxes only. */
function memberForm(csrf: string, ticked: string[]): [string, string][] {
  return [['csrfmiddlewaretoken', csrf], ...ticked.map((name): [string, string] => [name, 'on'])];
}

async function isActive(server: TestServer, id: number): Promise<boolean> {
  const row = await server.database.db.selectFrom('users').select('is_active').where('id', '=', id).executeTakeFirstOrThrow();
  return row.is_active === 1;
}

describe('admin pages', () => {
  let server: TestServer;
  let base: string;
  let rootId: number;
  let bobId: number;
  let carolId: number;
  let groupId: number;
  let tokenId: number;

  before(async () => {
    server = await startServer({ env: { PASSWORD_ITERATIONS: String(TEST_ITERATIONS) } });
    base = server.base;
    const db = server.database.db;
    rootId = await addMember(db, { username: 'root', password: PASSWORD, superuser: true });
    bobId = await addMember(db, { username: 'bob', password: PASSWORD });
    carolId = await addMember(db, { username: 'carol', password: PASSWORD });
    groupId = (await db.insertInto('auth_groups').values({ name: 'committee' }).returning('id').executeTakeFirstOrThrow()).id;
    tokenId = (
      await db
        .insertInto('api_tokens')
        .values({ name: 'door-pi', scope: 'door', secret_hash: '0'.repeat(64), created_us: Date.now() * 1000 })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  });

  after(() => server?.close());

  it('sends a visitor to the login page with next, on every admin page', async () => {
    const { get } = adminPaths(bobId, groupId, tokenId);
    for (const path of get) {
      const res = await new Browser(base).get(path);
      assert.equal(res.status, 303, path);
      assert.equal(res.headers.location, `/accounts/login/?next=${encodeURIComponent(path)}`, path);
    }
  });

  it('refuses a member who is not a superuser: a 403 page on every admin page and POST, nothing changed', async () => {
    const bob = await logIn(base, 'bob', PASSWORD);
    const home = await bob.get('/');
    const csrf = csrfOf(home.body.replace(/<main[\s\S]*<\/main>/, ''));
    const { get, post } = adminPaths(bobId, groupId, tokenId);
    for (const path of get) {
      const res = await bob.get(path);
      assert.equal(res.status, 403, path);
      assert.equal(res.headers['cache-control'], PRIVATE, path);
      assert.match(res.headers['content-type'] ?? '', /^text\/html/, path);
    }
    for (const path of post) {
      const res = await bob.post(path, { csrfmiddlewaretoken: csrf, is_active: 'on', is_superuser: 'on', name: 'taken over', scope: 'admin' });
      assert.equal(res.status, 403, path);
    }
    assert.equal((await rightsOf(server.database.db, bobId)).superuser, false);
    assert.equal((await server.database.db.selectFrom('api_tokens').select('id').execute()).length, 1);
    assert.equal((await server.database.db.selectFrom('auth_groups').select('name').execute()).map((g) => g.name).join(), 'committee');
  });

  it('shows the overview and the pages to a superuser, private and with labelled fields', async () => {
    const root = await logIn(base, 'root', PASSWORD);
    const home = await root.get('/accounts/admin/');
    assert.equal(home.status, 200);
    assert.equal(home.headers['cache-control'], PRIVATE);
    for (const link of ['/accounts/admin/members/', '/accounts/admin/groups/', '/accounts/admin/tokens/']) assert.ok(home.body.includes(`href="${link}"`), link);
    const page = await memberPage(root, bobId);
    for (const id of ['is_active', 'has_key', 'is_superuser', `group_${groupId}`, 'right-projects.add_project', 'right-events.delete_meeting']) {
      assert.ok(page.body.includes(`<label for="${id}">`), `label for ${id}`);
    }
  });

  it('grants a right directly and a group, sets the key holder, and the API shows the key at once', async () => {
    const db = server.database.db;
    await db
      .insertInto('user_permissions')
      .values({ user_id: carolId, permission_id: await permissionIdOf(db, 'events.add_event') })
      .execute();
    const before = await request(base, `/api/users/${carolId}/`);
    assert.equal(JSON.parse(before.body).has_key, false);
    const root = await logIn(base, 'root', PASSWORD);
    const page = await memberPage(root, carolId);
    assert.match(page.body, /id="right-events.add_event" name="events.add_event" value="on" checked/);
    // Set a group, grant add_project, take add_event away, give the key.
    const res = await root.post(`/accounts/admin/members/${carolId}/`, memberForm(csrfOf(page.body), ['is_active', 'has_key', `group_${groupId}`, 'projects.add_project']));
    assert.equal(res.status, 303, res.body.slice(0, 300));
    assert.equal(res.headers.location, `/accounts/admin/members/${carolId}/`);
    const rights = await rightsOf(db, carolId);
    assert.deepEqual([...rights.rights], ['projects.add_project']);
    assert.deepEqual(
      (await groupsOf(db, carolId)).map((g) => g.name),
      ['committee'],
    );
    const afterSave = await request(base, `/api/users/${carolId}/`);
    assert.equal(JSON.parse(afterSave.body).has_key, true, 'the cached answer ended with the write');
    const shown = await root.get(res.headers.location);
    assert.equal(shown.headers['cache-control'], PRIVATE);
    assert.equal(noticeOf(shown.body), 'The member is saved.');
    assert.equal(noticeOf((await root.get(res.headers.location)).body), null, 'the notice is shown once');
    // A right through the group counts too.
    const groupPage = await root.get(`/accounts/admin/groups/${groupId}/`);
    const saved = await root.post(`/accounts/admin/groups/${groupId}/`, [
      ['csrfmiddlewaretoken', csrfOf(groupPage.body)],
      ['name', 'committee'],
      ['events.change_event', 'on'],
    ]);
    assert.equal(saved.status, 303);
    assert.equal(noticeOf((await root.get(saved.headers.location as string)).body), 'The group is saved.');
    assert.deepEqual([...(await rightsOf(db, carolId)).rights].sort(), ['events.change_event', 'projects.add_project']);
    const audit = await db.selectFrom('audit_log').select(['token_name', 'collection', 'record_id']).where('token_name', '=', 'web: root').execute();
    assert.ok(
      audit.some((a) => a.collection === 'users' && a.record_id === carolId),
      'the audit names the member and the web',
    );
  });

  it('deactivates a member: their open session ends at once; a superuser may not deactivate or demote themselves', async () => {
    const dave = await addMember(server.database.db, { username: 'dave', password: PASSWORD });
    const daveBrowser = await logIn(base, 'dave', PASSWORD);
    assert.match((await daveBrowser.get('/')).body, /id="member"/);
    const root = await logIn(base, 'root', PASSWORD);
    const page = await memberPage(root, dave);
    const res = await root.post(`/accounts/admin/members/${dave}/`, memberForm(csrfOf(page.body), []));
    assert.equal(res.status, 303);
    assert.equal(await isActive(server, dave), false);
    const after = await daveBrowser.get('/accounts/logout/');
    assert.doesNotMatch(after.body, /id="member"/, 'the second browser is logged out');
    assert.equal((await server.database.db.selectFrom('sessions').select('id_hash').where('user_id', '=', dave).execute()).length, 0);

    const own = await memberPage(root, rootId);
    assert.match(own.body, /You cannot deactivate yourself/);
    const refused = await root.post(`/accounts/admin/members/${rootId}/`, memberForm(csrfOf(own.body), ['is_active']));
    assert.equal(refused.status, 422);
    assert.match(refused.body, /You cannot remove your own superuser status\./);
    const refused2 = await root.post(`/accounts/admin/members/${rootId}/`, memberForm(csrfOf(own.body), ['is_superuser']));
    assert.equal(refused2.status, 422);
    assert.match(refused2.body, /You cannot deactivate your own account\./);
    assert.equal(await isActive(server, rootId), true);
    assert.equal((await rightsOf(server.database.db, rootId)).superuser, true);
  });

  it('makes a one-time link: a reset for a member with a password, an invitation for one without, shown once', async () => {
    const invited = await addMember(server.database.db, { username: 'newcomer' });
    const root = await logIn(base, 'root', PASSWORD);
    for (const [id, purpose] of [
      [bobId, 'reset'],
      [invited, 'invitation'],
    ] as const) {
      const page = await memberPage(root, id);
      const res = await root.post(`/accounts/admin/members/${id}/link/`, { csrfmiddlewaretoken: csrfOf(page.body) });
      assert.equal(res.status, 200, res.body.slice(0, 300));
      assert.equal(res.headers['cache-control'], PRIVATE);
      const url = /id="one-time-link" type="text" readonly value="([^"]+)"/.exec(res.body)?.[1];
      assert.ok(url, 'the link is on the page');
      const token = new RegExp(`^${base}/accounts/set-password/([A-Za-z0-9_-]{43})/$`).exec(url)?.[1];
      assert.ok(token, url);
      const link = await findPasswordLink(server.database.db, token, Date.now() * 1000);
      assert.equal(link?.userId, id);
      assert.equal(link?.purpose, purpose);
      assert.doesNotMatch((await root.get(`/accounts/admin/members/${id}/`)).body, new RegExp(token), 'not shown again');
    }
  });

  it('creates an operator token whose secret works with the API once shown, then revokes it: 401', async () => {
    const root = await logIn(base, 'root', PASSWORD);
    const page = await root.get('/accounts/admin/tokens/');
    assert.match(page.body, /<caption>Operator tokens<\/caption>/);
    const made = await root.post('/accounts/admin/tokens/', { csrfmiddlewaretoken: csrfOf(page.body), name: 'board script', scope: 'admin' });
    assert.equal(made.status, 200, made.body.slice(0, 300));
    const secret = /id="token-secret" type="text" readonly value="([^"]+)"/.exec(made.body)?.[1];
    assert.ok(secret);
    const write = (username: string) =>
      request(base, '/api/users/', { method: 'POST', headers: { authorization: `Token ${secret}`, 'content-type': 'application/json' }, body: JSON.stringify({ username }) });
    assert.equal((await write('made-by-token')).status, 201);
    const listed = await root.get('/accounts/admin/tokens/');
    assert.doesNotMatch(listed.body, new RegExp(secret), 'the secret is shown once');
    const id = (await server.database.db.selectFrom('api_tokens').select('id').where('name', '=', 'board script').executeTakeFirstOrThrow()).id;
    const revoked = await root.post(`/accounts/admin/tokens/${id}/revoke/`, { csrfmiddlewaretoken: csrfOf(listed.body) });
    assert.equal(revoked.status, 303);
    assert.equal(revoked.headers.location, '/accounts/admin/tokens/');
    assert.equal(noticeOf((await root.get(revoked.headers.location)).body), 'The token is revoked.');
    assert.equal((await write('after-revoke')).status, 401);
    // A name taken by an active token: 422, the name kept.
    const again = await root.post('/accounts/admin/tokens/', { csrfmiddlewaretoken: csrfOf(listed.body), name: 'door-pi', scope: 'door' });
    assert.equal(again.status, 422);
    assert.match(again.body, /already exists/);
  });

  it("lists every member's personal tokens with their owner, and revokes one", async () => {
    const db = server.database.db;
    const now = Date.now() * 1000;
    const made = await db
      .insertInto('member_tokens')
      .values({ user_id: bobId, name: `laptop ${SCRIPT}`, secret_hash: 'b'.repeat(64), created_us: now, last_used_us: null, revoked_us: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    const root = await logIn(base, 'root', PASSWORD);
    const page = await root.get('/accounts/admin/tokens/');
    assert.match(page.body, /<caption>Members’ personal tokens<\/caption>/);
    assert.ok(page.body.includes(`<a href="/accounts/admin/members/${bobId}/">bob</a>`));
    assert.ok(page.body.includes('laptop &lt;script&gt;'));
    assert.ok(!page.body.includes('b'.repeat(64)), 'never the hash');
    const revoked = await root.post(`/accounts/admin/member-tokens/${made.id}/revoke/`, { csrfmiddlewaretoken: csrfOf(page.body) });
    assert.equal(revoked.status, 303);
    assert.equal(noticeOf((await root.get(revoked.headers.location as string)).body), 'The token is revoked.');
    const row = await db.selectFrom('member_tokens').select('revoked_us').where('id', '=', made.id).executeTakeFirstOrThrow();
    assert.notEqual(row.revoked_us, null);
    const again = await root.post(`/accounts/admin/member-tokens/${made.id}/revoke/`, { csrfmiddlewaretoken: csrfOf(page.body) });
    assert.equal(again.status, 404, 'a revoked token is not revoked twice');
  });

  it('refuses a form without the token, with a wrong one or from another origin: 403, nothing changed', async () => {
    const root = await logIn(base, 'root', PASSWORD);
    const page = await memberPage(root, bobId);
    const csrf = csrfOf(page.body);
    const attempts: [Record<string, string>, Record<string, string>][] = [
      [{ is_active: 'on', is_superuser: 'on' }, {}],
      [{ csrfmiddlewaretoken: 'x'.repeat(43), is_active: 'on', is_superuser: 'on' }, {}],
      [{ csrfmiddlewaretoken: csrf, is_active: 'on', is_superuser: 'on' }, { origin: 'https://evil.example' }],
    ];
    for (const [fields, headers] of attempts) {
      const res = await root.post(`/accounts/admin/members/${bobId}/`, fields, headers);
      assert.equal(res.status, 403);
      assert.match(res.body, /expired or came from another site/);
      const token = await root.post('/accounts/admin/tokens/', { ...fields, name: 'sneaky', scope: 'admin' }, headers);
      assert.equal(token.status, 403);
      const group = await root.post('/accounts/admin/groups/', { ...fields, name: 'sneaky' }, headers);
      assert.equal(group.status, 403);
    }
    assert.equal((await rightsOf(server.database.db, bobId)).superuser, false);
    assert.equal((await server.database.db.selectFrom('api_tokens').select('id').where('name', '=', 'sneaky').execute()).length, 0);
    assert.equal((await server.database.db.selectFrom('auth_groups').select('id').where('name', '=', 'sneaky').execute()).length, 0);
  });

  it('creates, renames and deletes a group; a script in its name or in a username is shown as text', async () => {
    const db = server.database.db;
    const hostile = await addMember(db, { username: `x${SCRIPT}` });
    const root = await logIn(base, 'root', PASSWORD);
    const list = await root.get('/accounts/admin/groups/');
    const created = await root.post('/accounts/admin/groups/', { csrfmiddlewaretoken: csrfOf(list.body), name: SCRIPT });
    assert.equal(created.status, 303);
    const id = Number(/^\/accounts\/admin\/groups\/(\d+)\/$/.exec(created.headers.location as string)?.[1]);
    assert.equal(noticeOf((await root.get(created.headers.location as string)).body), 'The group is created.');
    const taken = await root.post('/accounts/admin/groups/', { csrfmiddlewaretoken: csrfOf(list.body), name: 'committee' });
    assert.equal(taken.status, 422);
    assert.match(taken.body, /already exists/);
    for (const path of ['/accounts/admin/groups/', `/accounts/admin/groups/${id}/`, `/accounts/admin/members/${hostile}/`, '/accounts/admin/members/?q=script']) {
      const res = await root.get(path);
      assert.equal(res.status, 200, path);
      assert.ok(!res.body.includes(SCRIPT), `${path}: no live script`);
      assert.ok(res.body.includes('&lt;script&gt;alert(1)&lt;/script&gt;'), `${path}: shown as text`);
    }
    const edit = await root.get(`/accounts/admin/groups/${id}/`);
    const renamed = await root.post(`/accounts/admin/groups/${id}/`, { csrfmiddlewaretoken: csrfOf(edit.body), name: 'workshop', 'projects.change_project': 'on' });
    assert.equal(renamed.status, 303);
    const deleted = await root.post(`/accounts/admin/groups/${id}/delete/`, { csrfmiddlewaretoken: csrfOf(edit.body) });
    assert.equal(deleted.status, 303);
    assert.equal(noticeOf((await root.get(deleted.headers.location as string)).body), 'The group is deleted.');
    assert.equal((await db.selectFrom('auth_groups').select('id').where('id', '=', id).execute()).length, 0);
    assert.equal((await root.get(`/accounts/admin/groups/${id}/`)).status, 404);
  });

  it('searches 2,000 members by part of the name, ignoring case, 50 a page, never all of them at once', async () => {
    const db = server.database.db;
    const now = Date.now() * 1000;
    const rows = Array.from({ length: 2000 }, (_, i) => ({
      username: `Member${String(i).padStart(4, '0')}`,
      email: '',
      has_key: i % 7 === 0 ? 1 : 0,
      password: '!',
      created_us: now,
      edited_us: now,
    }));
    for (let i = 0; i < rows.length; i += 500)
      await db
        .insertInto('users')
        .values(rows.slice(i, i + 500))
        .execute();
    const root = await logIn(base, 'root', PASSWORD);
    const first = await root.get('/accounts/admin/members/?q=member');
    assert.equal(first.status, 200);
    assert.match(first.body, /2,000 members match; page 1 of 40\./);
    assert.equal(first.body.match(/<tr>\s*<th scope="row">/g)?.length, 50);
    assert.ok(first.body.includes('>Member0000<'));
    assert.ok(!first.body.includes('>Member0050<'));
    assert.ok(first.body.includes('href="/accounts/admin/members/?q=member&amp;page=2" rel="next"'));
    const second = await root.get('/accounts/admin/members/?q=member&page=2');
    assert.ok(second.body.includes('>Member0050<') && second.body.includes('rel="prev"'));
    const narrow = await root.get('/accounts/admin/members/?q=EMBER199');
    assert.match(narrow.body, /10 members match; page 1 of 1\./);
    assert.ok(!narrow.body.includes('rel="next"'));
    const none = await root.get('/accounts/admin/members/?q=nobody-here&page=abc');
    assert.equal(none.status, 200);
    assert.match(none.body, /No member matches\./);
  });
});
