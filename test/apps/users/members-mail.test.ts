import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { configFrom, type MailSettings } from '../../../src/config.js';
import { MailNotSent, Mailer, passwordLinkMail } from '../../../src/apps/users/mail.js';
import { USERS_LOCALE } from '../../../src/apps/users/words.js';
import { Catalogue } from '../../../src/i18n/catalogue.js';
import { freePort } from '../../support/processes.js';
import { sqliteOnly } from '../../support/server.js';
import { selfSignedCertificate, startSmtpServer, type TestCertificate, type TestSmtpServer } from '../../support/smtp.js';

const ADDRESS = 'ada.lovelace@members.example';
const TOKEN = 'A'.repeat(21) + '-_' + 'z'.repeat(20);

/** The mail settings the service would read from SMTP_URL and MAIL_FROM. */
function mailSettings(smtpUrl: string): MailSettings {
  return configFrom({ SMTP_URL: smtpUrl, MAIL_FROM: 'space@hackerspace.example' }).members.mail!;
}

/** A logger at info level whose lines land in `lines`. */
function capturingLogger(lines: string[]) {
  return pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
}

/** The mails' words in English, the default LANGUAGE_CODE. */
const ENGLISH = Catalogue.read([USERS_LOCALE], { languageCode: 'en', languages: null, timeZone: 'Europe/Brussels' }).words('en');
const NOW_US = Date.UTC(2026, 11, 3, 18, 0) * 1000;

const ONE_ENGINE = sqliteOnly('mail does not involve the database: run once, on SQLite');

