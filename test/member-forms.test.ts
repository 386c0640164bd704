/**
 * The members' forms for projects, events and meetings over real HTTP on the engine under test
 * (members.md §3, §4, §6): who may open and post each form (each of the nine rights granted
 * directly and through a group, the maintainer, the organizer, a superuser, a member without
 * rights, an inactive account), the API's validation and messages by the fields, typed values
 * kept, members found by name among 2,000, the Markdown preview, the conflict of an edit posted
 * twice and of two members saving at once, the local times of TIME_ZONE (the DST hours refused,
 * the instant exact), the deletion, and the write reaching the API, the cached pages and the audit
 * as the member's on the web.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { Db } from '../src/db/connection.js';
import { createGroup, grantRights, setGroupRights, setMemberGroups, type Right } from '../src/apps/users/rights.js';
import { listAudit } from '../src/resources/audit.js';
import { createToken } from '../src/resources/tokens.js';
import { localInstant } from '../src/time.js';
import { doorPost } from './support/door.js';
import { idOf, request, type HttpResponse } from './support/http.js';
import { addMember, Browser, csrfOf, logIn, SPEC_RIGHTS, TEST_ITERATIONS } from './support/members.js';
import { startServer, type TestServer } from './support/server.js';
import { dataOf, openStream } from './support/sse.js';

const PASSWORD = 'correct horse battery';
const ZONE = 'Europe/Brussels';
const SCRIPT = '<script>alert("x")</script>';

/** The nine rights of members.md §3. */
const NINE: readonly Right[] = SPEC_RIGHTS;

type Form = 'new project' | 'edit project' | 'delete project' | 'new event' | 'edit event' | 'delete event' | 'new meeting' | 'edit meeting' | 'delete meeting';
const FORMS: readonly Form[] = ['new project', 'edit project', 'delete project', 'new event', 'edit event', 'delete event', 'new meeting', 'edit meeting', 'delete meeting'];

/** What each form requires (members.md §3 and §4's table): a right, or being the maintainer or organizer where the spec says so. */
const REQUIRES: Readonly<Record<Form, { right: Right; alsoBy: 'maintainer' | 'organizer' | null }>> = {
  'new project': { right: 'projects.add_project', alsoBy: null },
  'edit project': { right: 'projects.change_project', alsoBy: 'maintainer' },
  'delete project': { right: 'projects.delete_project', alsoBy: null },
  'new event': { right: 'events.add_event', alsoBy: null },
  'edit event': { right: 'events.change_event', alsoBy: 'organizer' },
  'delete event': { right: 'events.delete_event', alsoBy: null },
  'new meeting': { right: 'events.add_meeting', alsoBy: 'organizer' },
  'edit meeting': { right: 'events.change_meeting', alsoBy: 'organizer' },
  'delete meeting': { right: 'events.delete_meeting', alsoBy: null },
};

/** The value attribute of the input named `name`, as the HTML shows it. */
function inputValue(page: string, name: string): string | undefined {
  return new RegExp(`<input[^>]*name="${name}"[^>]*value="([^"]*)"`).exec(page)?.[1];
}

/** The text of a field's message (`<span id="NAME-error">`). */
function fieldMessage(page: string, name: string): string | undefined {
  return new RegExp(`<span class="form-error" id="${name}-error">([^<]*)</span>`).exec(page)?.[1];
}

