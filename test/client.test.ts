/**
 * The typed client (client/, npm package `hackerspace-api-client`, imported from its sources)
 * against the real service on the engine under test: pages and `all` following `next`, records
 * by id and by hyperlink (a foreign link refused), errors as ApiError, an admin's create, update
 * and remove, the door report, and `watch` across a restart of the service's process.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ApiError, createClient, readEvents, type Client, type SpaceStatus } from '../client/src/index.js';
import { importRecords } from '../src/installed-apps.js';
import { createToken } from '../src/resources/tokens.js';
import { freePort, startService, waitUntilServing, type Service } from './support/processes.js';
import { freshDatabase, sampleRecords, startServer, TEST_ENGINE, type FreshDatabase, type TestServer } from './support/server.js';
import { until, within } from './support/wait.js';
import { nowUs } from './support/clock.js';

/** A `fetch` that remembers the URLs it was asked for. */
function countingFetch(): { fetch: typeof fetch; urls: string[]; signals: (AbortSignal | null | undefined)[] } {
  const urls: string[] = [];
  const signals: (AbortSignal | null | undefined)[] = [];
  return {
    urls,
    signals,
    fetch: (input, init) => {
      urls.push(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
      signals.push(init?.signal);
      return fetch(input, init);
    },
  };
}

describe(`the client against the service on ${TEST_ENGINE}`, () => {
  let server: TestServer;
  let admin: string;
  let door: string;
  let api: Client;

  before(async () => {
    server = await startServer({ records: sampleRecords() });
    admin = (await createToken(server.database.db, 'client admin', 'admin', nowUs())).secret;
    door = (await createToken(server.database.db, 'client door', 'door', nowUs())).secret;
    api = createClient({ baseUrl: server.base });
  });

  after(async () => {
    await server?.close();
  });

  it('lists a page: count, links and results of the size asked for', async () => {
    const first = await api.users.list({ pageSize: 5 });
    const second = await api.users.list({ page: 2, pageSize: 5 });
    assert.ok(first.count > 10, `sample users: ${first.count}`);
    assert.equal(second.count, first.count);
    assert.equal(first.results.length, 5);
    assert.equal(second.results.length, 5);
    assert.equal(first.previous, null);
    assert.equal(new URL(first.next!).searchParams.get('page'), '2');
    assert.equal(new URL(second.next!).searchParams.get('page'), '3');
    assert.notDeepEqual(first.results, second.results);
    assert.deepEqual(Object.keys(first.results[0]).sort(), ['avatar', 'has_key', 'username']);
  });

  it('all() yields every record once, following `next` across pages', async () => {
    const counting = countingFetch();
    const client = createClient({ baseUrl: server.base, fetch: counting.fetch });
    const { count } = await api.users.list();
    const names: string[] = [];
    for await (const user of client.users.all({ pageSize: 4 })) names.push(user.username);
    assert.equal(names.length, count);
    assert.equal(new Set(names).size, count);
    assert.equal(counting.urls.length, Math.ceil(count / 4));
    assert.ok(counting.urls.slice(1).every((url) => new URL(url).searchParams.get('page_size') === '4'));
    // and the same records as the pages
    const paged: string[] = [];
    for (let page = 1; page <= Math.ceil(count / 4); page++) paged.push(...(await api.users.list({ page, pageSize: 4 })).results.map((u) => u.username));
    assert.deepEqual(names, paged);
  });

  it('gets a record by id and by the hyperlink another record holds', async () => {
    const { results } = await api.projects.list({ pageSize: 3 });
    const listed = results[0];
    const project = await api.projects.get(listed.id);
    assert.deepEqual(project, listed);
    const maintainer = await api.users.get(project.maintainer);
    const id = Number(/\/api\/users\/(\d+)\/$/.exec(project.maintainer)![1]);
    assert.deepEqual(await api.users.get(id), maintainer);
    assert.deepEqual(await api.users.get(String(id)), maintainer);
    assert.equal(typeof maintainer.username, 'string');
  });

  it('refuses a hyperlink that is not this collection under baseUrl, before any request', async () => {
    const counting = countingFetch();
    const client = createClient({ baseUrl: server.base, fetch: counting.fetch });
    const { results } = await api.projects.list({ pageSize: 1 });
    const link = results[0].maintainer;
    const path = new URL(link).pathname;
    for (const foreign of [
      `https://elsewhere.example${path}`,
      `http://127.0.0.1:1${path}`,
      link.replace('/api/users/', '/api/projects/'),
      `${link}?format=json`,
      `${server.base}/api/users/`,
      `${server.base}/api/users/x/`,
      'not a link',
    ]) {
      await assert.rejects(client.users.get(foreign), TypeError, foreign);
    }
    await assert.rejects(client.projects.get(link), TypeError);
    assert.deepEqual(counting.urls, []);
  });

  it('throws ApiError with the status and body of a non-2xx answer', async () => {
    const missing = await api.projects.get(999_999).then(
      () => assert.fail('a 404 resolved'),
      (error: unknown) => error,
    );
    assert.ok(missing instanceof ApiError);
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.body, { detail: 'Not found.' });
    const { results } = await api.users.list({ pageSize: 1 });
    const write = await api.users.create({ username: 'no-token' }).then(
      () => assert.fail('a write without a token succeeded'),
      (error: unknown) => error,
    );
    assert.ok(write instanceof ApiError);
    assert.equal(write.status, 401);
    assert.equal(typeof (write.body as { detail: string }).detail, 'string');
    assert.ok(results.length === 1);
    const door = await createClient({ baseUrl: server.base, token: 'not-a-token' })
      .space.record(true)
      .catch((error: unknown) => error);
    assert.ok(door instanceof ApiError && door.status === 401);
  });

  it('creates, updates and removes records with an admin token; a door token may not', async () => {
    const client = createClient({ baseUrl: server.base, token: admin });
    const { results } = await client.projects.list({ pageSize: 1 });
    const maintainer = results[0].maintainer;
    const created = await client.projects.create({ title: 'Client test', maintainer, status: 'i', progress: 10, short_description: 'Made by the client' });
    assert.equal(created.title, 'Client test');
    assert.equal(created.maintainer, maintainer);
    assert.deepEqual(await api.projects.get(created.id), created);
    const updated = await client.projects.update(created.id, { progress: 60 });
    assert.equal(updated.progress, 60);
    assert.equal(updated.title, 'Client test');
    const replaced = await client.projects.replace(created.id, { title: 'Client test, again', maintainer, status: 'f', progress: 100, short_description: 'Done' });
    assert.equal(replaced.status, 'f');
    assert.deepEqual(await api.projects.get(created.id), replaced);
    const byDoor = await createClient({ baseUrl: server.base, token: door })
      .projects.remove(created.id)
      .catch((error: unknown) => error);
    assert.ok(byDoor instanceof ApiError && byDoor.status === 403, String(byDoor));
    assert.equal(await client.projects.remove(created.id), undefined);
    await assert.rejects(api.projects.get(created.id), (error: unknown) => error instanceof ApiError && error.status === 404);
    const user = await client.users.create({ username: `client-${Date.now()}`, has_key: true });
    assert.equal(user.has_key, true);
  });

  it('records a door report: 201 when it changes the state, 200 when it repeats it', async () => {
    const client = createClient({ baseUrl: server.base, token: door });
    const before = await client.space.status();
    const next = !before.is_open;
    const first = await client.space.record(next);
    assert.equal(first.created, true);
    assert.equal(first.opening.is_open, next);
    const again = await client.space.record(next);
    assert.equal(again.created, false);
    assert.deepEqual(again.opening, first.opening);
    const status = await api.space.status();
    assert.equal(status.is_open, next);
    assert.ok(status.since);
  });
});

