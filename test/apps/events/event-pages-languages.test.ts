/**
 * The events' pages and forms in the visitor's language (languages.md) over real HTTP: the list,
 * an event's page with its date in French, a meeting's agenda and minutes (ordre du jour,
 * procès-verbal), and a local time the clocks skip refused in French. Expected texts are read
 * from the catalogues.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { importRecords } from '../../../src/installed-apps.js';
import { grantRights } from '../../../src/apps/users/rights.js';
import { event, meeting } from '../../support/contract.js';
import { request } from '../../support/http.js';
import { addMember, csrfOf, logIn, TEST_ITERATIONS, type Browser } from '../../support/members.js';
import { startServer, type TestServer } from '../../support/server.js';

const PASSWORD = 'correct horse battery';

type Catalogue = Readonly<Record<string, string>>;
function catalogue(folder: string, lang: string): Catalogue {
  return JSON.parse(readFileSync(new URL(`../../../src/${folder}/locale/${lang}.json`, import.meta.url), 'utf8')) as Catalogue;
}
const EVENTS = { fr: catalogue('apps/events', 'fr'), de: catalogue('apps/events', 'de') };
const SITE = { fr: catalogue('web', 'fr') };

function escaped(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

function fieldMessage(page: string, name: string): string | undefined {
  return new RegExp(`<span class="form-error" id="${name}-error">([^<]*)</span>`).exec(page)?.[1];
}

describe('the events in the visitor’s language', () => {
  let server: TestServer;
  let base: string;
  let alice: Browser;

  before(async () => {
    server = await startServer({ env: { PASSWORD_ITERATIONS: String(TEST_ITERATIONS), TIME_ZONE: 'Europe/Brussels' } });
    base = server.base;
    const db = server.database.db;
    const aliceId = await addMember(db, { username: 'alice', password: PASSWORD });
    await grantRights(db, aliceId, ['events.add_event']);
    await db
      .transaction()
      .execute((trx) =>
        importRecords(trx, [
          event(1, '2099-12-03T18:00:00Z', null, { title: 'Soldering night', organizer: aliceId, place: 'Main room' }),
          event(2, '2099-12-10T18:00:00Z', null, { title: 'General assembly', organizer: aliceId }),
          meeting(1, 2, { OJ: '1. Budget', PV: 'Agreed.' }),
        ]),
      );
    alice = await logIn(base, 'alice', PASSWORD);
  });

  after(() => server?.close());

  it('shows an event’s page with its date in French, and the list in German', async () => {
    const page = await request(base, '/events/1/', { headers: { 'accept-language': 'fr-BE' } });
    assert.equal(page.status, 200);
    assert.match(page.body, /<html lang="fr">/);
    assert.ok(page.body.includes('<time datetime="2099-12-03T19:00:00+01:00">jeudi 3 décembre 2099 à 19:00</time>'), 'a French date, in Brussels time');
    assert.ok(page.body.includes(`<dt>${EVENTS.fr['events.detail.when']}</dt>`));
    assert.ok(page.body.includes(`<dt>${EVENTS.fr['events.field.status']}</dt><dd>${EVENTS.fr['events.status.r']}</dd>`));
    assert.equal(EVENTS.fr['events.status.r'], 'Prêt', 'the original’s name');
    assert.ok(page.body.includes('<a href="/accounts/login/?next=%2Fevents%2F1%2F">Connectez-vous</a>'));

    const list = await request(base, '/events/', { headers: { 'accept-language': 'de-AT,de;q=0.9' } });
    assert.match(list.body, /<html lang="de">/);
    assert.ok(list.body.includes(`<h1 id="events-heading">${EVENTS.de['events.list.title']}</h1>`));
    assert.ok(list.body.includes(`<h2 id="upcoming-heading">${EVENTS.de['events.list.upcoming']} <span class="count">(2)</span></h2>`));
    assert.ok(list.body.includes('<span class="when">03.12.2099, 19:00</span>'), 'a German date');
  });

  it('shows a meeting’s agenda and minutes as the original names them', async () => {
    const page = await request(base, '/meetings/1/', { headers: { 'accept-language': 'fr' } });
    assert.equal(page.status, 200);
    assert.ok(page.body.includes(`<h1>${escaped(EVENTS.fr['events.meeting.title'].replace('{title}', 'General assembly'))}</h1>`));
    assert.ok(page.body.includes(`<h2>${EVENTS.fr['events.meeting.field.OJ']}</h2>`));
    assert.ok(page.body.includes(`<h2>${EVENTS.fr['events.meeting.field.PV']}</h2>`));
    assert.deepEqual([EVENTS.fr['events.meeting.field.OJ'], EVENTS.fr['events.meeting.field.PV']], ['Ordre du jour', 'Procès-verbal']);
  });

  it('refuses in French a local time the clocks skip, and says the zone of the times', async () => {
    const fr = { 'accept-language': 'fr' };
    const page = await alice.get('/events/new/', fr);
    assert.equal(page.status, 200);
    assert.ok(page.body.includes(`<h1 id="form-heading">${EVENTS.fr['events.form.new']}</h1>`));
    assert.ok(page.body.includes(escaped(SITE.fr['site.form.time.hint'].replace('{zone}', 'Europe/Brussels'))));
    const refused = await alice.post('/events/new/', { csrfmiddlewaretoken: csrfOf(page.body), title: 'Night', status: 'r', start: '2026-03-29T02:30', stop: '' }, fr);
    assert.equal(refused.status, 422);
    assert.equal(fieldMessage(refused.body, 'start'), escaped(SITE.fr['site.form.error.time-skipped'].replace('{zone}', 'Europe/Brussels')));
    assert.ok(refused.body.includes(escaped(EVENTS.fr['events.form.not-saved'])));
  });
});
