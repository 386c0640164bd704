/**
 * The space speaks its members' language (languages.md) over real HTTP: Accept-Language matched
 * as browsers and Django do, the switch (`POST /i18n/setlang/`) and its cookie, one cached copy per
 * language on one process and on two sharing a database, error pages and the browsable API's
 * chrome in the page's language while the API's JSON never changes, LANGUAGES and a bad one.
 * Expected texts are read from the catalogue files, never computed by the code under test.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { opening, project, user } from './support/contract.js';
import { request, type HttpResponse } from './support/http.js';
import { freePort, killAll, startService, waitUntilServing, type Service } from './support/processes.js';
import { freshDatabase, startServer, TEST_ENGINE, type FreshDatabase, type TestServer } from './support/server.js';
import { importRecords } from '../src/installed-apps.js';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const CLI = path.resolve(import.meta.dirname, '../bin/hackerspace-api.js');

type Catalogue = Record<string, string>;
function catalogue(owner: 'web' | 'apps/space', language: string): Catalogue {
  return JSON.parse(readFileSync(path.resolve(import.meta.dirname, `../src/${owner}/locale/${language}.json`), 'utf8')) as Catalogue;
}
const SPACE = Object.fromEntries(['en', 'fr', 'nl', 'de'].map((l) => [l, catalogue('apps/space', l)]));
const SITE = Object.fromEntries(['en', 'fr', 'nl', 'de'].map((l) => [l, catalogue('web', l)]));

const RECORDS = [user(1, 'alice', 'alice@example.org', true), project(1, 1, { title: 'Laser cutter', status: 'i', progress: 40 }), opening(1, '2021-03-27T20:00:00Z', true)];

function langOf(res: HttpResponse): string | null {
  return /<html lang="([^"]+)">/.exec(res.body)?.[1] ?? null;
}

/** The dashboard's language as a person reads it: `<html lang>` and the state word and heading of that language's catalogue. */
function assertDashboardIn(res: HttpResponse, language: string, what = '') {
  assert.equal(res.status, 200, what);
  assert.equal(langOf(res), language, what);
  assert.ok(
    res.body.includes(`<h1 id="state-heading" class="state-word" aria-live="polite">${SPACE[language]['space.state.open']}</h1>`),
    `${what}: the state word in ${language}`,
  );
  assert.ok(res.body.includes(`<h2 id="hours-heading">${SPACE[language]['space.hours.heading']}</h2>`), `${what}: the heading in ${language}`);
}

const get = (base: string, p: string, headers: Record<string, string> = {}) => request(base, p, { headers: { accept: BROWSER, ...headers } });

function setLanguage(base: string, form: Record<string, string>, headers: Record<string, string> = {}) {
  return request(base, '/i18n/setlang/', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: BROWSER, ...headers },
    body: new URLSearchParams(form).toString(),
  });
}

function cookieOf(res: HttpResponse): string | null {
  const cookies = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
  const found = cookies.find((c) => /^django_language=/.test(c));
  return found === undefined ? null : found.split(';', 1)[0];
}

