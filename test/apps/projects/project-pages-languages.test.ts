/**
 * The projects' pages and forms in the visitor's language (languages.md) over real HTTP: the list
 * and a project's page in French and Dutch, a form refused with its messages in French (and
 * German), the members' search with its plural, and numbers typed as people of each language type
 * them (`50,0` is 50; `1,5` is no whole number). Expected texts are read from the catalogues.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { importRecords } from '../../../src/installed-apps.js';
import { grantRights } from '../../../src/apps/users/rights.js';
import { project } from '../../support/contract.js';
import { request } from '../../support/http.js';
import { addMember, csrfOf, logIn, TEST_ITERATIONS, type Browser } from '../../support/members.js';
import { startServer, type TestServer } from '../../support/server.js';

const PASSWORD = 'correct horse battery';

type Catalogue = Readonly<Record<string, string>>;
function catalogue(folder: string, lang: string): Catalogue {
  return JSON.parse(readFileSync(new URL(`../../../src/${folder}/locale/${lang}.json`, import.meta.url), 'utf8')) as Catalogue;
}
const PROJECTS = { fr: catalogue('apps/projects', 'fr'), nl: catalogue('apps/projects', 'nl'), de: catalogue('apps/projects', 'de') };
const SITE = { fr: catalogue('web', 'fr'), nl: catalogue('web', 'nl'), de: catalogue('web', 'de') };

/** A message as the page shows it: escaped as HTML. */
function escaped(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** The text of a field's message (`<span id="NAME-error">`). */
function fieldMessage(page: string, name: string): string | undefined {
  return new RegExp(`<span class="form-error" id="${name}-error">([^<]*)</span>`).exec(page)?.[1];
}

describe('the projects in the visitor’s language', () => {
  let server: TestServer;
  let base: string;
  let alice: Browser;
  let aliceId: number;

  before(async () => {
    server = await startServer({ env: { PASSWORD_ITERATIONS: String(TEST_ITERATIONS), TIME_ZONE: 'Europe/Brussels' } });
    base = server.base;
    const db = server.database.db;
    aliceId = await addMember(db, { username: 'alice', password: PASSWORD });
    for (const name of ['zedone', 'zedtwo']) await addMember(db, { username: name, password: PASSWORD });
    await addMember(db, { username: 'onlyqx', password: PASSWORD });
    await grantRights(db, aliceId, ['projects.add_project']);
    await db
      .transaction()
      .execute((trx) =>
        importRecords(trx, [project(1, aliceId, { title: 'Laser cutter', status: 'i', progress: 50 }), project(2, aliceId, { title: 'Bike repair', status: 'p' })]),
      );
    alice = await logIn(base, 'alice', PASSWORD);
  });

  after(() => server?.close());

  it('shows the list in French and a project’s page in Dutch, with the original’s status names', async () => {
    const list = await request(base, '/projects/', { headers: { 'accept-language': 'fr-BE,fr;q=0.9,en;q=0.5' } });
    assert.equal(list.status, 200);
    assert.match(list.body, /<html lang="fr">/);
    assert.ok(list.body.includes(`<h1 id="projects-heading">${escaped(PROJECTS.fr['projects.list.title'])}</h1>`));
    assert.ok(list.body.includes(`<h2>${PROJECTS.fr['projects.status.i']} <span class="count">(1)</span></h2>`), 'En cours');
    assert.equal(PROJECTS.fr['projects.status.i'], 'En cours');
    assert.ok(list.body.includes(`<h2>${PROJECTS.fr['projects.status.p']} <span class="count">(1)</span></h2>`), 'Proposition');
    assert.ok(list.body.includes('<span class="progress-text">50 %</span>'));
    assert.ok(list.body.includes(`par <a href="/members/${aliceId}/">alice</a>`));

    const page = await request(base, '/projects/1/', { headers: { 'accept-language': 'nl-BE' } });
    assert.match(page.body, /<html lang="nl">/);
    assert.ok(page.body.includes(`<dt>${PROJECTS.nl['projects.field.status']}</dt><dd>${PROJECTS.nl['projects.status.i']}</dd>`));
    assert.ok(page.body.includes(`<dt>${PROJECTS.nl['projects.field.participants']}</dt><dd>${PROJECTS.nl['projects.detail.nobody']}</dd>`));
    assert.ok(page.body.includes(`${escaped(PROJECTS.nl['projects.detail.all'])}</a>`));
    assert.ok(page.body.includes('<a href="/accounts/login/?next=%2Fprojects%2F1%2F">Log in</a> om aan dit project mee te doen.'), 'the login sentence, its link inside');
  });

  it('refuses a form with the messages in French next to the fields, and reads numbers as typed in any language', async () => {
    const fr = { 'accept-language': 'fr' };
    const page = await alice.get('/projects/new/', fr);
    assert.equal(page.status, 200);
    assert.match(page.body, /<html lang="fr">/);
    assert.ok(page.body.includes(`<h1 id="form-heading">${PROJECTS.fr['projects.form.new']}</h1>`));
    assert.ok(page.body.includes(`<label for="progress">${PROJECTS.fr['projects.field.progress']}</label>`));
    assert.ok(page.body.includes(`<option value="i">${PROJECTS.fr['projects.status.i']}</option>`));
    assert.ok(page.body.includes(`>${SITE.fr['site.form.save']}</button>`));
    const typed = { title: '  ', maintainer: `/api/users/${aliceId}/`, status: 'z', progress: '1,5', short_description: 'Cut things', content: '' };
    const refused = await alice.post('/projects/new/', { csrfmiddlewaretoken: csrfOf(page.body), ...typed }, fr);
    assert.equal(refused.status, 422);
    assert.match(refused.body, /<html lang="fr">/);
    assert.ok(refused.body.includes(escaped(PROJECTS.fr['projects.form.not-saved'])));
    assert.equal(fieldMessage(refused.body, 'title'), escaped(SITE.fr['site.form.error.blank']));
    assert.equal(fieldMessage(refused.body, 'status'), escaped(SITE.fr['site.form.error.choice'].replace('{value}', 'z')));
    assert.equal(fieldMessage(refused.body, 'status'), '« z » n’est pas un choix valide.');
    assert.equal(fieldMessage(refused.body, 'progress'), escaped(SITE.fr['site.form.error.integer']), '1,5 is no whole number');
    assert.match(refused.body, /<input id="progress" name="progress" type="number"[^>]* value="1,5"/, 'what was typed is kept');

    const tooMuch = await alice.post(
      '/projects/new/',
      { csrfmiddlewaretoken: csrfOf(page.body), ...typed, title: 'Plotter', status: 'p', progress: '101,0' },
      { 'accept-language': 'de' },
    );
    assert.equal(tooMuch.status, 422);
    assert.equal(fieldMessage(tooMuch.body, 'progress'), escaped(SITE.de['site.form.error.max-value'].replace('{max}', '100')));
    const garbage = await alice.post(
      '/projects/new/',
      { csrfmiddlewaretoken: csrfOf(page.body), ...typed, title: 'Plotter', status: 'p', progress: 'viel' },
      { 'accept-language': 'de' },
    );
    assert.equal(fieldMessage(garbage.body, 'progress'), escaped(SITE.de['site.form.error.integer']));

    const saved = await alice.post('/projects/new/', { csrfmiddlewaretoken: csrfOf(page.body), ...typed, title: 'Plotter', status: 'p', progress: '50,0' }, fr);
    assert.equal(saved.status, 303, saved.body.slice(0, 300));
    const id = Number(/^\/projects\/(\d+)\/$/.exec(saved.headers.location ?? '')?.[1]);
    const record = (await request(base, `/api/projects/${id}/`)).json() as { progress: number };
    assert.equal(record.progress, 50, '50,0 read as 50');
    const shown = await alice.get(`/projects/${id}/`, fr);
    assert.ok(shown.body.includes(escaped(PROJECTS.fr['projects.notice.created'])), 'the notice in French');
  });

  it('says how many members a search found, with the language’s plural', async () => {
    const fr = { 'accept-language': 'fr' };
    const page = await alice.get('/projects/new/', fr);
    const find = (query: string) =>
      alice.post(
        '/projects/new/',
        { csrfmiddlewaretoken: csrfOf(page.body), title: 'x', status: 'p', progress: '0', short_description: 'y', participants_find: query, action: 'find:participants' },
        fr,
      );
    const two = await find('zed');
    assert.equal(two.status, 200);
    assert.ok(two.body.includes('2 membres ont « zed » dans leur nom d’utilisateur : cochez ceux à ajouter, puis enregistrez.'), 'two: plural');
    const one = await find('qx');
    assert.ok(one.body.includes('1 membre a « qx » dans son nom d’utilisateur : cochez-le pour l’ajouter, puis enregistrez.'), 'one: singular');
    const none = await find('nobodyhere');
    assert.ok(none.body.includes(escaped(SITE.fr['site.form.members.no-match'].replace('{query}', 'nobodyhere'))));
  });
});
