// Passkeys in Chromium (members.md §5), with a virtual authenticator of the Chrome DevTools
// Protocol (WebAuthn.addVirtualAuthenticator: user-verifying, holding discoverable credentials):
// a member adds a passkey on the profile page, logs out and logs in with it without typing a
// name; the profile lists it by name and last use; removed, it logs no one in; an answer posted
// again is refused; the pages pass axe and run under the CSP with no request to another origin.
// Then two `serve` processes behind one PUBLIC_URL: each ceremony begun on one is finished on the
// other.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { axe, describeViolations, launchBrowser, watchedPage, type WatchedPage } from '../../support/browser.js';
import { addMember, TEST_ITERATIONS } from '../../support/members.js';
import { freePort, killAll, startService, waitUntilServing, type Service } from '../../support/processes.js';
import { freshDatabase, startServer, TEST_ENGINE, type FreshDatabase, type TestServer } from '../../support/server.js';

const USERNAME = 'ada';
const PASSWORD = 'analytical engine 1843';

after(() => killAll());

/** A user-verifying platform authenticator that keeps discoverable credentials and answers at once. */
async function addAuthenticator(page: Page): Promise<{ cdp: CDPSession; authenticatorId: string }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return { cdp, authenticatorId };
}

/** Logs in with the password form (to add a first passkey). */
async function logInWithPassword(page: Page, origin: string): Promise<void> {
  await page.goto(`${origin}/accounts/login/?next=/accounts/profile/`);
  await page.fill('#username', USERNAME);
  await page.fill('#password', PASSWORD);
  await Promise.all([page.waitForURL((url) => url.pathname === '/accounts/profile/'), page.click('form[action="/accounts/login/"] button[type="submit"]')]);
}

async function logOut(page: Page): Promise<void> {
  await Promise.all([page.waitForURL((url) => url.pathname === '/'), page.locator('header form.logout button').click()]);
  assert.equal(await page.locator('#member').count(), 0, 'logged out');
}

/** Adds a passkey named `name` from the profile page; returns the notice shown. */
async function addPasskey(page: Page, origin: string, name: string): Promise<string> {
  await page.goto(`${origin}/accounts/profile/`);
  await page.fill('#passkey_name', name);
  await page.click('#passkey-add');
  await page.waitForSelector('#notice');
  return (await page.textContent('#notice')) ?? '';
}

/** Presses "Log in with a passkey" on the login page (next = the profile) and waits for the page it leads to. */
async function logInWithPasskey(page: Page, origin: string): Promise<void> {
  await page.goto(`${origin}/accounts/login/?next=/accounts/profile/`);
  await page.click('#passkey-login');
  await page.waitForURL((url) => url.pathname === '/accounts/profile/' || url.pathname === '/accounts/passkey/login/');
}

/** The rows of the profile's passkey table: name, last use. */
async function passkeyRows(page: Page): Promise<string[][]> {
  return page.$$eval('#passkeys tbody tr', (rows) => rows.map((row) => [...row.querySelectorAll('td')].slice(0, 3).map((cell) => (cell.textContent ?? '').trim())));
}

