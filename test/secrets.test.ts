import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeUrl } from '../src/db/postgres.js';
import { ImportError, importRecords } from '../src/interchange/import.js';
import { request } from './support/http.js';
import { freshDatabase, sampleRecords, startServer } from './support/server.js';

describe('secrets and e-mail addresses stay out of messages', () => {
  it('database locations never show a password, in the URL or in its parameters', () => {
    assert.equal(describeUrl('postgres://me:hunter2@db:5432/space'), 'postgres://me:***@db:5432/space');
    const described = describeUrl('postgres://me@db:5432/space?password=hunter2&sslpassword=s3cret&sslmode=require');
    assert.doesNotMatch(described, /hunter2|s3cret/);
    assert.match(described, /sslmode=require/);
  });

  it('an import error about an e-mail field describes the value without showing it', async () => {
    const fresh = await freshDatabase();
    try {
      await assert.rejects(
        fresh.handle.db.transaction().execute((trx) => importRecords(trx, [{ model: 'users.user', pk: 1, fields: { username: 'bob', email: ['bob.secret@example.org'] } }])),
        (error: unknown) => {
          assert.ok(error instanceof ImportError);
          assert.match(error.message, /users\.user pk 1/);
          assert.match(error.message, /email/);
          assert.doesNotMatch(error.message, /bob\.secret/);
          return true;
        },
      );
    } finally {
      await fresh.cleanup();
    }
  });
});

describe('bodies on safe methods', () => {
  it('are ignored, even malformed: OPTIONS and GET still answer 200', async () => {
    const server = await startServer({ records: sampleRecords() });
    try {
      for (const method of ['OPTIONS', 'GET']) {
        const res = await request(server.base, '/api/users/', { method, headers: { 'content-type': 'application/json' }, body: '{"broken": ' });
        assert.equal(res.status, 200, `${method}: ${res.body}`);
      }
    } finally {
      await server.close();
    }
  });
});
