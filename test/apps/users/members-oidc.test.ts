/**
 * Single sign-on (members.md §5) against a real OpenID provider that the tests start on this
 * machine (oidc-provider, its own login and consent pages followed over HTTP): a member found by
 * a verified address and linked, an unverified address refused, a forged state, a replayed code
 * and a wrong nonce refused with no one logged in, members made with OIDC_CREATE_MEMBERS,
 * PASSWORD_LOGIN=false, the provider down at start and coming back, and a login begun on one
 * process and finished on another.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { csrfToken } from '../../../src/request/csrf.js';
import { request } from '../../support/http.js';
import { addMember, Browser, logIn, sessionOf, TEST_ITERATIONS } from '../../support/members.js';
import { CLIENT_SECRET, oidcEnv, startProvider, throughProvider, type TestProvider } from '../../support/oidc-provider.js';
import { freePort, killAll, startService, waitUntilServing, type Service } from '../../support/processes.js';
import { freshDatabase, startServer, TEST_ENGINE, type FreshDatabase, type TestServer } from '../../support/server.js';
import { until } from '../../support/wait.js';

const CALLBACK = '/accounts/oidc/callback/';
const PASSWORD = 'correct horse battery';
/** Discovery retried soon: the tests wait for a provider that comes back. */
const TIMING = { firstRetryMs: 100, maxRetryMs: 400, timeoutSeconds: 2 };

after(() => killAll());

function memberShown(page: string): string | null {
  return /id="member"[^>]*>([^<]*)</.exec(page)?.[1] ?? null;
}

function pathOf(url: string): string {
  const u = new URL(url);
  return u.pathname + u.search;
}

/** Clicks "Log in with …": the service's 303 to the provider's authorization endpoint. */
async function begin(browser: Browser, next?: string): Promise<URL> {
  const res = await browser.get(next === undefined ? '/accounts/oidc/login/' : `/accounts/oidc/login/?next=${encodeURIComponent(next)}`);
  assert.equal(res.status, 303, `beginning single sign-on: ${res.body.slice(0, 300)}`);
  return new URL(String(res.headers.location));
}

/** The whole login as a browser does it: begin, the provider's pages as `account`, the callback on `finishOn` (default: the same process). */
async function ssoLogin(provider: TestProvider, browser: Browser, account: string, options: { next?: string; finishOn?: string } = {}) {
  const authorization = await begin(browser, options.next);
  const callback = await throughProvider(provider, authorization.href, account);
  return (options.finishOn === undefined ? browser : browser.at(options.finishOn)).get(pathOf(callback));
}

