/**
 * Logging in and out over real HTTP on the engine under test (members.md §2, §6): the login form,
 * its answers (303, 422, 429, 503), the session cookie and its flags, `next`, CSRF and Origin,
 * hostile form bodies, sessions that are not (guessed, ended, of a deactivated account), the
 * navigation of members and visitors, and that no page built for a member reaches anyone else
 * through a cache. Two processes sharing a database: test/apps/users/members-processes.test.ts.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { after, before, describe, it } from 'node:test';
import { hashSecretId } from '../../../src/apps/users/sessions.js';
import { request, type HttpResponse } from '../../support/http.js';
import { addMember, Browser, csrfOf, formBody, logIn, sessionOf, TEST_ITERATIONS } from '../../support/members.js';
import { startServer, type TestServer } from '../../support/server.js';

const PASSWORD = 'correct horse battery';
const FAILED = 'Wrong username or password.';
const PRIVATE = 'private, no-store';
const SESSION_COOKIE = /^session=([A-Za-z0-9_-]{43}); HttpOnly; SameSite=Lax; Path=\/; Max-Age=1209600$/;

/** The element with id="member" (the member's name in the navigation), or null. */
function memberShown(page: string): string | null {
  return /id="member"[^>]*>([^<]*)</.exec(page)?.[1] ?? null;
}

function assertVisitorPage(res: HttpResponse, what: string): void {
  assert.equal(res.status, 200, what);
  assert.equal(memberShown(res.body), null, `${what}: no member's name`);
  assert.match(res.body, /id="login"/, `${what}: the log-in link`);
}