describe('the page’s language (default LANGUAGE_CODE, every language offered)', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ records: RECORDS, env: { TIME_ZONE: 'Europe/Brussels' } });
  });
  after(() => server.close());

  it('(a) matches Accept-Language as browsers and Django do, q=0 respected', async () => {
    assertDashboardIn(await get(server.base, '/', { 'accept-language': 'fr-BE,fr;q=0.9,en;q=0.5' }), 'fr', 'fr-BE');
    assertDashboardIn(await get(server.base, '/', { 'accept-language': 'nl-BE' }), 'nl', 'nl-BE');
    assertDashboardIn(await get(server.base, '/', { 'accept-language': 'de' }), 'de', 'de');
    assertDashboardIn(await get(server.base, '/', { 'accept-language': 'es' }), 'en', 'es: LANGUAGE_CODE');
    assertDashboardIn(await get(server.base, '/'), 'en', 'no Accept-Language');
    assertDashboardIn(await get(server.base, '/', { 'accept-language': 'fr;q=0, nl;q=0.5' }), 'nl', 'fr refused by q=0');
    assertDashboardIn(await get(server.base, '/', { 'accept-language': 'de;q=0.2, fr;q=0.8' }), 'fr', 'the higher q');
  });

  it('(a) writes dates in the page’s language', async () => {
    const fr = await get(server.base, '/', { 'accept-language': 'fr' });
    // 2021-03-27T20:00:00Z is 21:00 in Brussels.
    assert.match(fr.body, /<span class="state-absolute">27 mars 2021, 21:00<\/span>/);
    assert.match(fr.body, /<time datetime="2021-03-27T21:00:00\+01:00" class="state-relative">il y a \d+[\s\u202f]?\d* jours<\/time>/);
    const de = await get(server.base, '/', { 'accept-language': 'de' });
    assert.match(de.body, /<span class="state-absolute">27\.03\.2021, 21:00<\/span>/);
  });

  it('(b) the switch: a cookie, then the next page in the chosen language; unsafe next, cross-site, unknown language', async () => {
    const switched = await setLanguage(server.base, { language: 'nl', next: '/projects/' });
    assert.equal(switched.status, 302);
    assert.equal(switched.headers.location, '/projects/');
    assert.equal(cookieOf(switched), 'django_language=nl');
    const next = await get(server.base, '/', { cookie: 'django_language=nl', 'accept-language': 'fr' });
    assertDashboardIn(next, 'nl', 'the cookie beats Accept-Language');

    const evil = await setLanguage(server.base, { language: 'de', next: '//evil.example' });
    assert.equal(evil.status, 302);
    assert.equal(evil.headers.location, '/');

    const crossSite = await setLanguage(server.base, { language: 'de', next: '/' }, { origin: 'https://evil.example' });
    assert.equal(crossSite.status, 403);
    assert.equal(cookieOf(crossSite), null);

    const unknown = await setLanguage(server.base, { language: 'xx', next: '/' });
    assert.equal(unknown.status, 302);
    assert.equal(cookieOf(unknown), null, 'an unknown language changes nothing');
  });

  it('(b) the switch on every page: a labelled list of the languages, each named in itself, and a button', async () => {
    const page = await get(server.base, '/', { 'accept-language': 'fr' });
    const form = /<form method="post" action="\/i18n\/setlang\/" class="language-switch">[\s\S]*?<\/form>/.exec(page.body)?.[0] ?? '';
    assert.ok(form.includes(`<label for="language-choice">${SITE.fr['site.language']}</label>`));
    assert.ok(form.includes(`<button type="submit">${SITE.fr['site.language.change']}</button>`));
    assert.deepEqual(
      [...form.matchAll(/<option value="([^"]+)"/g)].map((m) => m[1]),
      ['en', 'fr', 'nl', 'de'],
    );
    assert.match(form, /<option value="fr" lang="fr" selected>Français<\/option>/);
    assert.match(form, /<option value="nl" lang="nl">Nederlands<\/option>/);
    assert.match(form, /<input type="hidden" name="next" value="\/">/);
  });

  it('(c) one cached copy per language: French, English, French again never mix; Vary names Accept-Language and Cookie', async () => {
    const order = ['fr', 'en', 'fr', 'en', 'de', 'fr'];
    const etags = new Map<string, string>();
    for (const [i, language] of order.entries()) {
      const res = await get(server.base, '/', { 'accept-language': language });
      assertDashboardIn(res, language, `request ${i} (${language})`);
      const vary = String(res.headers.vary).toLowerCase();
      assert.match(vary, /accept-language/);
      assert.match(vary, /cookie/);
      const etag = String(res.headers.etag);
      if (etags.has(language)) assert.equal(etag, etags.get(language), `${language}: served again from the cache`);
      else assert.ok(![...etags.values()].includes(etag), `${language}: a copy of its own`);
      etags.set(language, etag);
    }
    // A conditional request of one language is not answered by another's copy.
    const notModified = await get(server.base, '/', { 'accept-language': 'fr', 'if-none-match': etags.get('fr')! });
    assert.equal(notModified.status, 304);
    const english = await get(server.base, '/', { 'accept-language': 'en', 'if-none-match': etags.get('fr')! });
    assertDashboardIn(english, 'en', 'English with the French entity tag');
  });

  it('(d) the not-found page and the browsable API’s chrome in French; the API’s JSON the same whatever the language', async () => {
    const missing = await get(server.base, '/nowhere/', { 'accept-language': 'fr' });
    assert.equal(missing.status, 404);
    assert.equal(langOf(missing), 'fr');
    assert.ok(missing.body.includes(`<h1>${SITE.fr['site.error.404.title']}</h1>`));
    assert.ok(missing.body.includes(`<title>${SITE.fr['site.error.404.title']} · `));
    const missingRecord = await get(server.base, '/projects/999/', { 'accept-language': 'de' });
    assert.equal(missingRecord.status, 404);
    assert.ok(missingRecord.body.includes(`<h1>${SITE.de['site.error.404.title']}</h1>`));

    const browsable = await get(server.base, '/api/projects/', { 'accept-language': 'fr' });
    assert.equal(browsable.status, 200);
    assert.equal(langOf(browsable), 'fr');
    assert.ok(browsable.body.includes(`>${SITE.fr['site.api.raw']}</a>`), 'Raw JSON in French');
    assert.ok(browsable.body.includes(`<label for="curl">${SITE.fr['site.api.curl']}</label>`));
    assert.ok(browsable.body.includes(`aria-label="${SITE.fr['site.api.breadcrumbs']}"`));

    const bodies = new Set<string>();
    for (const language of [undefined, 'fr', 'nl-BE', 'de', 'es', 'fr;q=0']) {
      const res = await request(server.base, '/api/projects/', { headers: language === undefined ? {} : { 'accept-language': language } });
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-type'], 'application/json');
      bodies.add(res.body);
      const missingJson = await request(server.base, '/api/projects/999/', { headers: language === undefined ? {} : { 'accept-language': language } });
      bodies.add(`404 ${missingJson.body}`);
    }
    assert.equal(bodies.size, 2, 'one JSON body for the list, one for the 404, whatever Accept-Language says');
  });

  it('(d) a refused form page in the page’s language', async () => {
    const crossSite = await setLanguage(server.base, { language: 'de', next: '/' }, { origin: 'https://evil.example', 'accept-language': 'nl' });
    assert.equal(crossSite.status, 403);
    assert.equal(crossSite.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(langOf(crossSite), 'nl');
    assert.ok(crossSite.body.includes(`<h1 id="message-heading">${SITE.nl['site.error.403.title']}</h1>`));
  });
});

