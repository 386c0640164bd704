/**
 * A member's own pages over real HTTP on the engine under test (members.md §1, §3, §4, §6): the
 * profile (validation, preview, the public page), personal API tokens, changing the password
 * (other sessions end), set-password links (once, expiry, void after a change, the first
 * superuser), a reset by mail through a real SMTP server, CSRF and Origin, visitors sent to the
 * login page, script inert, and the original's addresses.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPasswordLink } from '../../../src/apps/users/links.js';
import { grantRights } from '../../../src/apps/users/rights.js';
import { request } from '../../support/http.js';
import { addMember, Browser, csrfOf, logIn, noticeOf, TEST_ITERATIONS } from '../../support/members.js';
import { startServer, type TestServer } from '../../support/server.js';
import { selfSignedCertificate, startSmtpServer, type TestSmtpServer } from '../../support/smtp.js';

const PASSWORD = 'correct horse battery';
const PRIVATE = 'private, no-store';
const HOUR_US = 3_600_000_000;
const SCRIPT = '<script>alert("x")</script>';

function nowUs(): number {
  return Date.now() * 1000;
}

/** The value attribute of the input named `name` (as the HTML shows it, entities kept). */
function inputValue(page: string, name: string): string | undefined {
  return new RegExp(`<input[^>]*name="${name}"[^>]*value="([^"]*)"`).exec(page)?.[1];
}

/** Posts the profile page's token form (the route itself is POST only). */
async function newToken(browser: Browser, name: string) {
  const profile = await browser.get('/accounts/profile/');
  return browser.post('/accounts/profile/tokens/', { csrfmiddlewaretoken: csrfOf(profile.body), token_name: name });
}

function assertNoRawScript(page: string, what: string): void {
  assert.ok(!page.includes('<script>alert'), `${what}: no live script`);
}

