import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { memberByName } from '../../../src/apps/users/accounts.js';
import { findPasswordLink } from '../../../src/apps/users/links.js';
import { rightsOf } from '../../../src/apps/users/rights.js';
import { BIN, freePort, startService, waitUntilServing } from '../../support/processes.js';
import { freshDatabase, type FreshDatabase } from '../../support/server.js';

const LINK = /^http:\/\/127\.0\.0\.1:8123\/accounts\/set-password\/([A-Za-z0-9_-]{43})\/\n$/;
const HOUR = 3600 * 1_000_000;

describe('hackerspace-api user (CLI)', () => {
  let fresh: FreshDatabase;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    fresh = await freshDatabase();
    env = { ...process.env, DATABASE_URL: fresh.url, LOG_LEVEL: 'silent', HOST: '127.0.0.1', PORT: '8123' };
    delete env.PUBLIC_URL;
  });
  after(() => fresh.cleanup());
  const cli = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
    spawnSync(process.execPath, [BIN, 'user', ...args], { env: { ...env, ...extra }, encoding: 'utf8', timeout: 60_000 });
  const tokenOf = (stdout: string) => LINK.exec(stdout)?.[1] ?? assert.fail(`no link alone on stdout: ${JSON.stringify(stdout)}`);

  it('create adds the member and prints an invitation link (72 h) alone on stdout', async () => {
    const before = Date.now() * 1000;
    const created = cli(['create', 'ada', '--email', 'ada@members.example']);
    assert.equal(created.status, 0, created.stderr);
    const token = tokenOf(created.stdout);
    assert.match(created.stderr, /created member \d+ "ada"/);
    assert.ok(!created.stderr.includes('ada@members.example') && !created.stderr.includes(token));
    const link = await findPasswordLink(fresh.handle.db, token, Date.now() * 1000);
    assert.equal(link?.purpose, 'invitation');
    assert.equal(link?.username, 'ada');
    assert.ok(link.expiresUs >= before + 72 * HOUR && link.expiresUs <= Date.now() * 1000 + 72 * HOUR);
    const row = await fresh.handle.db.selectFrom('users').select(['email', 'is_superuser', 'is_active', 'password']).where('username', '=', 'ada').executeTakeFirstOrThrow();
    assert.deepEqual({ ...row, password: row.password[0] }, { email: 'ada@members.example', is_superuser: 0, is_active: 1, password: '!' });
  });

  it('create --superuser makes a superuser; the link starts with PUBLIC_URL when set', async () => {
    const created = cli(['create', 'root', '--email', 'root@members.example', '--superuser'], { PUBLIC_URL: 'https://space.example/' });
    assert.equal(created.status, 0, created.stderr);
    assert.match(created.stdout, /^https:\/\/space\.example\/accounts\/set-password\/[A-Za-z0-9_-]{43}\/\n$/);
    const row = await fresh.handle.db.selectFrom('users').select('is_superuser').where('username', '=', 'root').executeTakeFirstOrThrow();
    assert.equal(row.is_superuser, 1);
  });

  it('create refuses what the API refuses, with exit code 1, and usage mistakes with 2', () => {
    const taken = cli(['create', 'ADA', '--email', 'other@members.example']);
    assert.equal(taken.status, 1);
    assert.equal(taken.stderr, 'user: username: A user with that username already exists.\n');
    assert.equal(taken.stdout, '');
    const badAddress = cli(['create', 'bob', '--email', 'not an address']);
    assert.equal(badAddress.status, 1);
    assert.match(badAddress.stderr, /email: Enter a valid email address\./);
    const long = cli(['create', 'x'.repeat(151), '--email', 'x@members.example']);
    assert.equal(long.status, 1);
    assert.match(long.stderr, /username: Ensure this field has no more than 150 characters\./);
    assert.equal(cli(['create', 'bob']).status, 2, 'no --email');
    assert.equal(cli(['create']).status, 2);
    assert.equal(cli(['link', 'ada', '--superuser']).status, 2);
    assert.equal(cli(['frobnicate']).status, 2);
    assert.equal(cli([]).status, 2);
  });

  it('link gives an invitation to a member without a usable password, a reset (1 h) to one with', async () => {
    const invitation = cli(['link', 'ADA']);
    assert.equal(invitation.status, 0, invitation.stderr);
    assert.match(invitation.stderr, /invitation link for "ada"/);
    const first = await findPasswordLink(fresh.handle.db, tokenOf(invitation.stdout), Date.now() * 1000);
    assert.equal(first?.purpose, 'invitation');
    // A usable hash, as the original stores them.
    await fresh.handle.db.updateTable('users').set({ password: 'pbkdf2_sha256$1200000$abcdefghijklmnopqrstuv$c2FsdA==' }).where('username', '=', 'ada').execute();
    const reset = cli(['link', 'ada']);
    assert.equal(reset.status, 0, reset.stderr);
    const link = await findPasswordLink(fresh.handle.db, tokenOf(reset.stdout), Date.now() * 1000);
    assert.equal(link?.purpose, 'reset');
    assert.ok(link.expiresUs <= Date.now() * 1000 + HOUR);
    const unknown = cli(['link', 'nobody']);
    assert.equal(unknown.status, 1);
    assert.equal(unknown.stderr, 'user: no member named "nobody"\n');
  });

  it('list shows names and flags, never an address nor a hash', async () => {
    await fresh.handle.db
      .updateTable('users')
      .set({ has_key: 1, last_login_us: Date.UTC(2024, 0, 2, 3, 4, 5) * 1000 })
      .where('username', '=', 'ada')
      .execute();
    const listed = cli(['list']);
    assert.equal(listed.status, 0, listed.stderr);
    const lines = listed.stdout.trimEnd().split('\n');
    assert.match(lines[0], /^USERNAME\s+ACTIVE\s+SUPERUSER\s+KEY\s+LAST LOGIN\s+RIGHTS$/);
    assert.match(lines[1], /^ada\s+yes\s+no\s+yes\s+2024-01-02T03:04:05Z\s+-$/);
    assert.match(lines[2], /^root\s+yes\s+yes\s+no\s+-\s+all$/);
    assert.equal(lines.length, 3);
    for (const secret of ['@members.example', 'pbkdf2', '!']) assert.ok(!listed.stdout.includes(secret), secret);
  });

  it('grant and revoke give and take rights (members.md §3); list shows them', async () => {
    const ada = (await memberByName(fresh.handle.db, 'ada'))!.id;
    const granted = cli(['grant', 'ada', 'projects.add_project', 'events.add_meeting']);
    assert.equal(granted.status, 0, granted.stderr);
    assert.deepEqual([...(await rightsOf(fresh.handle.db, ada)).rights].sort(), ['events.add_meeting', 'projects.add_project']);
    assert.match(cli(['list']).stdout, /\nada\s.*\s(projects\.add_project,events\.add_meeting|events\.add_meeting,projects\.add_project)\n/);
    const revoked = cli(['revoke', 'Ada', 'projects.add_project']);
    assert.equal(revoked.status, 0, revoked.stderr);
    assert.deepEqual([...(await rightsOf(fresh.handle.db, ada)).rights], ['events.add_meeting']);
    const fromSuperuser = cli(['revoke', 'root', 'events.delete_event']);
    assert.equal(fromSuperuser.status, 0, fromSuperuser.stderr);
    assert.match(fromSuperuser.stderr, /"root" still holds events\.delete_event as a superuser/);
  });

  it('grant and revoke refuse an unknown right (2) and an unknown member (1), changing nothing', async () => {
    const ada = (await memberByName(fresh.handle.db, 'ada'))!.id;
    const before = [...(await rightsOf(fresh.handle.db, ada)).rights];
    const unknownRight = cli(['grant', 'ada', 'projects.add_project', 'projects.fly']);
    assert.equal(unknownRight.status, 2);
    assert.match(unknownRight.stderr, /unknown right "projects\.fly": the rights are projects\.add_project, .*events\.delete_meeting/);
    assert.deepEqual([...(await rightsOf(fresh.handle.db, ada)).rights], before);
    const unknownMember = cli(['revoke', 'nobody', 'projects.add_project']);
    assert.equal(unknownMember.status, 1);
    assert.equal(unknownMember.stderr, 'user: no member named "nobody"\n');
    assert.equal(cli(['grant', 'ada']).status, 2, 'no right named');
  });
});

