import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

/** A self-signed certificate for 127.0.0.1 and localhost, made by openssl for this run. */
export interface TestCertificate {
  key: string;
  cert: string;
}

export function selfSignedCertificate(): TestCertificate {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hackerspace-api-cert-'));
  try {
    const key = path.join(dir, 'key.pem');
    const cert = path.join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
        '-keyout',
        key,
        '-out',
        cert,
      ],
      { stdio: 'ignore' },
    );
    return { key: fs.readFileSync(key, 'utf8'), cert: fs.readFileSync(cert, 'utf8') };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** One mail as the server received it. */
export interface ReceivedMail {
  from: string;
  to: string[];
  /** Whether the connection was encrypted when the mail came (TLS from the start or STARTTLS). */
  secure: boolean;
  /** The user the client logged in as, if it did. */
  user: string | undefined;
  raw: string;
  subject: string;
  /** The body, its transfer encoding undone. */
  text: string;
}

export interface TestSmtpServer {
  port: number;
  received: ReceivedMail[];
  /** Resolves with the `count`th mail once it has arrived. */
  nextMail(count: number, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

/**
 * A real SMTP server (smtp-server) on a free port of 127.0.0.1. `users` are the accepted
 * logins (AUTH required when given); `refuse` answers every recipient with a 550.
 */
export async function startSmtpServer(options: { certificate: TestCertificate; secure?: boolean; users?: Record<string, string>; refuse?: boolean }): Promise<TestSmtpServer> {
  const received: ReceivedMail[] = [];
  const waiters = new Set<() => void>();
  const users = options.users;
  const serverOptions: SMTPServerOptions = {
    secure: options.secure ?? false,
    key: options.certificate.key,
    cert: options.certificate.cert,
    logger: false,
    authOptional: users === undefined,
    // Logging in is only offered over TLS (smtp-server's default): a client that skipped STARTTLS could not send.
    onAuth(auth, _session, callback) {
      if (users && users[auth.username ?? ''] === auth.password) callback(null, { user: auth.username });
      else callback(new Error('Invalid username or password'));
    },
    onRcptTo(_address, _session, callback) {
      if (options.refuse) callback(Object.assign(new Error('No such mailbox here'), { responseCode: 550 }));
      else callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          secure: session.secure,
          user: session.user as string | undefined,
          raw,
          ...parseMail(raw),
        });
        for (const waiter of [...waiters]) waiter();
        callback();
      });
    },
  };
  const server = new SMTPServer(serverOptions);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    received,
    nextMail(count, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (received.length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(received[count - 1]);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no mail number ${count} within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The subject and decoded body of a simple (single-part, text) mail. */
function parseMail(raw: string): { subject: string; text: string } {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const body = raw.slice(split + 4);
  const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(head)?.[1].trim() ?? '';
  const encoding = header('Content-Transfer-Encoding').toLowerCase();
  let text = body;
  if (encoding === 'quoted-printable') {
    text = Buffer.from(
      body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
      'latin1',
    ).toString('utf8');
  } else if (encoding === 'base64') {
    text = Buffer.from(body, 'base64').toString('utf8');
  }
  return { subject: decodeWords(header('Subject')), text: text.replace(/\r\n/g, '\n') };
}

/** RFC 2047 encoded words (=?UTF-8?Q?…?= and =?UTF-8?B?…?=), as nodemailer writes non-ASCII subjects. */
function decodeWords(value: string): string {
  return value.replace(/=\?utf-8\?([QB])\?([^?]*)\?=\s*/gi, (_, kind: string, data: string) =>
    kind.toUpperCase() === 'B'
      ? Buffer.from(data, 'base64').toString('utf8')
      : Buffer.from(
          data.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
          'latin1',
        ).toString('utf8'),
  );
}
