/**
 * APPS (apps.md): a space turns an app off and its pages and API routes answer 404, the API root,
 * the OpenAPI document and the navigation leave it out, its data stays; turned back on, every
 * answer is what it was. Over real HTTP, on the engine under test, one database for every app.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { ConfigError, configFrom } from '../../src/config.js';
import { request, type HttpResponse } from '../support/http.js';
import { BIN } from '../support/processes.js';
import { withSampleData, type FreshDatabase } from '../support/server.js';

/** The API root's keys in the original's order (api-contract.md, and ledger.md §1 for the shop's), all apps on. */
const ROOT_KEYS = ['events', 'meetings', 'users', 'projects', 'stock/categories', 'stock/products', 'streams/urtip', 'space/openings'];
/** What a visitor reads about the projects, by the API and the pages. */
const PROJECT_PATHS = ['/api/projects/', '/api/projects/1/', '/api/projects.json', '/projects/', '/projects/1/', '/projects/new/', '/projects/add'];

/** A server on the shared database with these settings; closed with the test. */
async function serve(fresh: FreshDatabase, env: Record<string, string>): Promise<{ base: string; app: FastifyInstance }> {
  const app = await buildApp(configFrom({ DATABASE_URL: fresh.url, LOG_LEVEL: 'silent', ...env }), { database: fresh.handle, logger: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  return { base: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, app };
}

/** An answer, its links' origin (the server's port) written as `BASE`. */
const snapshot = (base: string, res: HttpResponse) => ({ status: res.status, body: res.body.replaceAll(base, 'BASE') });

describe('APPS turns an app off and back on', () => {
  let fresh: FreshDatabase;
  let before_: Record<string, { status: number; body: string }>;
  let projectRows: unknown[];

  before(async () => {
    fresh = await withSampleData();
    projectRows = await fresh.handle.db.selectFrom('projects').selectAll().orderBy('id').execute();
    assert.ok(projectRows.length > 0, 'the sample data holds projects');
    const all = await serve(fresh, {});
    try {
      before_ = {};
      for (const path of PROJECT_PATHS) before_[path] = snapshot(all.base, await request(all.base, path));
    } finally {
      await all.app.close();
    }
  });
  after(() => fresh.cleanup());

  it('with every app on, a member page names the projects they maintain', async () => {
    const { maintainer_id, id } = await fresh.handle.db.selectFrom('projects').select(['maintainer_id', 'id']).orderBy('id').limit(1).executeTakeFirstOrThrow();
    const all = await serve(fresh, {});
    try {
      assert.match((await request(all.base, `/members/${maintainer_id}/`)).body, new RegExp(`href="/projects/${id}/"`));
    } finally {
      await all.app.close();
    }
  });

  it('with every app on, the projects are served', () => {
    for (const path of ['/api/projects/', '/api/projects/1/', '/projects/', '/projects/1/']) assert.equal(before_[path].status, 200, path);
    assert.equal(before_['/projects/add'].status, 301);
  });

  describe('APPS=users,space,events,stock (projects off)', () => {
    let off: { base: string; app: FastifyInstance };
    before(async () => {
      off = await serve(fresh, { APPS: 'users,space,events,stock' });
    });
    after(() => off.app.close());

    for (const path of PROJECT_PATHS) {
      it(`${path} answers 404`, async () => {
        assert.equal((await request(off.base, path)).status, 404);
      });
    }

    it('the API root leaves projects out, the others in the contract order', async () => {
      const res = await request(off.base, '/api/');
      assert.equal(res.status, 200);
      assert.deepEqual(
        Object.keys(res.json()),
        ROOT_KEYS.filter((key) => key !== 'projects'),
      );
    });

    it('the OpenAPI document describes no projects route', async () => {
      const document = (await request(off.base, '/api/schema/')).json() as { paths: Record<string, unknown> };
      assert.deepEqual(
        Object.keys(document.paths).filter((path) => path.includes('projects')),
        [],
      );
      assert.ok('/api/events/' in document.paths);
    });

    it('the navigation leaves Projects out and keeps Events', async () => {
      const page = (await request(off.base, '/events/')).body;
      const nav = /<nav aria-label="Site">.*?<\/nav>/s.exec(page)?.[0] ?? '';
      assert.ok(!nav.includes('href="/projects/"'), nav);
      assert.ok(nav.includes('href="/events/"'), nav);
    });

    it('the other apps answer as before: users, events, the space', async () => {
      for (const path of ['/api/users/', '/api/events/', '/api/space/status/', '/events/', '/members/1/']) assert.equal((await request(off.base, path)).status, 200, path);
    });

    it('a member page names no project (their pages answer 404), though the member maintains one', async () => {
      const { maintainer_id } = await fresh.handle.db.selectFrom('projects').select('maintainer_id').orderBy('id').limit(1).executeTakeFirstOrThrow();
      const page = await request(off.base, `/members/${maintainer_id}/`);
      assert.equal(page.status, 200);
      assert.doesNotMatch(page.body, /href="\/projects\//);
      assert.doesNotMatch(page.body, /Maintains/);
    });

    it("the projects' rows stay as they were", async () => {
      assert.deepEqual(await fresh.handle.db.selectFrom('projects').selectAll().orderBy('id').execute(), projectRows);
    });
  });

  describe('turned back on', () => {
    let on: { base: string; app: FastifyInstance };
    before(async () => {
      on = await serve(fresh, { APPS: 'users,space,projects,events,stock' });
    });
    after(() => on.app.close());

    it('every projects address answers exactly as before', async () => {
      for (const path of PROJECT_PATHS) assert.deepEqual(snapshot(on.base, await request(on.base, path)), before_[path], path);
    });

    it('the API root is the contract one', async () => {
      assert.deepEqual(Object.keys((await request(on.base, '/api/')).json()), ROOT_KEYS);
    });
  });
});

describe('APPS refuses what cannot be', () => {
  it('an unknown app name is a configuration error naming the installed apps', async () => {
    await assert.rejects(buildApp(configFrom({ APPS: 'users,space,bar', LOG_LEVEL: 'silent' })), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.match(error.message, /APPS.*"bar".*users, space, projects, events/);
      return true;
    });
  });

  it('`serve` with an unknown app stops at once with exit code 78, before it makes the database', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hackerspace-api-apps-'));
    try {
      const file = path.join(dir, 'never.sqlite');
      const result = spawnSync(process.execPath, [BIN, 'serve'], {
        env: { ...process.env, APPS: 'users,bar', DATABASE_URL: `sqlite:${file}`, PORT: '0' },
        encoding: 'utf8',
        timeout: 20_000,
      });
      assert.equal(result.status, 78);
      assert.match(result.stderr, /configuration error: APPS: no app is named "bar"/);
      assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
      assert.equal(fs.existsSync(file), false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a malformed list is a configuration error', () => {
    assert.throws(() => configFrom({ APPS: 'users,,space' }), ConfigError);
    assert.throws(() => configFrom({ APPS: 'Users' }), ConfigError);
  });

  it('users and space stay on when APPS leaves them out', async () => {
    const fresh = await withSampleData();
    try {
      const server = await serve(fresh, { APPS: 'events' });
      try {
        assert.deepEqual(Object.keys((await request(server.base, '/api/')).json()), ['events', 'meetings', 'users', 'space/openings']);
        assert.equal((await request(server.base, '/accounts/login/')).status, 200);
      } finally {
        await server.app.close();
      }
    } finally {
      await fresh.cleanup();
    }
  });
});
