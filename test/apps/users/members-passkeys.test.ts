/**
 * Passkeys over HTTP, without a browser (members.md §5), on the engine under test: a software
 * authenticator written from the WebAuthn specification (support/authenticator.ts, nothing of the
 * service's WebAuthn library) answers the service's options as a browser would. Proves the
 * options (the site, the member, a challenge stored only when the request is the site's own), a
 * passkey added and then logging in alone, that every answer which must not log anyone in or add
 * a passkey is refused with no session, no passkey and no audit entry (replayed, never issued,
 * expired or another ceremony's challenge, another member's, another origin or RP ID, no user
 * verification, a forged signature, a counter going back, an unknown, removed or inactive
 * member's passkey), that malformed answers are 400 pages and never a 500, renaming and removing
 * only one's own passkeys, and that the password throttling does not hold passkey logins back.
 * In Chromium, with a virtual authenticator: test/apps/users/members-passkeys-browser.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  AuthenticatorError,
  otherKey,
  SoftAuthenticator,
  type AuthenticationOverrides,
  type CreationOptionsJSON,
  type RegistrationOverrides,
  type RequestOptionsJSON,
} from '../../support/authenticator.js';
import type { HttpResponse } from '../../support/http.js';
import { addMember, Browser, csrfOf, logIn, noticeOf, sessionOf, TEST_ITERATIONS } from '../../support/members.js';
import { startServer, TEST_ENGINE, type TestServer } from '../../support/server.js';

const PASSWORD = 'correct horse battery';
const LOGIN_PATH = '/accounts/passkey/login/';
const LOGIN_OPTIONS_PATH = '/accounts/passkey/login/options/';
const PASSKEYS_PATH = '/accounts/profile/passkeys/';
const OPTIONS_PATH = '/accounts/profile/passkeys/options/';
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** The element with id="member" (the member's name in the navigation), or null. */
function memberShown(page: string): string | null {
  return /id="member"[^>]*>([^<]*)</.exec(page)?.[1] ?? null;
}

/** The login page's refusal (role="alert"), or null. */
function loginError(page: string): string | null {
  return /<p class="form-error" role="alert" id="login-error">([^<]*)<\/p>/.exec(page)?.[1] ?? null;
}

/** The message by the profile's passkey name field, or null. */
function passkeyError(page: string): string | null {
  return /<span class="form-error" id="passkey_name-error">([^<]*)<\/span>/.exec(page)?.[1] ?? null;
}

/** The names in the profile's table of passkeys. */
function passkeysListed(page: string): string[] {
  const table = /<table id="passkeys">[\s\S]*?<\/table>/.exec(page)?.[0] ?? '';
  return [...table.matchAll(/<tr><td>([^<]*)<\/td>/g)].map((m) => m[1]);
}

function json(value: unknown): string {
  return JSON.stringify(value);
}

function b64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

