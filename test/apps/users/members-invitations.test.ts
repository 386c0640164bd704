/**
 * Invitations and resets by mail (members.md §4, "Invitations and resets") over real HTTP and the
 * real command on the engine under test, through a real SMTP server: with SMTP_URL and MAIL_FROM
 * the admin page and `user create`/`user link` mail the link to the member (whose link then sets a
 * password that logs in), a member without an address gets the link to hand over as without mail,
 * and a server that refuses the mail leaves the page saying to try again later and the command
 * failing, with neither the address nor the link in the page or the log.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { addMember, Browser, csrfOf, logIn, TEST_ITERATIONS } from '../../support/members.js';
import { BIN } from '../../support/processes.js';
import { startServer, type TestServer } from '../../support/server.js';
import { selfSignedCertificate, startSmtpServer, type TestCertificate, type TestSmtpServer } from '../../support/smtp.js';

const PASSWORD = 'correct horse battery';
const SPACE = 'Urlab';
const FROM = 'space@hackerspace.example';
/** Where the command's links point without PUBLIC_URL: http://HOST:PORT (given to it below). */
const CLI_BASE = 'http://127.0.0.1:8123';
const TOKEN = '[A-Za-z0-9_-]{43}';

/** The link of a mail, as members.md §4 words it: the site's address and the set-password path. */
function linkIn(text: string, base: string): string {
  const found = new RegExp(`${base.replace(/[.]/g, '\\.')}(/accounts/set-password/${TOKEN}/)`).exec(text)?.[1];
  assert.ok(found, text);
  return found;
}

/** A new password set through a link's page, as the member who got the mail would. */
async function setPasswordThrough(base: string, link: string, password: string): Promise<void> {
  const browser = new Browser(base);
  const page = await browser.get(link);
  assert.equal(page.status, 200, page.body.slice(0, 300));
  const set = await browser.post(link, { csrfmiddlewaretoken: csrfOf(page.body), new_password1: password, new_password2: password });
  assert.equal(set.status, 303, set.body.slice(0, 300));
}

/** The superuser's press on the member page's link button: the page that answers it. */
async function pressLinkButton(root: Browser, id: number) {
  const page = await root.get(`/accounts/admin/members/${id}/`);
  assert.equal(page.status, 200);
  return { before: page, after: await root.post(`/accounts/admin/members/${id}/link/`, { csrfmiddlewaretoken: csrfOf(page.body) }) };
}

interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the command without blocking: the SMTP server answering it lives in this process. */
function run(args: string[], env: NodeJS.ProcessEnv): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
  });
}

/** The command, on the server's database, with mail through `smtpPort` and the test CA trusted. */
function cliWith(server: TestServer, smtpPort: number, caFile: string) {
  return (args: string[]): Promise<Ran> => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: server.url,
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      PORT: '8123',
      SPACE_NAME: SPACE,
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      MAIL_FROM: FROM,
      NODE_EXTRA_CA_CERTS: caFile,
    };
    delete env.PUBLIC_URL;
    delete env.SPACEAPI_CONFIG;
    return run([BIN, 'user', ...args], env);
  };
}

