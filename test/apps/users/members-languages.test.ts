/**
 * The users app in the members' languages (languages.md), over real HTTP on the engine under
 * test: the login, profile, admin and message pages in French, Dutch and German as the browser
 * asks, with their plurals, dates and form errors; a member's own language chosen on the profile
 * (and through `/i18n/setlang/`) following them to every device; the reset mail in the
 * recipient's language through a real SMTP server. Expected texts are read from the catalogues.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { addMember, Browser, csrfOf, logIn, TEST_ITERATIONS } from '../../support/members.js';
import { startServer, type TestServer } from '../../support/server.js';
import { selfSignedCertificate, startSmtpServer, type TestSmtpServer } from '../../support/smtp.js';

const PASSWORD = 'correct horse battery';

type Catalogue = Record<string, string>;

function catalogue(language: string): Catalogue {
  return JSON.parse(readFileSync(new URL(`../../../src/apps/users/locale/${language}.json`, import.meta.url), 'utf8')) as Catalogue;
}

const FR = catalogue('fr');
const NL = catalogue('nl');
const DE = catalogue('de');

/** A message with its simple placeholders filled (no plural nor tag), as the page shows it (escaped). */
function text(messages: Catalogue, key: string, values: Record<string, string> = {}): string {
  const message = messages[key];
  assert.ok(message !== undefined, `no message ${key}`);
  return escape(message.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? `{${name}}`));
}

function escape(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

function langOf(page: string): string | undefined {
  return /<html lang="([^"]+)"/.exec(page)?.[1];
}

function titleOf(page: string): string | undefined {
  return /<title>([^<]*)<\/title>/.exec(page)?.[1];
}

/** The body of a form the profile page would post, with its fields as shown, and `changes`. */
function profileFields(page: string, changes: Record<string, string>): Record<string, string> {
  const value = (name: string) => new RegExp(`<input[^>]*name="${name}"[^>]*value="([^"]*)"`).exec(page)?.[1] ?? '';
  const description = /<textarea[^>]*name="description"[^>]*>([^<]*)<\/textarea>/.exec(page)?.[1] ?? '';
  return {
    csrfmiddlewaretoken: csrfOf(page),
    first_name: value('first_name'),
    last_name: value('last_name'),
    email: value('email'),
    description,
    action: 'save',
    ...changes,
  };
}

async function languageOf(server: TestServer, id: number): Promise<string> {
  const row = await server.database.db.selectFrom('users').select('language').where('id', '=', id).executeTakeFirstOrThrow();
  return row.language;
}