describe('passkeys in a browser', () => {
  let server: TestServer;
  let browser: Browser;
  let origin: string;
  let adaId: number;

  before(async () => {
    server = await startServer({ env: { PASSWORD_ITERATIONS: String(TEST_ITERATIONS) } });
    adaId = await addMember(server.database.db, { username: USERNAME, password: PASSWORD, firstName: 'Ada' });
    browser = await launchBrowser();
    // Browsers refuse an IP address as a relying party: the site is reached as localhost.
    origin = `http://localhost:${server.port}`;
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('adds a passkey, logs out, logs in with it without a name or password, and the profile shows its last use', async () => {
    const watched = await watchedPage(browser, origin);
    try {
      const { page } = watched;
      const { cdp, authenticatorId } = await addAuthenticator(page);
      await logInWithPassword(page, origin);
      assert.equal(await page.isVisible('#passkey-add'), true, 'the add button is shown where passkeys work');
      assert.match(await addPasskey(page, origin, 'Laptop'), /passkey is added/);
      assert.deepEqual(await passkeyRows(page), [['Laptop', (await passkeyRows(page))[0][1], 'never']]);
      const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
      assert.equal(credentials.length, 1);
      assert.equal(credentials[0].isResidentCredential, true, 'a discoverable credential');
      assert.equal(credentials[0].rpId, 'localhost');

      await logOut(page);
      await logInWithPasskey(page, origin);
      assert.equal(new URL(page.url()).pathname, '/accounts/profile/', 'logged in and sent to next');
      assert.equal((await page.textContent('#member'))?.trim(), USERNAME);
      const [[name, , lastUse]] = await passkeyRows(page);
      assert.equal(name, 'Laptop');
      assert.notEqual(lastUse, 'never');
      const audit = await server.database.db.selectFrom('audit_log').select(['token_name', 'path']).where('collection', '=', 'sessions').where('record_id', '=', adaId).execute();
      assert.deepEqual(
        audit.map((row) => row.token_name),
        [`web: ${USERNAME} (passkey)`],
      );
      assert.deepEqual(watched.problems(), []);
    } finally {
      await watched.close();
    }
  });

  it('refuses an answer posted again: its challenge was taken by the first', async () => {
    const watched = await watchedPage(browser, origin);
    try {
      const { page, context } = watched;
      await addAuthenticatorWithPasskey(page);
      let posted: string | null = null;
      await page.route('**/accounts/passkey/login/', async (route) => {
        posted = route.request().postData();
        await route.continue();
      });
      await logInWithPasskey(page, origin);
      assert.equal(new URL(page.url()).pathname, '/accounts/profile/');
      assert.ok(posted !== null, 'the login form was posted');
      const before = await countLogins(server);
      // The same browser, logged out (its pre-session cookie and the form's token kept), sends the same answer again.
      await context.clearCookies({ name: 'session' });
      const again = await context.request.post(`${origin}/accounts/passkey/login/`, {
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
        data: posted,
        maxRedirects: 0,
      });
      assert.equal(again.status(), 403);
      assert.match(await again.text(), /took too long, was already used/);
      assert.equal(again.headers()['set-cookie'] ?? '', '', 'no session cookie');
      assert.equal(await countLogins(server), before, 'no login recorded');
    } finally {
      await watched.close();
    }
  });

  it('removes a passkey; the authenticator still offers it, and the site refuses it', async () => {
    const watched = await watchedPage(browser, origin);
    try {
      const { page } = watched;
      await addAuthenticatorWithPasskey(page);
      await page.goto(`${origin}/accounts/profile/`);
      const before = (await passkeyRows(page)).length;
      await Promise.all([
        page.waitForURL((url) => url.pathname === '/accounts/profile/'),
        page.locator('#passkeys tbody tr').last().locator('button', { hasText: 'Remove' }).click(),
      ]);
      assert.match((await page.textContent('#notice')) ?? '', /removed/);
      assert.equal((await passkeyRows(page)).length, before - 1);
      await logOut(page);
      await logInWithPasskey(page, origin);
      assert.equal(new URL(page.url()).pathname, '/accounts/passkey/login/', 'the login page again');
      assert.match((await page.textContent('#login-error')) ?? '', /not known here/);
      assert.equal(await page.locator('#member').count(), 0, 'no one is logged in');
    } finally {
      await watched.close();
    }
  });

  it('passes axe on the login page and on a profile listing passkeys, in the light and the dark colour scheme', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const watched = await watchedPage(browser, origin, { colorScheme });
      try {
        const { page } = watched;
        await addAuthenticatorWithPasskey(page);
        await page.goto(`${origin}/accounts/profile/`);
        assert.ok((await passkeyRows(page)).length > 0);
        let violations = await axe(page);
        assert.deepEqual(violations, [], `profile, ${colorScheme}: ${describeViolations(violations)}`);
        await logOut(page);
        await page.goto(`${origin}/accounts/login/`);
        assert.equal(await page.isVisible('#passkey-login'), true);
        violations = await axe(page);
        assert.deepEqual(violations, [], `login, ${colorScheme}: ${describeViolations(violations)}`);
        assert.deepEqual(watched.problems(), []);
      } finally {
        await watched.close();
      }
    }
  });

  it('shows no passkey button without JavaScript, and says why on the profile', async () => {
    const watched = await watchedPage(browser, origin, { javaScriptEnabled: false });
    try {
      const { page } = watched;
      await page.goto(`${origin}/accounts/login/`);
      assert.equal(await page.isVisible('#passkey-login'), false);
      assert.equal(await page.isDisabled('#passkey-login'), true);
      await page.fill('#username', USERNAME);
      await page.fill('#password', PASSWORD);
      await Promise.all([page.waitForURL((url) => url.pathname === '/'), page.click('form[action="/accounts/login/"] button[type="submit"]')]);
      await page.goto(`${origin}/accounts/profile/`);
      assert.equal(await page.isVisible('#passkey-add'), false);
      // Disabled too: Enter in the name field sends no form without a passkey in it.
      assert.equal(await page.isDisabled('#passkey-add'), true);
      assert.equal(await page.isVisible('text=Adding a passkey needs JavaScript'), true);
    } finally {
      await watched.close();
    }
  });

  /** A fresh authenticator in this context, with a passkey of its own added to Ada's account (logged in afterwards). */
  async function addAuthenticatorWithPasskey(page: Page): Promise<void> {
    await addAuthenticator(page);
    await logInWithPassword(page, origin);
    await addPasskey(page, origin, `Key ${Date.now()}`);
  }
});

