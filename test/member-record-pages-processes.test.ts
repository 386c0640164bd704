/**
 * Record pages built for a member on two `serve` processes sharing one database (members.md §2,
 * §4): a member with edit rights reads a record's page on each process, then visitors and another
 * member read it on both; neither process's cache hands them the first member's page.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { importRecords } from '../src/installed-apps.js';
import { event, meeting, project } from './support/contract.js';
import { request } from './support/http.js';
import { addMember, logIn, TEST_ITERATIONS, type Browser } from './support/members.js';
import { freePort, killAll, startService, waitUntilServing, type Service } from './support/processes.js';
import { freshDatabase, TEST_ENGINE, type FreshDatabase } from './support/server.js';

const PASSWORD = 'correct horse battery';

after(() => killAll());

function memberShown(page: string): string | null {
  return /id="member"[^>]*>([^<]*)</.exec(page)?.[1] ?? null;
}

/** Anything on a page that only a member's page has: a form's token, an edit or delete link, a join button. */
function memberParts(page: string): string[] {
  return [...page.matchAll(/csrfmiddlewaretoken|\/(?:edit|delete)\/|\/join\/|\/interested\//g)].map((m) => m[0]);
}

describe(`record pages built for a member, on two serve processes sharing one ${TEST_ENGINE} database`, () => {
  let fresh: FreshDatabase;
  let one: Service;
  let two: Service;
  let editor: Browser;
  let other: Browser;

  before(async () => {
    fresh = await freshDatabase();
    const db = fresh.handle.db;
    const editorId = await addMember(db, { username: 'editor', password: PASSWORD, superuser: true });
    await addMember(db, { username: 'other', password: PASSWORD });
    await db
      .transaction()
      .execute((trx) => importRecords(trx, [project(1, editorId), event(1, new Date(Date.now() + 86_400_000).toISOString(), null, { organizer: editorId }), meeting(1, 1)]));
    const env = { DATABASE_URL: fresh.url, LOG_LEVEL: 'warn', PASSWORD_ITERATIONS: String(TEST_ITERATIONS) };
    [one, two] = await Promise.all([startService(['serve'], { ...env, PORT: String(await freePort()) }), startService(['serve'], { ...env, PORT: String(await freePort()) })]);
    await Promise.all([waitUntilServing(one), waitUntilServing(two)]);
    editor = await logIn(one.base, 'editor', PASSWORD);
    other = await logIn(two.base, 'other', PASSWORD);
  });

  after(async () => {
    await Promise.all([one?.stop(), two?.stop()]);
    await fresh?.cleanup();
  });

  it('the editor’s page, read first on each process, reaches no visitor and not the other member on either', async () => {
    for (const path of ['/projects/1/', '/events/1/', '/meetings/1/']) {
      for (const service of [one, two]) {
        const page = await editor.at(service.base).get(path);
        assert.equal(memberShown(page.body), 'editor', `${path} on ${service.name}`);
        assert.ok(page.body.includes(`${path}edit/`), `${path} on ${service.name}: the editor's edit link`);
      }
      for (const service of [one, two]) {
        for (let i = 0; i < 2; i++) {
          const visitor = await request(service.base, path);
          assert.equal(visitor.status, 200);
          assert.equal(memberShown(visitor.body), null, `${path} on ${service.name}, visitor ${i}`);
          assert.deepEqual(memberParts(visitor.body), [], `${path} on ${service.name}, visitor ${i}`);
        }
        const theOther = await other.at(service.base).get(path);
        assert.equal(memberShown(theOther.body), 'other', `${path} on ${service.name}`);
        assert.ok(!/\/(edit|delete)\//.test(theOther.body), `${path} on ${service.name}: no edit or delete for the other member`);
      }
    }
  });
});