async function sessionRows(server: TestServer): Promise<number> {
  const row = await server.database.db
    .selectFrom('sessions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('logging in and out', () => {
  let server: TestServer;
  let base: string;

  before(async () => {
    server = await startServer({ env: { PASSWORD_ITERATIONS: String(TEST_ITERATIONS), TRUST_PROXY: 'true' } });
    base = server.base;
    const db = server.database.db;
    await addMember(db, { username: 'Alice', email: 'alice.private@example.org', password: PASSWORD });
    await addMember(db, { username: 'bob', password: PASSWORD });
    await addMember(db, { username: 'Carol', password: PASSWORD, active: false });
  });

  after(() => server?.close());

  it('shows the form: labelled username and password, a CSRF token, one h1, private', async () => {
    const res = await new Browser(base).get('/accounts/login/');
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(res.headers['cache-control'], PRIVATE);
    assert.match(res.body, /<label for="username">/);
    assert.match(res.body, /<input id="username" name="username"/);
    assert.match(res.body, /<label for="password">/);
    assert.match(res.body, /<input id="password" name="password" type="password"/);
    assert.equal(res.body.match(/<h1[ >]/g)?.length, 1);
    assert.match(csrfOf(res.body), /^[A-Za-z0-9_-]{43}$/);
    const csp = String(res.headers['content-security-policy']);
    assert.match(csp, /form-action 'self'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(res.body, /style="|<script>|onclick=/);
    assert.match(String(res.headers['set-cookie']), /^csrftoken=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Lax; Path=\/$/);
  });

  it('answers other methods with a 405 page, and the path without its slash with a 301', async () => {
    const put = await request(base, '/accounts/login/', { method: 'PUT', body: '' });
    assert.equal(put.status, 405);
    assert.equal(put.headers.allow, 'GET, HEAD, POST');
    assert.equal(put.headers['content-type'], 'text/html; charset=utf-8');
    const bare = await request(base, '/accounts/logout?x=1');
    assert.equal(bare.status, 301);
    assert.equal(bare.headers.location, '/accounts/logout/?x=1');
  });

  it('logs in: 303 to /, a session cookie HttpOnly, SameSite=Lax, Path=/, not Secure on HTTP; every page then names the member, private', async () => {
    const browser = new Browser(base);
    const page = await browser.get('/accounts/login/');
    const res = await browser.post('/accounts/login/', { csrfmiddlewaretoken: csrfOf(page.body), username: 'Alice', password: PASSWORD });
    assert.equal(res.status, 303, res.body);
    assert.equal(res.headers.location, '/');
    const cookies = res.headers['set-cookie'] ?? [];
    assert.equal(cookies.length, 1, String(cookies));
    assert.match(cookies[0], SESSION_COOKIE);
    for (const path of ['/', '/projects/1/', '/accounts/login/', '/accounts/logout/', '/api/?format=api', '/nothing/here/']) {
      const shown = await browser.get(path, { accept: 'text/html' });
      assert.equal(memberShown(shown.body), 'Alice', `${path} names the member`);
      assert.match(shown.body, /href="\/accounts\/profile\/"/, `${path}: the profile link`);
      assert.match(
        shown.body,
        /<form method="post" action="\/accounts\/logout\/"[^>]*><input type="hidden" name="csrfmiddlewaretoken" value="[A-Za-z0-9_-]{43}"><button/,
        `${path}: the log-out button`,
      );
      assert.doesNotMatch(shown.body, /id="login"/, path);
      assert.equal(shown.headers['cache-control'], PRIVATE, `${path} is private`);
    }
    // The JSON API is the same for everyone, cookie or not.
    const json = await browser.get('/api/users/');
    assert.equal(json.status, 200);
    assert.equal(json.json().count, 3);
  });

  it('matches the username whatever its case, or the e-mail address', async () => {
    for (const name of ['alice', 'ALICE', 'aLiCe', 'alice.private@example.org']) {
      const browser = await logIn(base, name, PASSWORD);
      assert.equal(memberShown((await browser.get('/')).body), 'Alice', name);
    }
  });

  it('refuses a wrong password, an unknown name and an inactive account alike: 422, the username kept, the password not', async () => {
    for (const [username, password] of [
      ['Alice', 'not the password'],
      ['nobody-here', PASSWORD],
      ['Carol', PASSWORD],
    ]) {
      const browser = new Browser(base, { 'x-forwarded-for': '198.51.100.7' });
      const res = await browser.submit('/accounts/login/', { username, password });
      assert.equal(res.status, 422, username);
      assert.ok(res.body.includes(FAILED), username);
      assert.match(res.body, new RegExp(`name="username"[^>]* value="${username}"`), `${username} kept`);
      assert.ok(!res.body.includes(password), 'the password is not sent back');
      assert.equal(sessionOf(browser), undefined, 'no session');
      assert.equal(res.headers['cache-control'], PRIVATE);
    }
  });

  it('starts a new session at login: never the id the browser came with', async () => {
    const planted = randomBytes(32).toString('base64url');
    const browser = new Browser(base);
    browser.cookies.set('session', planted);
    await browser.submit('/accounts/login/', { username: 'bob', password: PASSWORD });
    const first = sessionOf(browser);
    assert.ok(first !== undefined && first !== planted, 'a new id');
    // Logging in again from a logged-in browser: another new id, and the old session ends.
    await browser.submit('/accounts/login/', { username: 'bob', password: PASSWORD });
    const second = sessionOf(browser);
    assert.ok(second !== undefined && second !== first);
    const old = new Browser(base);
    old.cookies.set('session', first);
    assertVisitorPage(await old.get('/'), 'the session replaced at the second login');
    // The database keeps only the id's SHA-256.
    const stored = await server.database.db.selectFrom('sessions').select('id_hash').execute();
    assert.ok(stored.some((row) => row.id_hash === hashSecretId(second)));
    assert.ok(!stored.some((row) => row.id_hash === second || row.id_hash === planted));
  });

  describe('next', () => {
    const followed: [next: string, location: string][] = [
      ['/projects/1/', '/projects/1/'],
      ['/events/?page=2', '/events/?page=2'],
      // members.md §6
      ['//evil.example', '/'],
      ['/\\evil.example', '/'],
      ['https://evil.example', '/'],
      ['%2F%2Fevil.example', '/'],
      ['/%2F/evil.example', '/'],
      ['/\t/evil.example', '/'],
    ];
    for (const [next, location] of followed) {
      it(`?next=${JSON.stringify(next)} → ${location}`, async () => {
        const browser = new Browser(base);
        const page = await browser.get(`/accounts/login/?next=${encodeURIComponent(next)}`);
        const res = await browser.post('/accounts/login/', {
          csrfmiddlewaretoken: csrfOf(page.body),
          username: 'bob',
          password: PASSWORD,
          next: /value="([^"]*)" *>\s*<p><label for="username"/.exec(page.body.replace(/name="next" value="([^"]*)">/, 'value="$1" >'))?.[1] ?? '',
        });
        assert.equal(res.status, 303);
        assert.equal(res.headers.location, location);
        // The same `next` posted as is.
        const direct = await browser.post('/accounts/login/', { csrfmiddlewaretoken: csrfOf(page.body), username: 'bob', password: PASSWORD, next });
        assert.equal(direct.headers.location, location);
      });
    }

    it("the original's /auth/login/ redirects here, keeping the query", async () => {
      for (const path of ['/auth/login/?next=%2Fprojects%2F1%2F', '/auth/login?next=/events/']) {
        const res = await request(base, path);
        assert.equal(res.status, 301, path);
        assert.equal(res.headers.location, `/accounts/login/?${path.split('?')[1]}`);
      }
    });

    it("a visitor's log-in link names the page they are on", async () => {
      const res = await request(base, '/projects/1/');
      assert.match(res.body, /<a href="\/accounts\/login\/\?next=%2Fprojects%2F1%2F" id="login">/);
      assert.match((await request(base, '/')).body, /<a href="\/accounts\/login\/" id="login">/);
    });
  });

  describe('logging out', () => {
    it('GET shows the button and logs nobody out; POST with the token ends the session in the database and removes the cookie', async () => {
      const browser = await logIn(base, 'bob', PASSWORD);
      const id = sessionOf(browser)!;
      const page = await browser.get('/accounts/logout/');
      assert.equal(page.status, 200);
      assert.match(page.body, /<form method="post" action="\/accounts\/logout\/"/);
      assert.equal(memberShown((await browser.get('/')).body), 'bob', 'still logged in after the GET');
      const rows = await sessionRows(server);
      const res = await browser.post('/accounts/logout/', { csrfmiddlewaretoken: csrfOf(page.body) });
      assert.equal(res.status, 303);
      assert.equal(res.headers.location, '/');
      assert.deepEqual(res.headers['set-cookie'], ['session=; HttpOnly; SameSite=Lax; Path=/; Max-Age=0']);
      assert.equal(await sessionRows(server), rows - 1);
      assertVisitorPage(await browser.get('/'), 'after logging out');
      // The same id sent again: a visitor, and the browser is told to drop it.
      const replay = new Browser(base);
      replay.cookies.set('session', id);
      const again = await replay.get('/');
      assertVisitorPage(again, 'the id reused after logout');
      assert.deepEqual(again.headers['set-cookie'], ['session=; HttpOnly; SameSite=Lax; Path=/; Max-Age=0']);
      // Its log-out form, posted again: nothing to end, the cookie goes.
      replay.cookies.set('session', id);
      const late = await replay.post('/accounts/logout/', { csrfmiddlewaretoken: csrfOf(page.body) });
      assert.equal(late.status, 303);
    });

    it('a POST without the token, with a wrong one, or from another origin is refused with 403 and logs nobody out', async () => {
      const browser = await logIn(base, 'bob', PASSWORD);
      const token = csrfOf((await browser.get('/accounts/logout/')).body);
      const refused: [string, Record<string, string>, Record<string, string>][] = [
        ['no token', {}, {}],
        ['a wrong token', { csrfmiddlewaretoken: token.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')) }, {}],
        ["another session's token", { csrfmiddlewaretoken: csrfOf((await (await logIn(base, 'bob', PASSWORD)).get('/accounts/logout/')).body) }, {}],
        ['another origin', { csrfmiddlewaretoken: token }, { origin: 'https://evil.example' }],
        ['a null origin', { csrfmiddlewaretoken: token }, { origin: 'null' }],
      ];
      for (const [what, fields, headers] of refused) {
        const res = await browser.post('/accounts/logout/', fields, headers);
        assert.equal(res.status, 403, what);
        assert.match(res.body, /The form expired or came from another site/, what);
        assert.equal(res.headers['set-cookie']?.some((c) => c.startsWith('session=;')) ?? false, false, `${what}: the cookie stays`);
        assert.equal(memberShown((await browser.get('/')).body), 'bob', `${what}: still logged in`);
      }
      // This site's own origin passes.
      const ok = await browser.post('/accounts/logout/', { csrfmiddlewaretoken: token }, { origin: base });
      assert.equal(ok.status, 303);
    });
  });

  describe('the login form refuses forged and hostile posts', () => {
    it('without the token, with a wrong one, without its pre-session cookie, or from another origin: 403, no session', async () => {
      const browser = new Browser(base);
      const token = csrfOf((await browser.get('/accounts/login/')).body);
      const cases: [string, Browser, Record<string, string>, Record<string, string>][] = [
        ['no token', browser, {}, {}],
        ['a wrong token', browser, { csrfmiddlewaretoken: csrfOf((await new Browser(base).get('/accounts/login/')).body) }, {}],
        ['no pre-session cookie', new Browser(base), { csrfmiddlewaretoken: token }, {}],
        ['another origin', browser, { csrfmiddlewaretoken: token }, { origin: 'http://evil.example' }],
        ['a null origin', browser, { csrfmiddlewaretoken: token }, { origin: 'null' }],
      ];
      for (const [what, sender, fields, headers] of cases) {
        const res = await sender.post('/accounts/login/', { username: 'bob', password: PASSWORD, ...fields }, headers);
        assert.equal(res.status, 403, what);
        assert.match(res.body, /The form expired or came from another site/);
        assert.equal(sessionOf(sender), undefined, `${what}: no session`);
      }
    });

    it('a body over 1 MiB: 413, as a page', async () => {
      const browser = new Browser(base);
      const token = csrfOf((await browser.get('/accounts/login/')).body);
      const res = await browser.post('/accounts/login/', `csrfmiddlewaretoken=${token}&username=bob&password=${'x'.repeat(1024 * 1024)}`);
      assert.equal(res.status, 413);
      assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
      assert.equal(sessionOf(browser), undefined);
    });

    it('repeated fields count once (the first), unknown ones are ignored', async () => {
      const browser = new Browser(base);
      const token = csrfOf((await browser.get('/accounts/login/')).body);
      const res = await browser.post('/accounts/login/', [
        ['csrfmiddlewaretoken', token],
        ['username', 'bob'],
        ['username', 'Alice'],
        ['password', PASSWORD],
        ['password', 'something else'],
        ['is_superuser', 'true'],
        ['remember_me', 'on'],
      ]);
      assert.equal(res.status, 303);
      assert.equal(memberShown((await browser.get('/')).body), 'bob');
    });

    it('invalid UTF-8: a 400 page that says so, no session', async () => {
      const browser = new Browser(base);
      const token = csrfOf((await browser.get('/accounts/login/')).body);
      for (const body of [
        `csrfmiddlewaretoken=${token}&username=bob%FF&password=x`,
        Buffer.concat([Buffer.from(`csrfmiddlewaretoken=${token}&username=`), Buffer.from([0xc3, 0x28]), Buffer.from('&password=x')]),
      ]) {
        const res = await browser.post('/accounts/login/', body);
        assert.equal(res.status, 400);
        assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
        assert.match(res.body, /not sent as UTF-8/);
        assert.equal(sessionOf(browser), undefined);
      }
    });

    it('a body that is not a form: 415, as a page', async () => {
      const browser = new Browser(base);
      const token = csrfOf((await browser.get('/accounts/login/')).body);
      const res = await browser.post('/accounts/login/', JSON.stringify({ csrfmiddlewaretoken: token, username: 'bob', password: PASSWORD }), {
        'content-type': 'application/json',
      });
      assert.equal(res.status, 415);
      assert.equal(sessionOf(browser), undefined);
    });

    it('script in the username is shown inert', async () => {
      const browser = new Browser(base);
      const res = await browser.submit('/accounts/login/', { username: '"><script>alert(1)</script>', password: 'x' });
      assert.equal(res.status, 422);
      assert.ok(!res.body.includes('<script>alert(1)'));
      assert.ok(res.body.includes('&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;'));
    });
  });

  describe('sessions that are not', () => {
    it('a guessed id, a malformed one, an ended one, and one of an account deactivated since: a visitor, the cookie dropped', async () => {
      const browser = await logIn(base, 'bob', PASSWORD);
      const live = sessionOf(browser)!;
      for (const [what, id] of [
        ['guessed', randomBytes(32).toString('base64url')],
        ['one character off', live.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))],
        ['malformed', 'x"; DROP TABLE sessions; --'],
        ['huge', 'a'.repeat(4000)],
      ]) {
        const res = await request(base, '/', { headers: { cookie: `session=${id}` } });
        assertVisitorPage(res, what);
        assert.equal(res.headers['cache-control'], PRIVATE, what);
      }
      const dave = await addMember(server.database.db, { username: 'dave', password: PASSWORD });
      const daves = await logIn(base, 'dave', PASSWORD);
      assert.equal(memberShown((await daves.get('/')).body), 'dave');
      await server.database.db.updateTable('users').set({ is_active: 0 }).where('id', '=', dave).execute();
      assertVisitorPage(await daves.get('/'), 'deactivated');
      assert.equal(sessionOf(daves), undefined, 'the cookie dropped');
    });
  });

  describe('caching', () => {
    it('a page built for a member never reaches a visitor or another member, in either order, GET or HEAD', async () => {
      const alice = await logIn(base, 'Alice', PASSWORD);
      const bob = await logIn(base, 'bob', PASSWORD);
      for (const path of ['/', '/projects/999/', '/members/1/', '/events.ics', '/api/users/?format=api']) {
        const asAlice = await alice.get(path, { accept: 'text/html' });
        const visitor = await request(base, path, { headers: { accept: 'text/html' } });
        const asBob = await bob.get(path, { accept: 'text/html' });
        const visitorAgain = await request(base, path, { headers: { accept: 'text/html' } });
        // Alice's log-out token is in every page built for her, and in no other.
        const alicesToken = /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(asAlice.body)?.[1];
        for (const [who, res] of [
          ['visitor', visitor],
          ['visitor again', visitorAgain],
          ['bob', asBob],
        ] as const) {
          assert.notEqual(memberShown(res.body), 'Alice', `${path}: Alice's page reached ${who}`);
          if (alicesToken !== undefined) assert.ok(!res.body.includes(alicesToken), `${path}: Alice's token reached ${who}`);
        }
        if (path !== '/events.ics') {
          assert.equal(memberShown(asAlice.body), 'Alice', path);
          assert.equal(memberShown(asBob.body), 'bob', path);
        }
        assert.equal(asAlice.headers['cache-control'], PRIVATE, path);
        assert.notEqual(visitorAgain.headers['cache-control'], PRIVATE, `${path}: a visitor's page is cacheable`);
        const head = await alice.send(path, { method: 'HEAD', headers: { accept: 'text/html' } });
        assert.equal(head.headers['cache-control'], PRIVATE, `HEAD ${path}`);
      }
    });

    it("a visitor's page, cached first, is not served to a member", async () => {
      const path = '/members/2/';
      await request(base, path);
      const cached = await request(base, path);
      assert.match(cached.body, /id="login"/);
      const alice = await logIn(base, 'Alice', PASSWORD);
      assert.equal(memberShown((await alice.get(path)).body), 'Alice');
    });
  });

  describe('superusers', () => {
    it('the login page says how to make the first superuser while there is none', async () => {
      assert.match((await request(base, '/accounts/login/')).body, /hackerspace-api user create NAME --email ADDRESS --superuser/);
      await addMember(server.database.db, { username: 'root', password: PASSWORD, superuser: true });
      assert.doesNotMatch((await request(base, '/accounts/login/')).body, /user create/);
    });
  });

  describe('throttling', () => {
    it('after 5 failures for a name from one address: 429 with Retry-After and until when, whatever the password; the owner logs in from another address', async () => {
      await addMember(server.database.db, { username: 'erin', password: PASSWORD });
      const attacker = new Browser(base, { 'x-forwarded-for': '203.0.113.5' });
      for (let i = 1; i <= 5; i++) {
        const res = await attacker.submit('/accounts/login/', { username: 'erin', password: `guess ${i}` });
        assert.equal(res.status, 422, `failure ${i}`);
      }
      for (const password of ['guess 6', PASSWORD]) {
        const res = await attacker.submit('/accounts/login/', { username: 'ERIN', password });
        assert.equal(res.status, 429, password === PASSWORD ? 'the right password waits too' : 'the 6th');
        const seconds = Number(res.headers['retry-after']);
        assert.ok(Number.isInteger(seconds) && seconds > 0 && seconds <= 15 * 60, String(res.headers['retry-after']));
        assert.match(res.body, /try again after <time datetime="[^"]+">[^<]+<\/time>/);
        assert.equal(sessionOf(attacker), undefined);
      }
      await logIn(base, 'erin', PASSWORD, { headers: { 'x-forwarded-for': '192.0.2.44' } });
    });
  });
});

