/**
 * Members on the records' pages over real HTTP on the engine under test (members.md §3, §4):
 * the buttons each member may use and no others, joining and leaving a project and saying one is
 * interested in an event (through the write path: the API sees it at once, the audit names the
 * member and the web), what is refused, the lists (/projects/, /events/, /events/talks/), the
 * members' dashboard, the original's addresses (and its GET links that change nothing here), and
 * pages built for one member reaching nobody else through the cache.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { importRecords } from '../src/installed-apps.js';
import { createGroup, grantRights, setGroupRights, setMemberGroups } from '../src/apps/users/rights.js';
import { event, meeting, project } from './support/contract.js';
import { request, type HttpResponse } from './support/http.js';
import { addMember, Browser, csrfOf, logIn, noticeOf, TEST_ITERATIONS } from './support/members.js';
import { startServer, type TestServer } from './support/server.js';

const PASSWORD = 'correct horse battery';
const PRIVATE = 'private, no-store';
const DAY_MS = 86_400_000;

/** An instant `days` from now, as the original's fixtures write times. */
function daysFromNow(days: number): string {
  return new Date(Date.now() + days * DAY_MS).toISOString();
}

/** What a record page offers: each POST form as `POST <action>` and each link of its actions as `GET <href>`, sorted. */
function actionsOf(page: string): string[] {
  const sections = [...page.matchAll(/<section class="record-actions"[\s\S]*?<\/section>/g)].map((m) => m[0]).join('');
  const posts = [...sections.matchAll(/<form method="post" action="([^"]*)"/g)].map((m) => `POST ${m[1]}`);
  const links = [...sections.matchAll(/<a class="button" href="([^"]*)"/g)].map((m) => `GET ${m[1].replace(/&amp;/g, '&')}`);
  return [...posts, ...links].sort();
}

/** The name in the navigation's member element, or null for a visitor's page. */
function memberShown(page: string): string | null {
  return /id="member"[^>]*>([^<]*)</.exec(page)?.[1] ?? null;
}

