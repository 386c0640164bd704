/**
 * Members on several processes sharing one database (members.md §2): real `serve` processes on
 * the engine under test. A login on one is a login on the other, a logout on one ends it on the
 * other, the login throttle counts across both, a page built for a member reaches nobody else
 * through either process's cache, and no session id or password reaches a log line.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { request } from '../../support/http.js';
import { addMember, Browser, csrfOf, logIn, sessionOf, TEST_ITERATIONS } from '../../support/members.js';
import { freePort, killAll, startService, waitUntilServing, type Service } from '../../support/processes.js';
import { freshDatabase, TEST_ENGINE, type FreshDatabase } from '../../support/server.js';

const PASSWORD = 'correct horse battery';

after(() => killAll());

function memberShown(page: string): string | null {
  return /id="member"[^>]*>([^<]*)</.exec(page)?.[1] ?? null;
}

describe(`members on two serve processes sharing one ${TEST_ENGINE} database`, () => {
  let fresh: FreshDatabase;
  let one: Service;
  let two: Service;
  const secrets: string[] = [PASSWORD];

  before(async () => {
    fresh = await freshDatabase();
    await addMember(fresh.handle.db, { username: 'Alice', password: PASSWORD });
    await addMember(fresh.handle.db, { username: 'mallory-target', password: PASSWORD });
    // info: every request logged, as an operator runs it.
    const env = { DATABASE_URL: fresh.url, LOG_LEVEL: 'info', PASSWORD_ITERATIONS: String(TEST_ITERATIONS), TRUST_PROXY: 'true' };
    [one, two] = await Promise.all([startService(['serve'], { ...env, PORT: String(await freePort()) }), startService(['serve'], { ...env, PORT: String(await freePort()) })]);
    await Promise.all([waitUntilServing(one), waitUntilServing(two)]);
  });

  after(async () => {
    await Promise.all([one?.stop(), two?.stop()]);
    await fresh?.cleanup();
  });

  it('a login on one is seen on the other; a logout on the other ends it on both', async () => {
    const onOne = await logIn(one.base, 'alice', PASSWORD);
    secrets.push(sessionOf(onOne)!);
    const onTwo = onOne.at(two.base);
    assert.equal(memberShown((await onTwo.get('/')).body), 'Alice');
    const token = csrfOf((await onTwo.get('/accounts/logout/')).body);
    const kept = sessionOf(onOne)!;
    assert.equal((await onTwo.post('/accounts/logout/', { csrfmiddlewaretoken: token })).status, 303);
    for (const service of [one, two]) {
      const res = await request(service.base, '/', { headers: { cookie: `session=${kept}` } });
      assert.equal(memberShown(res.body), null, `${service.name}: logged out`);
      assert.match(res.body, /id="login"/);
    }
  });

  it('a page built for a member reaches no visitor, on the same process or the other', async () => {
    const alice = await logIn(two.base, 'Alice', PASSWORD);
    secrets.push(sessionOf(alice)!);
    for (const path of ['/', '/members/1/', '/projects/999/']) {
      // Filled for Alice first on each process, then asked by visitors on both.
      for (const service of [one, two]) assert.equal(memberShown((await alice.at(service.base).get(path)).body), 'Alice', `${path} on ${service.name}`);
      for (const service of [one, two]) {
        for (let i = 0; i < 2; i++) {
          const visitor = await request(service.base, path);
          assert.equal(memberShown(visitor.body), null, `${path} on ${service.name}, visitor ${i}`);
          assert.match(visitor.body, /id="login"/);
        }
      }
    }
  });

  it('the throttle counts failures on both: the 6th for the pair waits on either, whatever the password; the owner logs in from another address', async () => {
    const attacker = new Browser(one.base, { 'x-forwarded-for': '203.0.113.9' });
    for (let i = 1; i <= 5; i++) {
      const at = attacker.at(i % 2 === 0 ? two.base : one.base);
      assert.equal((await at.submit('/accounts/login/', { username: 'mallory-target', password: `guess ${i}` })).status, 422, `failure ${i}`);
    }
    for (const [service, password] of [
      [one, 'guess 6'],
      [two, PASSWORD],
    ] as const) {
      const res = await attacker.at(service.base).submit('/accounts/login/', { username: 'mallory-target', password });
      assert.equal(res.status, 429, `${service.name} with ${password === PASSWORD ? 'the right password' : 'a 6th guess'}`);
      assert.ok(Number(res.headers['retry-after']) > 0);
    }
    const owner = await logIn(two.base, 'mallory-target', PASSWORD, { headers: { 'x-forwarded-for': '192.0.2.80' } });
    secrets.push(sessionOf(owner)!);
    assert.equal(memberShown((await owner.at(one.base).get('/')).body), 'mallory-target');
  });

  it('no session id or password in any log line of either process', () => {
    const lines = [...one.logs, ...two.logs].map((line) => JSON.stringify(line));
    assert.ok(
      lines.some((line) => line.includes('/accounts/login/')),
      'the requests were logged',
    );
    for (const line of lines) for (const secret of secrets) assert.ok(!line.includes(secret), `a secret in a log line: ${line.slice(0, 200)}`);
    assert.ok(!one.stderr().includes(PASSWORD) && !two.stderr().includes(PASSWORD));
  });
});
