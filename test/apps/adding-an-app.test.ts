/**
 * "Adding an app", the worked example of docs/architecture.md, done as the page says: its files
 * are the page's code blocks (each opens with `// src/apps/tools/<file>`), written into a copy of
 * today's source in a temporary folder, and the app is added to the installed list the way the
 * page shows. The copy then typechecks, obeys the import rules, migrates a new database of the
 * engine under test and serves the app; turned off by APPS, the app answers nothing while its
 * data stays. If the page goes stale, this test fails.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { freePort, startService, type Service } from '../support/processes.js';
import { freshDatabase, sqliteOnly, type FreshDatabase } from '../support/server.js';

const run = promisify(execFile);
const REPO = path.resolve(import.meta.dirname, '../..');
const PAGE = path.join(REPO, 'docs/architecture.md');

interface Block {
  file: string;
  code: string;
}

/** The page's TypeScript blocks that open with a file's name, then its JSON blocks (the catalogues) that follow a line naming their file. */
function blocksOf(markdown: string): Block[] {
  const ts = [...markdown.matchAll(/```ts\n\/\/ (src\/[^\s]+)[^\n]*\n([\s\S]*?)```/g)].map(([, file, code]) => ({ file, code }));
  const json = [...markdown.matchAll(/^`(src\/[^`\s]+\.json)`:\n\n```json\n([\s\S]*?)```/gm)].map(([, file, code]) => ({ file, code }));
  return [...ts, ...json];
}

/** Today's source (and what checks it) in a temporary folder, with this checkout's node_modules. */
function copyOfToday(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hackerspace-api-adding-an-app-'));
  for (const part of ['src', 'bin', 'package.json', 'tsconfig.json', '.dependency-cruiser.cjs']) {
    fs.cpSync(path.join(REPO, part), path.join(dir, part), { recursive: true });
  }
  fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(dir, 'node_modules'));
  return dir;
}

/** A request to the copy, whose answers its own OpenAPI document describes, not this checkout's (support/http.ts checks those). */
async function request(base: string, path: string, init: RequestInit = {}): Promise<{ status: number; body: string; json(): any }> {
  const res = await fetch(base + path, { ...init, redirect: 'manual' });
  const body = await res.text();
  return { status: res.status, body, json: () => JSON.parse(body) };
}

/** Resolves once the copy answers `/api/`; fails if it exits first or is not serving within 30 s. */
async function serving(service: Service): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (Date.now() > deadline) assert.fail(`the copy was not serving after 30 s\n${service.output()}`);
    const answered = await Promise.race([
      service.exited.then(() => 'exited' as const),
      request(service.base, '/api/').then(
        (r) => r.status === 200,
        () => false,
      ),
    ]);
    if (answered === 'exited') assert.fail(`the copy exited before serving\n${service.output()}`);
    if (answered) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The installed list with one more app at its end and its import above it, as the page says to add it. */
function installed(today: string, importLine: string, app: string): string {
  const list = /(export const INSTALLED_APPS[^\n]*checkedInstalled\(\[)([^\]]*)(\]\);)/;
  assert.match(today, list, 'src/installed-apps.ts still declares INSTALLED_APPS = checkedInstalled([...]) on one line');
  const added = today.replace(list, (_, head: string, apps: string, tail: string) => `${head}${apps}, ${app}${tail}`);
  const lastImport = added.lastIndexOf('\nimport ');
  const lineEnd = added.indexOf('\n', lastImport + 1);
  return `${added.slice(0, lineEnd + 1)}${importLine}\n${added.slice(lineEnd + 1)}`;
}

describe('adding an app, as docs/architecture.md shows it', () => {
  let dir: string;
  let fresh: FreshDatabase;
  const blocks = blocksOf(fs.readFileSync(PAGE, 'utf8'));
  const appFiles = blocks.filter((b) => b.file.startsWith('src/apps/tools/'));
  const listBlock = blocks.find((b) => b.file === 'src/installed-apps.ts');

  before(async () => {
    assert.ok(appFiles.length > 0, 'the page has the app’s files as code blocks');
    assert.ok(listBlock !== undefined, 'the page shows the line added to src/installed-apps.ts');
    dir = copyOfToday();
    for (const { file, code } of appFiles) {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), code);
    }
    const [importLine, listLine] = listBlock.code.trim().split('\n');
    const changed = installed(fs.readFileSync(path.join(dir, 'src/installed-apps.ts'), 'utf8'), importLine, 'toolsApp');
    // The page shows the list as it is today with the app added: a new app of the repository makes it stale.
    assert.ok(changed.includes(`\n${listLine}\n`), `the page's line ${listLine} is today's list with toolsApp added:\n${changed}`);
    fs.writeFileSync(path.join(dir, 'src/installed-apps.ts'), changed);
    fresh = await freshDatabase({ migrate: false });
  });

  after(async () => {
    await fresh?.cleanup();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('typechecks and obeys the import rules', sqliteOnly('the same source on either engine: checked once'), async () => {
    await run(process.execPath, [path.join(dir, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', dir], { cwd: dir }).catch((error) => {
      assert.fail(`tsc: ${error.stdout}${error.stderr}`);
    });
    const depcruise = path.join(dir, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
    await run(process.execPath, [depcruise, 'src', '--config', '.dependency-cruiser.cjs'], { cwd: dir }).catch((error) => {
      assert.fail(`dependency-cruiser: ${error.stdout}${error.stderr}`);
    });
  });

  it('migrates, serves its collection, page and link, and answers nothing once turned off while its data stays', async () => {
    const bin = path.join(dir, 'bin/hackerspace-api.js');
    const env = { DATABASE_URL: fresh.url, LOG_LEVEL: 'warn' };
    const migrated = await run(process.execPath, [bin, 'migrate'], { cwd: dir, env: { ...process.env, ...env } });
    assert.match(migrated.stdout + migrated.stderr, /tools\.0001_create_tools/, 'the app’s migration ran');
    const token = await run(process.execPath, [bin, 'token', 'create', '--name', 'tools', '--scope', 'admin'], { cwd: dir, env: { ...process.env, ...env } });
    const secret = token.stdout.trim();

    let service: Service = await startService(['serve'], { ...env, PORT: String(await freePort()) }, bin);
    try {
      await serving(service);
      const root = (await request(service.base, '/api/')).json();
      assert.equal(root.tools, `${service.base}/api/tools/`, 'the API root lists the app’s collection');
      const created = await request(service.base, '/api/tools/', {
        method: 'POST',
        headers: { authorization: `Token ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Laser cutter', location: 'Workshop' }),
      });
      assert.equal(created.status, 201, created.body);
      const id = created.json().id;
      assert.deepEqual(created.json(), { id, name: 'Laser cutter', location: 'Workshop', working: true });
      const list = (await request(service.base, '/api/tools/')).json();
      assert.equal(list.count, 1);
      assert.deepEqual(list.results, [{ id, name: 'Laser cutter', location: 'Workshop', working: true }]);
      const schema = (await request(service.base, '/api/schema/', { headers: { accept: 'application/json' } })).json();
      assert.ok(schema.paths['/api/tools/'], 'the OpenAPI document describes the collection');
      const page = await request(service.base, '/tools/');
      assert.equal(page.status, 200);
      assert.match(page.body, /Laser cutter/);
      assert.match(page.body, /<a [^>]*href="\/tools\/"[^>]*>Tools<\/a>/, 'the navigation links to the page');
      const french = await request(service.base, '/tools/', { headers: { 'accept-language': 'fr-BE' } });
      assert.match(french.body, /<h1 id="tools-heading">Outils<\/h1>/, 'the page in French, from the catalogue the page shows');
      assert.match(french.body, /Laser cutter <span>Workshop<\/span> fonctionne/);
    } finally {
      await service.stop();
    }

    // Turned off: every app but tools.
    service = await startService(['serve'], { ...env, PORT: String(await freePort()), APPS: 'users,space,projects,events' }, bin);
    try {
      await serving(service);
      assert.equal((await request(service.base, '/api/')).json().tools, undefined, 'the API root leaves it out');
      assert.equal((await request(service.base, '/api/tools/')).status, 404);
      assert.equal((await request(service.base, '/tools/')).status, 404);
      const dashboard = await request(service.base, '/');
      assert.doesNotMatch(dashboard.body, /href="\/tools\/"/, 'the navigation leaves it out');
      const { rows } = await sql<{ n: number | string }>`select count(*) as n from tools`.execute(fresh.handle.db);
      assert.equal(Number(rows[0].n), 1, 'its data stays');
    } finally {
      await service.stop();
    }
  });
});