describe('a member’s account pages', () => {
  let server: TestServer;
  let smtp: TestSmtpServer;
  let base: string;
  let aliceId: number;
  let bobId: number;

  before(async () => {
    const certificate = selfSignedCertificate();
    smtp = await startSmtpServer({ certificate });
    server = await startServer({
      env: { PASSWORD_ITERATIONS: String(TEST_ITERATIONS), SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, MAIL_FROM: 'space@hackerspace.example' },
      mailer: { ca: certificate.cert },
    });
    base = server.base;
    const db = server.database.db;
    aliceId = await addMember(db, { username: 'Alice', email: 'alice.private@example.org', password: PASSWORD });
    bobId = await addMember(db, { username: 'bob', email: 'bob.private@example.org', password: PASSWORD });
  });

  after(async () => {
    await server?.close();
    await smtp?.close();
  });

  async function userRow(id: number) {
    return server.database.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  }

  it('sends a visitor to the login page with next', async () => {
    for (const path of ['/accounts/profile/', '/accounts/password/']) {
      const res = await new Browser(base).get(path);
      assert.equal(res.status, 303, path);
      assert.equal(res.headers.location, `/accounts/login/?next=${encodeURIComponent(path)}`);
    }
  });

  it('saves the profile through the write path: 303 with a confirmation, the public page updated at once, no address on it', async () => {
    const publicBefore = await request(base, `/members/${aliceId}/`);
    assert.equal(publicBefore.status, 200);
    assert.ok(!publicBefore.body.includes('Wonderland'));
    const alice = await logIn(base, 'Alice', PASSWORD);
    const page = await alice.get('/accounts/profile/');
    assert.equal(page.status, 200);
    assert.equal(page.headers['cache-control'], PRIVATE);
    assert.equal(inputValue(page.body, 'email'), 'alice.private@example.org');
    for (const name of ['first_name', 'last_name', 'email', 'description', 'newsletter', 'show_name'])
      assert.match(page.body, new RegExp(`<label[^>]*for="${name}"|<label><input[^>]*name="${name}"`), name);
    const res = await alice.post('/accounts/profile/', {
      csrfmiddlewaretoken: csrfOf(page.body),
      first_name: ' Alice ',
      last_name: 'Wonderland',
      email: 'Alice.New@example.org',
      description: 'Likes **soldering**.',
      newsletter: 'on',
      show_name: 'on',
      action: 'save',
    });
    assert.equal(res.status, 303, res.body);
    assert.equal(res.headers.location, '/accounts/profile/');
    const after = await alice.get(res.headers.location);
    assert.equal(noticeOf(after.body), 'Your profile is saved.');
    assert.equal(noticeOf((await alice.get('/accounts/profile/')).body), null, 'the notice is shown once');
    const row = await userRow(aliceId);
    assert.deepEqual(
      { first: row.first_name, last: row.last_name, email: row.email, description: row.description, newsletter: row.newsletter, show: row.show_name },
      { first: 'Alice', last: 'Wonderland', email: 'Alice.New@example.org', description: 'Likes **soldering**.', newsletter: 1, show: 1 },
    );
    const publicPage = await request(base, `/members/${aliceId}/`);
    assert.match(publicPage.body, /Alice Wonderland/);
    assert.match(publicPage.body, /<strong>soldering<\/strong>/);
    assert.ok(!/alice\.new@example\.org/i.test(publicPage.body), 'never the e-mail address');
    const audit = await server.database.db.selectFrom('audit_log').selectAll().where('collection', '=', 'users').where('record_id', '=', aliceId).execute();
    assert.equal(audit.length, 1);
    assert.equal(audit[0].token_name, 'web: Alice');
  });

  it('shows the names on the public page only when the member chooses so', async () => {
    const bob = await logIn(base, 'bob', PASSWORD);
    const res = await bob.submit('/accounts/profile/', { first_name: 'Robert', last_name: 'Tables', email: 'bob.private@example.org', description: '' });
    assert.equal(res.status, 303, res.body);
    const publicPage = await request(base, `/members/${bobId}/`);
    assert.equal(publicPage.status, 200);
    assert.ok(!publicPage.body.includes('Robert') && !publicPage.body.includes('Tables'), 'no name without show_name');
    assert.ok(!publicPage.body.includes('bob.private@example.org'));
  });

  it('refuses a bad or taken address with 422, the message by the field, the typed values kept, nothing saved', async () => {
    const alice = await logIn(base, 'Alice', PASSWORD);
    const before = await userRow(aliceId);
    const bad = await alice.submit('/accounts/profile/', { first_name: 'Typed name', last_name: 'Kept', email: 'not an address', description: 'typed text' });
    assert.equal(bad.status, 422);
    assert.equal(bad.headers['cache-control'], PRIVATE);
    assert.match(bad.body, /id="email-error">Enter a valid email address\./);
    assert.match(bad.body, /aria-describedby="email-error"/);
    assert.equal(inputValue(bad.body, 'first_name'), 'Typed name');
    assert.equal(inputValue(bad.body, 'email'), 'not an address');
    assert.match(bad.body, />typed text<\/textarea>/);
    // Bob's address, in other case: one address, one member.
    const taken = await alice.submit('/accounts/profile/', { first_name: 'A', last_name: 'B', email: 'BOB.Private@Example.org', description: '' });
    assert.equal(taken.status, 422);
    assert.match(taken.body, /id="email-error">Another member has this e-mail address\./);
    const long = await alice.submit('/accounts/profile/', { first_name: 'x'.repeat(151), last_name: '', email: 'alice.new@example.org', description: '' });
    assert.equal(long.status, 422);
    assert.match(long.body, /id="first_name-error">Ensure this field has no more than 150 characters\./);
    assert.deepEqual(await userRow(aliceId), before);
  });

  it('previews the description rendered safely, saving nothing', async () => {
    const alice = await logIn(base, 'Alice', PASSWORD);
    const before = await userRow(aliceId);
    const res = await alice.submit('/accounts/profile/', {
      first_name: 'P',
      last_name: 'Q',
      email: 'x@example.org',
      description: `# Hi\n\n*preview* ${SCRIPT}`,
      action: 'preview',
    });
    assert.equal(res.status, 200);
    assert.match(res.body, /<em>preview<\/em>/);
    assertNoRawScript(res.body, 'preview');
    assert.equal(inputValue(res.body, 'first_name'), 'P');
    assert.deepEqual(await userRow(aliceId), before);
  });

  it('shows script typed into every text field inert, on the profile and the public page', async () => {
    const alice = await logIn(base, 'Alice', PASSWORD);
    const res = await alice.submit('/accounts/profile/', {
      first_name: SCRIPT,
      last_name: `"><img src=x onerror=alert(1)>`,
      email: 'alice.new@example.org',
      description: SCRIPT,
      show_name: 'on',
    });
    assert.equal(res.status, 303, res.body);
    const profile = await alice.get('/accounts/profile/');
    assertNoRawScript(profile.body, 'profile');
    assert.ok(!profile.body.includes('<img src=x'), 'profile: no live img');
    assert.equal(inputValue(profile.body, 'first_name'), '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    const publicPage = await request(base, `/members/${aliceId}/`);
    assertNoRawScript(publicPage.body, 'public page');
    assert.ok(!publicPage.body.includes('<img src=x'), 'public page: no live img');
    assert.match(publicPage.body, /&lt;script&gt;/);
    const token = await newToken(alice, SCRIPT);
    assert.equal(token.status, 200);
    assertNoRawScript(token.body, 'token page');
    assertNoRawScript((await alice.get('/accounts/profile/')).body, 'token list');
  });

  it('refuses a form without the token, with a wrong one or from another origin: 403, nothing changed', async () => {
    const alice = await logIn(base, 'Alice', PASSWORD);
    const page = await alice.get('/accounts/profile/');
    const csrf = csrfOf(page.body);
    const before = await userRow(aliceId);
    const fields = { first_name: 'Mallory', last_name: '', email: 'mallory@example.org', description: '' };
    const cases = [
      await alice.post('/accounts/profile/', fields),
      await alice.post('/accounts/profile/', { ...fields, csrfmiddlewaretoken: 'x'.repeat(43) }),
      await alice.post('/accounts/profile/', { ...fields, csrfmiddlewaretoken: csrf }, { origin: 'https://evil.example' }),
      await alice.post('/accounts/password/', {
        csrfmiddlewaretoken: 'wrong',
        old_password: PASSWORD,
        new_password1: 'a new long passphrase',
        new_password2: 'a new long passphrase',
      }),
      await alice.post('/accounts/profile/tokens/', { token_name: 'forged' }),
    ];
    for (const res of cases) assert.equal(res.status, 403);
    assert.deepEqual(await userRow(aliceId), before);
    const tokens = await server.database.db.selectFrom('member_tokens').select('name').where('name', '=', 'forged').execute();
    assert.equal(tokens.length, 0);
  });

  it('creates a personal token shown once, lists it, and revokes it', async () => {
    const alice = await logIn(base, 'Alice', PASSWORD);
    const created = await newToken(alice, 'my script');
    assert.equal(created.status, 200);
    assert.equal(created.headers['cache-control'], PRIVATE);
    const secret = /value="(hsm_[A-Za-z0-9_-]+)"/.exec(created.body)?.[1];
    assert.ok(secret, 'the secret on the answer');
    const profile = await alice.get('/accounts/profile/');
    assert.match(profile.body, /<td>my script<\/td>/);
    assert.ok(!profile.body.includes(secret), 'never shown again');
    const empty = await newToken(alice, '   ');
    assert.equal(empty.status, 422);
    assert.match(empty.body, /id="token_name-error"/);
    const row = await server.database.db.selectFrom('member_tokens').selectAll().where('name', '=', 'my script').executeTakeFirstOrThrow();
    assert.ok(!row.secret_hash.includes(secret));
    const revoke = await alice.post(`/accounts/profile/tokens/${row.id}/revoke/`, { csrfmiddlewaretoken: csrfOf(profile.body) });
    assert.equal(revoke.status, 303);
    assert.equal(revoke.headers.location, '/accounts/profile/');
    const afterRevoke = await alice.get('/accounts/profile/');
    assert.equal(noticeOf(afterRevoke.body), 'The token is revoked.');
    assert.ok(!afterRevoke.body.includes('<td>my script</td>'));
    // Someone else's token, or one revoked already: 404, nothing changed.
    const bob = await logIn(base, 'bob', PASSWORD);
    const bobToken = await newToken(bob, 'bob’s');
    assert.equal(bobToken.status, 200);
    const bobRow = await server.database.db.selectFrom('member_tokens').selectAll().where('user_id', '=', bobId).executeTakeFirstOrThrow();
    const foreign = await alice.post(`/accounts/profile/tokens/${bobRow.id}/revoke/`, { csrfmiddlewaretoken: csrfOf(afterRevoke.body) });
    assert.equal(foreign.status, 404);
    const still = await server.database.db.selectFrom('member_tokens').select('revoked_us').where('id', '=', bobRow.id).executeTakeFirstOrThrow();
    assert.equal(still.revoked_us, null);
  });

  it('a personal token made on the profile works with the API with its owner’s rights, and stops when revoked', async () => {
    const frank = await addMember(server.database.db, { username: 'frank', email: 'frank@example.org', password: PASSWORD });
    await grantRights(server.database.db, frank, ['projects.add_project']);
    const browser = await logIn(base, 'frank', PASSWORD);
    const created = await newToken(browser, 'cli');
    const secret = /value="(hsm_[A-Za-z0-9_-]+)"/.exec(created.body)?.[1];
    assert.ok(secret);
    const authorization = `Token ${secret}`;
    const project = { title: 'Made with a member token', maintainer: `${base}/api/users/${frank}/`, status: 'p', progress: 0, short_description: 'x' };
    const made = await request(base, '/api/projects/', { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify(project) });
    assert.equal(made.status, 201, made.body);
    assert.equal((await request(base, '/api/projects/', { headers: { authorization } })).status, 200);
    const row = await server.database.db.selectFrom('member_tokens').select('id').where('user_id', '=', frank).executeTakeFirstOrThrow();
    const profile = await browser.get('/accounts/profile/');
    assert.match(profile.body, /<td>cli<\/td><td><time[^>]*>[^<]*<\/time><\/td><td><time/, 'its last use listed');
    const revoked = await browser.post(`/accounts/profile/tokens/${row.id}/revoke/`, { csrfmiddlewaretoken: csrfOf(profile.body) });
    assert.equal(revoked.status, 303);
    assert.equal((await request(base, '/api/projects/', { headers: { authorization } })).status, 401);
  });

  it('changes the password: rules and typos refused (422, nothing echoed), then other sessions end, this one stays', async () => {
    const carolId = await addMember(server.database.db, { username: 'carol', email: 'carol@example.org', password: PASSWORD });
    const here = await logIn(base, 'carol', PASSWORD);
    const elsewhere = await logIn(base, 'carol', PASSWORD);
    const wrongOld = await here.submit('/accounts/password/', { old_password: 'not it at all', new_password1: 'a new long passphrase', new_password2: 'a new long passphrase' });
    assert.equal(wrongOld.status, 422);
    assert.match(wrongOld.body, /id="old_password-error"/);
    assert.ok(!wrongOld.body.includes('not it at all') && !wrongOld.body.includes('a new long passphrase'), 'no password echoed');
    const differ = await here.submit('/accounts/password/', { old_password: PASSWORD, new_password1: 'a new long passphrase', new_password2: 'a new long passphrase!' });
    assert.equal(differ.status, 422);
    assert.match(differ.body, /id="new_password2-error"/);
    const digits = await here.submit('/accounts/password/', { old_password: PASSWORD, new_password1: '1234567890123', new_password2: '1234567890123' });
    assert.equal(digits.status, 422);
    assert.match(digits.body, /id="new_password1-error">[^<]*numeric/i);
    const short = await here.submit('/accounts/password/', { old_password: PASSWORD, new_password1: 'short', new_password2: 'short' });
    assert.equal(short.status, 422);
    assert.match(short.body, /id="new_password1-error">[^<]*8 characters/);
    assert.ok(!short.body.includes(PASSWORD));
    const hashBefore = (await userRow(carolId)).password;
    assert.equal((await userRow(carolId)).password, hashBefore);
    const ok = await here.submit('/accounts/password/', { old_password: PASSWORD, new_password1: 'a new long passphrase', new_password2: 'a new long passphrase' });
    assert.equal(ok.status, 303, ok.body);
    assert.equal(ok.headers.location, '/accounts/profile/');
    const kept = await here.get('/accounts/profile/');
    assert.equal(kept.status, 200, 'this session stays');
    assert.equal(noticeOf(kept.body), 'Your password is changed. Your other sessions are logged out.');
    const gone = await elsewhere.get('/accounts/profile/');
    assert.equal(gone.status, 303, 'the other session ended');
    await logIn(base, 'carol', 'a new long passphrase');
    const oldLogin = await new Browser(base).submit('/accounts/login/', { username: 'carol', password: PASSWORD });
    assert.equal(oldLogin.status, 422);
  });

  it('sets a password from an invitation link, once; expired and void links give 410 with what to do', async () => {
    const db = server.database.db;
    const daveId = await addMember(db, { username: 'dave', email: 'dave@example.org' });
    const token = await createPasswordLink(db, daveId, 'invitation', nowUs());
    const path = `/accounts/set-password/${token}/`;
    const browser = new Browser(base);
    const page = await browser.get(path);
    assert.equal(page.status, 200);
    assert.equal(page.headers['cache-control'], PRIVATE);
    assert.match(page.body, /dave/);
    const differ = await browser.post(path, { csrfmiddlewaretoken: csrfOf(page.body), new_password1: 'dave’s own passphrase', new_password2: 'other' });
    assert.equal(differ.status, 422);
    const weak = await browser.post(path, { csrfmiddlewaretoken: csrfOf(page.body), new_password1: 'dave', new_password2: 'dave' });
    assert.equal(weak.status, 422);
    assert.match(weak.body, /id="new_password1-error"/);
    const forged = await new Browser(base).post(path, { csrfmiddlewaretoken: csrfOf(page.body), new_password1: 'dave’s own passphrase', new_password2: 'dave’s own passphrase' });
    assert.equal(forged.status, 403, 'the token belongs to the browser that got the form');
    const ok = await browser.post(path, { csrfmiddlewaretoken: csrfOf(page.body), new_password1: 'dave’s own passphrase', new_password2: 'dave’s own passphrase' });
    assert.equal(ok.status, 303, ok.body);
    assert.equal(ok.headers.location, '/accounts/set-password/done/');
    assert.match((await browser.get('/accounts/set-password/done/')).body, /log in/i);
    await logIn(base, 'dave', 'dave’s own passphrase');
    const again = await browser.get(path);
    assert.equal(again.status, 410, 'single use');
    assert.match(again.body, /no longer works/);
    assert.match(again.body, /href="\/accounts\/password\/reset\/"/);
    const reused = await browser.post(path, { csrfmiddlewaretoken: csrfOf(page.body), new_password1: 'another passphrase', new_password2: 'another passphrase' });
    assert.equal(reused.status, 410);

    const expired = await createPasswordLink(db, daveId, 'reset', nowUs() - 2 * HOUR_US);
    assert.equal((await browser.get(`/accounts/set-password/${expired}/`)).status, 410, 'a reset lasts one hour');
    const oldInvitation = await createPasswordLink(db, daveId, 'invitation', nowUs() - 73 * HOUR_US);
    assert.equal((await browser.get(`/accounts/set-password/${oldInvitation}/`)).status, 410, 'an invitation lasts 72 hours');

    const voided = await createPasswordLink(db, daveId, 'reset', nowUs());
    assert.equal((await browser.get(`/accounts/set-password/${voided}/`)).status, 200);
    const dave = await logIn(base, 'dave', 'dave’s own passphrase');
    const change = await dave.submit('/accounts/password/', {
      old_password: 'dave’s own passphrase',
      new_password1: 'a changed passphrase',
      new_password2: 'a changed passphrase',
    });
    assert.equal(change.status, 303);
    assert.equal((await browser.get(`/accounts/set-password/${voided}/`)).status, 410, 'void after a password change');
    assert.equal((await browser.get(`/accounts/set-password/${'A'.repeat(43)}/`)).status, 410, 'an unknown token');
  });

  it('creates the first superuser from its link, once', async () => {
    const db = server.database.db;
    const token = await createPasswordLink(db, null, 'first-superuser', nowUs());
    const path = `/accounts/set-password/${token}/`;
    const browser = new Browser(base);
    const page = await browser.get(path);
    assert.equal(page.status, 200);
    assert.match(page.body, /<label for="username">/);
    assert.match(page.body, /<label for="email">/);
    const bad = await browser.post(path, {
      csrfmiddlewaretoken: csrfOf(page.body),
      username: 'root',
      email: 'nope',
      new_password1: 'the first passphrase',
      new_password2: 'the first passphrase',
    });
    assert.equal(bad.status, 422);
    assert.equal(inputValue(bad.body, 'username'), 'root');
    assert.match(bad.body, /id="email-error"/);
    assert.ok(!bad.body.includes('the first passphrase'));
    const ok = await browser.post(path, {
      csrfmiddlewaretoken: csrfOf(page.body),
      username: 'root',
      email: 'root@example.org',
      new_password1: 'the first passphrase',
      new_password2: 'the first passphrase',
    });
    assert.equal(ok.status, 303, ok.body);
    const root = await db.selectFrom('users').select(['is_superuser', 'is_active']).where('username', '=', 'root').executeTakeFirstOrThrow();
    assert.deepEqual(root, { is_superuser: 1, is_active: 1 });
    await logIn(base, 'root', 'the first passphrase');
    assert.equal((await browser.get(path)).status, 410);
  });

  it('sends a reset link by mail, with the same answer for an unknown account', async () => {
    const eve = await addMember(server.database.db, { username: 'eve', email: 'eve.private@example.org', password: PASSWORD });
    const browser = new Browser(base);
    const form = await browser.get('/accounts/password/reset/');
    assert.equal(form.status, 200);
    assert.match(form.body, /<label for="login">/);
    const blank = await browser.post('/accounts/password/reset/', { csrfmiddlewaretoken: csrfOf(form.body), login: ' ' });
    assert.equal(blank.status, 422);
    const mailsBefore = smtp.received.length;
    const unknown = await browser.post('/accounts/password/reset/', { csrfmiddlewaretoken: csrfOf(form.body), login: 'nobody-here' });
    const known = await browser.post('/accounts/password/reset/', { csrfmiddlewaretoken: csrfOf(form.body), login: 'EVE' });
    assert.deepEqual([unknown.status, unknown.headers.location, unknown.body], [known.status, known.headers.location, known.body]);
    assert.equal(known.status, 303);
    const done = await browser.get(known.headers.location as string);
    assert.equal(done.status, 200);
    assert.match(done.body, /try again later/);
    const mail = await smtp.nextMail(mailsBefore + 1);
    assert.deepEqual(mail.to, ['eve.private@example.org']);
    const link = /http:\/\/127\.0\.0\.1:\d+(\/accounts\/set-password\/[A-Za-z0-9_-]{43}\/)/.exec(mail.text)?.[1];
    assert.ok(link, mail.text);
    const page = await browser.get(link);
    assert.equal(page.status, 200);
    const set = await browser.post(link, { csrfmiddlewaretoken: csrfOf(page.body), new_password1: 'eve’s fresh passphrase', new_password2: 'eve’s fresh passphrase' });
    assert.equal(set.status, 303);
    await logIn(base, 'eve', 'eve’s fresh passphrase');
    assert.equal(smtp.received.filter((m) => m.to.some((to) => !to.startsWith('eve.'))).length, 0, 'no mail for the unknown account');
    assert.ok(eve > 0);
  });

  it('keeps the original’s addresses: 301 with the query', async () => {
    const cases: [string, string][] = [
      ['/accounts/profile?from=wiki', '/accounts/profile/?from=wiki'],
      ['/accounts/edit', '/accounts/profile/'],
      ['/accounts/passwd/?a=1&b=2', '/accounts/password/?a=1&b=2'],
      ['/auth/password_reset/?x=y', '/accounts/password/reset/?x=y'],
    ];
    for (const [from, to] of cases) {
      const res = await request(base, from);
      assert.equal(res.status, 301, from);
      assert.equal(res.headers.location, to, from);
    }
  });
});

describe('a reset without mail', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ env: { PASSWORD_ITERATIONS: String(TEST_ITERATIONS) } });
  });
  after(() => server?.close());

  it('says to ask a superuser', async () => {
    const res = await new Browser(server.base).get('/accounts/password/reset/');
    assert.equal(res.status, 200);
    assert.match(res.body, /Ask a superuser/);
    assert.ok(!res.body.includes('name="login"'));
  });
});
