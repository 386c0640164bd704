/**
 * The client as a program gets it, exactly as client/README.md says: `npm pack -w client` in the
 * service's checkout (prepack builds dist/), `npm install <tgz>` in a new project (offline: the
 * package has no dependency to download), then an ESM program that imports it reads a running
 * service, and the repository's tsc type-checks a TypeScript file against the installed types.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { request } from './support/http.js';
import { sampleRecords, sqliteOnly, startServer, TEST_ENGINE, type TestServer } from './support/server.js';

const REPO = path.resolve(import.meta.dirname, '..');
const CLIENT = path.join(REPO, 'client');
const TSC = path.join(REPO, 'node_modules/typescript/bin/tsc');
const ONE_ENGINE = sqliteOnly('packing and installing the client does not depend on the engine (test/client.test.ts runs the client on both)');

interface PackResult {
  filename: string;
  files: { path: string }[];
}

/** A command's stdout; asynchronous, so the in-process server goes on answering while it runs. */
const run = async (command: string, args: string[], cwd: string) => (await promisify(execFile)(command, args, { cwd, encoding: 'utf8', timeout: 120_000 })).stdout;

const PROGRAM = `import { ApiError, createClient } from 'hackerspace-api-client';

const api = createClient({ baseUrl: process.argv[2] });
const status = await api.space.status();
const page = await api.users.list({ pageSize: 3 });
let missing;
try {
  await api.projects.get(999999);
} catch (error) {
  missing = error instanceof ApiError ? error.status : String(error);
}
console.log(JSON.stringify({ status, count: page.count, usernames: page.results.map((user) => user.username), missing }));
`;

// The @ts-expect-error lines fail the check if the package's types were missing or \`any\`.
const TYPED = `import { createClient, ApiError, type SpaceApi, type SpaceStatus, type User } from 'hackerspace-api-client';

const api = createClient({ baseUrl: 'http://127.0.0.1:8000', token: undefined });
export const status: Promise<SpaceStatus> = api.space.status();
export const users: Promise<User[]> = api.users.list({ page: 1 }).then((page) => page.results);
export const spaceName = (document: SpaceApi): string => document.space;
export const isNotFound = (error: unknown): boolean => error instanceof ApiError && error.status === 404;
declare const current: SpaceStatus;
// @ts-expect-error is_open is a boolean or null
export const wrong: string = current.is_open;
// @ts-expect-error a SpaceAPI document has no \`members\`
export const members = (document: SpaceApi) => document.members;
`;

describe('the client package, packed and installed as its README says', () => {
  let tmp: string;
  let packed: PackResult;
  let app: string;
  let server: TestServer | undefined;

  before(async () => {
    if (TEST_ENGINE !== 'sqlite') return;
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hackerspace-client-install-'));
    // A file left in dist/ by an earlier build whose source is gone: the build must not ship it.
    fs.mkdirSync(path.join(CLIENT, 'dist'), { recursive: true });
    fs.writeFileSync(path.join(CLIENT, 'dist/stale.js'), 'export const stale = true;\n');
    [packed] = JSON.parse(await run('npm', ['pack', '-w', 'client', '--pack-destination', tmp, '--json'], REPO)) as PackResult[];
    app = path.join(tmp, 'app');
    fs.mkdirSync(app);
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'reads-the-space', private: true, type: 'module' }));
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', path.join(tmp, packed.filename)], app);
    server = await startServer({ records: sampleRecords() });
  });

  after(async () => {
    await server?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('npm pack -w client builds dist/ afresh and packs it with the README, named after the version', ONE_ENGINE, () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(CLIENT, 'package.json'), 'utf8')) as { version: string };
    assert.equal(packed.filename, `hackerspace-api-client-${version}.tgz`);
    assert.deepEqual(packed.files.map((file) => file.path).sort(), [
      'README.md',
      'dist/index.d.ts',
      'dist/index.js',
      'dist/schema.d.ts',
      'dist/sse.d.ts',
      'dist/sse.js',
      'package.json',
    ]);
    assert.equal(fs.existsSync(path.join(CLIENT, 'dist/stale.js')), false);
  });

  it('installs offline into a new project, bringing no other package', ONE_ENGINE, () => {
    assert.deepEqual(
      fs.readdirSync(path.join(app, 'node_modules')).filter((name) => !name.startsWith('.')),
      ['hackerspace-api-client'],
    );
    const installed = JSON.parse(fs.readFileSync(path.join(app, 'node_modules/hackerspace-api-client/package.json'), 'utf8')) as Record<string, unknown>;
    assert.equal(installed.dependencies, undefined);
  });

  it('an ESM program that imports it reads the running service', ONE_ENGINE, async () => {
    fs.writeFileSync(path.join(app, 'read.mjs'), PROGRAM);
    const output = JSON.parse(await run(process.execPath, ['read.mjs', server!.base], app)) as Record<string, unknown>;
    const users = sampleRecords().filter((record) => (record as { model: string }).model === 'users.user');
    const firstPage = (await request(server!.base, '/api/users/?page_size=3')).json() as { results: { username: string }[] };
    assert.deepEqual(output, {
      status: (await request(server!.base, '/api/space/status/')).json(),
      count: users.length,
      usernames: firstPage.results.map((user) => user.username),
      missing: 404,
    });
  });

  it("the repository's tsc type-checks a TypeScript program against the installed types", ONE_ENGINE, async () => {
    fs.writeFileSync(path.join(app, 'typed.ts'), TYPED);
    // No tsconfig in the project: the options a strict Node ESM program would have (DOM for fetch's types, no @types/node).
    const args = [TSC, '--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--lib', 'es2022,dom', 'typed.ts'];
    try {
      await run(process.execPath, args, app);
    } catch (error) {
      assert.fail(`tsc: ${(error as { stdout?: string }).stdout ?? String(error)}`);
    }
  });
});