async function sessionCount(server: TestServer): Promise<number> {
  const row = await server.database.db
    .selectFrom('sessions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

function assertRefused(res: { status: number; headers: Record<string, unknown>; body: string }, status: number, browser: Browser, what: string): void {
  assert.equal(res.status, status, `${what}: ${res.body.slice(0, 300)}`);
  assert.equal(sessionOf(browser), undefined, `${what}: no session`);
  assert.equal(memberShown(res.body), null, `${what}: no one named`);
}

describe(`single sign-on with a real OpenID provider, on ${TEST_ENGINE}`, () => {
  let provider: TestProvider;
  let server: TestServer;
  let creating: TestServer;
  let noPasswords: TestServer;
  const logs: Record<string, unknown>[] = [];
  const secrets: string[] = [CLIENT_SECRET];

  before(async () => {
    const [providerPort, serverPort, creatingPort, noPasswordsPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    const callbacks = [serverPort, creatingPort, noPasswordsPort].map((port) => `http://127.0.0.1:${port}${CALLBACK}`);
    provider = await startProvider(providerPort, callbacks);
    const env = { ...oidcEnv(provider.issuer), PASSWORD_ITERATIONS: String(TEST_ITERATIONS), TRUST_PROXY: 'true' };
    server = await startServer({ port: serverPort, env, logs, oidcTiming: TIMING });
    creating = await startServer({ port: creatingPort, env: { ...env, OIDC_CREATE_MEMBERS: 'true' }, oidcTiming: TIMING });
    noPasswords = await startServer({ port: noPasswordsPort, env: { ...env, PASSWORD_LOGIN: 'false' }, oidcTiming: TIMING });
  });

  after(async () => {
    await Promise.all([server?.close(), creating?.close(), noPasswords?.close()]);
    await provider?.stop();
  });

  it('the login page offers "Log in with Spacekey" beside the password form, with `next` carried along', async () => {
    const page = await request(server.base, '/accounts/login/?next=%2Fprojects%2F');
    assert.equal(page.status, 200);
    assert.match(page.body, /<a id="oidc-login" class="button" href="\/accounts\/oidc\/login\/\?next=%2Fprojects%2F">Log in with Spacekey<\/a>/);
    assert.match(page.body, /name="password"/);
    const authorization = await begin(new Browser(server.base));
    assert.equal(authorization.origin, provider.issuer);
    const params = authorization.searchParams;
    assert.equal(params.get('redirect_uri'), `${server.base}${CALLBACK}`);
    assert.equal(params.get('response_type'), 'code');
    assert.deepEqual(params.get('scope')?.split(' ').sort(), ['email', 'openid', 'profile']);
    assert.equal(params.get('code_challenge_method'), 'S256');
    for (const name of ['state', 'nonce', 'code_challenge']) assert.match(params.get(name) ?? '', /^[A-Za-z0-9_-]{43,}$/, name);
  });

  it('a member matched by a verified e-mail logs in, to `next`; the subject is linked, so a changed address still finds them', async () => {
    const adaId = await addMember(server.database.db, { username: 'Ada', email: 'ada@example.org' });
    provider.accounts.set('subject-ada', { email: 'ADA@example.org', email_verified: true, preferred_username: 'ada.l' });
    const browser = new Browser(server.base);
    const res = await ssoLogin(provider, browser, 'subject-ada', { next: '/projects/' });
    assert.equal(res.status, 303, res.body.slice(0, 300));
    assert.equal(res.headers.location, '/projects/');
    secrets.push(sessionOf(browser)!);
    assert.equal(memberShown((await browser.get('/')).body), 'Ada');
    const profile = await browser.get('/accounts/profile/');
    assert.match(profile.body, /id="oidc-linked">Your account is linked to Spacekey/);

    provider.accounts.set('subject-ada', { email: 'ada@new-home.example', email_verified: false, preferred_username: 'ada.l' });
    const again = new Browser(server.base);
    assert.equal((await ssoLogin(provider, again, 'subject-ada')).status, 303);
    assert.equal(memberShown((await again.get('/')).body), 'Ada');
    secrets.push(sessionOf(again)!);

    const audit = await server.database.db.selectFrom('audit_log').selectAll().where('collection', '=', 'sessions').where('record_id', '=', adaId).execute();
    assert.equal(audit.length, 2);
    assert.deepEqual([audit[0].token_name, audit[0].path], ['web: Ada (Spacekey)', CALLBACK]);
    assert.ok(logs.some((line) => line.msg === 'member logged in' && line.login === 'oidc' && line.member === adaId));
  });

  it('an address the provider did not verify matches no one: 403, nothing logged in', async () => {
    await addMember(server.database.db, { username: 'Grace', email: 'grace@example.org' });
    provider.accounts.set('subject-grace', { email: 'grace@example.org', email_verified: false });
    const before = await sessionCount(server);
    const browser = new Browser(server.base);
    const res = await ssoLogin(provider, browser, 'subject-grace');
    assertRefused(res, 403, browser, 'unverified address');
    assert.match(res.body, /no member of this site has that account or its verified e-mail address/);
    assert.equal(await sessionCount(server), before);
  });

  it('an inactive member is refused, even by a verified address', async () => {
    await addMember(server.database.db, { username: 'Dormant', email: 'dormant@example.org', active: false });
    provider.accounts.set('subject-dormant', { email: 'dormant@example.org', email_verified: true });
    const browser = new Browser(server.base);
    const res = await ssoLogin(provider, browser, 'subject-dormant');
    assertRefused(res, 403, browser, 'inactive');
    assert.match(res.body, /This account is inactive/);
  });

  it('a forged state, a wrong nonce and a replayed code are refused, with no one logged in', async () => {
    await addMember(server.database.db, { username: 'Linus', email: 'linus@example.org' });
    provider.accounts.set('subject-linus', { email: 'linus@example.org', email_verified: true });
    const before = await sessionCount(server);
    for (const [param, what] of [
      ['state', 'a forged state'],
      ['nonce', 'a wrong nonce'],
    ] as const) {
      const browser = new Browser(server.base);
      const authorization = await begin(browser);
      // The provider is asked with another value than the one the service keeps for the callback.
      authorization.searchParams.set(param, 'x'.repeat(43));
      const callback = await throughProvider(provider, authorization.href, 'subject-linus');
      assertRefused(await browser.get(pathOf(callback)), 400, browser, what);
    }
    assert.equal(await sessionCount(server), before);

    const victim = new Browser(server.base);
    const authorization = await begin(victim);
    const callback = await throughProvider(provider, authorization.href, 'subject-linus');
    assert.equal((await victim.get(pathOf(callback))).status, 303);
    const session = sessionOf(victim)!;
    secrets.push(session, new URL(callback).searchParams.get('code')!);
    // The same callback again: in the browser that used it, in another, and with another browser's own fresh flow.
    assert.equal((await victim.get(pathOf(callback))).status, 400);
    assert.equal(sessionOf(victim), session, 'the session stays what it was');
    const attacker = new Browser(server.base);
    assertRefused(await attacker.get(pathOf(callback)), 400, attacker, 'a replayed callback');
    const own = await begin(attacker);
    const replayed = new URL(callback);
    replayed.searchParams.set('state', own.searchParams.get('state')!);
    assertRefused(await attacker.get(pathOf(replayed.href)), 400, attacker, 'a replayed code in a fresh flow');
    assert.equal(await sessionCount(server), before + 1);
  });

  it('unknown people are refused; the password throttling does not hold back single sign-on', async () => {
    provider.accounts.set('subject-stranger', { email: 'stranger@example.org', email_verified: true, preferred_username: 'stranger' });
    const stranger = new Browser(server.base);
    const res = await ssoLogin(provider, stranger, 'subject-stranger');
    assertRefused(res, 403, stranger, 'unknown');

    await addMember(server.database.db, { username: 'Hedy', email: 'hedy@example.org', password: PASSWORD });
    provider.accounts.set('subject-hedy', { email: 'hedy@example.org', email_verified: true });
    const browser = new Browser(server.base, { 'x-forwarded-for': '203.0.113.50' });
    for (let i = 1; i <= 5; i++) assert.equal((await browser.submit('/accounts/login/', { username: 'hedy', password: `guess ${i}` })).status, 422);
    assert.equal((await browser.submit('/accounts/login/', { username: 'hedy', password: PASSWORD })).status, 429, 'the password login waits');
    assert.equal((await ssoLogin(provider, browser, 'subject-hedy')).status, 303, 'single sign-on does not');
    assert.equal(memberShown((await browser.get('/')).body), 'Hedy');
    secrets.push(sessionOf(browser)!);
  });

  it('OIDC_CREATE_MEMBERS: a new member with no rights, named from preferred_username and made unique', async () => {
    const db = creating.database.db;
    await addMember(db, { username: 'Margaret', email: 'margaret.h@example.org' });
    provider.accounts.set('subject-margaret-2', { email: 'margaret@elsewhere.example', email_verified: true, preferred_username: 'margaret', given_name: 'Margaret' });
    const browser = new Browser(creating.base);
    assert.equal((await ssoLogin(provider, browser, 'subject-margaret-2')).status, 303);
    secrets.push(sessionOf(browser)!);
    assert.equal(memberShown((await browser.get('/')).body), 'margaret-2');
    const made = await db.selectFrom('users').selectAll().where('username', '=', 'margaret-2').executeTakeFirstOrThrow();
    assert.equal(made.is_superuser, 0);
    assert.equal(made.is_active, 1);
    assert.equal(made.email, 'margaret@elsewhere.example');
    assert.equal(made.first_name, 'Margaret');
    assert.ok(made.password.startsWith('!'), 'no usable password');
    assert.deepEqual(await db.selectFrom('user_permissions').selectAll().where('user_id', '=', made.id).execute(), []);
    assert.deepEqual(await db.selectFrom('user_groups').selectAll().where('user_id', '=', made.id).execute(), []);
    // Logging in again finds the same member through the link, and makes no other.
    const again = new Browser(creating.base);
    assert.equal((await ssoLogin(provider, again, 'subject-margaret-2')).status, 303);
    assert.equal(memberShown((await again.get('/')).body), 'margaret-2');
    assert.equal((await db.selectFrom('users').select('id').execute()).length, 2);
    // An address not verified is not kept: it must never match a member later.
    provider.accounts.set('subject-unverified', { email: 'someone@example.org', email_verified: false, preferred_username: 'Someone' });
    const third = new Browser(creating.base);
    assert.equal((await ssoLogin(provider, third, 'subject-unverified')).status, 303);
    assert.equal((await db.selectFrom('users').select('email').where('username', '=', 'Someone').executeTakeFirstOrThrow()).email, '');
  });

  it('PASSWORD_LOGIN=false: the login page has only the button, and a password POST is refused', async () => {
    await addMember(noPasswords.database.db, { username: 'Barbara', email: 'barbara@example.org', password: PASSWORD });
    const page = await request(noPasswords.base, '/accounts/login/');
    assert.equal(page.status, 200);
    assert.match(page.body, /id="oidc-login"/);
    assert.doesNotMatch(page.body, /name="password"|action="\/accounts\/login\/"/);
    const browser = new Browser(noPasswords.base);
    await browser.get('/accounts/login/');
    // The page has no form to take a token from: one made from the browser's pre-session cookie, so that the refusal is the password's, not the form's.
    const token = csrfToken(browser.cookies.get('csrftoken')!);
    const res = await browser.post('/accounts/login/', { csrfmiddlewaretoken: token, username: 'Barbara', password: PASSWORD });
    assertRefused(res, 403, browser, 'a password login');
    assert.match(res.body, /log in with Spacekey/);
    provider.accounts.set('subject-barbara', { email: 'barbara@example.org', email_verified: true });
    assert.equal((await ssoLogin(provider, browser, 'subject-barbara')).status, 303);
    assert.equal(memberShown((await browser.get('/')).body), 'Barbara');
  });

  it('no code, session id, client secret or e-mail address in any log line', () => {
    const lines = logs.map((line) => JSON.stringify(line));
    assert.ok(lines.some((line) => line.includes(CALLBACK)));
    for (const line of lines) {
      for (const secret of secrets) assert.ok(!line.includes(secret), `a secret in a log line: ${line.slice(0, 300)}`);
      assert.doesNotMatch(line, /@example\.org|code=(?!\[redacted\])/i, line.slice(0, 300));
    }
  });
});

describe(`an OpenID provider down when the service starts, on ${TEST_ENGINE}`, () => {
  let server: TestServer;
  let provider: TestProvider | undefined;
  let providerPort: number;
  const logs: Record<string, unknown>[] = [];

  before(async () => {
    [providerPort] = await Promise.all([freePort()]);
    const port = await freePort();
    server = await startServer({
      port,
      env: { ...oidcEnv(`http://127.0.0.1:${providerPort}`), PASSWORD_ITERATIONS: String(TEST_ITERATIONS) },
      logs,
      oidcTiming: TIMING,
    });
  });

  after(async () => {
    await server?.close();
    await provider?.stop();
  });

  it('the service starts and serves; the button answers 503 with a clear page; passwords still log in', async () => {
    assert.equal((await request(server.base, '/')).status, 200);
    assert.match((await request(server.base, '/accounts/login/')).body, /id="oidc-login"/);
    const res = await new Browser(server.base).get('/accounts/oidc/login/');
    assert.equal(res.status, 503);
    assert.ok(Number(res.headers['retry-after']) > 0);
    assert.match(res.body, /Spacekey cannot be reached at the moment/);
    await addMember(server.database.db, { username: 'Katherine', email: 'katherine@example.org', password: PASSWORD });
    await logIn(server.base, 'Katherine', PASSWORD);
    assert.ok(logs.some((line) => line.msg === 'OpenID provider not reached: single sign-on waits for it'));
  });

  it('when the provider comes back, discovery finds it by itself and single sign-on works', async () => {
    provider = await startProvider(providerPort, [`${server.base}${CALLBACK}`]);
    await until(() => logs.some((line) => line.msg === 'OpenID provider discovered'), 'discovery retried');
    provider.accounts.set('subject-katherine', { email: 'katherine@example.org', email_verified: true });
    const browser = new Browser(server.base);
    assert.equal((await ssoLogin(provider, browser, 'subject-katherine')).status, 303);
    assert.equal(memberShown((await browser.get('/')).body), 'Katherine');
  });
});

describe(`single sign-on begun on one serve process and finished on another, sharing one ${TEST_ENGINE} database`, () => {
  let fresh: FreshDatabase;
  let provider: TestProvider;
  let one: Service;
  let two: Service;

  before(async () => {
    fresh = await freshDatabase();
    await addMember(fresh.handle.db, { username: 'Alan', email: 'alan@example.org' });
    const [providerPort, portOne, portTwo] = await Promise.all([freePort(), freePort(), freePort()]);
    // Behind one address, as a load balancer shows them: PUBLIC_URL names the redirect URI.
    const publicUrl = `http://127.0.0.1:${portOne}`;
    provider = await startProvider(providerPort, [`${publicUrl}${CALLBACK}`]);
    provider.accounts.set('subject-alan', { email: 'alan@example.org', email_verified: true });
    const env = { ...oidcEnv(provider.issuer), DATABASE_URL: fresh.url, LOG_LEVEL: 'info', PUBLIC_URL: publicUrl };
    [one, two] = await Promise.all([startService(['serve'], { ...env, PORT: String(portOne) }), startService(['serve'], { ...env, PORT: String(portTwo) })]);
    await Promise.all([waitUntilServing(one), waitUntilServing(two)]);
  });

  after(async () => {
    await Promise.all([one?.stop(), two?.stop()]);
    await provider?.stop();
    await fresh?.cleanup();
  });

  it('the callback reaches the other process, which finishes the login; both see the member', async () => {
    const browser = new Browser(one.base);
    const res = await ssoLogin(provider, browser, 'subject-alan', { finishOn: two.base });
    assert.equal(res.status, 303, res.body.slice(0, 300));
    for (const service of [one, two]) assert.equal(memberShown((await browser.at(service.base).get('/')).body), 'Alan', service.name);
    const logged = JSON.stringify([...one.logs, ...two.logs]);
    assert.match(logged, /callback\/\?code=\[redacted\]&state=\[redacted\]/, 'the callback logged, its code and state redacted');
    assert.doesNotMatch(logged, /code=(?!\[redacted\])/, 'no authorization code in the log');
  });
});
