/**
 * Debt reminders (ledger.md §1) through a real SMTP server, on the engine under test: the
 * superusers' page `/accounts/debtmails/` and `hackerspace-api ledger remind` mail every active
 * member whose balance is below zero their balance and how to top up, in their language (a
 * French member in French), and say how many were sent; without mail configured they say so
 * and nothing crashes.
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
const FROM = 'space@hackerspace.example';
const SPACE = 'Urlab';

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

/** Sets a member's balance as entries would (an opening entry and the kept balance together). */
async function owes(server: TestServer, userId: number, cents: number): Promise<void> {
  const db = server.database.db;
  await db
    .insertInto('ledger_entries')
    .values({ user_id: userId, kind: 'opening', amount_cents: cents, info: '', channel: 'cli', created_us: Date.now() * 1000 })
    .execute();
  await db.updateTable('users').set({ balance_cents: cents }).where('id', '=', userId).execute();
}

describe('debt reminders', () => {
  let certificate: TestCertificate;
  let caFile: string;
  let smtp: TestSmtpServer;
  let server: TestServer;
  let root: Browser;

  before(async () => {
    certificate = selfSignedCertificate();
    caFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hackerspace-api-ca-')), 'ca.pem');
    fs.writeFileSync(caFile, certificate.cert);
    smtp = await startSmtpServer({ certificate });
    server = await startServer({
      env: { PASSWORD_ITERATIONS: String(TEST_ITERATIONS), SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, MAIL_FROM: FROM, SPACE_NAME: SPACE, LANGUAGE_CODE: 'en' },
      mailer: { ca: certificate.cert },
    });
    const db = server.database.db;
    await addMember(db, { username: 'root', password: PASSWORD, superuser: true });
    const claire = await addMember(db, { username: 'claire', email: 'claire@example.org', password: PASSWORD });
    await db.updateTable('users').set({ language: 'fr' }).where('id', '=', claire).execute();
    await owes(server, claire, -1250);
    const dan = await addMember(db, { username: 'dan', email: 'dan@example.org' });
    await owes(server, dan, -5);
    const rich = await addMember(db, { username: 'rich', email: 'rich@example.org' });
    await owes(server, rich, 2000);
    const gone = await addMember(db, { username: 'gone', email: 'gone@example.org', active: false });
    await owes(server, gone, -100);
    root = await logIn(server.base, 'root', PASSWORD);
  });

  after(async () => {
    await server?.close();
    await smtp?.close();
    fs.rmSync(path.dirname(caFile), { recursive: true, force: true });
  });

  it('is for superusers only', async () => {
    assert.equal((await new Browser(server.base).get('/accounts/debtmails/')).status, 303);
    const db = server.database.db;
    await addMember(db, { username: 'mia', password: PASSWORD });
    const mia = await logIn(server.base, 'mia', PASSWORD);
    assert.equal((await mia.get('/accounts/debtmails/')).status, 403);
    const csrf = csrfOf((await mia.get('/accounts/profile/')).body);
    const before = smtp.received.length;
    assert.equal((await mia.post('/accounts/debtmails/', { csrfmiddlewaretoken: csrf })).status, 403);
    assert.equal(smtp.received.length, before);
  });

  it('mails every active member in debt, in their language, and says how many were sent', async () => {
    const page = await root.get('/accounts/debtmails/');
    assert.equal(page.status, 200);
    assert.match(page.body, /<p id="debtors">2 members have a balance below zero\.<\/p>/);
    const before = smtp.received.length;
    const sent = await root.post('/accounts/debtmails/', { csrfmiddlewaretoken: csrfOf(page.body) });
    assert.equal(sent.status, 200);
    assert.match(sent.body, /<p role="status" id="reminder-report">2 reminders sent, 0 failed, 0 members without an address\.<\/p>/);
    await smtp.nextMail(before + 2);
    const mails = smtp.received.slice(before);
    assert.deepEqual(mails.map((m) => m.to).sort(), [['claire@example.org'], ['dan@example.org']]);
    const claire = mails.find((m) => m.to[0] === 'claire@example.org')!;
    assert.equal(claire.subject, 'Urlab : le solde de votre ardoise est négatif');
    const euros = new Intl.NumberFormat('fr', { style: 'currency', currency: 'EUR' }).format(-12.5);
    assert.ok(claire.text.includes(`Bonjour claire,`), claire.text);
    assert.ok(claire.text.includes(`Le solde de votre ardoise à Urlab est de ${euros}.`), claire.text);
    assert.ok(claire.text.includes('/accounts/balance'), claire.text);
    const dan = mails.find((m) => m.to[0] === 'dan@example.org')!;
    assert.equal(dan.subject, 'Urlab: your slate balance is below zero');
    assert.ok(dan.text.includes(`is ${new Intl.NumberFormat('en', { style: 'currency', currency: 'EUR' }).format(-0.05)}.`), dan.text);
    assert.equal(mails.filter((m) => m.to.includes('rich@example.org') || m.to.includes('gone@example.org')).length, 0);
  });

  it('ledger remind mails them from the command line and says how many; without mail it says so and fails', async () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: server.url,
      LOG_LEVEL: 'silent',
      HOST: '127.0.0.1',
      PORT: '8123',
      SPACE_NAME: SPACE,
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      MAIL_FROM: FROM,
      NODE_EXTRA_CA_CERTS: caFile,
    };
    delete env.PUBLIC_URL;
    delete env.SPACEAPI_CONFIG;
    const before = smtp.received.length;
    const ran = await run([BIN, 'ledger', 'remind'], env);
    assert.equal(ran.status, 0, ran.stderr);
    assert.equal(ran.stdout, 'ledger remind: 2 sent, 0 failed, 0 without an address\n');
    await smtp.nextMail(before + 2);
    const claire = smtp.received.slice(before).find((m) => m.to[0] === 'claire@example.org')!;
    assert.ok(claire.text.includes('http://127.0.0.1:8123/accounts/balance'), claire.text);
    assert.equal(claire.subject, 'Urlab : le solde de votre ardoise est négatif');
    const noMail = { ...env };
    delete noMail.SMTP_URL;
    delete noMail.MAIL_FROM;
    const without = await run([BIN, 'ledger', 'remind'], noMail);
    assert.equal(without.status, 1);
    assert.match(without.stderr, /mail is not configured \(set SMTP_URL and MAIL_FROM\): no reminder sent/);
  });
});

describe('debt reminders without mail', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ env: { PASSWORD_ITERATIONS: String(TEST_ITERATIONS) } });
    await addMember(server.database.db, { username: 'root', password: PASSWORD, superuser: true });
  });
  after(async () => {
    await server?.close();
  });

  it('says mail is not configured, and a POST sends nothing and does not crash', async () => {
    const root = await logIn(server.base, 'root', PASSWORD);
    const page = await root.get('/accounts/debtmails/');
    assert.equal(page.status, 200);
    assert.match(page.body, /id="no-mail">Mail is not configured/);
    const csrf = csrfOf((await root.get('/accounts/profile/')).body);
    const res = await root.post('/accounts/debtmails/', { csrfmiddlewaretoken: csrf });
    assert.equal(res.status, 503);
    assert.match(res.body, /id="no-mail">/);
  });
});