function unescape(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

function assertStatus(res: HttpResponse, status: number, what: string): void {
  assert.equal(res.status, status, `${what}: ${res.status} ${res.headers.location ?? ''} ${res.body.slice(0, 400)}`);
}

describe('members’ forms for projects, events and meetings', () => {
  let server: TestServer;
  let db: Db;
  let base: string;
  let admin: string;
  const api = (path: string) => `${base}/api/${path}`;

  async function apiCall(method: string, path: string, json?: unknown): Promise<HttpResponse> {
    const headers: Record<string, string> = { authorization: `Token ${admin}` };
    if (json !== undefined) headers['content-type'] = 'application/json';
    return request(base, path, { method, headers, body: json === undefined ? undefined : JSON.stringify(json) });
  }

  async function created(path: string, json: unknown): Promise<number> {
    const res = await apiCall('POST', path, json);
    assertStatus(res, 201, `POST ${path}`);
    return (res.json() as { id: number }).id;
  }

  const newProject = (maintainer: number, title = 'Laser cutter') =>
    created('/api/projects/', { title, maintainer: api(`users/${maintainer}/`), status: 'p', progress: 0, short_description: 'Cut things' });
  const newEvent = (organizer: number | null, title = 'Workshop') =>
    created('/api/events/', { title, status: 'r', organizer: organizer === null ? null : api(`users/${organizer}/`) });
  const newMeeting = async (organizer: number | null) => created('/api/meetings/', { event: api(`events/${await newEvent(organizer, 'General assembly')}/`) });

  let nextMember = 0;
  async function member(extra: { superuser?: boolean; active?: boolean } = {}): Promise<{ id: number; username: string; browser: Browser }> {
    const username = `member${++nextMember}`;
    const id = await addMember(db, { username, password: PASSWORD, superuser: extra.superuser });
    const browser = await logIn(base, username, PASSWORD);
    if (extra.active === false) await db.updateTable('users').set({ is_active: 0 }).where('id', '=', id).execute();
    return { id, username, browser };
  }

  before(async () => {
    server = await startServer({ env: { PASSWORD_ITERATIONS: String(TEST_ITERATIONS), TIME_ZONE: ZONE } });
    base = server.base;
    db = server.database.db;
    admin = (await createToken(db, 'admin', 'admin', Date.now() * 1000)).secret;
  });

  after(async () => {
    await server?.close();
  });

  it('sends a visitor to the login page with next, and answers 404 for an unknown record', async () => {
    const visitor = new Browser(base);
    for (const path of ['/projects/new/', '/events/new/', '/meetings/new/?event=1', '/projects/1/edit/', '/events/1/delete/']) {
      const res = await visitor.get(path);
      assertStatus(res, 303, path);
      assert.equal(res.headers.location, `/accounts/login/?next=${encodeURIComponent(path)}`, path);
    }
    const root = await member({ superuser: true });
    for (const path of ['/projects/999999/edit/', '/events/999999/delete/', '/meetings/999999/edit/', '/projects/x/edit/', '/meetings/new/?event=999999', '/meetings/new/']) {
      const res = await root.browser.get(path);
      assertStatus(res, 404, path);
      assert.equal(res.headers['cache-control'], 'private, no-store', path);
    }
  });

  describe('the project form', () => {
    let alice: { id: number; username: string; browser: Browser };
    let chooser: { id: number; username: string; browser: Browser };
    before(async () => {
      alice = await member();
      await grantRights(db, alice.id, ['projects.add_project', 'projects.delete_project']);
      chooser = await member();
      await grantRights(db, chooser.id, ['projects.add_project', 'projects.change_project']);
      // 2,000 members to choose from: nobody gets them all as checkboxes.
      const now = Date.now() * 1000;
      const rows = Array.from({ length: 2000 }, (_, i) => ({
        username: `crowd${String(i).padStart(4, '0')}`,
        email: `crowd${i}@example.org`,
        has_key: 0,
        password: '!',
        is_superuser: 0,
        is_active: 1,
        created_us: now,
        edited_us: now,
      }));
      for (let i = 0; i < rows.length; i += 400)
        await db
          .insertInto('users')
          .values(rows.slice(i, i + 400))
          .execute();
    });

    it('refuses what the API refuses, with the API’s messages by their fields, the typed values kept: 422, nothing saved', async () => {
      const typed = { title: '   ', maintainer: `/api/users/${alice.id}/`, status: 'z', progress: '101', short_description: SCRIPT, content: 'kept *content*' };
      const before = (await apiCall('GET', '/api/projects/')).json() as { count: number };
      const res = await alice.browser.submit('/projects/new/', typed);
      assertStatus(res, 422, 'invalid project');
      assert.equal(res.headers['cache-control'], 'private, no-store');
      // The API's answer to the same fields, as JSON.
      const apiAnswer = await apiCall('POST', '/api/projects/', { ...typed, maintainer: api(`users/${alice.id}/`), progress: 101 });
      assertStatus(apiAnswer, 400, 'the API on the same fields');
      const messages = apiAnswer.json() as Record<string, string[]>;
      assert.deepEqual(Object.keys(messages).sort(), ['progress', 'status', 'title']);
      for (const [name, texts] of Object.entries(messages)) {
        assert.equal(unescape(fieldMessage(res.body, name) ?? ''), texts.join(' '), `the message by ${name}`);
        assert.match(res.body, new RegExp(`aria-describedby="${name}-error"`), name);
      }
      assert.equal(inputValue(res.body, 'progress'), '101');
      assert.match(res.body, /<textarea id="content" name="content"[^>]*>kept \*content\*<\/textarea>/);
      assert.ok(res.body.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'), 'the typed script kept, as text');
      assert.ok(!res.body.includes(SCRIPT), 'no live script');
      const afterwards = (await apiCall('GET', '/api/projects/')).json() as { count: number };
      assert.equal(afterwards.count, before.count, 'nothing saved');
    });

    it('saves through the one write path: 303 to the project’s page with a notice shown once, the API and the audit at once', async () => {
      const bob = await member();
      const fields = { title: 'Plotter', maintainer: `/api/users/${bob.id}/`, status: 'i', progress: '30', short_description: 'Draws', content: '# Plan' };
      const listed = await apiCall('GET', '/api/projects/'); // fills the API's cache
      assertStatus(listed, 200, 'list');
      const res = await alice.browser.post('/projects/new/', [
        ['csrfmiddlewaretoken', csrfOf((await alice.browser.get('/projects/new/')).body)],
        ...Object.entries(fields),
        ['participants', `/api/users/${alice.id}/`],
        ['participants', `/api/users/${bob.id}/`],
      ]);
      assertStatus(res, 303, 'saved');
      const id = Number(/^\/projects\/(\d+)\/$/.exec(res.headers.location ?? '')?.[1]);
      assert.ok(id > 0, res.headers.location);
      const record = (await apiCall('GET', `/api/projects/${id}/`)).json() as Record<string, unknown>;
      // A member without change_project makes themselves the maintainer (members.md §4), whatever the form says.
      assert.deepEqual(record, {
        id,
        title: 'Plotter',
        maintainer: api(`users/${alice.id}/`),
        // In their usernames' order, as the API lists them.
        participants: [alice, bob].sort((a, b) => (a.username < b.username ? -1 : 1)).map((m) => api(`users/${m.id}/`)),
        status: 'i',
        progress: 30,
        short_description: 'Draws',
        content: '# Plan',
      });
      const list = (await apiCall('GET', '/api/projects/')).json() as { count: number };
      assert.equal(list.count, (listed.json() as { count: number }).count + 1, 'the cached list sees it at once');
      const page = await alice.browser.get(`/projects/${id}/`);
      assertStatus(page, 200, 'the project page');
      assert.equal(page.headers['cache-control'], 'private, no-store');
      assert.match(page.body, /<p class="notice" role="status" id="notice">The project is created\.<\/p>/);
      const again = await alice.browser.get(`/projects/${id}/`);
      assert.ok(!again.body.includes('id="notice"'), 'the notice is shown once');
      const visitor = await request(base, `/projects/${id}/`);
      assert.ok(visitor.body.includes('Plotter') && !visitor.body.includes('id="notice"'), 'a visitor sees the project, not the notice');
      const [entry] = await listAudit(db, 1);
      assert.deepEqual(
        { name: entry.tokenName, method: entry.method, path: entry.path, collection: entry.collection, record: entry.recordId, token: entry.tokenId, status: entry.status },
        { name: `web: ${alice.username}`, method: 'POST', path: '/projects/new/', collection: 'projects', record: id, token: null, status: 303 },
      );
    });

    it('lets one who holds change_project choose the maintainer', async () => {
      const res = await chooser.browser.submit('/projects/new/', { title: 'Given', maintainer: `/api/users/${alice.id}/`, status: 'p', progress: '0', short_description: 'S' });
      assertStatus(res, 303, 'saved');
      const record = (await request(base, `/api${res.headers.location}`)).json() as { maintainer: string };
      assert.equal(record.maintainer, api(`users/${alice.id}/`));
      const form = await alice.browser.get('/projects/new/');
      assert.ok(!/type="radio" name="maintainer"/.test(form.body), 'no choice for a member without change_project');
      assert.match((await chooser.browser.get('/projects/new/')).body, /type="radio" name="maintainer" value="\/api\/users\/\d+\/" checked/);
    });

    it('finds members by name among 2,000 (Find, or Enter in the box), keeping everything typed, listing a few at a time', async () => {
      const typed = { title: 'Typed title', maintainer: `/api/users/${chooser.id}/`, status: 'p', progress: '7', short_description: 'S', content: 'C' };
      const page = await chooser.browser.get('/projects/new/');
      assert.ok((page.body.match(/type="checkbox"/g) ?? []).length < 5, 'no list of every member');
      const found = await chooser.browser.post('/projects/new/', { csrfmiddlewaretoken: csrfOf(page.body), ...typed, participants_find: 'CROWD01', action: 'find:participants' });
      assertStatus(found, 200, 'find');
      const boxes = [...found.body.matchAll(/<input type="checkbox" name="participants" value="\/api\/users\/(\d+)\/"( checked)?> (\w+)</g)];
      assert.equal(boxes.length, 20, 'the first 20 matches');
      assert.ok(boxes.every(([, , checked, name]) => checked === undefined && name.startsWith('crowd01')));
      assert.match(found.body, /type more to narrow it/);
      assert.equal(inputValue(found.body, 'title'), 'Typed title');
      assert.equal(inputValue(found.body, 'progress'), '7');
      // Enter in the search box sends the form with its first button (Save): a filled box still means a search, nothing saved.
      const ticked = `/api/users/${boxes[3][1]}/`;
      const entered = await chooser.browser.post('/projects/new/', [
        ['csrfmiddlewaretoken', csrfOf(found.body)],
        ...Object.entries(typed),
        ['participants', ticked],
        ['participants_find', 'crowd1999'],
        ['action', 'save'],
      ]);
      assertStatus(entered, 200, 'Enter in the search box');
      assert.match(entered.body, new RegExp(`value="${ticked}" checked> crowd01`), 'the ticked member stays chosen');
      assert.match(entered.body, /value="\/api\/users\/\d+\/"> crowd1999</);
      const saved = await chooser.browser.post('/projects/new/', [
        ['csrfmiddlewaretoken', csrfOf(entered.body)],
        ...Object.entries(typed),
        ['participants', ticked],
        ['action', 'save'],
      ]);
      assertStatus(saved, 303, 'saved after the search');
      const record = (await request(base, `/api${saved.headers.location}`)).json() as { participants: string[] };
      assert.deepEqual(record.participants, [api(ticked.slice('/api/'.length))]);
    });

    it('previews the Markdown with the pages’ renderer, script inert, saving nothing', async () => {
      const page = await alice.browser.get('/projects/new/');
      const res = await alice.browser.post('/projects/new/', {
        csrfmiddlewaretoken: csrfOf(page.body),
        title: 'P',
        status: 'p',
        progress: '0',
        short_description: 'S',
        content: `## Steps\n\n*one* ${SCRIPT} [x](javascript:alert(1))`,
        action: 'preview',
      });
      assertStatus(res, 200, 'preview');
      const preview = /<section class="preview"[\s\S]*?<\/section>/.exec(res.body)?.[0] ?? '';
      assert.match(preview, /<h\d>Steps<\/h\d>/);
      assert.match(preview, /<em>one<\/em>/);
      assert.ok(preview.includes('&lt;script&gt;') && !preview.includes('<script>') && !preview.includes('href="javascript'), preview);
      assert.match(res.body, /<textarea id="content"[^>]*>## Steps/);
    });

    it('an edit posted twice: the second is the conflict (409), the differences shown, what was typed kept, nothing overwritten', async () => {
      const id = await newProject(alice.id, 'Original');
      const page = await alice.browser.get(`/projects/${id}/edit/`);
      assertStatus(page, 200, 'edit page');
      const fields = {
        csrfmiddlewaretoken: csrfOf(page.body),
        version: inputValue(page.body, 'version')!,
        title: 'First save',
        maintainer: `/api/users/${alice.id}/`,
        status: 'p',
        progress: '10',
        short_description: 'Cut things',
      };
      assertStatus(await alice.browser.post(`/projects/${id}/edit/`, fields), 303, 'first');
      const second = await alice.browser.post(`/projects/${id}/edit/`, { ...fields, title: 'Second save' });
      assertStatus(second, 409, 'second');
      assert.match(second.body, /<tr><th scope="row">Title<\/th><td>First save<\/td><td>Second save<\/td><\/tr>/);
      assert.equal(inputValue(second.body, 'title'), 'Second save');
      assert.equal(((await apiCall('GET', `/api/projects/${id}/`)).json() as { title: string }).title, 'First save');
      // Saving the conflict page's form again is deliberate: it carries the current version.
      const third = await alice.browser.post(`/projects/${id}/edit/`, {
        ...fields,
        csrfmiddlewaretoken: csrfOf(second.body),
        version: inputValue(second.body, 'version')!,
        title: 'Second save',
      });
      assertStatus(third, 303, 'saved again from the conflict page');
      assert.equal(((await apiCall('GET', `/api/projects/${id}/`)).json() as { title: string }).title, 'Second save');
    });

    it('two members saving the same project at once: one wins, the other gets the conflict', async () => {
      const id = await newProject(alice.id, 'Shared');
      const pages = await Promise.all([alice.browser.get(`/projects/${id}/edit/`), chooser.browser.get(`/projects/${id}/edit/`)]);
      const post = (who: Browser, page: HttpResponse, title: string) =>
        who.post(`/projects/${id}/edit/`, {
          csrfmiddlewaretoken: csrfOf(page.body),
          version: inputValue(page.body, 'version')!,
          title,
          maintainer: `/api/users/${alice.id}/`,
          status: 'p',
          progress: '0',
          short_description: 'Cut things',
        });
      const answers = await Promise.all([post(alice.browser, pages[0], 'Alice’s'), post(chooser.browser, pages[1], 'Chooser’s')]);
      assert.deepEqual(answers.map((a) => a.status).sort(), [303, 409]);
      const winner = answers[0].status === 303 ? 'Alice’s' : 'Chooser’s';
      assert.equal(((await apiCall('GET', `/api/projects/${id}/`)).json() as { title: string }).title, winner);
    });

    it('deletes after a confirmation page: 303 to the list with a notice; the API answers 404', async () => {
      const id = await newProject(alice.id, 'Doomed');
      const page = await alice.browser.get(`/projects/${id}/delete/`);
      assertStatus(page, 200, 'confirmation page');
      assert.match(page.body, /Delete the project “Doomed”\?/);
      assertStatus(await apiCall('GET', `/api/projects/${id}/`), 200, 'still there after the GET');
      const res = await alice.browser.post(`/projects/${id}/delete/`, { csrfmiddlewaretoken: csrfOf(page.body) });
      assertStatus(res, 303, 'deleted');
      assert.equal(res.headers.location, '/projects/');
      assertStatus(await apiCall('GET', `/api/projects/${id}/`), 404, 'gone');
      const [entry] = await listAudit(db, 1);
      assert.deepEqual([entry.tokenName, entry.path, entry.recordId], [`web: ${alice.username}`, `/projects/${id}/delete/`, id]);
    });

    it('refuses a post without the CSRF token or from another origin: 403, nothing saved', async () => {
      const id = await newProject(alice.id, 'Guarded');
      const page = await alice.browser.get(`/projects/${id}/edit/`);
      const fields = { version: inputValue(page.body, 'version')!, title: 'Hijacked', maintainer: `/api/users/${alice.id}/`, status: 'p', progress: '0', short_description: 'S' };
      assertStatus(await alice.browser.post(`/projects/${id}/edit/`, fields), 403, 'no token');
      assertStatus(
        await alice.browser.post(`/projects/${id}/edit/`, { ...fields, csrfmiddlewaretoken: csrfOf(page.body) }, { origin: 'https://evil.example' }),
        403,
        'another origin',
      );
      assertStatus(await alice.browser.post(`/projects/${id}/delete/`, { csrfmiddlewaretoken: 'x' }), 403, 'delete with a wrong token');
      assert.equal(((await apiCall('GET', `/api/projects/${id}/`)).json() as { title: string }).title, 'Guarded');
    });
  });

  describe('the event form', () => {
    let carol: { id: number; username: string; browser: Browser };
    before(async () => {
      carol = await member();
      await grantRights(db, carol.id, ['events.add_event', 'events.delete_event']);
    });

    const eventFields = (start: string, stop = '') => ({ title: 'Soldering night', place: 'Workshop', start, stop, status: 'r', description: 'Bring a *board*' });

    it('refuses the hour the clocks skip in spring and the hour they repeat in autumn, saying so by the field: 422', async () => {
      const res = await carol.browser.submit('/events/new/', eventFields('2026-03-29T02:30', '2026-10-25T02:30'));
      assertStatus(res, 422, 'DST hours');
      assert.match(fieldMessage(res.body, 'start') ?? '', /does not exist in Europe\/Brussels: the clocks skip it/);
      assert.match(fieldMessage(res.body, 'stop') ?? '', /happens twice in Europe\/Brussels: the clocks go back/);
      assert.equal(inputValue(res.body, 'start'), '2026-03-29T02:30', 'typed value kept');
      assert.equal(inputValue(res.body, 'stop'), '2026-10-25T02:30', 'typed value kept');
      const bad = await carol.browser.submit('/events/new/', eventFields('next tuesday'));
      assertStatus(bad, 422, 'not a time');
      assert.match(unescape(fieldMessage(bad.body, 'start') ?? ''), /^Datetime has wrong format/);
    });

    it('stores the exact instant of a local time on either side of a change, shows it back in the zone, and the organizer is the creator', async () => {
      // CEST (+02:00) from 2026-03-29 03:00 local; CET (+01:00) from 2026-10-25 02:00 local (the second time).
      const res = await carol.browser.submit('/events/new/', eventFields('2026-03-29T03:30', '2026-10-25T03:15:30'));
      assertStatus(res, 303, 'saved');
      const id = Number(/^\/events\/(\d+)\/$/.exec(res.headers.location ?? '')?.[1]);
      const page = await carol.browser.get(`/events/${id}/`);
      assert.match(page.body, /The event is created\./);
      const record = (await apiCall('GET', `/api/events/${id}/`)).json() as Record<string, unknown>;
      assert.equal(record.start, '2026-03-29T03:30:00+02:00');
      assert.equal(record.stop, '2026-10-25T03:15:30+01:00');
      assert.equal(record.organizer, api(`users/${carol.id}/`));
      const row = await db.selectFrom('events').select(['start_us', 'stop_us']).where('id', '=', id).executeTakeFirstOrThrow();
      assert.equal(Number(row.start_us), Date.UTC(2026, 2, 29, 1, 30) * 1000);
      assert.equal(Number(row.stop_us), Date.UTC(2026, 9, 25, 2, 15, 30) * 1000);
      // The organizer may edit it; the form shows the times as typed.
      const edit = await carol.browser.get(`/events/${id}/edit/`);
      assertStatus(edit, 200, 'the organizer’s edit page');
      assert.equal(inputValue(edit.body, 'start'), '2026-03-29T03:30');
      assert.equal(inputValue(edit.body, 'stop'), '2026-10-25T03:15:30');
    });

    it('refuses to delete an event a meeting records: 409 with the reason, nothing deleted', async () => {
      const meeting = await newMeeting(carol.id);
      const eventId = Number(/events\/(\d+)\//.exec(((await apiCall('GET', `/api/meetings/${meeting}/`)).json() as { event: string }).event)?.[1]);
      const page = await carol.browser.get(`/events/${eventId}/delete/`);
      const res = await carol.browser.post(`/events/${eventId}/delete/`, { csrfmiddlewaretoken: csrfOf(page.body) });
      assertStatus(res, 409, 'an event with its meeting');
      assert.match(res.body, /<p class="form-error" role="alert">A meeting records this event: delete the meeting or give it another event first\.<\/p>/);
      assert.ok(meeting > 0);
      assertStatus(await apiCall('GET', `/api/events/${eventId}/`), 200, 'still there');
    });
  });

  describe('the meeting form', () => {
    let dave: { id: number; username: string; browser: Browser };
    before(async () => {
      dave = await member();
    });

    it('the event’s organizer adds its meeting: agenda and minutes in Markdown, the members present chosen; then edits it', async () => {
      const eventId = await newEvent(dave.id, 'Assembly <b>2026</b>');
      const erin = await addMember(db, { username: 'erin' });
      const page = await dave.browser.get(`/meetings/new/?event=${eventId}`);
      assertStatus(page, 200, 'the organizer’s new meeting');
      assert.ok(page.body.includes('Assembly &lt;b&gt;2026&lt;/b&gt;') && !page.body.includes('<b>2026'), 'the event’s title, escaped');
      const found = await dave.browser.post(`/meetings/new/?event=${eventId}`, { csrfmiddlewaretoken: csrfOf(page.body), OJ: '1. Budget', PV: '', members_find: 'eri' });
      assertStatus(found, 200, 'find');
      assert.match(found.body, new RegExp(`<input type="checkbox" name="members" value="/api/users/${erin}/"> erin<`));
      const preview = await dave.browser.post(`/meetings/new/?event=${eventId}`, {
        csrfmiddlewaretoken: csrfOf(page.body),
        OJ: '1. **Budget**',
        PV: `Voted. ${SCRIPT}`,
        action: 'preview',
      });
      assert.match(preview.body, /<strong>Budget<\/strong>/);
      assert.ok(!preview.body.includes(SCRIPT));
      const res = await dave.browser.post(`/meetings/new/?event=${eventId}`, [
        ['csrfmiddlewaretoken', csrfOf(page.body)],
        ['OJ', '1. Budget'],
        ['PV', 'Voted.'],
        ['members', `/api/users/${erin}/`],
        ['members', `/api/users/${dave.id}/`],
        ['pad', 'https://pad.example.org/assembly'],
      ]);
      assertStatus(res, 303, 'saved');
      const id = Number(/^\/meetings\/(\d+)\/$/.exec(res.headers.location ?? '')?.[1]);
      const record = (await apiCall('GET', `/api/meetings/${id}/`)).json() as Record<string, unknown>;
      assert.deepEqual(record, {
        id,
        event: api(`events/${eventId}/`),
        OJ: '1. Budget',
        PV: 'Voted.',
        // In their usernames' order, as the API lists them.
        members: [api(`users/${erin}/`), api(`users/${dave.id}/`)],
        pad: 'https://pad.example.org/assembly',
      });
      // Its event has its meeting now: the new form leads to the meeting's edit page.
      const again = await dave.browser.get(`/meetings/new/?event=${eventId}`);
      assertStatus(again, 303, 'a second meeting');
      assert.equal(again.headers.location, `/meetings/${id}/edit/`);
      const edit = await dave.browser.get(`/meetings/${id}/edit/`);
      const saved = await dave.browser.post(`/meetings/${id}/edit/`, {
        csrfmiddlewaretoken: csrfOf(edit.body),
        version: inputValue(edit.body, 'version')!,
        OJ: '1. Budget',
        PV: 'Voted, 12 for.',
        pad: 'not a url',
      });
      assertStatus(saved, 422, 'a bad pad');
      assert.equal(fieldMessage(saved.body, 'pad'), 'Enter a valid URL.');
      const fixed = await dave.browser.post(`/meetings/${id}/edit/`, {
        csrfmiddlewaretoken: csrfOf(edit.body),
        version: inputValue(edit.body, 'version')!,
        OJ: '1. Budget',
        PV: 'Voted, 12 for.',
        members: `/api/users/${erin}/`,
      });
      assertStatus(fixed, 303, 'saved');
      const edited = (await apiCall('GET', `/api/meetings/${id}/`)).json() as Record<string, unknown>;
      assert.deepEqual([edited.PV, edited.members, edited.event], ['Voted, 12 for.', [api(`users/${erin}/`)], api(`events/${eventId}/`)]);
    });
  });

  describe('who may open and post each form', () => {
    /** Everyone of members.md §3's list of ways to hold a right (or none). */
    interface Holder {
      name: string;
      rights: ReadonlySet<Right>;
      maintainer: boolean;
      organizer: boolean;
      active: boolean;
      setUp: (id: number) => Promise<void>;
    }
    const holders: Holder[] = [];
    before(() => {
      for (const right of NINE) {
        holders.push({
          name: `${right} granted directly`,
          rights: new Set([right]),
          maintainer: false,
          organizer: false,
          active: true,
          setUp: (id) => grantRights(db, id, [right]),
        });
        holders.push({
          name: `${right} through a group`,
          rights: new Set([right]),
          maintainer: false,
          organizer: false,
          active: true,
          setUp: async (id) => {
            const group = await createGroup(db, `group of ${right}`);
            await setGroupRights(db, group, [right]);
            await setMemberGroups(db, id, [group]);
          },
        });
      }
      const none = () => Promise.resolve();
      holders.push({ name: 'the maintainer', rights: new Set(), maintainer: true, organizer: false, active: true, setUp: none });
      holders.push({ name: 'the organizer', rights: new Set(), maintainer: false, organizer: true, active: true, setUp: none });
      holders.push({ name: 'a superuser', rights: new Set(NINE), maintainer: false, organizer: false, active: true, setUp: none });
      holders.push({ name: 'a member without rights', rights: new Set(), maintainer: false, organizer: false, active: true, setUp: none });
      holders.push({ name: 'an inactive superuser', rights: new Set(), maintainer: false, organizer: false, active: false, setUp: none });
    });

    it('each form answers 200 and saves (303) for those the rights allow, 403 for the others, the login page for an inactive account', async () => {
      for (const holder of holders) {
        const someone = await member({ superuser: holder.name.includes('superuser') });
        await holder.setUp(someone.id);
        if (!holder.active) await db.updateTable('users').set({ is_active: 0 }).where('id', '=', someone.id).execute();
        // Fresh records for each holder: maintained or organized by them when they are the maintainer or organizer.
        const owner = (role: 'maintainer' | 'organizer') => (holder[role] ? someone.id : 1);
        const project = await newProject(owner('maintainer'));
        const event = await newEvent(owner('organizer'));
        const eventForMeeting = await newEvent(owner('organizer'));
        const meeting = await created('/api/meetings/', { event: api(`events/${await newEvent(owner('organizer'))}/`) });
        const paths: Record<Form, string> = {
          'new project': '/projects/new/',
          'edit project': `/projects/${project}/edit/`,
          'delete project': `/projects/${project}/delete/`,
          'new event': '/events/new/',
          'edit event': `/events/${event}/edit/`,
          'delete event': `/events/${event}/delete/`,
          'new meeting': `/meetings/new/?event=${eventForMeeting}`,
          'edit meeting': `/meetings/${meeting}/edit/`,
          'delete meeting': `/meetings/${meeting}/delete/`,
        };
        // Saving fields valid for each form (the maintainer and organizer are the member, who may always be chosen).
        const fields: Record<Form, Record<string, string>> = {
          'new project': { title: 'New', maintainer: `/api/users/${someone.id}/`, status: 'p', progress: '5', short_description: 'S' },
          'edit project': { title: 'Edited', maintainer: `/api/users/${owner('maintainer')}/`, status: 'i', progress: '50', short_description: 'S' },
          'delete project': {},
          'new event': { title: 'New event', status: 'r', organizer: `/api/users/${someone.id}/`, start: '2026-06-01T19:00' },
          'edit event': { title: 'Edited event', status: 'i', organizer: `/api/users/${owner('organizer')}/` },
          'delete event': {},
          'new meeting': { OJ: '1. Budget' },
          'edit meeting': { OJ: '1. Budget', PV: 'Agreed.' },
          'delete meeting': {},
        };
        for (const form of FORMS) {
          const { right, alsoBy } = REQUIRES[form];
          const allowed = holder.active && (holder.rights.has(right) || (alsoBy !== null && holder[alsoBy]));
          const what = `${holder.name}: ${form}`;
          const page = await someone.browser.get(paths[form]);
          if (!holder.active) {
            assertStatus(page, 303, what);
            assert.match(page.headers.location ?? '', /^\/accounts\/login\/\?next=/, what);
            continue;
          }
          assertStatus(page, allowed ? 200 : 403, what);
          assert.equal(page.headers['cache-control'], 'private, no-store', what);
          const csrf = csrfOf(allowed ? page.body : (await someone.browser.get('/accounts/profile/')).body);
          const version = inputValue(page.body, 'version') ?? 'none';
          const posted = await someone.browser.post(paths[form], { csrfmiddlewaretoken: csrf, version, ...fields[form] });
          assertStatus(posted, allowed ? 303 : 403, `${what} (POST)`);
        }
      }
    });
  });
});

describe('local times typed in TIME_ZONE (a pure function)', () => {
  it('reads a wall-clock time as its exact instant, and names the skipped and the repeated hour', () => {
    // Europe/Brussels: CET (+01:00) in winter, CEST (+02:00) from 2026-03-29 01:00 UTC to 2026-10-25 01:00 UTC.
    assert.deepEqual(localInstant('2026-03-29T02:30', ZONE), { problem: 'skipped' });
    assert.deepEqual(localInstant('2026-10-25T02:30', ZONE), { problem: 'repeated' });
    assert.deepEqual(localInstant('2026-03-29T01:59:59', ZONE), { micros: Date.UTC(2026, 2, 29, 0, 59, 59) * 1000 });
    assert.deepEqual(localInstant('2026-03-29T03:00', ZONE), { micros: Date.UTC(2026, 2, 29, 1, 0) * 1000 });
    assert.deepEqual(localInstant('2026-10-25T01:59', ZONE), { micros: Date.UTC(2026, 9, 24, 23, 59) * 1000 });
    assert.deepEqual(localInstant('2026-10-25T03:00', ZONE), { micros: Date.UTC(2026, 9, 25, 2, 0) * 1000 });
    assert.deepEqual(localInstant('2026-07-01T12:00:00.250', ZONE), { micros: Date.UTC(2026, 6, 1, 10, 0, 0, 250) * 1000 });
    assert.deepEqual(localInstant('2026-03-29T02:30', 'UTC'), { micros: Date.UTC(2026, 2, 29, 2, 30) * 1000 });
    assert.equal(localInstant('2026-02-30T12:00', ZONE), null);
    assert.equal(localInstant('2026-03-29T02:30+02:00', ZONE), null);
    assert.equal(localInstant('tomorrow', ZONE), null);
  });
});

describe('a form’s save and the live feeds (stream, webhooks)', () => {
  let server: TestServer;
  let receiver: http.Server;
  const received: { body: string }[] = [];
  let arrived: () => void = () => {};

  before(async () => {
    receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ body: Buffer.concat(chunks).toString() });
        res.writeHead(204).end();
        arrived();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.address() as { port: number };
    server = await startServer({ env: { PASSWORD_ITERATIONS: String(TEST_ITERATIONS), WEBHOOK_URLS: `http://127.0.0.1:${port}/hook`, WEBHOOK_SECRET: 'a webhook secret' } });
  });

  after(async () => {
    await server?.close();
    receiver?.closeAllConnections();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it('goes through the announced writes: the API at once, no delivery or event of its own (they carry the space’s state), the door’s next change delivered after it', async () => {
    const db = server.database.db;
    const id = await addMember(db, { username: 'frank', password: PASSWORD });
    await grantRights(db, id, ['projects.add_project']);
    const frank = await logIn(server.base, 'frank', PASSWORD);
    const door = (await createToken(db, 'door', 'door', Date.now() * 1000)).secret;
    const stream = await openStream(server.base, '/api/space/stream/', { accept: 'text/event-stream' });
    try {
      await stream.waitForEvents(1);
      const outbox = async () =>
        Number(
          (
            await db
              .selectFrom('webhook_deliveries')
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const saved = await frank.submit('/projects/new/', { title: 'Live', status: 'p', progress: '0', short_description: 'S' });
      assertStatus(saved, 303, 'saved');
      assertStatus(await request(server.base, `/api${saved.headers.location}`), 200, 'the API sees it at once');
      // Deliveries are written in the change's own transaction: none was, for a project.
      assert.equal(await outbox(), 0);
      const delivered = new Promise<void>((resolve) => (arrived = resolve));
      const opened = await doorPost(server.base, door, true);
      assertStatus(opened, 201, 'the door opens');
      const openingId = idOf(opened);
      const [, next] = await stream.waitForEvents(2);
      assert.deepEqual([next.event, next.id, (dataOf(next) as { is_open: boolean }).is_open], ['state', String(openingId), true], 'the next event is the door’s');
      await delivered;
      assert.equal(received.length, 1);
      const body = JSON.parse(received[0].body) as { id: number; event: string; state: { is_open: boolean } };
      assert.deepEqual([body.id, body.event, body.state.is_open], [openingId, 'state', true], 'the one delivery is the door’s');
    } finally {
      stream.close();
    }
  });
});