describe(`passkeys over HTTP with a software authenticator, on ${TEST_ENGINE}`, () => {
  let server: TestServer;
  let base: string;
  let adaId: number;

  before(async () => {
    server = await startServer({ env: { PASSWORD_ITERATIONS: String(TEST_ITERATIONS) } });
    base = server.base;
    adaId = await addMember(server.database.db, { username: 'ada', password: PASSWORD, firstName: 'Ada' });
  });

  after(() => server?.close());

  // ---- Helpers on the server under test ----

  async function count(table: 'sessions' | 'passkeys' | 'passkey_challenges'): Promise<number> {
    const db = server.database.db;
    const query =
      table === 'sessions'
        ? db.selectFrom('sessions').select((eb) => eb.fn.countAll<number>().as('n'))
        : table === 'passkeys'
          ? db.selectFrom('passkeys').select((eb) => eb.fn.countAll<number>().as('n'))
          : db.selectFrom('passkey_challenges').select((eb) => eb.fn.countAll<number>().as('n'));
    return Number((await query.executeTakeFirstOrThrow()).n);
  }

  /** What a login leaves behind: sessions, login audit entries, members' last logins. */
  async function loginTrace(): Promise<{ sessions: number; audits: number; lastLogins: string }> {
    const db = server.database.db;
    const audits = await db.selectFrom('audit_log').select('id').where('collection', '=', 'sessions').execute();
    const users = await db.selectFrom('users').select(['id', 'last_login_us']).orderBy('id').execute();
    return { sessions: await count('sessions'), audits: audits.length, lastLogins: json(users.map((u) => [u.id, u.last_login_us === null ? null : Number(u.last_login_us)])) };
  }

  async function passkeyRows(userId: number) {
    return server.database.db.selectFrom('passkeys').selectAll().where('user_id', '=', userId).orderBy('id').execute();
  }

  /** A new member, logged in with their password. */
  async function member(username: string): Promise<{ id: number; browser: Browser }> {
    const id = await addMember(server.database.db, { username, password: PASSWORD });
    const browser = await logIn(base, username, PASSWORD);
    return { id, browser };
  }

  // ---- The ceremonies as the pages' script runs them ----

  /** The profile's registration options, asked with the profile page's CSRF token. */
  async function askRegistration(browser: Browser): Promise<{ options: CreationOptionsJSON; csrf: string }> {
    const csrf = csrfOf((await browser.get('/accounts/profile/')).body);
    const res = await browser.post(OPTIONS_PATH, { csrfmiddlewaretoken: csrf });
    assert.equal(res.status, 200, `registration options: ${res.body.slice(0, 300)}`);
    assert.match(String(res.headers['content-type']), /^application\/json\b/);
    return { options: res.json() as CreationOptionsJSON, csrf };
  }

  function postRegistration(browser: Browser, csrf: string, credential: unknown, name = ''): Promise<HttpResponse> {
    return browser.post(PASSKEYS_PATH, { csrfmiddlewaretoken: csrf, passkey_name: name, credential: typeof credential === 'string' ? credential : json(credential) });
  }

  /** Adds a passkey made by `authenticator`; asserts the 303 and returns the passkey's id. */
  async function addPasskey(browser: Browser, authenticator: SoftAuthenticator, name: string, overrides: RegistrationOverrides = {}): Promise<number> {
    const { options, csrf } = await askRegistration(browser);
    const res = await postRegistration(browser, csrf, authenticator.register(options, base, overrides), name);
    assert.equal(res.status, 303, `adding ${name}: ${loginError(res.body) ?? passkeyError(res.body) ?? res.body.slice(0, 300)}`);
    const rows = await server.database.db.selectFrom('passkeys').select(['id', 'name']).orderBy('id', 'desc').limit(1).execute();
    assert.equal(rows[0]?.name, name);
    return rows[0].id;
  }

  /** The login page (for its pre-session cookie and token), then the login options asked with its token. */
  async function askLogin(browser: Browser): Promise<{ options: RequestOptionsJSON; csrf: string }> {
    const csrf = csrfOf((await browser.get('/accounts/login/')).body);
    const res = await browser.post(LOGIN_OPTIONS_PATH, { csrfmiddlewaretoken: csrf });
    assert.equal(res.status, 200, `login options: ${res.body.slice(0, 300)}`);
    assert.match(String(res.headers['content-type']), /^application\/json\b/);
    return { options: res.json() as RequestOptionsJSON, csrf };
  }

  function postLogin(browser: Browser, csrf: string, credential: unknown, next = '/projects/'): Promise<HttpResponse> {
    return browser.post(LOGIN_PATH, { csrfmiddlewaretoken: csrf, next, credential: typeof credential === 'string' ? credential : json(credential) });
  }

  /** A whole passkey login in a new browser: options, the authenticator's answer, the form. */
  async function passkeyLogin(authenticator: SoftAuthenticator, overrides: AuthenticationOverrides = {}, origin = base): Promise<{ res: HttpResponse; browser: Browser }> {
    const browser = new Browser(base);
    const { options, csrf } = await askLogin(browser);
    const res = await postLogin(browser, csrf, authenticator.authenticate(options, origin, overrides));
    return { res, browser };
  }

  /** A refused login: the login page again with the reason, no session, nothing recorded. */
  async function assertNoLogin(what: string, attempt: () => Promise<{ res: HttpResponse; browser: Browser }>, status: number, reason: RegExp): Promise<void> {
    const before = await loginTrace();
    const { res, browser } = await attempt();
    assert.equal(res.status, status, `${what}: ${loginError(res.body) ?? res.body.slice(0, 300)}`);
    assert.match(loginError(res.body) ?? '', reason, what);
    assert.match(res.body, /data-passkey="login"/, `${what}: the login page`);
    assert.equal(sessionOf(browser), undefined, `${what}: no session cookie`);
    assert.equal(memberShown(res.body), null, `${what}: no one named`);
    assert.deepEqual(await loginTrace(), before, `${what}: no session, no audit entry, no last login`);
  }

  /** A refused registration: the profile again with the reason by the field, no passkey stored, no audit entry. */
  async function assertNotAdded(what: string, browser: Browser, attempt: () => Promise<HttpResponse>, status: number | number[], reason: RegExp): Promise<void> {
    const passkeys = await count('passkeys');
    const audits = (await server.database.db.selectFrom('audit_log').select('id').where('collection', '=', 'passkeys').execute()).length;
    const res = await attempt();
    if (Array.isArray(status)) assert.ok(status.includes(res.status), `${what}: ${res.status} ${passkeyError(res.body) ?? res.body.slice(0, 300)}`);
    else assert.equal(res.status, status, `${what}: ${passkeyError(res.body) ?? res.body.slice(0, 300)}`);
    assert.match(passkeyError(res.body) ?? '', reason, what);
    assert.match(res.body, /data-passkey="register"/, `${what}: the profile page`);
    assert.equal(await count('passkeys'), passkeys, `${what}: no passkey stored`);
    assert.equal((await server.database.db.selectFrom('audit_log').select('id').where('collection', '=', 'passkeys').execute()).length, audits, `${what}: no audit entry`);
    assert.ok(sessionOf(browser), `${what}: still logged in`);
  }

  describe('the options', () => {
    it('for a registration: this host as RP ID, the member, a fresh challenge; a discoverable, user-verified passkey, no attestation', async () => {
      const browser = await logIn(base, 'ada', PASSWORD);
      const challenges = await count('passkey_challenges');
      const { options } = await askRegistration(browser);
      assert.equal(options.rp.id, '127.0.0.1');
      assert.equal(typeof options.rp.name, 'string');
      assert.equal(options.user.name, 'ada');
      assert.equal(options.user.displayName, 'Ada');
      assert.match(options.user.id, CHALLENGE, 'a user handle of 32 random bytes');
      assert.match(options.challenge, CHALLENGE);
      assert.ok(
        options.pubKeyCredParams.some((p) => p.type === 'public-key' && p.alg === -7),
        'ES256 offered',
      );
      assert.equal(options.authenticatorSelection?.residentKey, 'required');
      assert.equal(options.authenticatorSelection?.userVerification, 'required');
      assert.equal(options.attestation, 'none');
      assert.deepEqual(options.excludeCredentials ?? [], [], 'no passkey yet');
      assert.ok(typeof options.timeout === 'number' && options.timeout > 0);
      assert.equal(await count('passkey_challenges'), challenges + 1, 'one challenge stored');

      const again = (await askRegistration(browser)).options;
      assert.notEqual(again.challenge, options.challenge, 'a new challenge each time');
      const stored = await server.database.db.selectFrom('passkey_challenges').selectAll().execute();
      assert.ok(!stored.some((row) => Object.values(row).includes(options.challenge)), 'the challenge is stored only as its hash');
    });

    it('for a login, to a visitor: this host as RP ID, user verification required, no credential named', async () => {
      const { options } = await askLogin(new Browser(base));
      assert.equal(options.rpId, '127.0.0.1');
      assert.equal(options.userVerification, 'required');
      assert.deepEqual(options.allowCredentials ?? [], []);
      assert.match(options.challenge, CHALLENGE);
    });

    it('without the page’s CSRF token, with another one, without the pre-session cookie, or from another origin: 403, no challenge stored', async () => {
      const visitor = new Browser(base);
      const loginToken = csrfOf((await visitor.get('/accounts/login/')).body);
      const ada = await logIn(base, 'ada', PASSWORD);
      const profileToken = csrfOf((await ada.get('/accounts/profile/')).body);
      const other = await logIn(base, 'ada', PASSWORD);
      const cases: [string, Browser, string, Record<string, string>, Record<string, string>][] = [
        ['login options without a token', visitor, LOGIN_OPTIONS_PATH, {}, {}],
        ['login options with another visitor’s token', visitor, LOGIN_OPTIONS_PATH, { csrfmiddlewaretoken: csrfOf((await new Browser(base).get('/accounts/login/')).body) }, {}],
        ['login options without the pre-session cookie', new Browser(base), LOGIN_OPTIONS_PATH, { csrfmiddlewaretoken: loginToken }, {}],
        ['login options from another origin', visitor, LOGIN_OPTIONS_PATH, { csrfmiddlewaretoken: loginToken }, { origin: 'http://evil.example' }],
        ['login options from a null origin', visitor, LOGIN_OPTIONS_PATH, { csrfmiddlewaretoken: loginToken }, { origin: 'null' }],
        ['registration options without a token', ada, OPTIONS_PATH, {}, {}],
        ['registration options with another session’s token', ada, OPTIONS_PATH, { csrfmiddlewaretoken: csrfOf((await other.get('/accounts/profile/')).body) }, {}],
        ['registration options from another origin', ada, OPTIONS_PATH, { csrfmiddlewaretoken: profileToken }, { origin: 'https://evil.example' }],
      ];
      const challenges = await count('passkey_challenges');
      for (const [what, browser, path, fields, headers] of cases) {
        const res = await browser.post(path, fields, headers);
        assert.equal(res.status, 403, what);
        assert.match(res.body, /The form expired or came from another site/, what);
        assert.equal(await count('passkey_challenges'), challenges, `${what}: no challenge stored`);
      }
      // The same requests with the right token and this site's origin are answered.
      assert.equal((await visitor.post(LOGIN_OPTIONS_PATH, { csrfmiddlewaretoken: loginToken }, { origin: base })).status, 200);
      assert.equal((await ada.post(OPTIONS_PATH, { csrfmiddlewaretoken: profileToken }, { origin: base })).status, 200);
    });

    it('a visitor asking for registration options is sent to log in, and no challenge is stored', async () => {
      const challenges = await count('passkey_challenges');
      const visitor = new Browser(base);
      csrfOf((await visitor.get('/accounts/login/')).body);
      const res = await visitor.post(OPTIONS_PATH, {});
      assert.equal(res.status, 303);
      assert.match(String(res.headers.location), /^\/accounts\/login\//);
      assert.equal(await count('passkey_challenges'), challenges);
    });
  });

  describe('adding a passkey and logging in with it', () => {
    const phone = new SoftAuthenticator();

    it('a passkey made by the authenticator is added: 303 to the profile, which lists it by name; an audit entry names the member', async () => {
      const browser = await logIn(base, 'ada', PASSWORD);
      const { options, csrf } = await askRegistration(browser);
      const before = Date.now() * 1000;
      const res = await postRegistration(browser, csrf, phone.register(options, base), '  Phone  ');
      assert.equal(res.status, 303, passkeyError(res.body) ?? res.body.slice(0, 300));
      assert.equal(res.headers.location, '/accounts/profile/');
      const profile = await browser.get('/accounts/profile/');
      assert.equal(noticeOf(profile.body), 'Your passkey is added: you can log in with it.');
      assert.deepEqual(passkeysListed(profile.body), ['Phone'], 'the name, trimmed');
      assert.match(profile.body, /<td>never<\/td>/, 'not used yet');

      const [row] = await passkeyRows(adaId);
      assert.equal(row.credential_id, phone.credentials[0].id.toString('base64url'));
      assert.equal(row.user_handle, options.user.id);
      assert.equal(Number(row.counter), 0);
      assert.equal(row.last_used_us, null);
      assert.ok(Number(row.created_us) >= before);
      const audit = await server.database.db.selectFrom('audit_log').selectAll().where('collection', '=', 'passkeys').execute();
      assert.equal(audit.length, 1);
      assert.deepEqual([audit[0].token_name, audit[0].method, audit[0].path, audit[0].record_id, audit[0].status], ['web: ada', 'POST', PASSKEYS_PATH, row.id, 303]);
    });

    it('the passkey alone logs in: 303 to `next`, a working session, its last use, counter and the last login stored, an audit entry', async () => {
      const before = Date.now() * 1000;
      const { res, browser } = await passkeyLogin(phone);
      assert.equal(res.status, 303, loginError(res.body) ?? res.body.slice(0, 300));
      assert.equal(res.headers.location, '/projects/');
      assert.ok(sessionOf(browser), 'a session cookie');
      const profile = await browser.get('/accounts/profile/');
      assert.equal(profile.status, 200);
      assert.equal(memberShown(profile.body), 'ada');

      const [row] = await passkeyRows(adaId);
      assert.equal(Number(row.counter), 1, 'the authenticator’s counter');
      assert.ok(row.last_used_us !== null && Number(row.last_used_us) >= before, 'its last use');
      const user = await server.database.db.selectFrom('users').select('last_login_us').where('id', '=', adaId).executeTakeFirstOrThrow();
      assert.ok(user.last_login_us !== null && Number(user.last_login_us) >= before, 'the last login');
      const audit = await server.database.db.selectFrom('audit_log').selectAll().where('collection', '=', 'sessions').where('path', '=', LOGIN_PATH).execute();
      assert.equal(audit.length, 1);
      assert.deepEqual([audit[0].token_name, audit[0].record_id, audit[0].status], ['web: ada (passkey)', adaId, 303]);
      assert.doesNotMatch(profile.body, /<td>never<\/td>/, 'the profile shows its last use');

      // Again, with the counter going on.
      const second = await passkeyLogin(phone);
      assert.equal(second.res.status, 303, loginError(second.res.body) ?? '');
      assert.equal(Number((await passkeyRows(adaId))[0].counter), 2);
    });

    it('an authenticator that keeps no counter (always 0) logs in every time', async () => {
      const { browser } = await member('counterless');
      const key = new SoftAuthenticator();
      await addPasskey(browser, key, 'Key without counter');
      for (let i = 0; i < 2; i++) {
        const { res } = await passkeyLogin(key, { counter: 0 });
        assert.equal(res.status, 303, `login ${i + 1}: ${loginError(res.body) ?? ''}`);
      }
    });

    it('a blank name gives the passkey a name with its date', async () => {
      const { browser, id } = await member('unnamed');
      const { options, csrf } = await askRegistration(browser);
      const res = await postRegistration(browser, csrf, new SoftAuthenticator().register(options, base), '   ');
      assert.equal(res.status, 303);
      const [row] = await passkeyRows(id);
      assert.match(row.name, /^Passkey added \S/);
    });
  });

  describe('answers that log no one in', () => {
    const key = new SoftAuthenticator();
    let carol: { id: number; browser: Browser };

    before(async () => {
      carol = await member('carol');
      await addPasskey(carol.browser, key, 'Carol’s key');
      assert.equal((await passkeyLogin(key)).res.status, 303, 'the passkey works');
    });

    it('an answer posted by another browser than the one given the challenge: 403', async () => {
      const asker = new Browser(base);
      const { options } = await askLogin(asker);
      const answer = key.authenticate(options, base);
      await assertNoLogin(
        'another browser',
        async () => {
          const other = new Browser(base);
          const otherToken = csrfOf((await other.get('/accounts/login/')).body);
          return { res: await postLogin(other, otherToken, answer), browser: other };
        },
        403,
        /began in another browser/,
      );
    });

    it('a new challenge replaces the one the browser was given before: an answer to the first is refused (403)', async () => {
      const browser = new Browser(base);
      const first = await askLogin(browser);
      const answer = key.authenticate(first.options, base);
      await askLogin(browser);
      await assertNoLogin(
        'an answer to a replaced challenge',
        async () => ({ res: await postLogin(browser, first.csrf, answer), browser }),
        403,
        /took too long, was already used/,
      );
    });

    it('two answers racing with counters n+1 and n+2: the stored counter only goes forward', async () => {
      for (let round = 0; round < 5; round++) {
        const stored = Number((await passkeyRows(carol.id))[0].counter);
        const [one, two] = [new Browser(base), new Browser(base)];
        const [a, b] = [await askLogin(one), await askLogin(two)];
        const answers = [key.authenticate(a.options, base, { counter: stored + 1 }), key.authenticate(b.options, base, { counter: stored + 2 })];
        const results = await Promise.all([postLogin(one, a.csrf, answers[0]), postLogin(two, b.csrf, answers[1])]);
        assert.ok(
          results.some((res) => res.status === 303),
          `round ${round}: one of them logs in`,
        );
        assert.equal(Number((await passkeyRows(carol.id))[0].counter), stored + 2, `round ${round}: the counter is the higher one`);
      }
    });

    it('the same answer posted twice: the second finds its challenge used (403)', async () => {
      const browser = new Browser(base);
      const { options, csrf } = await askLogin(browser);
      const answer = key.authenticate(options, base);
      assert.equal((await postLogin(browser, csrf, answer)).status, 303);
      await assertNoLogin(
        'a replayed answer',
        async () => {
          const replay = new Browser(base);
          const token = csrfOf((await replay.get('/accounts/login/')).body);
          return { res: await postLogin(replay, token, answer), browser: replay };
        },
        403,
        /took too long, was already used/,
      );
    });

    it('the same answer posted by two browsers at once logs in only one of them', async () => {
      const browsers = [new Browser(base), new Browser(base)];
      const tokens = await Promise.all(browsers.map(async (b) => csrfOf((await b.get('/accounts/login/')).body)));
      const { options } = await askLogin(browsers[0]);
      const answer = key.authenticate(options, base);
      const before = await loginTrace();
      const results = await Promise.all(browsers.map((b, i) => postLogin(b, tokens[i], answer)));
      assert.deepEqual(results.map((r) => r.status).sort(), [303, 403]);
      const after = await loginTrace();
      assert.equal(after.sessions, before.sessions + 1);
      assert.equal(after.audits, before.audits + 1);
    });

    it('a challenge the service never gave: 403', async () => {
      await assertNoLogin('a challenge never issued', () => passkeyLogin(key, { challenge: Buffer.alloc(32, 7).toString('base64url') }), 403, /took too long, was already used/);
    });

    it('an expired challenge: 403', async () => {
      await assertNoLogin(
        'an expired challenge',
        async () => {
          const browser = new Browser(base);
          const { options, csrf } = await askLogin(browser);
          const past = Date.now() * 1000 - 1_000_000;
          await server.database.db.updateTable('passkey_challenges').set({ expires_us: past }).execute();
          return { res: await postLogin(browser, csrf, key.authenticate(options, base)), browser };
        },
        403,
        /took too long, was already used/,
      );
    });

    it('a registration’s challenge answered as a login: 403', async () => {
      await assertNoLogin(
        'a registration challenge',
        async () => {
          const { options: registration } = await askRegistration(carol.browser);
          return passkeyLogin(key, { challenge: registration.challenge });
        },
        403,
        /took too long, was already used/,
      );
    });

    it('client data from another origin, or of a registration: 403', async () => {
      await assertNoLogin('another origin', () => passkeyLogin(key, {}, 'http://evil.example'), 403, /could not be checked/);
      await assertNoLogin('another port of this host', () => passkeyLogin(key, {}, 'http://127.0.0.1:1'), 403, /could not be checked/);
      await assertNoLogin('client data of type webauthn.create', () => passkeyLogin(key, { type: 'webauthn.create' }), 403, /could not be checked/);
    });

    it('authenticator data for another RP ID: 403', async () => {
      await assertNoLogin('another RP ID', () => passkeyLogin(key, { rpId: 'evil.example' }), 403, /could not be checked/);
      await assertNoLogin('the RP ID as localhost', () => passkeyLogin(key, { rpId: 'localhost' }), 403, /could not be checked/);
    });

    it('without user verification, or without user presence: 403', async () => {
      await assertNoLogin('the UV flag off', () => passkeyLogin(key, { userVerified: false }), 403, /could not be checked/);
      await assertNoLogin('the UP flag off', () => passkeyLogin(key, { userPresent: false }), 403, /could not be checked/);
    });

    it('a signature by another key: 403', async () => {
      await assertNoLogin('a forged signature', () => passkeyLogin(key, { signingKey: otherKey() }), 403, /could not be checked/);
    });

    it('a signature counter that goes back (a cloned authenticator): 403, the stored counter kept', async () => {
      assert.equal((await passkeyLogin(key, { counter: 50 })).res.status, 303);
      await assertNoLogin('a counter lower than stored', () => passkeyLogin(key, { counter: 20 }), 403, /could not be checked/);
      await assertNoLogin('the same counter again', () => passkeyLogin(key, { counter: 50 }), 403, /could not be checked/);
      assert.equal(Number((await passkeyRows(carol.id))[0].counter), 50);
      assert.equal((await passkeyLogin(key, { counter: 51 })).res.status, 303, 'counting on');
    });

    it('a passkey the service does not know: 403', async () => {
      const stranger = new SoftAuthenticator();
      stranger.register(
        {
          rp: { id: '127.0.0.1', name: 'x' },
          user: { id: b64('someone'), name: 'someone', displayName: '' },
          challenge: b64('c'.repeat(32)),
          pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
        },
        base,
      );
      await assertNoLogin('an unknown credential', () => passkeyLogin(stranger), 403, /not known here/);
    });

    it('a user handle that is not the passkey’s member’s: 403', async () => {
      await assertNoLogin('another user handle', () => passkeyLogin(key, { userHandle: b64('someone else entirely') }), 403, /not known here/);
      // A discoverable credential names its member (WebAuthn §7.2, step 6): an answer without a user handle is refused.
      await assertNoLogin('no user handle', () => passkeyLogin(key, { userHandle: null }), 403, /not known here/);
    });

    it('the passkey of an inactive member: 403', async () => {
      const { browser, id } = await member('dormant');
      const dormantKey = new SoftAuthenticator();
      await addPasskey(browser, dormantKey, 'Dormant key');
      await server.database.db.updateTable('users').set({ is_active: 0 }).where('id', '=', id).execute();
      await assertNoLogin('an inactive member', () => passkeyLogin(dormantKey), 403, /This account is inactive/);
      await server.database.db.updateTable('users').set({ is_active: 1 }).where('id', '=', id).execute();
      assert.equal((await passkeyLogin(dormantKey)).res.status, 303, 'active again, the passkey works');
    });
  });

  describe('answers that add no passkey', () => {
    let eve: { id: number; browser: Browser };
    let frank: { id: number; browser: Browser };

    before(async () => {
      eve = await member('eve');
      frank = await member('frank');
    });

    /** A registration with `overrides` by a new authenticator, posted by `browser`. */
    function register(browser: Browser, overrides: RegistrationOverrides = {}, origin = base) {
      return async () => {
        const { options, csrf } = await askRegistration(browser);
        return postRegistration(browser, csrf, new SoftAuthenticator().register(options, origin, overrides), 'Refused');
      };
    }

    it('the same answer posted twice: the second is refused (422)', async () => {
      const { options, csrf } = await askRegistration(eve.browser);
      const answer = new SoftAuthenticator().register(options, base);
      assert.equal((await postRegistration(eve.browser, csrf, answer, 'Once')).status, 303);
      await assertNotAdded('a replayed registration', eve.browser, () => postRegistration(eve.browser, csrf, answer, 'Twice'), 422, /took too long, the form was sent twice/);
    });

    it('a login’s challenge answered as a registration, or one never given: 422', async () => {
      await assertNotAdded(
        'a login challenge',
        eve.browser,
        async () => {
          const { options: login } = await askLogin(new Browser(base));
          return register(eve.browser, { challenge: login.challenge })();
        },
        422,
        /took too long/,
      );
      await assertNotAdded('a challenge never issued', eve.browser, register(eve.browser, { challenge: Buffer.alloc(32, 9).toString('base64url') }), 422, /took too long/);
    });

    it('an expired challenge: 422', async () => {
      await assertNotAdded(
        'an expired challenge',
        eve.browser,
        async () => {
          const { options, csrf } = await askRegistration(eve.browser);
          await server.database.db
            .updateTable('passkey_challenges')
            .set({ expires_us: Date.now() * 1000 - 1_000_000 })
            .execute();
          return postRegistration(eve.browser, csrf, new SoftAuthenticator().register(options, base), 'Late');
        },
        422,
        /took too long/,
      );
    });

    it('member B finishing member A’s registration: 422, no passkey for either', async () => {
      const { options } = await askRegistration(eve.browser);
      const answer = new SoftAuthenticator().register(options, base);
      const frankToken = csrfOf((await frank.browser.get('/accounts/profile/')).body);
      await assertNotAdded('another member’s challenge', frank.browser, () => postRegistration(frank.browser, frankToken, answer, 'Not mine'), 422, /took too long/);
      assert.deepEqual(
        (await passkeyRows(frank.id)).map((r) => r.name),
        [],
      );
      assert.ok(!(await passkeyRows(eve.id)).some((r) => r.name === 'Not mine'));
    });

    it('client data from another origin or of a login, authenticator data for another RP ID, no user verification: 422', async () => {
      await assertNotAdded('another origin', eve.browser, register(eve.browser, {}, 'http://evil.example'), 422, /could not be checked/);
      await assertNotAdded('client data of type webauthn.get', eve.browser, register(eve.browser, { type: 'webauthn.get' }), 422, /could not be checked/);
      await assertNotAdded('another RP ID', eve.browser, register(eve.browser, { rpId: 'evil.example' }), 422, /could not be checked/);
      await assertNotAdded('the UV flag off', eve.browser, register(eve.browser, { userVerified: false }), 422, /could not be checked/);
    });

    it('a passkey already added, added again (by its member or another): refused as already added; excludeCredentials names it', async () => {
      const key = new SoftAuthenticator();
      await addPasskey(frank.browser, key, 'Frank’s key');
      const [first] = await passkeyRows(frank.id);
      const { options } = await askRegistration(frank.browser);
      assert.deepEqual(
        (options.excludeCredentials ?? []).map((c) => [c.id, c.type]),
        [[first.credential_id, 'public-key']],
      );
      assert.throws(
        () => key.register(options, base),
        (error: unknown) => error instanceof AuthenticatorError && error.domName === 'InvalidStateError',
        'an honest authenticator refuses',
      );

      const credential = key.credentials[0];
      await assertNotAdded('the same credential again', frank.browser, register(frank.browser, { reuse: credential }), 422, /already added/);
      await assertNotAdded('the same credential for another member', eve.browser, register(eve.browser, { reuse: credential }), 422, /already added/);
      assert.deepEqual(
        (await passkeyRows(frank.id)).map((r) => r.id),
        [first.id],
      );
    });

    it('a second passkey from another device: excludeCredentials names both; both log in', async () => {
      const second = new SoftAuthenticator();
      await addPasskey(frank.browser, second, 'Frank’s phone');
      const rows = await passkeyRows(frank.id);
      assert.equal(new Set(rows.map((r) => r.user_handle)).size, 1, 'one user handle for the member');
      const { options } = await askRegistration(frank.browser);
      assert.deepEqual(
        (options.excludeCredentials ?? []).map((c) => c.id),
        rows.map((r) => r.credential_id),
      );
      assert.equal((await passkeyLogin(second)).res.status, 303);
    });
  });

  describe('malformed answers: 400 pages, never a 500', () => {
    const someId = b64('some credential id');
    const goodClientData = b64(json({ type: 'webauthn.get', challenge: Buffer.alloc(32, 1).toString('base64url'), origin: 'http://127.0.0.1' }));
    const malformed: [string, string][] = [
      ['an empty credential', ''],
      ['not JSON', '{"id": '],
      ['JSON null', 'null'],
      ['a JSON array', json([{ id: someId }])],
      ['a JSON number', '42'],
      ['a JSON string', json('public-key')],
      ['no response', json({ id: someId, rawId: someId, type: 'public-key' })],
      ['no id', json({ rawId: someId, type: 'public-key', response: { clientDataJSON: goodClientData } })],
      ['an id that is not base64url', json({ id: 'a b/c', rawId: 'a b/c', type: 'public-key', response: { clientDataJSON: goodClientData } })],
      ['another type', json({ id: someId, rawId: someId, type: 'password', response: { clientDataJSON: goodClientData } })],
      ['no clientDataJSON', json({ id: someId, rawId: someId, type: 'public-key', response: {} })],
      ['a clientDataJSON that is a number', json({ id: someId, rawId: someId, type: 'public-key', response: { clientDataJSON: 12 } })],
      ['a 100 KB string', 'x'.repeat(100 * 1024)],
      ['a 100 KB JSON credential', json({ id: someId, rawId: someId, type: 'public-key', response: { clientDataJSON: goodClientData, signature: 'A'.repeat(100 * 1024) } })],
      ['a clientDataJSON that is not base64url', json({ id: someId, rawId: someId, type: 'public-key', response: { clientDataJSON: '{"challenge":"x"}' } })],
      ['a clientDataJSON that is not JSON', json({ id: someId, rawId: someId, type: 'public-key', response: { clientDataJSON: b64('hello, world') } })],
      ['a clientDataJSON that is JSON null', json({ id: someId, rawId: someId, type: 'public-key', response: { clientDataJSON: b64('null') } })],
      ['a clientDataJSON without a challenge', json({ id: someId, rawId: someId, type: 'public-key', response: { clientDataJSON: b64(json({ type: 'webauthn.get' })) } })],
      [
        'a clientDataJSON whose challenge is a number',
        json({ id: someId, rawId: someId, type: 'public-key', response: { clientDataJSON: b64(json({ challenge: 1234567890123456 })) } }),
      ],
      ['a userHandle that is not base64url', json({ id: someId, rawId: someId, type: 'public-key', response: { clientDataJSON: goodClientData, userHandle: '!!' } })],
    ];

    it('at the login: the login page again, 400, no one logged in', async () => {
      for (const [what, credential] of malformed) {
        await assertNoLogin(
          what,
          async () => {
            const browser = new Browser(base);
            const csrf = csrfOf((await browser.get('/accounts/login/')).body);
            return { res: await postLogin(browser, csrf, credential), browser };
          },
          400,
          /sent no passkey/,
        );
      }
      // No `credential` field at all.
      const browser = new Browser(base);
      const csrf = csrfOf((await browser.get('/accounts/login/')).body);
      const res = await browser.post(LOGIN_PATH, { csrfmiddlewaretoken: csrf });
      assert.equal(res.status, 400);
    });

    it('at a registration: the profile again, 400, nothing added', async () => {
      const browser = await logIn(base, 'ada', PASSWORD);
      const csrf = csrfOf((await browser.get('/accounts/profile/')).body);
      for (const [what, credential] of malformed) {
        await assertNotAdded(what, browser, () => postRegistration(browser, csrf, credential, 'Malformed'), 400, /sent no passkey/);
      }
    });

    it('answers to a real challenge with parts missing or broken are refused, never a 500', async () => {
      const key = new SoftAuthenticator();
      const { browser } = await member('grace');
      await addPasskey(browser, key, 'Grace’s key');
      type Breaking = (answer: ReturnType<SoftAuthenticator['authenticate']>) => unknown;
      const broken: [string, Breaking][] = [
        ['no signature', (a) => ({ ...a, response: { ...a.response, signature: undefined } })],
        ['no authenticatorData', (a) => ({ ...a, response: { ...a.response, authenticatorData: undefined } })],
        ['authenticatorData of 3 bytes', (a) => ({ ...a, response: { ...a.response, authenticatorData: 'AAAA' } })],
        ['a signature of 3 bytes', (a) => ({ ...a, response: { ...a.response, signature: 'AAAA' } })],
        ['a rawId other than the id', (a) => ({ ...a, rawId: b64('other') })],
        ['the signature as a number', (a) => ({ ...a, response: { ...a.response, signature: 5 } })],
      ];
      for (const [what, breaking] of broken) {
        const login = new Browser(base);
        const { options, csrf } = await askLogin(login);
        const before = await loginTrace();
        const res = await postLogin(login, csrf, breaking(key.authenticate(options, base)));
        assert.ok(res.status === 400 || res.status === 403, `${what}: ${res.status} ${res.body.slice(0, 200)}`);
        assert.ok(loginError(res.body), `${what}: the reason shown`);
        assert.deepEqual(await loginTrace(), before, `${what}: no one logged in`);
      }

      type BreakingRegistration = (answer: ReturnType<SoftAuthenticator['register']>) => unknown;
      const brokenRegistrations: [string, BreakingRegistration][] = [
        ['no attestationObject', (a) => ({ ...a, response: { ...a.response, attestationObject: undefined } })],
        ['an attestationObject that is not CBOR', (a) => ({ ...a, response: { ...a.response, attestationObject: b64('not cbor at all') } })],
        ['a rawId other than the id', (a) => ({ ...a, rawId: b64('other') })],
      ];
      for (const [what, breaking] of brokenRegistrations) {
        await assertNotAdded(
          what,
          browser,
          async () => {
            const { options, csrf } = await askRegistration(browser);
            return postRegistration(browser, csrf, breaking(new SoftAuthenticator().register(options, base)), 'Broken');
          },
          422,
          /could not be checked/,
        );
      }
    });

    it('a registration answer whose `transports` is not an array (a string, an object, a number) is refused, 400 or 422, never a 500', async () => {
      const { browser } = await member('heidi');
      for (const transports of ['internal', { usb: true }, 7]) {
        await assertNotAdded(
          `transports ${json(transports)}`,
          browser,
          async () => {
            const { options, csrf } = await askRegistration(browser);
            const answer = new SoftAuthenticator().register(options, base);
            return postRegistration(browser, csrf, { ...answer, response: { ...answer.response, transports } }, 'Odd transports');
          },
          [400, 422],
          /./,
        );
      }
    });
  });

  describe('renaming and removing a passkey', () => {
    const key = new SoftAuthenticator();
    let ivan: { id: number; browser: Browser };
    let judy: { id: number; browser: Browser };
    let ivanKey: number;
    let judyKey: number;

    before(async () => {
      ivan = await member('ivan');
      judy = await member('judy');
      ivanKey = await addPasskey(ivan.browser, key, 'Ivan’s key');
      judyKey = await addPasskey(judy.browser, new SoftAuthenticator(), 'Judy’s key');
    });

    async function nameOf(id: number): Promise<string | undefined> {
      return (await server.database.db.selectFrom('passkeys').select('name').where('id', '=', id).executeTakeFirst())?.name;
    }

    it('renames one’s own passkey: 303 to the profile, with a notice', async () => {
      const page = await ivan.browser.get(`${PASSKEYS_PATH}${ivanKey}/`);
      assert.equal(page.status, 200);
      assert.match(page.body, /value="Ivan’s key"/);
      const res = await ivan.browser.post(`${PASSKEYS_PATH}${ivanKey}/`, { csrfmiddlewaretoken: csrfOf(page.body), passkey_name: '  Yubikey  ' });
      assert.equal(res.status, 303);
      assert.equal(res.headers.location, '/accounts/profile/');
      const profile = await ivan.browser.get('/accounts/profile/');
      assert.equal(noticeOf(profile.body), 'Your passkey is renamed.');
      assert.deepEqual(passkeysListed(profile.body), ['Yubikey']);
      const longest = 'é'.repeat(100);
      assert.equal((await ivan.browser.submit(`${PASSKEYS_PATH}${ivanKey}/`, { passkey_name: longest })).status, 303, '100 characters');
      assert.equal(await nameOf(ivanKey), longest);
    });

    it('a blank name, one over 100 characters or with a null character: 422 with the message by the field, the name kept', async () => {
      const kept = await nameOf(ivanKey);
      const cases: [string, string, RegExp][] = [
        ['blank', '   ', /may not be blank/],
        ['101 characters', 'k'.repeat(101), /no more than 100 characters/],
        ['a null character', 'key\0one', /Null characters are not allowed/],
      ];
      for (const [what, name, message] of cases) {
        const res = await ivan.browser.submit(`${PASSKEYS_PATH}${ivanKey}/`, { passkey_name: name });
        assert.equal(res.status, 422, what);
        assert.match(passkeyError(res.body) ?? '', message, what);
        assert.equal(await nameOf(ivanKey), kept, `${what}: the name kept`);
      }
      // A name that is too long at adding a passkey is refused before any challenge is taken.
      const { options, csrf } = await askRegistration(ivan.browser);
      const tooLong = await postRegistration(ivan.browser, csrf, new SoftAuthenticator().register(options, base), 'k'.repeat(101));
      assert.equal(tooLong.status, 422);
      assert.match(passkeyError(tooLong.body) ?? '', /no more than 100 characters/);
    });

    it('another member’s passkey, or one that does not exist: 404 to GET, rename and remove, nothing changed', async () => {
      const token = csrfOf((await ivan.browser.get('/accounts/profile/')).body);
      for (const id of [judyKey, 999_999]) {
        assert.equal((await ivan.browser.get(`${PASSKEYS_PATH}${id}/`)).status, 404, `GET ${id}`);
        assert.equal((await ivan.browser.post(`${PASSKEYS_PATH}${id}/`, { csrfmiddlewaretoken: token, passkey_name: 'Stolen' })).status, 404, `rename ${id}`);
        assert.equal((await ivan.browser.post(`${PASSKEYS_PATH}${id}/remove/`, { csrfmiddlewaretoken: token })).status, 404, `remove ${id}`);
      }
      assert.equal(await nameOf(judyKey), 'Judy’s key');
    });

    it('renaming or removing without the CSRF token: 403, nothing changed', async () => {
      const kept = await nameOf(ivanKey);
      assert.equal((await ivan.browser.post(`${PASSKEYS_PATH}${ivanKey}/`, { passkey_name: 'No token' })).status, 403);
      assert.equal((await ivan.browser.post(`${PASSKEYS_PATH}${ivanKey}/remove/`, {})).status, 403);
      assert.equal(await nameOf(ivanKey), kept);
    });

    it('removes one’s own passkey: 303, gone from the profile, audit entries for each change; it logs no one in any more', async () => {
      assert.equal((await passkeyLogin(key)).res.status, 303, 'it works before');
      const token = csrfOf((await ivan.browser.get('/accounts/profile/')).body);
      const res = await ivan.browser.post(`${PASSKEYS_PATH}${ivanKey}/remove/`, { csrfmiddlewaretoken: token });
      assert.equal(res.status, 303);
      assert.equal(res.headers.location, '/accounts/profile/');
      const profile = await ivan.browser.get('/accounts/profile/');
      assert.equal(noticeOf(profile.body), 'Your passkey is removed: it logs no one in any more.');
      assert.deepEqual(passkeysListed(profile.body), []);
      assert.equal(await nameOf(ivanKey), undefined);
      const audit = await server.database.db.selectFrom('audit_log').selectAll().where('collection', '=', 'passkeys').where('record_id', '=', ivanKey).orderBy('id').execute();
      assert.deepEqual(
        audit.map((a) => [a.token_name, a.path, a.status]),
        [
          ['web: ivan', PASSKEYS_PATH, 303],
          // The two renames of the tests above.
          ['web: ivan', `${PASSKEYS_PATH}${ivanKey}/`, 303],
          ['web: ivan', `${PASSKEYS_PATH}${ivanKey}/`, 303],
          ['web: ivan', `${PASSKEYS_PATH}${ivanKey}/remove/`, 303],
        ],
      );
      await assertNoLogin('a removed passkey', () => passkeyLogin(key), 403, /not known here/);
      assert.equal((await ivan.browser.post(`${PASSKEYS_PATH}${ivanKey}/remove/`, { csrfmiddlewaretoken: token })).status, 404, 'removed twice');
    });
  });

  describe('at most 25 passkeys a member', () => {
    it('with 25, the options answer 422 with the reason as JSON; an answer begun at 24 is refused once a 25th is stored', async () => {
      const { id, browser } = await member('pat');
      const db = server.database.db;
      const store = (i: number) =>
        db
          .insertInto('passkeys')
          .values({
            user_id: id,
            credential_id: `pat-key-${i}`,
            public_key: 'AA',
            counter: 0,
            transports: '',
            user_handle: 'pat',
            name: `Key ${i}`,
            created_us: 1,
            last_used_us: null,
          })
          .execute();
      for (let i = 0; i < 24; i++) await store(i);
      const { options, csrf } = await askRegistration(browser);
      await store(24);
      await assertNotAdded(
        'a 26th passkey',
        browser,
        () => postRegistration(browser, csrf, new SoftAuthenticator().register(options, base), 'One too many'),
        422,
        /as many passkeys as an account may have/,
      );
      const asked = await browser.post(OPTIONS_PATH, { csrfmiddlewaretoken: csrf });
      assert.equal(asked.status, 422);
      assert.match(String(asked.headers['content-type']), /^application\/json\b/);
      assert.match((asked.json() as { detail: string }).detail, /remove one first/);
    });
  });

  describe('a superuser giving an account back', () => {
    it('removes every passkey of a member and ends their sessions; a member who is not a superuser is refused', async () => {
      const { id, browser } = await member('quinn');
      const key = new SoftAuthenticator();
      await addPasskey(browser, key, 'Quinn’s key');
      await addMember(server.database.db, { username: 'root-of-it', password: PASSWORD, superuser: true });
      const admin = await logIn(base, 'root-of-it', PASSWORD);
      const page = await admin.get(`/accounts/admin/members/${id}/`);
      assert.equal(page.status, 200);
      assert.match(page.body, /<p id="member-passkeys">1 passkey:/);
      const action = `/accounts/admin/members/${id}/passkeys/remove/`;
      const refused = await browser.post(action, { csrfmiddlewaretoken: csrfOf((await browser.get('/accounts/profile/')).body) });
      assert.equal(refused.status, 403, 'a member who is not a superuser');
      assert.equal((await passkeyRows(id)).length, 1);
      const res = await admin.post(action, { csrfmiddlewaretoken: csrfOf(page.body) });
      assert.equal(res.status, 303);
      assert.equal(res.headers.location, `/accounts/admin/members/${id}/`);
      assert.deepEqual(await passkeyRows(id), []);
      assert.equal((await browser.get('/accounts/profile/')).status, 303, 'the member is logged out');
      const audit = await server.database.db.selectFrom('audit_log').select(['token_name', 'path']).where('collection', '=', 'passkeys').where('path', '=', action).execute();
      assert.deepEqual(audit, [{ token_name: 'web: root-of-it', path: action }]);
      await assertNoLogin('a passkey removed by a superuser', () => passkeyLogin(key), 403, /not known here/);
      assert.match((await admin.get(`/accounts/admin/members/${id}/`)).body, /<p id="member-passkeys">No passkey\.<\/p>/);
    });
  });

  describe('a recent login to add a passkey', () => {
    it('a login older than 15 minutes: the profile says to log in again, the options and the form answer 403 and add nothing; a new login adds it', async () => {
      const { id, browser } = await member('olga');
      const key = new SoftAuthenticator();
      const { options, csrf } = await askRegistration(browser);
      // The session began 16 minutes ago (members.md: adding a passkey asks for a login within 15 minutes).
      await server.database.db
        .updateTable('sessions')
        .set({ created_us: Date.now() * 1000 - 16 * 60_000_000 })
        .where('user_id', '=', id)
        .execute();
      const profile = await browser.get('/accounts/profile/');
      assert.match(profile.body, /id="passkey-log-in-again"/);
      assert.doesNotMatch(profile.body, /id="passkey-add"|data-passkey="register"/);
      const challenges = await count('passkey_challenges');
      const asked = await browser.post(OPTIONS_PATH, { csrfmiddlewaretoken: csrf });
      assert.equal(asked.status, 403);
      assert.match(asked.body, /log in again/);
      assert.equal(await count('passkey_challenges'), challenges, 'no challenge stored');
      const sent = await postRegistration(browser, csrf, key.register(options, base), 'Late key');
      assert.equal(sent.status, 403);
      assert.deepEqual(await passkeyRows(id), []);
      const again = await logIn(base, 'olga', PASSWORD);
      await addPasskey(again, key, 'Fresh key');
      assert.deepEqual(
        (await passkeyRows(id)).map((row) => row.name),
        ['Fresh key'],
      );
    });
  });

  describe('password throttling', () => {
    it('a member throttled for failed passwords from this address still logs in with a passkey', async () => {
      const { browser } = await member('mallory');
      const key = new SoftAuthenticator();
      await addPasskey(browser, key, 'Mallory’s key');
      // members.md §2: five failures for a name from one address make it wait.
      const attacker = new Browser(base);
      for (let i = 1; i <= 5; i++) assert.equal((await attacker.submit('/accounts/login/', { username: 'mallory', password: `guess ${i}` })).status, 422, `failure ${i}`);
      assert.equal((await attacker.submit('/accounts/login/', { username: 'mallory', password: PASSWORD })).status, 429, 'the password waits');
      const { res, browser: passkeyBrowser } = await passkeyLogin(key);
      assert.equal(res.status, 303, loginError(res.body) ?? res.body.slice(0, 300));
      assert.equal(memberShown((await passkeyBrowser.get('/accounts/profile/')).body), 'mallory');
    });
  });
});

describe(`PASSKEYS=false, on ${TEST_ENGINE}`, () => {
  let server: TestServer;

  before(async () => {
    server = await startServer({ env: { PASSWORD_ITERATIONS: String(TEST_ITERATIONS), PASSKEYS: 'false' } });
    await addMember(server.database.db, { username: 'ada', password: PASSWORD });
  });

  after(() => server?.close());

  it('offers no passkey on the login page or the profile, and every passkey address is unknown (404)', async () => {
    const login = await new Browser(server.base).get('/accounts/login/');
    assert.equal(login.status, 200);
    assert.doesNotMatch(login.body, /passkey/i);
    const browser = await logIn(server.base, 'ada', PASSWORD);
    const profile = await browser.get('/accounts/profile/');
    assert.equal(profile.status, 200);
    assert.doesNotMatch(profile.body, /passkey/i);
    const token = csrfOf(profile.body);
    for (const path of [OPTIONS_PATH, PASSKEYS_PATH, `${PASSKEYS_PATH}1/remove/`, LOGIN_OPTIONS_PATH, LOGIN_PATH]) {
      assert.equal((await browser.post(path, { csrfmiddlewaretoken: token })).status, 404, path);
    }
    assert.equal((await browser.get(`${PASSKEYS_PATH}1/`)).status, 404);
  });
});