describe(`watch() across a restart of the service (${TEST_ENGINE})`, () => {
  let fresh: FreshDatabase;
  let service: Service | undefined;
  let door: string;
  let env: Record<string, string>;

  before(async () => {
    fresh = await freshDatabase();
    const records = sampleRecords();
    await fresh.handle.db.transaction().execute((trx) => importRecords(trx, records));
    door = (await createToken(fresh.handle.db, 'door', 'door', nowUs())).secret;
    env = { DATABASE_URL: fresh.url, LOG_LEVEL: 'info', PORT: String(await freePort()) };
    service = await startService(['serve'], env);
    await waitUntilServing(service);
  });

  after(async () => {
    await service?.stop();
    await fresh?.cleanup();
  });

  it('receives the current state, then a change made after the process was killed and started again; stop() ends it', async () => {
    const base = service!.base;
    const api = createClient({ baseUrl: base, token: door });
    const counting = countingFetch();
    const watcher = createClient({ baseUrl: base, fetch: counting.fetch });
    const states: { state: SpaceStatus; id: string | undefined }[] = [];
    const errors: unknown[] = [];
    let changed = () => {};
    const stop = watcher.space.watch(
      (state, { id }) => {
        states.push({ state, id });
        changed();
      },
      { onError: (error) => errors.push(error), minDelayMs: 50, maxDelayMs: 500 },
    );
    const waitForStates = (n: number, what: string) =>
      within(
        new Promise<void>((resolve) => {
          changed = () => {
            if (states.length >= n) resolve();
          };
          changed();
        }),
        what,
      );
    try {
      await waitForStates(1, 'the current state');
      const initial = await api.space.status();
      assert.deepEqual(states[0].state, initial);

      service!.child.kill('SIGKILL');
      await service!.exited;
      // The watcher notices: its connection ends, and the next attempts are refused.
      await until(() => errors.length > 0 || counting.urls.length > 1, 'the watcher to see the connection end');
      service = await startService(['serve'], env);
      await waitUntilServing(service);

      const next = !initial.is_open;
      const report = await api.space.record(next);
      assert.equal(report.created, true);
      await waitForStates(2, 'the change made after the restart');
      assert.equal(states.length, 2, 'no repeat of the state it had (Last-Event-ID)');
      assert.deepEqual(states[1].state, await api.space.status());
      assert.equal(states[1].state.is_open, next);
      assert.ok(Number(states[1].id) > Number(states[0].id), `ids ${states[0].id} → ${states[1].id}`);
      assert.ok(counting.urls.length >= 2, 'it reconnected');
    } finally {
      stop();
    }
    // stop() aborted the request: a change now reaches nobody, and no new request is made.
    assert.equal(counting.signals.at(-1)?.aborted, true);
    const requests = counting.urls.length;
    const errorsSoFar = errors.length;
    await api.space.record(!states[1].state.is_open);
    const closed = await fetch(`${base}/api/space/status/`);
    assert.equal(closed.status, 200);
    await closed.body?.cancel();
    assert.equal(states.length, 2);
    assert.equal(counting.urls.length, requests);
    assert.equal(errors.length, errorsSoFar);
  });
});