describe('logging in on HTTPS (PUBLIC_URL https://…)', () => {
  let server: TestServer;

  before(async () => {
    server = await startServer({ env: { PASSWORD_ITERATIONS: String(TEST_ITERATIONS), PUBLIC_URL: 'https://space.example.org' } });
    await addMember(server.database.db, { username: 'alice', password: PASSWORD });
  });

  after(() => server?.close());

  it('names the cookies __Host-session and __Host-csrftoken, Secure; a plain `session` cookie counts for nothing', async () => {
    const browser = new Browser(server.base);
    const page = await browser.get('/accounts/login/');
    assert.match(String(page.headers['set-cookie']), /^__Host-csrftoken=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Lax; Path=\/; Secure$/);
    const res = await browser.post('/accounts/login/', { csrfmiddlewaretoken: csrfOf(page.body), username: 'alice', password: PASSWORD }, { origin: 'https://space.example.org' });
    assert.equal(res.status, 303);
    assert.match(String(res.headers['set-cookie']), /^__Host-session=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Lax; Path=\/; Secure; Max-Age=1209600$/);
    const id = browser.cookies.get('__Host-session')!;
    assert.equal(memberShown((await browser.get('/')).body), 'alice');
    const plain = await request(server.base, '/', { headers: { cookie: `session=${id}` } });
    assertVisitorPage(plain, 'the id under the plain name');
    // The origin of PUBLIC_URL, not the address the request reached.
    const foreign = await browser.post('/accounts/logout/', { csrfmiddlewaretoken: csrfOf((await browser.get('/accounts/logout/')).body) }, { origin: server.base });
    assert.equal(foreign.status, 403);
  });
});