describe('members on the records’ pages', () => {
  let server: TestServer;
  let base: string;
  const ids: Record<string, number> = {};
  const browsers: Record<string, Browser> = {};

  before(async () => {
    server = await startServer({ env: { PASSWORD_ITERATIONS: String(TEST_ITERATIONS) } });
    base = server.base;
    const db = server.database.db;
    for (const name of ['alice', 'bob', 'carol', 'root', 'dave']) ids[name] = await addMember(db, { username: name, password: PASSWORD, superuser: name === 'root' });
    // carol: the project rights through a group, and deleting meetings directly.
    const committee = await createGroup(db, 'committee');
    await setGroupRights(db, committee, ['projects.change_project', 'projects.delete_project']);
    await setMemberGroups(db, ids.carol, [committee]);
    await grantRights(db, ids.carol, ['events.delete_meeting']);
    const { alice, bob, root } = ids;
    await db
      .transaction()
      .execute((trx) =>
        importRecords(trx, [
          project(1, alice, { title: 'Laser cutter', participants: [bob], status: 'i' }),
          project(2, root, { title: 'Bike repair', status: 'p' }),
          event(1, daysFromNow(3), daysFromNow(3.1), { title: 'Soldering night', organizer: alice, is_talk: true }),
          event(2, daysFromNow(-10), daysFromNow(-9.9), { title: 'General assembly', organizer: root }),
          event(3, daysFromNow(5), null, { title: 'Hackathon', organizer: root, status: 'i' }),
          event(4, null, null, { title: 'Someday', organizer: root }),
          meeting(1, 2, { OJ: 'Budget' }),
        ]),
      );
    for (const name of ['alice', 'bob', 'carol', 'root', 'dave']) browsers[name] = await logIn(base, name, PASSWORD);
  });

  after(() => server?.close());

  async function apiRecord(path: string): Promise<unknown> {
    const res = await request(base, path);
    assert.equal(res.status, 200, path);
    return res.json();
  }

  async function auditOf(username: string) {
    return server.database.db
      .selectFrom('audit_log')
      .select(['method', 'path', 'collection', 'record_id', 'status'])
      .where('token_name', '=', `web: ${username}`)
      .orderBy('id')
      .execute();
  }

  async function postButton(who: string, page: string, action: string, fields: Record<string, string> = {}): Promise<HttpResponse> {
    const browser = browsers[who];
    const shown = await browser.get(page);
    return browser.post(action, { csrfmiddlewaretoken: csrfOf(shown.body), ...fields });
  }

  it('shows a visitor no button, a way to log in and back, on the shared page the cache keeps', async () => {
    for (const [path, purpose] of [
      ['/projects/1/', 'to take part in this project'],
      ['/events/1/', 'to say you are interested'],
    ]) {
      const res = await request(base, path);
      assert.equal(res.status, 200, path);
      assert.notEqual(res.headers['cache-control'], PRIVATE);
      assert.deepEqual(actionsOf(res.body), [], path);
      assert.ok(res.body.includes(`<a href="/accounts/login/?next=${encodeURIComponent(path)}">Log in</a> ${purpose}.`), path);
      assert.ok(!res.body.includes('csrfmiddlewaretoken'), `${path}: no form token on a visitor's page`);
    }
    const meetingPage = await request(base, '/meetings/1/');
    assert.deepEqual(actionsOf(meetingPage.body), []);
    assert.ok(!(await request(base, '/events/1/')).body.includes('<dt>Interested</dt>'), 'who is interested is shown to members only');
  });

  it('shows each member the buttons their rights allow (members.md §3), and no others', async () => {
    // Computed from §3: joining and interest for every active member; editing with the right or as maintainer or organizer; deleting with the right only.
    const expected: [string, string, string[]][] = [
      ['alice', '/projects/1/', ['POST /projects/1/join/', 'GET /projects/1/edit/']],
      ['bob', '/projects/1/', ['POST /projects/1/leave/']],
      ['carol', '/projects/1/', ['POST /projects/1/join/', 'GET /projects/1/edit/', 'GET /projects/1/delete/']],
      ['root', '/projects/1/', ['POST /projects/1/join/', 'GET /projects/1/edit/', 'GET /projects/1/delete/']],
      ['alice', '/events/1/', ['POST /events/1/interested/', 'GET /events/1/edit/', 'GET /meetings/new/?event=1']],
      ['bob', '/events/1/', ['POST /events/1/interested/']],
      ['carol', '/events/1/', ['POST /events/1/interested/']],
      ['root', '/events/1/', ['POST /events/1/interested/', 'GET /events/1/edit/', 'GET /events/1/delete/', 'GET /meetings/new/?event=1']],
      // Event 2 has its meeting already: no "add" on its page.
      ['root', '/events/2/', ['POST /events/2/interested/', 'GET /events/2/edit/', 'GET /events/2/delete/']],
      ['alice', '/meetings/1/', []],
      ['carol', '/meetings/1/', ['GET /meetings/1/delete/']],
      ['root', '/meetings/1/', ['GET /meetings/1/edit/', 'GET /meetings/1/delete/']],
    ];
    for (const [who, path, actions] of expected) {
      const res = await browsers[who].get(path);
      assert.equal(res.status, 200, `${who} ${path}`);
      assert.equal(res.headers['cache-control'], PRIVATE, `${who} ${path}`);
      assert.deepEqual(actionsOf(res.body), [...actions].sort(), `${who} on ${path}`);
    }
    // An account deactivated while logged in is a visitor again: the shared page, no button.
    await server.database.db.updateTable('users').set({ is_active: 0 }).where('id', '=', ids.dave).execute();
    const inactive = await browsers.dave.get('/projects/1/');
    assert.equal(memberShown(inactive.body), null);
    assert.deepEqual(actionsOf(inactive.body), []);
  });

  it('joins and leaves a project through the write path: 303 back with a confirmation, the API sees it at once, one audit entry per change', async () => {
    const carolUrl = `/api/users/${ids.carol}/`;
    const participants = async () => ((await apiRecord('/api/projects/2/')) as { participants: string[] }).participants.filter((url) => url.includes(carolUrl));
    assert.deepEqual(await participants(), [], 'read once: the API has it cached');
    const joined = await postButton('carol', '/projects/2/', '/projects/2/join/');
    assert.equal(joined.status, 303);
    assert.equal(joined.headers.location, '/projects/2/');
    assert.equal((await participants()).length, 1, 'the API lists her at once');
    const page = await browsers.carol.get(joined.headers.location);
    assert.equal(page.headers['cache-control'], PRIVATE);
    assert.equal(noticeOf(page.body), 'You take part in this project.');
    assert.deepEqual(actionsOf(page.body), ['GET /projects/2/delete/', 'GET /projects/2/edit/', 'POST /projects/2/leave/']);
    assert.equal(noticeOf((await browsers.carol.get('/projects/2/')).body), null, 'the notice is shown once');
    const visitors = await request(base, '/projects/2/');
    assert.match(visitors.body, new RegExp(`<a href="/members/${ids.carol}/">carol</a>`), "the visitors' page lists her at once");
    assert.equal(noticeOf(visitors.body), null);
    // The same form posted twice: nothing more.
    assert.equal((await postButton('carol', '/projects/2/', '/projects/2/join/')).status, 303);
    assert.equal((await participants()).length, 1);
    const left = await postButton('carol', '/projects/2/', '/projects/2/leave/');
    assert.equal(left.headers.location, '/projects/2/');
    assert.equal(noticeOf((await browsers.carol.get('/projects/2/')).body), 'You no longer take part in this project.');
    assert.deepEqual(await participants(), []);
    assert.deepEqual(await auditOf('carol'), [
      { method: 'POST', path: '/projects/2/join/', collection: 'projects', record_id: 2, status: 303 },
      { method: 'POST', path: '/projects/2/leave/', collection: 'projects', record_id: 2, status: 303 },
    ]);
  });

  it('says a member is interested in an event and takes it back; members see who is, the API’s event record is unchanged', async () => {
    const before = await apiRecord('/api/events/1/');
    const interested = await postButton('bob', '/events/1/', '/events/1/interested/', { interested: 'yes' });
    assert.equal(interested.status, 303);
    assert.equal(interested.headers.location, '/events/1/');
    const page = (await browsers.bob.get(interested.headers.location)).body;
    assert.equal(noticeOf(page), 'You are interested in this event.');
    assert.match(page, new RegExp(`<dt>Interested</dt><dd><a href="/members/${ids.bob}/">bob</a></dd>`));
    assert.match(page, /<input type="hidden" name="interested" value="no"><button type="submit">I am no longer interested<\/button>/);
    assert.match((await browsers.alice.get('/events/1/')).body, new RegExp(`<dt>Interested</dt><dd><a href="/members/${ids.bob}/">bob</a></dd>`), 'another member sees it');
    // "yes" twice stays yes; without the field it toggles.
    assert.equal((await postButton('bob', '/events/1/', '/events/1/interested/', { interested: 'yes' })).status, 303);
    assert.equal(noticeOf((await browsers.bob.get('/events/1/')).body), 'You are interested in this event.');
    const toggled = await postButton('bob', '/events/1/', '/events/1/interested/');
    assert.equal(toggled.headers.location, '/events/1/');
    const untoggled = (await browsers.bob.get('/events/1/')).body;
    assert.equal(noticeOf(untoggled), 'You are no longer interested in this event.');
    assert.match(untoggled, /<dt>Interested<\/dt><dd>none<\/dd>/);
    assert.deepEqual(await apiRecord('/api/events/1/'), before);
    assert.deepEqual(await auditOf('bob'), [
      { method: 'POST', path: '/events/1/interested/', collection: 'events', record_id: 1, status: 303 },
      { method: 'POST', path: '/events/1/interested/', collection: 'events', record_id: 1, status: 303 },
    ]);
  });

  it('shows a notice only on a page built for a member: the visitors’ page the cache keeps never carries one, whatever the cookies or the query', async () => {
    const visitor = new Browser(base);
    visitor.cookies.set('notice', 'joined');
    for (let i = 0; i < 2; i++) {
      const shared = await visitor.get('/projects/2/');
      assert.equal(shared.status, 200);
      assert.notEqual(shared.headers['cache-control'], PRIVATE, 'the shared page');
      assert.equal(noticeOf(shared.body), null, `a visitor with a notice cookie, request ${i + 1}`);
    }
    assert.equal(noticeOf((await request(base, '/projects/2/')).body), null, 'another visitor');
    assert.equal(noticeOf((await browsers.alice.get('/projects/2/?done=joined')).body), null, 'the query says nothing');
    browsers.alice.cookies.set('notice', 'no-such-notice');
    assert.equal(noticeOf((await browsers.alice.get('/projects/2/')).body), null, 'a code of no notice');
    assert.ok(!browsers.alice.cookies.has('notice'), 'removed all the same');
  });

  it('refuses, changing nothing: a visitor (sent to log in, then to the record), no or a wrong token, another origin, a GET, an unknown record', async () => {
    const project1 = await apiRecord('/api/projects/1/');
    const visitor = await new Browser(base).post('/projects/1/join/', {});
    assert.equal(visitor.status, 303);
    assert.equal(visitor.headers.location, `/accounts/login/?next=${encodeURIComponent('/projects/1/')}`);
    const inactive = await browsers.dave.post('/projects/1/join/', {});
    assert.equal(inactive.status, 303, 'an inactive account is a visitor');
    assert.equal(inactive.headers.location, `/accounts/login/?next=${encodeURIComponent('/projects/1/')}`);
    const token = csrfOf((await browsers.alice.get('/projects/1/')).body);
    assert.equal((await browsers.alice.post('/projects/1/join/', {})).status, 403, 'no token');
    assert.equal(
      (await browsers.alice.post('/projects/1/join/', { csrfmiddlewaretoken: csrfOf((await browsers.bob.get('/projects/1/')).body) })).status,
      403,
      "another member's token",
    );
    assert.equal((await browsers.alice.post('/projects/1/join/', { csrfmiddlewaretoken: token }, { origin: 'https://evil.example' })).status, 403, 'another origin');
    const get = await browsers.alice.get('/projects/1/join/');
    assert.equal(get.status, 405);
    assert.equal(get.headers.allow, 'POST');
    assert.equal((await browsers.alice.post('/projects/999/join/', { csrfmiddlewaretoken: token })).status, 404);
    assert.equal((await browsers.alice.post('/events/999/interested/', { csrfmiddlewaretoken: token })).status, 404);
    assert.deepEqual(await apiRecord('/api/projects/1/'), project1);
    assert.deepEqual(await auditOf('alice'), []);
  });

  it('lists every project by status, and the events to come, being prepared and past, and the talks; "New …" for those who may add', async () => {
    const projects = await request(base, '/projects/');
    assert.equal(projects.status, 200);
    assert.notEqual(projects.headers['cache-control'], PRIVATE);
    assert.match(projects.body, /<h2>In progress <span class="count">\(1\)<\/span><\/h2>\n<ul class="cards"><li class="card"><a href="\/projects\/1\/">Laser cutter<\/a>/);
    assert.match(projects.body, /<h2>Proposed <span class="count">\(1\)<\/span><\/h2>\n<ul class="cards"><li class="card"><a href="\/projects\/2\/">Bike repair<\/a>/);
    const events = await request(base, '/events/');
    assert.equal(events.status, 200);
    const order = [...events.body.matchAll(/<h2 id="(\w+)-heading">|<li><a href="\/events\/(\d+)\/">/g)].map((m) => m[1] ?? Number(m[2]));
    assert.deepEqual(order, ['upcoming', 1, 4, 'incubating', 3, 'past', 2]);
    const talks = await request(base, '/events/talks/');
    assert.equal(talks.status, 200);
    assert.deepEqual(
      [...talks.body.matchAll(/<li><a href="\/events\/(\d+)\/">/g)].map((m) => Number(m[1])),
      [1],
    );
    for (const path of ['/projects/', '/events/', '/events/talks/']) {
      assert.ok(!(await request(base, path)).body.includes('class="button"'), `${path}: nothing to add for a visitor`);
      const newLink = path === '/projects/' ? '<a class="button" href="/projects/new/">New project</a>' : '<a class="button" href="/events/new/">New event</a>';
      for (const [who, may] of [
        ['root', true],
        ['carol', false],
        ['bob', false],
      ] as const) {
        const res = await browsers[who].get(path);
        assert.equal(res.headers['cache-control'], PRIVATE);
        assert.equal(res.body.includes(newLink), may, `${who} on ${path}`);
      }
    }
    await grantRights(server.database.db, ids.bob, ['events.add_event']);
    assert.ok((await browsers.bob.get('/events/')).body.includes('<a class="button" href="/events/new/">New event</a>'), 'a right granted counts at once');
  });

  it('shows a member their projects and the events to come they are interested in, on their own dashboard only', async () => {
    await postButton('bob', '/events/1/', '/events/1/interested/', { interested: 'yes' });
    await postButton('bob', '/events/2/', '/events/2/interested/', { interested: 'yes' });
    const mine = (await browsers.bob.get('/')).body;
    const section = /<section class="mine"[\s\S]*?<\/section>\n<\/div>\n<\/section>/.exec(mine)?.[0] ?? '';
    assert.deepEqual(
      [...section.matchAll(/<a href="\/(projects|events)\/(\d+)\/">/g)].map((m) => `${m[1]} ${m[2]}`),
      ['projects 1', 'events 1'],
      'his project (a participant), the event to come (not the past one)',
    );
    const alices = (await browsers.alice.get('/')).body;
    assert.match(alices, /<h3 id="my-projects-heading">Your projects<\/h3>\n<ul><li><a href="\/projects\/1\/">Laser cutter<\/a>/, 'the project she maintains');
    assert.match(alices, /Events you are interested in<\/h3>\n<p>None to come\./);
    const visitor = await request(base, '/');
    assert.ok(!visitor.body.includes('class="mine"'));
    assert.notEqual(visitor.headers['cache-control'], PRIVATE);
  });

  it('walks every old address of members.md §4 to where it lands, the query kept', async () => {
    const walk: [string, string][] = [
      ['/accounts/alice', `/members/${ids.alice}/`],
      ['/accounts/ALICE', `/members/${ids.alice}/`],
      ['/accounts/profile', '/accounts/profile/'],
      ['/accounts/edit', '/accounts/profile/'],
      ['/accounts/passwd/', '/accounts/password/'],
      ['/auth/login/', '/accounts/login/'],
      ['/auth/password_reset/', '/accounts/password/reset/'],
      ['/projects/1', '/projects/1/'],
      ['/events/1', '/events/1/'],
      ['/projects/add', '/projects/new/'],
      ['/projects/edit/1', '/projects/1/edit/'],
      ['/events/add', '/events/new/'],
      ['/events/edit/1', '/events/1/edit/'],
      ['/events/add_meeting/1', '/meetings/new/?event=1'],
      ['/events/edit_meeting/1', '/meetings/1/edit/'],
      ['/projects/participe/2', '/projects/2/'],
      ['/projects/noparticipe/1', '/projects/1/'],
      ['/events/interested/1', '/events/1/'],
      ['/events/not_interested/1', '/events/1/'],
    ];
    // The forms' pages (/…/new/, /…/edit/) are another part of issue 28: here only where they lead.
    const landsHere = (to: string) => !/\/(new|edit)\//.test(to);
    for (const [from, to] of walk) {
      for (const query of ['', '?from=wiki&x=%C3%A9']) {
        const res = await request(base, from + query);
        assert.equal(res.status, 301, from + query);
        const expected = to + (query === '' ? '' : (to.includes('?') ? '&' : '?') + query.slice(1));
        assert.equal(res.headers.location, expected, from + query);
      }
      if (landsHere(to)) assert.equal((await browsers.root.get(to)).status, 200, `${from} lands on ${to}`);
    }
    // Our own pages keep their address; an unknown member, or an id that is none, is not found.
    assert.equal((await request(base, '/accounts/login')).headers.location, '/accounts/login/');
    assert.equal((await request(base, '/accounts/nobody')).status, 404);
    assert.equal((await request(base, '/projects/edit/0')).status, 404);
  });

  it('changes nothing on a GET of the original’s join and interest links: the record’s page, with its button', async () => {
    const before = await Promise.all(['/api/projects/1/', '/api/projects/2/', '/api/events/1/'].map(apiRecord));
    const interest = () => server.database.db.selectFrom('event_interested').selectAll().orderBy('event_id').orderBy('user_id').execute();
    const interestBefore = await interest();
    const auditBefore = await server.database.db.selectFrom('audit_log').select('id').execute();
    for (const [path, button] of [
      ['/projects/participe/2', 'POST /projects/2/join/'],
      ['/projects/noparticipe/1', 'POST /projects/1/leave/'],
      ['/events/interested/1', 'POST /events/1/interested/'],
      ['/events/not_interested/1', 'POST /events/1/interested/'],
    ]) {
      const redirect = await browsers.bob.get(path);
      assert.equal(redirect.status, 301);
      const landed = await browsers.bob.get(redirect.headers.location!);
      assert.ok(actionsOf(landed.body).includes(button), `${path}: the page offers ${button}`);
    }
    assert.deepEqual(await Promise.all(['/api/projects/1/', '/api/projects/2/', '/api/events/1/'].map(apiRecord)), before);
    assert.deepEqual(await interest(), interestBefore);
    assert.equal((await server.database.db.selectFrom('audit_log').select('id').execute()).length, auditBefore.length);
  });

  it('pages built for a member reach neither a visitor nor another member through the cache', async () => {
    const paths = ['/projects/1/', '/events/1/', '/meetings/1/', '/projects/', '/events/', '/'];
    for (const path of paths) {
      const roots = await browsers.root.get(path);
      assert.equal(memberShown(roots.body), 'root', path);
      for (let i = 0; i < 2; i++) {
        const visitor = await request(base, path);
        assert.equal(memberShown(visitor.body), null, `${path}, visitor ${i}`);
        assert.ok(!visitor.body.includes('csrfmiddlewaretoken') && !/\/(edit|delete|new)\//.test(visitor.body), `${path}: no member's button for a visitor`);
        // Presenting the member's validator gets the visitors' page, not a 304.
        const conditional = await request(base, path, { headers: { 'if-none-match': String(roots.headers.etag) } });
        assert.equal(conditional.status, 200, `${path}: the member's ETag is not the visitors'`);
      }
      const bobs = await browsers.bob.get(path);
      assert.equal(memberShown(bobs.body), 'bob', path);
      assert.ok(!/\/(edit|delete)\//.test(bobs.body), `${path}: root's buttons do not reach bob`);
    }
  });
});