describe("the client's event-stream parser", () => {
  it('splits on CR LF, LF and CR (also across chunks), skips comments, joins data lines, keeps the last id', async () => {
    const chunks = [
      '\uFEFF: heartbeat\r',
      '\nevent: state\r\nid: 7\r\ndata: {"a":',
      '1}\r',
      '\n\r\n',
      'id: 8\n\n',
      'data:x\rdata: y\r\rretry: 300\nevent: other\ndata\n\n',
      'data: unfinished',
    ];
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
        controller.close();
      },
    });
    const events = [];
    for await (const event of readEvents(body, '3')) events.push(event);
    assert.deepEqual(events, [
      { event: 'state', data: '{"a":1}', id: '7', retry: undefined },
      { event: 'message', data: 'x\ny', id: '8', retry: undefined },
      { event: 'other', data: '', id: '8', retry: 300 },
    ]);
  });
});

describe('watch() against a stream that goes silent, then refuses', () => {
  it('replaces a connection silent for idleTimeoutMs, resuming with Last-Event-ID; gives up on a 406', async () => {
    const seen: (string | undefined)[] = [];
    let connections = 0;
    const server = http.createServer((request, response) => {
      seen.push(request.headers['last-event-id'] as string | undefined);
      connections++;
      if (connections === 1) {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write('event: state\nid: 41\ndata: {"is_open":true,"since":"2026-11-25T18:00:00+01:00"}\n\n');
        return; // then silence, the connection left open
      }
      response.writeHead(406, { 'content-type': 'application/json' });
      response.end('{"detail":"Could not satisfy the request Accept header."}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const states: SpaceStatus[] = [];
    let gaveUp: (error: unknown) => void = () => {};
    const refused = new Promise<unknown>((resolve) => (gaveUp = resolve));
    const errors: unknown[] = [];
    const stop = createClient({ baseUrl: base }).space.watch((state) => states.push(state), {
      idleTimeoutMs: 300,
      minDelayMs: 10,
      onError: (error) => {
        errors.push(error);
        if (error instanceof ApiError) gaveUp(error);
      },
    });
    try {
      const error = await within(refused, 'the 406');
      assert.ok(error instanceof ApiError && error.status === 406);
      assert.deepEqual(error.body, { detail: 'Could not satisfy the request Accept header.' });
      assert.deepEqual(seen, [undefined, '41']);
      assert.deepEqual(states, [{ is_open: true, since: '2026-11-25T18:00:00+01:00' }]);
      assert.match(String((errors[0] as Error).message), /No data from the stream for 300 ms/);
      assert.equal(errors.length, 2);
    } finally {
      stop();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