async function countLogins(server: TestServer): Promise<number> {
  const rows = await server.database.db.selectFrom('audit_log').select('id').where('collection', '=', 'sessions').execute();
  return rows.length;
}

/**
 * A load balancer in front of two processes: the forms that finish a ceremony (`finishing`) go to
 * `second`, everything else to `first`.
 */
async function splittingProxy(first: number, second: number, finishing: readonly string[]): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((incoming, outgoing) => {
    const port = incoming.method === 'POST' && finishing.includes(incoming.url ?? '') ? second : first;
    const upstream = http.request({ host: '127.0.0.1', port, method: incoming.method, path: incoming.url, headers: incoming.headers }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
      answer.pipe(outgoing);
    });
    upstream.on('error', () => outgoing.destroy());
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe(`passkey ceremonies begun on one serve process and finished on another, sharing one ${TEST_ENGINE} database`, () => {
  let fresh: FreshDatabase;
  let one: Service;
  let two: Service;
  let proxy: Awaited<ReturnType<typeof splittingProxy>>;
  let browser: Browser;
  let watched: WatchedPage;
  /** The site's address (PUBLIC_URL of both processes): the proxy, on localhost. */
  let site: string;

  before(async () => {
    fresh = await freshDatabase();
    await addMember(fresh.handle.db, { username: USERNAME, password: PASSWORD });
    const [portOne, portTwo] = [await freePort(), await freePort()];
    proxy = await splittingProxy(portOne, portTwo, ['/accounts/profile/passkeys/', '/accounts/passkey/login/']);
    site = `http://localhost:${proxy.port}`;
    const env = { DATABASE_URL: fresh.url, LOG_LEVEL: 'info', PASSWORD_ITERATIONS: String(TEST_ITERATIONS), PUBLIC_URL: site };
    [one, two] = await Promise.all([startService(['serve'], { ...env, PORT: String(portOne) }), startService(['serve'], { ...env, PORT: String(portTwo) })]);
    await Promise.all([waitUntilServing(one), waitUntilServing(two)]);
    browser = await launchBrowser();
    watched = await watchedPage(browser, site);
  });

  after(async () => {
    await watched?.close();
    await browser?.close();
    await proxy?.close();
    await Promise.all([one?.stop(), two?.stop()]);
    await fresh?.cleanup();
  });

  it('adds a passkey and logs in with it, each ceremony begun by one process and finished by the other', async () => {
    const { page } = watched;
    await addAuthenticator(page);
    await logInWithPassword(page, site);
    assert.match(await addPasskey(page, site, 'Phone'), /passkey is added/);
    const added = await fresh.handle.db.selectFrom('audit_log').select(['path']).where('collection', '=', 'passkeys').execute();
    assert.deepEqual(added, [{ path: '/accounts/profile/passkeys/' }]);
    await logOut(page);
    await logInWithPasskey(page, site);
    assert.equal(new URL(page.url()).pathname, '/accounts/profile/');
    assert.equal((await page.textContent('#member'))?.trim(), USERNAME);
    await two.waitForLog((line) => line.msg === 'member logged in' && line.login === 'passkey', 'process two logs the passkey login');
    const begunBy = (service: Service, path: string) => service.logs.some((line) => (line.req as { url?: string } | undefined)?.url === path);
    assert.equal(begunBy(one, '/accounts/passkey/login/options/'), true, 'process one gave the challenge');
    assert.equal(begunBy(two, '/accounts/passkey/login/options/'), false, 'process two did not');
    assert.equal(
      one.logs.some((line) => line.msg === 'member logged in' && line.login === 'passkey'),
      false,
      'process one did not finish the login',
    );
    assert.deepEqual(watched.problems(), []);
  });
});
