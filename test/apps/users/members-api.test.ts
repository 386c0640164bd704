// Members' personal API tokens (members.md §3): a token acts as its owner, with exactly the
// owner's rights, read afresh on every request. Real HTTP against the app built in-process, on
// both engines.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Db } from '../../../src/db/connection.js';
import { importRecords } from '../../../src/installed-apps.js';
import { createMemberToken, listMemberTokens, revokeMemberToken, MemberTokenError } from '../../../src/apps/users/member-tokens.js';
import { createGroup, grantRights, revokeRights, setGroupRights, setMemberGroups } from '../../../src/apps/users/rights.js';
import { listAudit } from '../../../src/resources/audit.js';
import { createToken } from '../../../src/resources/tokens.js';
import { nowUs } from '../../support/clock.js';
import { user } from '../../support/contract.js';
import { request, type HttpResponse } from '../../support/http.js';
import { startServer, type TestServer } from '../../support/server.js';
import { SPEC_RIGHTS } from '../../support/members.js';

const FORBIDDEN = { detail: 'You do not have permission to perform this action.' };
const INVALID_TOKEN = { detail: 'Invalid token.' };

/** The nine rights of members.md §3 and the write each allows, spelled out from the spec. */
const NINE = SPEC_RIGHTS;

function call(base: string, method: string, path: string, secret: string | null, json?: unknown): Promise<HttpResponse> {
  const headers: Record<string, string> = {};
  if (secret !== null) headers.authorization = `Token ${secret}`;
  if (json !== undefined) headers['content-type'] = 'application/json';
  return request(base, path, { method, headers, body: json === undefined ? undefined : JSON.stringify(json) });
}

function assertStatus(res: HttpResponse, status: number, what: string, body?: unknown): void {
  assert.equal(res.status, status, `${what}: ${res.status} ${res.body}`);
  if (body !== undefined) assert.deepEqual(res.json(), body, what);
}