describe('invitations and resets by mail', () => {
  let certificate: TestCertificate;
  let caFile: string;
  before(() => {
    certificate = selfSignedCertificate();
    caFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hackerspace-api-ca-')), 'ca.pem');
    fs.writeFileSync(caFile, certificate.cert);
  });
  after(() => fs.rmSync(path.dirname(caFile), { recursive: true, force: true }));

  describe('with a mail server that takes the mail', () => {
    let smtp: TestSmtpServer;
    let server: TestServer;
    const logs: Record<string, unknown>[] = [];

    before(async () => {
      smtp = await startSmtpServer({ certificate });
      server = await startServer({
        env: { PASSWORD_ITERATIONS: String(TEST_ITERATIONS), SPACE_NAME: SPACE, SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, MAIL_FROM: FROM },
        mailer: { ca: certificate.cert },
        logs,
      });
      await addMember(server.database.db, { username: 'root', password: PASSWORD, superuser: true });
    });
    after(async () => {
      await server?.close();
      await smtp?.close();
    });

    it('the admin page mails the invitation and says so without the address; the link in the mail sets a password that logs in', async () => {
      const address = 'newcomer.private@members.example';
      const id = await addMember(server.database.db, { username: 'newcomer', email: address });
      const root = await logIn(server.base, 'root', PASSWORD);
      const mailsBefore = smtp.received.length;
      const { before: page, after: res } = await pressLinkButton(root, id);
      assert.match(page.body, /id="make-link">Make an invitation link and mail it</);
      assert.equal(res.status, 200, res.body.slice(0, 300));
      assert.match(res.body, /id="link-mailed">The link was sent to the member’s address\. It works once, for 72 hours\./);
      assert.equal(/id="one-time-link"/.test(res.body) || res.body.includes('/accounts/set-password/'), false, 'the link is not on the page');
      assert.ok(!res.body.includes(address) && !page.body.includes(address), 'nor the address');
      const mail = await smtp.nextMail(mailsBefore + 1);
      assert.deepEqual([mail.from, mail.to, mail.subject], [FROM, [address], `Your account at ${SPACE}`]);
      assert.match(mail.text, /"newcomer"/);
      const link = linkIn(mail.text, server.base);
      await setPasswordThrough(server.base, link, 'a newcomer’s passphrase');
      await logIn(server.base, 'newcomer', 'a newcomer’s passphrase');
      const token = link.split('/').at(-2)!;
      const log = JSON.stringify(logs);
      assert.ok(
        logs.some((line) => line.msg === 'mail sent'),
        log,
      );
      assert.ok(!log.includes(address) && !log.includes(token), 'the log holds neither the address nor the link (its page’s requests included)');
    });

    it('the admin page mails a member who has a password a reset link (1 hour)', async () => {
      const id = await addMember(server.database.db, { username: 'forgetful', email: 'forgetful@members.example', password: PASSWORD });
      const root = await logIn(server.base, 'root', PASSWORD);
      const mailsBefore = smtp.received.length;
      const { after: res } = await pressLinkButton(root, id);
      assert.equal(res.status, 200);
      assert.match(res.body, /Reset link sent/);
      assert.match(res.body, /It works once, for 1 hour\./);
      const mail = await smtp.nextMail(mailsBefore + 1);
      assert.deepEqual([mail.to, mail.subject], [['forgetful@members.example'], `Reset your password at ${SPACE}`]);
      await setPasswordThrough(server.base, linkIn(mail.text, server.base), 'forgetful no more');
      await logIn(server.base, 'forgetful', 'forgetful no more');
    });

    it('a member without an address gets the link on the page to hand over, and no mail goes', async () => {
      const id = await addMember(server.database.db, { username: 'offline', email: '' });
      const root = await logIn(server.base, 'root', PASSWORD);
      const mailsBefore = smtp.received.length;
      const { before: page, after: res } = await pressLinkButton(root, id);
      assert.match(page.body, /id="make-link">Make an invitation link</);
      assert.equal(res.status, 200);
      const url = /id="one-time-link" type="text" readonly value="([^"]+)"/.exec(res.body)?.[1];
      assert.ok(url, 'the link is on the page');
      await setPasswordThrough(server.base, linkIn(url, server.base), 'offline but in');
      await logIn(server.base, 'offline', 'offline but in');
      assert.equal(smtp.received.length, mailsBefore);
    });

    it('user create and user link mail the link, say so, and print it for the operator', async () => {
      const cli = cliWith(server, smtp.port, caFile);
      const address = 'cli.member@members.example';
      const mailsBefore = smtp.received.length;
      const created = await cli(['create', 'climber', '--email', address]);
      assert.equal(created.status, 0, created.stderr);
      assert.match(created.stderr, /invitation link for "climber" sent to the member's address/);
      const mail = await smtp.nextMail(mailsBefore + 1);
      assert.deepEqual([mail.from, mail.to, mail.subject], [FROM, [address], `Your account at ${SPACE}`]);
      const link = linkIn(mail.text, CLI_BASE);
      assert.equal(created.stdout, `${CLI_BASE}${link}\n`, 'the same link, alone on standard output');
      assert.ok(!created.stderr.includes(address) && !created.stderr.includes(link), 'standard error (the log included) holds neither');
      await setPasswordThrough(server.base, link, 'climbing the stairs');
      await logIn(server.base, 'climber', 'climbing the stairs');
      const again = await cli(['link', 'CLIMBER']);
      assert.equal(again.status, 0, again.stderr);
      assert.match(again.stderr, /reset link for "climber" sent to the member's address/);
      const reset = await smtp.nextMail(mailsBefore + 2);
      assert.deepEqual([reset.to, reset.subject], [[address], `Reset your password at ${SPACE}`]);
      assert.equal(again.stdout, `${CLI_BASE}${linkIn(reset.text, CLI_BASE)}\n`);
    });
  });

  describe('with a mail server that refuses the mail', () => {
    let smtp: TestSmtpServer;
    let server: TestServer;
    const logs: Record<string, unknown>[] = [];

    before(async () => {
      smtp = await startSmtpServer({ certificate, refuse: true });
      server = await startServer({
        env: { PASSWORD_ITERATIONS: String(TEST_ITERATIONS), SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, MAIL_FROM: FROM },
        mailer: { ca: certificate.cert },
        logs,
      });
      await addMember(server.database.db, { username: 'root', password: PASSWORD, superuser: true });
    });
    after(async () => {
      await server?.close();
      await smtp?.close();
    });

    it('the page says to try again later; the log says the mail was not sent; neither holds the address nor a link', async () => {
      const address = 'unlucky.private@members.example';
      const id = await addMember(server.database.db, { username: 'unlucky', email: address });
      const root = await logIn(server.base, 'root', PASSWORD);
      const { after: res } = await pressLinkButton(root, id);
      assert.equal(res.status, 503);
      assert.equal(res.headers['cache-control'], 'private, no-store');
      assert.match(res.body, /id="admin-error">The invitation mail could not be sent: try again later\./);
      assert.ok(!res.body.includes(address) && !res.body.includes('/accounts/set-password/') && !/id="one-time-link"/.test(res.body));
      const notSent = logs.filter((line) => line.msg === 'mail not sent');
      assert.equal(notSent.length, 1, JSON.stringify(logs));
      assert.equal(notSent[0].code, 'EENVELOPE');
      const log = JSON.stringify(logs);
      // No page of a link was asked for here: a set-password address in the log would be the one made.
      assert.ok(!log.includes('unlucky.private') && !log.includes('/accounts/set-password/'), log);
      assert.equal(smtp.received.length, 0);
    });

    it('user link fails with exit code 1 and a message that says to try again later, printing no link', async () => {
      const address = 'unlucky.cli@members.example';
      await addMember(server.database.db, { username: 'unlucky-cli', email: address });
      const failed = await cliWith(server, smtp.port, caFile)(['link', 'unlucky-cli']);
      assert.equal(failed.status, 1, failed.stderr);
      assert.equal(failed.stdout, '');
      assert.match(failed.stderr, /user: the invitation mail for "unlucky-cli" could not be sent \(EENVELOPE\): try again later/);
      assert.ok(!failed.stderr.includes(address) && !failed.stderr.includes('/accounts/set-password/'), failed.stderr);
    });
  });
});