describe('mail of set-password links (members.md §4, Invitations and resets)', () => {
  let certificate: TestCertificate;
  before(() => {
    certificate = selfSignedCertificate();
  });

  it('writes the invitation and the reset with the absolute link, the space and the validity', ONE_ENGINE, () => {
    const facts = { spaceName: 'Urlab', baseUrl: 'https://space.example', token: TOKEN, username: 'ada', words: ENGLISH, nowUs: NOW_US };
    const invitation = passwordLinkMail('invitation', facts);
    assert.equal(invitation.subject, 'Your account at Urlab');
    assert.ok(invitation.text.includes(`\nhttps://space.example/accounts/set-password/${TOKEN}/\n`), invitation.text);
    assert.match(invitation.text, /72 hours/);
    assert.match(invitation.text, /"ada"/);
    const reset = passwordLinkMail('reset', facts);
    assert.equal(reset.subject, 'Reset your password at Urlab');
    assert.ok(reset.text.includes(`\nhttps://space.example/accounts/set-password/${TOKEN}/\n`), reset.text);
    assert.match(reset.text, /within 1 hour\./);
    // A name with a line break cannot add a header.
    assert.equal(passwordLinkMail('reset', { ...facts, spaceName: 'Urlab\r\nBcc: x@evil.example' }).subject, 'Reset your password at Urlab Bcc: x@evil.example');
  });

  describe('smtp:// with STARTTLS offered and a login', () => {
    let server: TestSmtpServer;
    before(async () => {
      server = await startSmtpServer({ certificate, users: { mailer: 'p@ss:w/rd' } });
    });
    after(() => server.close());

    it('switches to TLS, logs in, delivers the mail; the log holds its id and no address nor link', ONE_ENGINE, async () => {
      const lines: string[] = [];
      const mailer = new Mailer(mailSettings(`smtp://mailer:${encodeURIComponent('p@ss:w/rd')}@127.0.0.1:${server.port}`), capturingLogger(lines), { ca: certificate.cert });
      const mail = passwordLinkMail('invitation', { spaceName: 'Urlab', baseUrl: 'http://127.0.0.1:8000', token: TOKEN, username: 'ada', words: ENGLISH, nowUs: NOW_US });
      await mailer.send({ to: ADDRESS, ...mail });
      const received = await server.nextMail(1);
      assert.equal(received.secure, true, 'STARTTLS was used');
      assert.equal(received.user, 'mailer');
      assert.equal(received.from, 'space@hackerspace.example');
      assert.deepEqual(received.to, [ADDRESS]);
      assert.equal(received.subject, 'Your account at Urlab');
      assert.ok(received.text.includes(`http://127.0.0.1:8000/accounts/set-password/${TOKEN}/`), received.text);
      assert.match(received.raw, /^Content-Type: text\/plain/im);
      const log = lines.join('');
      assert.equal(lines.length, 1, log);
      const line = JSON.parse(lines[0]) as Record<string, unknown>;
      assert.equal(line.msg, 'mail sent');
      assert.match(String(line.messageId), /^<.+>$/);
      assert.ok(received.raw.includes(`Message-ID: ${String(line.messageId)}`), "the logged id is the mail's");
      for (const secret of [ADDRESS, 'ada.lovelace', TOKEN, 'p@ss:w/rd', 'p%40ss']) assert.ok(!log.includes(secret), `the log holds ${secret}`);
      mailer.close();
    });

    it('refuses a certificate it cannot verify (no silent downgrade)', ONE_ENGINE, async () => {
      const lines: string[] = [];
      const mailer = new Mailer(mailSettings(`smtp://mailer:x@127.0.0.1:${server.port}`), capturingLogger(lines));
      await assert.rejects(mailer.send({ to: ADDRESS, subject: 's', text: 't' }), MailNotSent);
      assert.equal(server.received.length, 1, 'nothing more arrived');
      assert.ok(!lines.join('').includes(ADDRESS));
    });

    it('a wrong password is a MailNotSent, logged with its code only', ONE_ENGINE, async () => {
      const lines: string[] = [];
      const mailer = new Mailer(mailSettings(`smtp://mailer:wrong@127.0.0.1:${server.port}`), capturingLogger(lines), { ca: certificate.cert });
      const error = (await mailer.send({ to: ADDRESS, subject: 's', text: 't' }).catch((e: unknown) => e)) as MailNotSent;
      assert.ok(error instanceof MailNotSent);
      assert.equal(error.code, 'EAUTH');
      assert.match(error.message, /try again later/);
      const line = JSON.parse(lines[0]) as Record<string, unknown>;
      assert.equal(line.msg, 'mail not sent');
      assert.equal(line.code, 'EAUTH');
      assert.ok(!lines.join('').includes('wrong') && !lines.join('').includes(ADDRESS));
    });
  });

  it('smtps:// speaks TLS from the start', ONE_ENGINE, async () => {
    const server = await startSmtpServer({ certificate, secure: true });
    try {
      const lines: string[] = [];
      const mailer = new Mailer(mailSettings(`smtps://127.0.0.1:${server.port}`), capturingLogger(lines), { ca: certificate.cert });
      const mail = passwordLinkMail('reset', { spaceName: 'Urlab', baseUrl: 'https://space.example', token: TOKEN, username: 'ada', words: ENGLISH, nowUs: NOW_US });
      await mailer.send({ to: ADDRESS, ...mail });
      const received = await server.nextMail(1);
      assert.equal(received.secure, true);
      assert.equal(received.subject, 'Reset your password at Urlab');
      assert.ok(received.text.includes(`https://space.example/accounts/set-password/${TOKEN}/`));
    } finally {
      await server.close();
    }
  });

  it('a refused recipient and an unreachable server are MailNotSent; no log line holds the address', ONE_ENGINE, async () => {
    const refusing = await startSmtpServer({ certificate, refuse: true });
    const lines: string[] = [];
    try {
      const mailer = new Mailer(mailSettings(`smtp://127.0.0.1:${refusing.port}`), capturingLogger(lines), { ca: certificate.cert });
      const refused = (await mailer.send({ to: ADDRESS, subject: 's', text: 't' }).catch((e: unknown) => e)) as MailNotSent;
      assert.ok(refused instanceof MailNotSent);
      assert.equal(refused.code, 'EENVELOPE');
      assert.ok(!refused.message.includes(ADDRESS));
    } finally {
      await refusing.close();
    }
    const nobody = new Mailer(mailSettings(`smtp://127.0.0.1:${await freePort()}`), capturingLogger(lines));
    const unreachable = (await nobody.send({ to: ADDRESS, subject: 's', text: 't' }).catch((e: unknown) => e)) as MailNotSent;
    assert.ok(unreachable instanceof MailNotSent);
    assert.equal(unreachable.code, 'ESOCKET');
    assert.equal(lines.length, 2);
    assert.ok(!lines.join('').includes(ADDRESS), lines.join(''));
  });
});