describe('members: personal API tokens', () => {
  let server: TestServer;
  let db: Db;
  let admin: string;
  let nextUser = 10;
  const url = (path: string) => `${server.base}/api/${path}`;

  /** A new member (active unless `extra` says otherwise), and a token of theirs. */
  async function member(extra: Record<string, unknown> = {}): Promise<{ id: number; secret: string; tokenId: number; username: string }> {
    const pk = nextUser++;
    const record = user(pk, `member${pk}`);
    Object.assign(record.fields, extra);
    await db.transaction().execute((trx) => importRecords(trx, [record]));
    const { token, secret } = await createMemberToken(db, pk, 'laptop', nowUs());
    return { id: pk, secret, tokenId: token.id, username: `member${pk}` };
  }

  async function created(path: string, json: unknown): Promise<number> {
    const res = await call(server.base, 'POST', path, admin, json);
    assertStatus(res, 201, `admin POST ${path}`);
    return (res.json() as { id: number }).id;
  }

  /** Records for one round: each write has its own target, made by the admin token (organizer and maintainer: user 1). */
  async function targets() {
    const newEvent = () => created('/api/events/', { title: 'Workshop', status: 'r', organizer: url('users/1/') });
    const projectBody = { title: 'Laser', maintainer: url('users/1/'), status: 'p', progress: 0, short_description: 'cut' };
    return {
      projectToChange: await created('/api/projects/', projectBody),
      projectToDelete: await created('/api/projects/', projectBody),
      eventToChange: await newEvent(),
      eventToDelete: await newEvent(),
      eventForMeeting: await newEvent(),
      meetingToChange: await created('/api/meetings/', { event: url(`events/${await newEvent()}/`) }),
      meetingToDelete: await created('/api/meetings/', { event: url(`events/${await newEvent()}/`) }),
    };
  }

  /** Each of the nine writes through `secret`, on fresh targets: its status per right. */
  async function tryAll(secret: string): Promise<Record<(typeof NINE)[number], number>> {
    const t = await targets();
    const base = server.base;
    const projectBody = { title: 'Mine', maintainer: url('users/1/'), status: 'p', progress: 0, short_description: 'x' };
    return {
      'projects.add_project': (await call(base, 'POST', '/api/projects/', secret, projectBody)).status,
      'projects.change_project': (await call(base, 'PATCH', `/api/projects/${t.projectToChange}/`, secret, { title: 'Renamed' })).status,
      'projects.delete_project': (await call(base, 'DELETE', `/api/projects/${t.projectToDelete}/`, secret)).status,
      'events.add_event': (await call(base, 'POST', '/api/events/', secret, { title: 'Talk', status: 'r' })).status,
      'events.change_event': (await call(base, 'PATCH', `/api/events/${t.eventToChange}/`, secret, { title: 'Renamed' })).status,
      'events.delete_event': (await call(base, 'DELETE', `/api/events/${t.eventToDelete}/`, secret)).status,
      'events.add_meeting': (await call(base, 'POST', '/api/meetings/', secret, { event: url(`events/${t.eventForMeeting}/`) })).status,
      'events.change_meeting': (await call(base, 'PATCH', `/api/meetings/${t.meetingToChange}/`, secret, { OJ: 'agenda' })).status,
      'events.delete_meeting': (await call(base, 'DELETE', `/api/meetings/${t.meetingToDelete}/`, secret)).status,
    };
  }

  const SUCCESS: Record<string, number> = { add: 201, change: 200, delete: 204 };
  /** The statuses when exactly `allowed` are held. */
  function expected(allowed: readonly string[]): Record<string, number> {
    return Object.fromEntries(NINE.map((right) => [right, allowed.includes(right) ? SUCCESS[right.split('.')[1].split('_')[0]] : 403]));
  }

  before(async () => {
    server = await startServer({ records: [user(1, 'organizer'), user(2, 'maintainer')] });
    db = server.database.db;
    admin = (await createToken(db, 'admin', 'admin', nowUs())).secret;
  });
  after(() => server.close());

  it('creates named tokens shown once (prefix hsm_), lists them with their last use, revokes only its owner’s', async () => {
    const a = await member();
    const b = await member();
    assert.match(a.secret, /^hsm_[A-Za-z0-9_-]{43}$/);
    await assert.rejects(createMemberToken(db, a.id, 'laptop', nowUs()), MemberTokenError, 'a second active token of the same name');
    await assert.rejects(createMemberToken(db, a.id, '  ', nowUs()), MemberTokenError);
    const stored = await db.selectFrom('member_tokens').selectAll().where('id', '=', a.tokenId).executeTakeFirstOrThrow();
    assert.ok(!Object.values(stored).some((v) => String(v).includes(a.secret.slice(4))), 'the secret is stored nowhere');

    const [listed] = await listMemberTokens(db, a.id);
    assert.equal(listed.name, 'laptop');
    assert.equal(listed.lastUsedUs, null);
    const before = nowUs();
    assertStatus(await call(server.base, 'GET', '/api/projects/', a.secret), 200, 'a read with a member token');
    const [used] = await listMemberTokens(db, a.id);
    assert.ok(used.lastUsedUs !== null && used.lastUsedUs >= before, 'the read is its last use');

    assert.equal(await revokeMemberToken(db, b.id, a.tokenId, nowUs()), false, 'another member cannot revoke it');
    assert.equal(await revokeMemberToken(db, a.id, a.tokenId, nowUs()), true);
    assert.deepEqual(await listMemberTokens(db, a.id), []);
    assertStatus(await call(server.base, 'GET', '/api/projects/', a.secret), 401, 'a revoked token, even to read', INVALID_TOKEN);
  });

  it('reads with a member token answer as anonymous reads do, every time', async () => {
    const m = await member();
    const anonymous = await call(server.base, 'GET', '/api/events/', null);
    for (let i = 0; i < 3; i++) {
      const res = await call(server.base, 'GET', '/api/events/', m.secret);
      assertStatus(res, 200, `read ${i}`);
      assert.equal(res.body, anonymous.body);
    }
  });

  it('none of the nine rights: every write is 403; users and openings are never writable', async () => {
    const m = await member();
    assert.deepEqual(await tryAll(m.secret), expected([]));
    assertStatus(await call(server.base, 'POST', '/api/space/openings/', m.secret, { is_open: true }), 403, 'openings', FORBIDDEN);
    assertStatus(await call(server.base, 'PATCH', `/api/users/${m.id}/`, m.secret, { username: 'renamed' }), 403, 'users', FORBIDDEN);
  });

  for (const right of NINE) {
    it(`${right} granted directly allows exactly its write`, async () => {
      const m = await member();
      await grantRights(db, m.id, [right]);
      assert.deepEqual(await tryAll(m.secret), expected([right]));
    });

    it(`${right} held through a group allows exactly its write`, async () => {
      const m = await member();
      const group = await createGroup(db, `only ${right}`);
      await setGroupRights(db, group, [right]);
      await setMemberGroups(db, m.id, [group]);
      assert.deepEqual(await tryAll(m.secret), expected([right]));
    });
  }

  it('a superuser’s token may do all nine, not users or openings', async () => {
    const m = await member({ is_superuser: true });
    assert.deepEqual(await tryAll(m.secret), expected(NINE));
    assertStatus(await call(server.base, 'POST', '/api/space/openings/', m.secret, { is_open: true }), 403, 'openings');
  });

  it('a maintainer edits their project (not delete it); an organizer edits the event, adds and edits its meetings', async () => {
    const m = await member();
    const mine = await created('/api/projects/', { title: 'Mine', maintainer: url(`users/${m.id}/`), status: 'p', progress: 0, short_description: 'x' });
    const base = server.base;
    assertStatus(await call(base, 'PATCH', `/api/projects/${mine}/`, m.secret, { title: 'Still mine' }), 200, 'maintainer PATCH');
    assertStatus(
      await call(base, 'PUT', `/api/projects/${mine}/`, m.secret, { title: 'All of it', maintainer: url(`users/${m.id}/`), status: 'i', progress: 5, short_description: 'y' }),
      200,
      'maintainer PUT',
    );
    assertStatus(await call(base, 'DELETE', `/api/projects/${mine}/`, m.secret), 403, 'maintainer DELETE', FORBIDDEN);

    const organized = await created('/api/events/', { title: 'Mine', status: 'r', organizer: url(`users/${m.id}/`) });
    const other = await created('/api/events/', { title: 'Theirs', status: 'r', organizer: url('users/1/') });
    assertStatus(await call(base, 'PATCH', `/api/events/${organized}/`, m.secret, { place: 'Lab' }), 200, 'organizer PATCH event');
    assertStatus(await call(base, 'DELETE', `/api/events/${organized}/`, m.secret), 403, 'organizer DELETE event');
    assertStatus(await call(base, 'PATCH', `/api/events/${other}/`, m.secret, { place: 'Lab' }), 403, 'another event');
    const add = await call(base, 'POST', '/api/meetings/', m.secret, { event: url(`events/${organized}/`), OJ: 'first' });
    assertStatus(add, 201, 'organizer adds a meeting');
    const meetingId = (add.json() as { id: number }).id;
    assertStatus(await call(base, 'POST', '/api/meetings/', m.secret, { event: url(`events/${other}/`) }), 403, 'a meeting of another event');
    assertStatus(await call(base, 'PATCH', `/api/meetings/${meetingId}/`, m.secret, { PV: 'minutes' }), 200, 'organizer edits the meeting');
    assertStatus(await call(base, 'PATCH', `/api/meetings/${meetingId}/`, m.secret, { event: url(`events/${other}/`) }), 403, 'moving it to another event');
    assertStatus(await call(base, 'DELETE', `/api/meetings/${meetingId}/`, m.secret), 403, 'organizer deletes the meeting');
    assertStatus(await call(base, 'PATCH', '/api/projects/999999/', m.secret, { title: 'x' }), 404, 'an unknown record is 404');
  });

  it('a right revoked counts at the next request; an inactive owner’s token is 401', async () => {
    const m = await member();
    await grantRights(db, m.id, ['events.add_event']);
    assertStatus(await call(server.base, 'POST', '/api/events/', m.secret, { title: 'One', status: 'r' }), 201, 'with the right');
    await revokeRights(db, m.id, ['events.add_event']);
    assertStatus(await call(server.base, 'POST', '/api/events/', m.secret, { title: 'Two', status: 'r' }), 403, 'the right revoked', FORBIDDEN);

    const group = await createGroup(db, 'event makers');
    await setGroupRights(db, group, ['events.add_event']);
    await setMemberGroups(db, m.id, [group]);
    assertStatus(await call(server.base, 'POST', '/api/events/', m.secret, { title: 'Three', status: 'r' }), 201, 'through a group');
    await setGroupRights(db, group, []);
    assertStatus(await call(server.base, 'POST', '/api/events/', m.secret, { title: 'Four', status: 'r' }), 403, 'the group lost it');

    // Reads first, so that a fast path that remembered the token would answer the next ones.
    assertStatus(await call(server.base, 'GET', '/api/events/', m.secret), 200, 'a read');
    assertStatus(await call(server.base, 'GET', '/api/events/', m.secret), 200, 'a second read');
    await db.updateTable('users').set({ is_active: 0 }).where('id', '=', m.id).execute();
    const res = await call(server.base, 'GET', '/api/events/', m.secret);
    assertStatus(res, 401, 'a read by an inactive owner', INVALID_TOKEN);
    assert.equal(res.headers['www-authenticate'], 'Token');
    assertStatus(await call(server.base, 'POST', '/api/events/', m.secret, { title: 'Five', status: 'r' }), 401, 'a write by an inactive owner', INVALID_TOKEN);
    const inactive = await member({ is_active: false, is_superuser: true });
    assertStatus(await call(server.base, 'DELETE', '/api/events/1/', inactive.secret), 401, 'an inactive superuser', INVALID_TOKEN);
  });

  it('the audit names the member and the token, never the secret; OPTIONS shows the actions the owner holds', async () => {
    const m = await member();
    await grantRights(db, m.id, ['projects.add_project']);
    const res = await call(server.base, 'POST', '/api/projects/', m.secret, { title: 'Audited', maintainer: url('users/1/'), status: 'p', progress: 0, short_description: 'x' });
    assertStatus(res, 201, 'POST');
    const [entry] = await listAudit(db, 1);
    assert.equal(entry.tokenId, null);
    assert.equal(entry.tokenName, `member ${m.username}: laptop`);
    assert.equal(entry.recordId, (res.json() as { id: number }).id);
    assert.ok(!JSON.stringify(entry).includes(m.secret.slice(4)));

    const options = async (path: string) => (await call(server.base, 'OPTIONS', path, m.secret)).json() as { actions?: Record<string, unknown> };
    assert.deepEqual(Object.keys((await options('/api/projects/')).actions ?? {}), ['POST']);
    assert.equal((await options('/api/events/')).actions, undefined);
    assert.equal((await options('/api/users/')).actions, undefined);
  });
});
