// Debian's nginx in front of the service, configured by the shipped examples/nginx.conf (issue 17
// §5): a private instance on an unprivileged port (-p prefix, -c a main configuration that
// includes the shipped file with its upstream address and listen port replaced), and the service
// behind it with TRUST_PROXY=127.0.0.1. Three things: links use the host nginx received, the
// stream passes through live, and cached reads keep the fast path. CI installs nginx (.ci/run).
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createToken } from '../src/resources/tokens.js';
import { apiLinks, assertFastRepeat, comparable, observedServer, type ObservedServer } from './support/fast-path.js';
import { request } from './support/http.js';
import { freePort } from './support/processes.js';
import { dataOf, openStream } from './support/sse.js';
import { until } from './support/wait.js';

const NGINX = '/usr/sbin/nginx';
const NGINX_EXAMPLE = path.resolve(import.meta.dirname, '../examples/nginx.conf');

/**
 * The shipped site configuration, pointed at a service port and listening on 127.0.0.1 at another
 * one. Every replacement must find its text: a change to the file that these do not follow fails
 * here, rather than leaving the test on a configuration of its own.
 */
function siteConfig(servicePort: number, listenPort: number): string {
  let text = fs.readFileSync(NGINX_EXAMPLE, 'utf8');
  for (const [from, to] of [
    ['server 127.0.0.1:8000;', `server 127.0.0.1:${servicePort};`],
    ['listen 80;', `listen 127.0.0.1:${listenPort};`],
    ['listen [::]:80;', ''],
  ]) {
    assert.ok(text.includes(from), `${NGINX_EXAMPLE} no longer contains ${JSON.stringify(from)}: update the test's substitutions`);
    text = text.replace(from, to);
  }
  return text;
}

/** A private nginx: its own prefix directory, pid and temporary files; logs to standard error. */
interface Nginx {
  base: string;
  port: number;
  stop(): Promise<void>;
}

async function startNginx(servicePort: number): Promise<Nginx> {
  if (!fs.existsSync(NGINX)) {
    throw new Error(`${NGINX} is missing: these tests run Debian's nginx (apt-get install nginx; .ci/run installs it when \`command -v nginx\` fails)`);
  }
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hackerspace-api-nginx-'));
  fs.writeFileSync(path.join(dir, 'site.conf'), siteConfig(servicePort, port));
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `    ${kind}_temp_path ${path.join(dir, kind)};`).join('\n');
  fs.writeFileSync(
    path.join(dir, 'nginx.conf'),
    `pid ${path.join(dir, 'nginx.pid')};\nevents { worker_connections 256; }\nhttp {\n    access_log off;\n${temp}\n    include ${path.join(dir, 'site.conf')};\n}\n`,
  );
  // One process, as the user running the tests (no master dropping privileges, no daemon).
  const child: ChildProcess = spawn(NGINX, ['-p', `${dir}/`, '-c', path.join(dir, 'nginx.conf'), '-e', 'stderr', '-g', 'daemon off; master_process off;'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  let exited: number | null | undefined;
  child.on('exit', (code) => (exited = code));
  const base = `http://127.0.0.1:${port}`;
  await until(async () => {
    if (exited !== undefined) throw new Error(`nginx exited (${exited}) at start:\n${stderr}`);
    return (await request(base, '/healthz').catch(() => null))?.status === 200;
  }, 'nginx answering /healthz through to the service');
  return {
    base,
    port,
    async stop() {
      if (exited === undefined) {
        const gone = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGQUIT');
        await gone;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe('behind nginx, configured by examples/nginx.conf', () => {
  let o: ObservedServer;
  let nginx: Nginx;
  let publicHost: string;
  before(async () => {
    o = await observedServer({ TRUST_PROXY: '127.0.0.1' });
    nginx = await startNginx(o.server.port);
    publicHost = `space.example.org:${nginx.port}`;
  });
  after(async () => {
    await nginx?.stop();
    await o?.server.close();
  });

  it('builds links from the host the client gave nginx, and ignores what the client forwards itself', async () => {
    for (const [headers, host] of [
      [{ host: publicHost }, publicHost],
      [{}, `127.0.0.1:${nginx.port}`],
      // nginx replaces these: a client cannot choose the links' host or scheme.
      [{ host: publicHost, 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' }, publicHost],
    ] as const) {
      for (const target of ['/api/', '/api/projects/1/', '/api/projects/?page=2&page_size=1']) {
        const res = await request(nginx.base, target, { headers });
        assert.equal(res.status, 200, `${target}: ${res.body.slice(0, 200)}`);
        const links = apiLinks(res.body);
        assert.ok(links.length > 0, `${target} has links`);
        for (const link of links) assert.ok(link.startsWith(`http://${host}/api/`), `${target} with ${JSON.stringify(headers)}: ${link} on http://${host}/`);
      }
    }
  });

  it('passes the stream through live: a door post made while it is open arrives as an event', async () => {
    const { secret } = await createToken(o.server.database.db, 'nginx door', 'door', Date.now() * 1000);
    const client = await openStream(nginx.base, '/api/space/stream/', { host: publicHost });
    try {
      assert.equal(client.status, 200);
      assert.equal(client.headers['content-type'], 'text/event-stream');
      const [first] = await client.waitForEvents(1);
      const isOpen = (dataOf(first) as { is_open: boolean | null }).is_open === true;
      const post = await request(nginx.base, '/api/space/openings/', {
        method: 'POST',
        headers: { host: publicHost, authorization: `Token ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ is_open: !isOpen }),
      });
      assert.equal(post.status, 201, post.body);
      assert.ok(String(post.headers.location).startsWith(`http://${publicHost}/api/space/openings/`), String(post.headers.location));
      const [, next] = await client.waitForEvents(2);
      assert.equal(next.event, 'state');
      assert.equal((dataOf(next) as { is_open: boolean }).is_open, !isOpen);
      assert.equal(next.id, /\/(\d+)\/$/.exec(String(post.headers.location))?.[1]);
    } finally {
      client.close();
    }
  });

  it('keeps the fast path for cached reads through nginx, anonymous or with a token, with the answers the full path gives', async () => {
    const headers = { host: publicHost, 'accept-encoding': 'gzip, br' };
    for (const target of ['/api/users/', '/api/events/', '/api/space/status/']) {
      const built = await assertFastRepeat(o, target, headers, nginx.base);
      // What nginx forwards, sent straight to the service: the same entry, the same answer.
      const direct = await o.send(target, { 'accept-encoding': 'gzip, br', 'x-forwarded-host': publicHost, 'x-forwarded-proto': 'http' });
      assert.equal(direct.path, 'fast', `${target}: the entry built through nginx`);
      assert.deepEqual(direct.bytes, built.bytes, target);
      assert.equal(direct.headers.etag, built.headers.etag, target);
    }
    const { secret } = await createToken(o.server.database.db, 'nginx reader', 'admin', Date.now() * 1000);
    const anonymous = await o.send('/api/users/', headers, { base: nginx.base });
    await o.send('/api/users/', { ...headers, authorization: `Token ${secret}` }, { base: nginx.base });
    const withToken = await o.send('/api/users/', { ...headers, authorization: `Token ${secret}` }, { base: nginx.base });
    assert.equal(withToken.path, 'fast');
    assert.deepEqual(withToken.bytes, anonymous.bytes);
    assert.deepEqual(comparable(withToken), comparable(anonymous));
    const bad = await o.send('/api/users/', { ...headers, authorization: 'Token hs_not-a-token' }, { base: nginx.base });
    assert.deepEqual([bad.status, bad.path], [401, 'full']);
  });
});
