import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { request } from './support/http.js';
import { freePort, killAll, startService, waitUntilServing } from './support/processes.js';

/** What `npm start` does on a fresh checkout: serve on a SQLite file that does not exist yet. */
describe('serve on a brand-new SQLite database', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hackerspace-api-fresh-'));
  after(() => {
    killAll();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('creates the file, migrates it and serves an empty API', async () => {
    const file = path.join(dir, 'nested', 'new.sqlite');
    const service = await startService(['serve'], { DATABASE_URL: `sqlite:${file}`, LOG_LEVEL: 'info', PORT: String(await freePort()) });
    try {
      await waitUntilServing(service);
      assert.ok(fs.existsSync(file));
      const health = await request(service.base, '/healthz');
      assert.equal(health.status, 200, health.body);
      const users = await request(service.base, '/api/users/');
      assert.deepEqual(JSON.parse(users.body), { count: 0, next: null, previous: null, results: [] });
    } finally {
      await service.stop();
    }
  });
});