describe('password hashing past its queue', () => {
  let server: TestServer;

  before(async () => {
    // No queue, and hashes slow enough that the cores are all busy when the rest arrive.
    server = await startServer({ env: { PASSWORD_ITERATIONS: '3000000', HASH_QUEUE: '0' } });
  });

  after(() => server?.close());

  it('answers 503 with Retry-After and a page, never a 500', async () => {
    const browsers = await Promise.all(
      Array.from({ length: os.availableParallelism() * 2 + 2 }, async () => {
        const browser = new Browser(server.base);
        const token = csrfOf((await browser.get('/accounts/login/')).body);
        return { browser, token };
      }),
    );
    const answers = await Promise.all(
      browsers.map(({ browser, token }) => browser.post('/accounts/login/', formBody({ csrfmiddlewaretoken: token, username: 'nobody', password: 'x' }))),
    );
    const statuses = answers.map((res) => res.status);
    assert.ok(
      statuses.every((status) => status === 422 || status === 503),
      statuses.join(' '),
    );
    const busy = answers.find((res) => res.status === 503);
    assert.ok(busy, `some logins found the hashing busy: ${statuses.join(' ')}`);
    assert.ok(Number(busy.headers['retry-after']) >= 1);
    assert.equal(busy.headers['content-type'], 'text/html; charset=utf-8');
  });
});