describe('serve and the first superuser (members.md §4, A new installation)', () => {
  let fresh: FreshDatabase;
  let lastToken = '';
  before(async () => {
    fresh = await freshDatabase();
  });
  after(() => fresh.cleanup());

  /** Starts serve, waits until it answers, stops it; its log lines. */
  async function serveOnce() {
    const port = await freePort();
    const service = await startService(['serve'], { DATABASE_URL: fresh.url, PORT: String(port), LOG_LEVEL: 'info' });
    try {
      await waitUntilServing(service);
    } finally {
      await service.stop();
    }
    return { port, logs: service.logs };
  }
  const linkLines = (logs: Record<string, unknown>[]) => logs.filter((line) => 'firstSuperuserLink' in line);

  it('logs one first-superuser link per start while there is no superuser; a new start voids the older one', async () => {
    const first = await serveOnce();
    const lines = linkLines(first.logs);
    assert.equal(lines.length, 1, JSON.stringify(first.logs));
    assert.equal(lines[0].level, 40, 'a warning');
    assert.match(String(lines[0].msg), /user create USERNAME --email ADDRESS --superuser/);
    const url = String(lines[0].firstSuperuserLink);
    const match = new RegExp(`^http://127\\.0\\.0\\.1:${first.port}/accounts/set-password/([A-Za-z0-9_-]{43})/$`).exec(url);
    assert.ok(match, url);
    assert.equal((await findPasswordLink(fresh.handle.db, match[1], Date.now() * 1000))?.purpose, 'first-superuser');

    const second = await serveOnce();
    const again = String(linkLines(second.logs)[0]?.firstSuperuserLink);
    assert.notEqual(again, url);
    assert.equal(await findPasswordLink(fresh.handle.db, match[1], Date.now() * 1000), null, 'the older link is void');
    lastToken = again.split('/').at(-2)!;
    assert.ok(await findPasswordLink(fresh.handle.db, lastToken, Date.now() * 1000));
  });

  it('logs none once a superuser exists, and the last link is void', async () => {
    const created = spawnSync(process.execPath, [BIN, 'user', 'create', 'root', '--email', 'root@members.example', '--superuser'], {
      env: { ...process.env, DATABASE_URL: fresh.url, LOG_LEVEL: 'silent' },
      encoding: 'utf8',
    });
    assert.equal(created.status, 0, created.stderr);
    assert.equal(await findPasswordLink(fresh.handle.db, lastToken, Date.now() * 1000), null);
    const { logs } = await serveOnce();
    assert.ok(
      logs.some((line) => String(line.msg).startsWith('database:')),
      'the start was logged',
    );
    assert.deepEqual(linkLines(logs), []);
    assert.ok(!JSON.stringify(logs).includes('set-password'));
  });
});