describe('LANGUAGE_CODE=fr-be', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ records: RECORDS, env: { LANGUAGE_CODE: 'fr-be' } });
  });
  after(() => server.close());

  it('(a) is the language of a browser that asks for none of ours, and of one that asks for nothing', async () => {
    assertDashboardIn(await get(server.base, '/', { 'accept-language': 'es' }), 'fr', 'es');
    assertDashboardIn(await get(server.base, '/'), 'fr', 'none');
    assertDashboardIn(await get(server.base, '/', { 'accept-language': 'en-GB' }), 'en', 'en-GB');
  });
});

describe('LANGUAGES=fr,en', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ records: RECORDS, env: { LANGUAGES: 'fr,en' } });
  });
  after(() => server.close());

  it('(e) offers only those in the switch and never serves Dutch', async () => {
    const page = await get(server.base, '/', { 'accept-language': 'nl' });
    assert.notEqual(langOf(page), 'nl');
    assertDashboardIn(page, 'en', 'nl asked, English (LANGUAGE_CODE) given');
    const form = /<form method="post" action="\/i18n\/setlang\/" class="language-switch">[\s\S]*?<\/form>/.exec(page.body)?.[0] ?? '';
    assert.deepEqual(
      [...form.matchAll(/<option value="([^"]+)"/g)].map((m) => m[1]),
      ['fr', 'en'],
    );
    assertDashboardIn(await get(server.base, '/', { cookie: 'django_language=nl', 'accept-language': 'nl' }), 'en', 'a Dutch cookie');
    const refused = await setLanguage(server.base, { language: 'nl', next: '/' });
    assert.equal(cookieOf(refused), null, 'Dutch is not offered');
    assertDashboardIn(await get(server.base, '/', { 'accept-language': 'nl, fr;q=0.5' }), 'fr', 'the best offered');
  });

  it('(e) a language no catalogue has fails at start with a clear configuration error', () => {
    const result = spawnSync(process.execPath, [CLI, 'serve'], {
      env: { ...process.env, LANGUAGES: 'xx', DATABASE_URL: 'sqlite::memory:' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.equal(result.status, 78, result.stderr);
    assert.match(result.stderr, /configuration error: LANGUAGES: names "xx", which no catalogue has/);
    assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
  });
});

describe(`two serve processes on one ${TEST_ENGINE} database, each in the right language`, () => {
  let fresh: FreshDatabase;
  let one: Service;
  let two: Service;
  before(async () => {
    fresh = await freshDatabase();
    await fresh.handle.db.transaction().execute((trx) => importRecords(trx, RECORDS));
    const env = { DATABASE_URL: fresh.url, LOG_LEVEL: 'warn' };
    [one, two] = await Promise.all([startService(['serve'], { ...env, PORT: String(await freePort()) }), startService(['serve'], { ...env, PORT: String(await freePort()) })]);
    await Promise.all([waitUntilServing(one), waitUntilServing(two)]);
  });
  after(async () => {
    await Promise.all([one?.stop(), two?.stop()]);
    await fresh?.cleanup();
    killAll();
  });

  it('(c) French, English, French on each, in turns, never mixed', async () => {
    for (const language of ['fr', 'en', 'fr', 'nl', 'en', 'de']) {
      for (const service of [one, two]) {
        assertDashboardIn(await get(service.base, '/', { 'accept-language': language }), language, `${language} on ${service.name}`);
        assertDashboardIn(
          await get(service.base, '/projects/', { 'accept-language': 'en' }).then(() => get(service.base, '/', { 'accept-language': language })),
          language,
          `${language} on ${service.name}, again`,
        );
      }
    }
  });
});
