import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FormatRegistry, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { EventRecord } from '../src/apps/events/events.js';
import { MeetingRecord } from '../src/apps/events/meetings.js';
import { OpeningRecord } from '../src/apps/space/openings.js';
import { ProjectRecord } from '../src/apps/projects/projects.js';
import { UserRecord } from '../src/apps/users/users.js';
import { request } from './support/http.js';
import { sampleRecords, startServer, type TestServer } from './support/server.js';

// The contract's shapes for the formats the schemas name.
FormatRegistry.Set('uri', (value) => /^https?:\/\/[^\s]+$/.test(value));
FormatRegistry.Set('date-time', (value) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{6})?[+-]\d{2}:\d{2}(:\d{2})?$/.test(value));

const SCHEMAS: Record<string, TSchema> = {
  users: UserRecord,
  'space/openings': OpeningRecord,
  projects: ProjectRecord,
  meetings: MeetingRecord,
  events: EventRecord,
};

describe('every record the API serves matches its resource schema, fields in schema order', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ records: sampleRecords(), env: { PAGE_SIZE: '50' } });
  });
  after(() => server.close());

  for (const [collection, schema] of Object.entries(SCHEMAS)) {
    it(collection, async () => {
      let path: string | null = `/api/${collection}/`;
      let checked = 0;
      while (path) {
        const page = (await request(server.base, path)).json();
        for (const record of page.results) {
          const errors = [...Value.Errors(schema, record)].map((e) => `${e.path}: ${e.message}`);
          assert.deepEqual(errors, [], `${collection}: ${JSON.stringify(record).slice(0, 200)}`);
          assert.deepEqual(Object.keys(record), Object.keys(schema.properties), 'no field outside the schema, in its order');
          checked++;
        }
        path = page.next && page.next.slice(server.base.length);
      }
      assert.ok(checked > 0);
    });
  }
});