describe('the users app in the members’ languages', () => {
  let server: TestServer;
  let smtp: TestSmtpServer;
  let base: string;
  let rootId: number;
  let claraId: number;
  let danId: number;

  before(async () => {
    const certificate = selfSignedCertificate();
    smtp = await startSmtpServer({ certificate });
    server = await startServer({
      env: { PASSWORD_ITERATIONS: String(TEST_ITERATIONS), SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, MAIL_FROM: 'space@hackerspace.example' },
      mailer: { ca: certificate.cert },
    });
    base = server.base;
    const db = server.database.db;
    rootId = await addMember(db, { username: 'root', password: PASSWORD, superuser: true });
    claraId = await addMember(db, { username: 'clara', email: 'clara.private@example.org', password: PASSWORD });
    danId = await addMember(db, { username: 'dan', email: 'dan.private@example.org', password: PASSWORD });
  });

  after(async () => {
    await server?.close();
    await smtp?.close();
  });

  it('shows the login page in French, Dutch and German as the browser asks, English without a preference', async () => {
    for (const [accept, lang, messages] of [
      ['fr-BE,fr;q=0.9', 'fr', FR],
      ['nl-BE', 'nl', NL],
      ['de-DE,de;q=0.8,en;q=0.5', 'de', DE],
    ] as const) {
      const page = await new Browser(base, { 'accept-language': accept }).get('/accounts/login/');
      assert.equal(page.status, 200, accept);
      assert.equal(langOf(page.body), lang, accept);
      assert.ok(titleOf(page.body)?.startsWith(text(messages, 'users.login.title')), `${accept}: ${titleOf(page.body)}`);
      assert.ok(page.body.includes(`<label for="username">${text(messages, 'users.form.username-or-email')}</label>`), accept);
      assert.ok(page.body.includes(`<label for="password">${text(messages, 'users.login.password')}</label>`), accept);
      // The passkey script's words come with the page, in its language.
      assert.ok(page.body.includes(`data-say-waiting="${text(messages, 'users.passkeys.js.waiting')}"`), accept);
    }
    const english = await new Browser(base).get('/accounts/login/');
    assert.equal(langOf(english.body), 'en');
    assert.match(english.body, /<label for="password">Password<\/label>/);
    assert.match(english.body, /data-say-waiting="Waiting for your device…"/);
  });

  it('says why a login or a form failed in French', async () => {
    const browser = new Browser(base, { 'accept-language': 'fr' });
    const form = await browser.get('/accounts/login/');
    const wrong = await browser.post('/accounts/login/', { csrfmiddlewaretoken: csrfOf(form.body), username: 'clara', password: 'not the password' });
    assert.equal(wrong.status, 422);
    assert.ok(wrong.body.includes(text(FR, 'users.login.wrong')), 'the one failure message, in French');
    assert.ok(wrong.body.includes('Nom d’utilisateur ou mot de passe incorrect.'));

    const clara = await logIn(base, 'clara', PASSWORD, { headers: { 'accept-language': 'fr' } });
    const password = await clara.get('/accounts/password/');
    assert.equal(langOf(password.body), 'fr');
    const short = await clara.post('/accounts/password/', { csrfmiddlewaretoken: csrfOf(password.body), old_password: PASSWORD, new_password1: 'court', new_password2: 'court' });
    assert.equal(short.status, 422);
    assert.ok(short.body.includes(text(FR, 'users.password.too-short', { min: '8' })), 'the rule broken, in French');
    const wrongOld = await clara.post('/accounts/password/', { csrfmiddlewaretoken: csrfOf(password.body), old_password: 'nope', new_password1: 'x', new_password2: 'x' });
    assert.ok(wrongOld.body.includes(text(FR, 'users.password.current-wrong')));

    const profile = await clara.get('/accounts/profile/');
    const refused = await clara.post('/accounts/profile/', profileFields(profile.body, { email: 'not an address' }));
    assert.equal(refused.status, 422);
    assert.ok(refused.body.includes(text(FR, 'users.profile.not-saved')), 'the form’s summary');
    assert.ok(refused.body.includes(text(FR, 'users.form.email-invalid')), 'the field’s message');
    assert.ok(refused.body.includes('value="not an address"'), 'the typed value is kept');
  });

  it('shows the admin pages with their plurals in French, Dutch and German', async () => {
    const db = server.database.db;
    await addMember(db, { username: 'zeta-one', password: PASSWORD });
    const root = await logIn(base, 'root', PASSWORD);
    const search = async (accept: string, q: string) => (await root.get(`/accounts/admin/members/?q=${q}`, { 'accept-language': accept })).body;
    assert.match(await search('fr', 'zeta'), /<p id="members-count">1 membre correspond ; page 1 sur 1\.<\/p>/);
    assert.match(await search('nl', 'zeta'), /<p id="members-count">1 lid komt overeen; pagina 1 van 1\.<\/p>/);
    assert.match(await search('de', 'zeta'), /<p id="members-count">1 Mitglied passt; Seite 1 von 1\.<\/p>/);
    await addMember(db, { username: 'zeta-two', password: PASSWORD });
    assert.match(await search('fr', 'zeta'), /<p id="members-count">2 membres correspondent ; page 1 sur 1\.<\/p>/);
    assert.match(await search('nl', 'zeta'), /<p id="members-count">2 leden komen overeen; pagina 1 van 1\.<\/p>/);
    assert.match(await search('de', 'zeta'), /<p id="members-count">2 Mitglieder passen; Seite 1 von 1\.<\/p>/);
    const fr = await search('fr', 'zeta');
    assert.equal(langOf(fr), 'fr');
    assert.ok(titleOf(fr)?.startsWith('Membres · Administration'), titleOf(fr));
    assert.ok(fr.includes(`<th scope="col">${text(FR, 'users.admin.key-holder')}</th>`));
    assert.ok(fr.includes('<td>non</td>'), 'yes and no in French');
    assert.ok(rootId > 0);
  });

  it('writes dates in the page’s language, and a message page in French', async () => {
    const dan = await logIn(base, 'dan', PASSWORD, { headers: { 'accept-language': 'fr' } });
    const profile = await dan.get('/accounts/profile/');
    const made = await dan.post('/accounts/profile/tokens/', { csrfmiddlewaretoken: csrfOf(profile.body), token_name: 'robot' });
    assert.equal(made.status, 200);
    assert.ok(made.body.includes(text(FR, 'users.tokens.created-title')));
    const row = await server.database.db.selectFrom('member_tokens').select('created_us').where('user_id', '=', danId).executeTakeFirstOrThrow();
    // The date as French writes it, in the space's zone (the default TIME_ZONE), with the ISO form for machines.
    const french = new Intl.DateTimeFormat('fr', { timeZone: server.config.timeZone, dateStyle: 'medium', timeStyle: 'short' }).format(row.created_us / 1000);
    const listed = await dan.get('/accounts/profile/');
    assert.match(listed.body, new RegExp(`<time datetime="[0-9]{4}-[0-9]{2}-[0-9]{2}T[^"]+">${french}</time>`));
    assert.match(french, /(janv|févr|mars|avr|mai|juin|juil|août|sept|oct|nov|déc)/);
    // A page of the users app that answers only POST says so in French.
    const get = await dan.get('/projects/1/join/');
    assert.equal(get.status, 405);
    assert.ok(get.body.includes(text(FR, 'users.page.method-title')));
    assert.ok(get.body.includes(text(FR, 'users.page.method', { method: 'GET' })));
  });

  it('keeps the language a member chooses on the profile: their pages come in it whatever the browser asks', async () => {
    const clara = await logIn(base, 'clara', PASSWORD);
    const profile = await clara.get('/accounts/profile/');
    assert.match(profile.body, /<select id="language" name="language"[^>]*>/);
    assert.match(profile.body, /<option value="" selected>The browser’s language<\/option>/);
    for (const [tag, name] of [
      ['en', 'English'],
      ['fr', 'Français'],
      ['nl', 'Nederlands'],
      ['de', 'Deutsch'],
    ])
      assert.ok(profile.body.includes(`<option value="${tag}">${name}</option>`), `${tag} offered as ${name}`);
    const saved = await clara.post('/accounts/profile/', profileFields(profile.body, { language: 'nl' }));
    assert.equal(saved.status, 303);
    assert.equal(await languageOf(server, claraId), 'nl');
    for (const path of ['/accounts/profile/', '/accounts/password/', '/']) {
      const page = await clara.get(path, { 'accept-language': 'fr' });
      assert.equal(page.status, 200, path);
      assert.equal(langOf(page.body), 'nl', path);
    }
    const again = await clara.get('/accounts/profile/', { 'accept-language': 'fr' });
    assert.ok(titleOf(again.body)?.startsWith(text(NL, 'users.profile.title')), titleOf(again.body));
    assert.match(again.body, /<option value="nl" selected>Nederlands<\/option>/);
    // A language not offered is refused next to the field, in the member's language.
    const unknown = await clara.post('/accounts/profile/', profileFields(again.body, { language: 'xx' }));
    assert.equal(unknown.status, 422);
    assert.ok(unknown.body.includes(text(NL, 'users.profile.language-unknown')));
    assert.equal(await languageOf(server, claraId), 'nl');
    // Back to the browser's language: the browser decides again.
    const none = await clara.post('/accounts/profile/', profileFields(again.body, { language: '' }));
    assert.equal(none.status, 303);
    assert.equal(await languageOf(server, claraId), '');
    assert.equal(langOf((await clara.get('/accounts/profile/', { 'accept-language': 'de' })).body), 'de');
  });

  it('/i18n/setlang/ posted by a member with their token keeps the choice on the profile, for their other devices; without it, 403', async () => {
    const phone = await logIn(base, 'dan', PASSWORD);
    const page = await phone.get('/accounts/profile/');
    const refused = await phone.post('/i18n/setlang/', { language: 'de', next: '/accounts/profile/' });
    assert.equal(refused.status, 403);
    assert.equal(await languageOf(server, danId), '');
    const wrongToken = await phone.post('/i18n/setlang/', { csrfmiddlewaretoken: 'x'.repeat(43), language: 'de', next: '/accounts/profile/' });
    assert.equal(wrongToken.status, 403);
    assert.equal(await languageOf(server, danId), '');
    const chosen = await phone.post('/i18n/setlang/', { csrfmiddlewaretoken: csrfOf(page.body), language: 'nl', next: '/accounts/profile/' });
    assert.equal(chosen.status, 302);
    assert.equal(chosen.headers.location, '/accounts/profile/');
    assert.equal(await languageOf(server, danId), 'nl');
    // Another device: a new session, a browser that asks for French.
    const laptop = await logIn(base, 'dan', PASSWORD, { headers: { 'accept-language': 'fr' } });
    const there = await laptop.get('/accounts/profile/');
    assert.equal(langOf(there.body), 'nl');
    assert.ok(there.body.includes(text(NL, 'users.profile.language-hint')));
    assert.match(there.body, /<option value="nl" selected>Nederlands<\/option>/);
  });

  it('mails a reset link in the member’s language, whatever the language of whoever asked; an invitation to a new member in LANGUAGE_CODE', async () => {
    const db = server.database.db;
    const amelie = await addMember(db, { username: 'amelie', email: 'amelie.private@example.org', password: PASSWORD });
    await db.updateTable('users').set({ language: 'fr' }).where('id', '=', amelie).execute();
    const browser = new Browser(base, { 'accept-language': 'de' });
    const form = await browser.get('/accounts/password/reset/');
    assert.equal(langOf(form.body), 'de');
    const space = /<a class="site-name" href="\/">([^<]+)<\/a>/.exec(form.body)?.[1];
    assert.ok(space);
    const before = smtp.received.length;
    const asked = await browser.post('/accounts/password/reset/', { csrfmiddlewaretoken: csrfOf(form.body), login: 'amelie' });
    assert.equal(asked.status, 303);
    const mail = await smtp.nextMail(before + 1);
    assert.deepEqual(mail.to, ['amelie.private@example.org']);
    assert.equal(mail.subject, FR['users.mail.reset.subject'].replace('{space}', space));
    assert.equal(mail.subject, `Réinitialisez votre mot de passe sur ${space}`);
    assert.ok(mail.text.includes(FR['users.mail.reset.hello'].replace('{username}', 'amelie')), mail.text);
    assert.ok(mail.text.includes(FR['users.mail.reset.ignore']), mail.text);
    assert.ok(mail.text.includes('Le lien ne sert qu’une fois, dans l’heure.'), mail.text);
    // Its expiry, as French writes a date (a weekday and a month in French).
    assert.match(mail.text, /Il expire le (lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche) \d{1,2} \S+ \d{4} à \d{2}:\d{2}\./);

    // A superuser reading the admin in French invites a new member: the mail is in LANGUAGE_CODE (English).
    const newcomer = await addMember(db, { username: 'newcomer', email: 'newcomer.private@example.org' });
    const root = await logIn(base, 'root', PASSWORD, { headers: { 'accept-language': 'fr' } });
    const edit = await root.get(`/accounts/admin/members/${newcomer}/`);
    assert.ok(edit.body.includes(text(FR, 'users.admin.make-invitation-mail')));
    const count = smtp.received.length;
    const made = await root.post(`/accounts/admin/members/${newcomer}/link/`, { csrfmiddlewaretoken: csrfOf(edit.body) });
    assert.equal(made.status, 200);
    assert.ok(made.body.includes(text(FR, 'users.admin.invitation-sent')));
    assert.ok(made.body.includes('Il ne sert qu’une fois, pendant 72 heures.'), 'the plural, in French');
    const invitation = await smtp.nextMail(count + 1);
    assert.equal(invitation.subject, `Your account at ${space}`);
    assert.match(invitation.text, /The link works once, within 72 hours\. It expires on /);
  });
});
