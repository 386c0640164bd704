// Scale-out, with real processes: several `serve` processes on one database, `serve --workers`,
// and waiting for a database that is not there yet. Runs on both engines (TEST_ENGINE).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { importRecords, INSTALLED_COLLECTIONS } from '../src/installed-apps.js';

const COLLECTIONS = INSTALLED_COLLECTIONS.map((collection) => collection.path);
import { configFrom } from '../src/config.js';
import { buy } from '../src/apps/stock/ledger.js';
import { writeTransaction } from '../src/db/write-transaction.js';
import { openDatabase } from '../src/db/connection.js';
import { request } from './support/http.js';
import { freePort, isAlive, killAll, startService, waitUntilServing, type Service } from './support/processes.js';
import { TcpProxy } from './support/tcp-proxy.js';
import { freshDatabase, postgresOnly, sampleRecords, TEST_ENGINE, type FreshDatabase, withSampleData } from './support/server.js';

const PUBLIC_URL = 'https://space.example.org';

after(() => killAll());

const MODEL_COLLECTIONS: Record<string, string> = {
  'users.user': 'users',
  'space.spacestatus': 'space/openings',
  'projects.project': 'projects',
  'events.event': 'events',
  'events.meeting': 'meetings',
};

/** The shop's records the sample has none of (ledger.md): a category named urtip, its product, a purchase of it (by the ledger's own rule); their paths. */
const SHOP_PATHS: string[] = [];

async function addShop(fresh: FreshDatabase): Promise<void> {
  const db = fresh.handle.db;
  const category = await db.insertInto('stock_categories').values({ name: 'Urtip' }).returning('id').executeTakeFirstOrThrow();
  const product = await db.insertInto('stock_products').values({ name: 'Tip', price_cents: 150, category_id: category.id, active: 1 }).returning('id').executeTakeFirstOrThrow();
  const user = await db.selectFrom('users').select('id').orderBy('id').executeTakeFirstOrThrow();
  const rules = { maxAmountCents: 50_000, debtLimitCents: null, undoMinutes: 5 };
  const bought = await writeTransaction(db, (trx) =>
    buy(trx, rules, { userId: user.id, productId: product.id, key: null, by: { userId: user.id, channel: 'web' }, nowUs: Date.now() * 1000 }),
  );
  SHOP_PATHS.push(`/api/stock/categories/${category.id}/`, `/api/stock/products/${product.id}/`, `/api/streams/urtip/${bought.entry.id}/`);
}

/** The root, every collection, a second page of each, and the first record of each. */
function everyPath(): string[] {
  const paths = ['/api/', ...SHOP_PATHS];
  // The shop has one record of each: its second page would be an invalid one (404).
  for (const collection of COLLECTIONS)
    paths.push(`/api/${collection}/`, SHOP_PATHS.some((p) => p.startsWith(`/api/${collection}/`)) ? `/api/${collection}/?page_size=1` : `/api/${collection}/?page=2&page_size=3`);
  const seen = new Set<string>();
  for (const record of sampleRecords() as Array<{ model: string; pk: number }>) {
    const collection = MODEL_COLLECTIONS[record.model];
    if (collection === undefined || seen.has(collection)) continue;
    seen.add(collection);
    paths.push(`/api/${collection}/${record.pk}/`);
  }
  assert.equal(seen.size + SHOP_PATHS.length, COLLECTIONS.length, 'the sample and the shop have records of every collection');
  return paths;
}

describe(`two serve processes on one ${TEST_ENGINE} database`, () => {
  let fresh: FreshDatabase;
  let one: Service;
  let two: Service;

  before(async () => {
    fresh = await withSampleData();
    await addShop(fresh);
    const env = { DATABASE_URL: fresh.url, LOG_LEVEL: 'warn', PUBLIC_URL };
    [one, two] = await Promise.all([startService(['serve'], { ...env, PORT: String(await freePort()) }), startService(['serve'], { ...env, PORT: String(await freePort()) })]);
    await Promise.all([waitUntilServing(one), waitUntilServing(two)]);
  });

  after(async () => {
    await Promise.all([one?.stop(), two?.stop()]);
    await fresh?.cleanup();
  });

  it('answer with the same bytes for every collection, page and record', async () => {
    const paths = everyPath();
    for (const path of paths) {
      const [a, b] = await Promise.all([request(one.base, path), request(two.base, path)]);
      assert.equal(a.status, 200, `${path} on the first process`);
      assert.equal(b.status, 200, `${path} on the second process`);
      assert.equal(a.body, b.body, `${path}: both processes give the same body`);
    }
  });

  it('both see a commit made through another connection on their very next request', async () => {
    const paths = ['/api/users/', '/api/users/31/', '/api/space/openings/', '/api/'];
    // Fill both response caches first, so that only invalidation can make the change visible.
    for (const service of [one, two]) for (const path of paths) await request(service.base, path);
    const before = (await request(one.base, '/api/users/')).json();
    assert.equal((await request(one.base, '/api/users/31/')).status, 404);

    const other = await openDatabase(configFrom({ DATABASE_URL: fresh.url }).database);
    try {
      await other.db.transaction().execute((trx) =>
        importRecords(trx, [
          { model: 'users.user', pk: 31, fields: { username: 'scale-out newcomer', email: 'new@example.org', has_key: true } },
          { model: 'space.spacestatus', pk: 9001, fields: { time: '2031-01-01T00:00:00Z', is_open: true } },
        ]),
      );
    } finally {
      await other.close();
    }

    for (const service of [one, two]) {
      const users = (await request(service.base, '/api/users/')).json();
      assert.equal(users.count, before.count + 1, `${service.name} counts the new user`);
      assert.ok(
        users.results.some((u: { username: string }) => u.username === 'scale-out newcomer'),
        `${service.name} lists the new user`,
      );
      const detail = await request(service.base, '/api/users/31/');
      assert.equal(detail.status, 200, `${service.name} finds the new user`);
      const openings = (await request(service.base, '/api/space/openings/')).json();
      assert.deepEqual(openings.results[0], { time: '2031-01-01T00:00:00+00:00', is_open: true }, `${service.name} shows the new opening first`);
    }
    for (const path of paths) {
      const [a, b] = await Promise.all([request(one.base, path), request(two.base, path)]);
      assert.equal(a.body, b.body, `${path}: still the same body on both`);
    }
  });

  it('each stops gracefully on SIGTERM with exit code 0', async () => {
    const [a, b] = await Promise.all([one.stop(), two.stop()]);
    assert.deepEqual(a, { code: 0, signal: null }, one.output());
    assert.deepEqual(b, { code: 0, signal: null }, two.output());
  });
});

describe(`serve --workers 2 on ${TEST_ENGINE}`, () => {
  let fresh: FreshDatabase;
  let service: Service;
  const workerPids = (): number[] => service.logs.filter((l) => l.msg === `worker ${String(l.worker)} is serving` && l.pid === service.pid).map((l) => l.worker as number);

  before(async () => {
    fresh = await withSampleData();
    service = await startService(['serve', '--workers', '2'], { DATABASE_URL: fresh.url, LOG_LEVEL: 'info', PUBLIC_URL, PORT: String(await freePort()) });
    await service.waitForLog(() => workerPids().length === 2, 'two workers serving');
    await waitUntilServing(service);
  });

  after(async () => {
    await service?.stop();
    await fresh?.cleanup();
  });

  it('migrates once, in the primary, before starting the workers', () => {
    const migrated = service.logs.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('database: '));
    assert.deepEqual(
      migrated.map((l) => l.pid),
      [service.pid],
      'only the primary opened and migrated the database',
    );
    assert.deepEqual(migrated[0].users, 30);
  });

  it('serves requests from two different worker processes', async () => {
    const workers = workerPids();
    assert.equal(new Set(workers).size, 2);
    assert.ok(!workers.includes(service.pid));
    const bodies = new Set<string>();
    const path = '/api/users/?page_size=7';
    // A new connection per request (the helper uses no agent): the primary hands them out in turn.
    for (let i = 0; i < 8; i++) {
      const res = await request(service.base, path);
      assert.equal(res.status, 200);
      bodies.add(res.body);
    }
    assert.equal(bodies.size, 1, 'every worker gives the same body');
    // One line a request names its URL: Fastify's "incoming request", or the response cache's.
    const served = () => service.logs.filter((l) => (l.req as { url?: string } | undefined)?.url === path);
    await service.waitForLog(() => served().length === 8, 'eight request log lines');
    const pids = new Set(served().map((l) => l.pid as number));
    assert.equal(pids.size, 2, `requests went to ${[...pids].join(', ')}`);
    for (const pid of pids) assert.ok(workers.includes(pid), `${pid} is one of the workers`);
  });

  it('replaces a worker that dies, and keeps answering meanwhile', async () => {
    const [victim, survivor] = workerPids();
    process.kill(victim, 'SIGKILL');
    await service.waitForLog((l) => l.worker === victim && l.signal === 'SIGKILL' && l.pid === service.pid, 'the primary noticing the death');
    for (let i = 0; i < 4; i++) assert.equal((await request(service.base, '/api/projects/')).status, 200, 'the surviving worker answers');
    await service.waitForLog(() => workerPids().length === 3, 'a replacement worker serving');
    const replacement = workerPids()[2];
    assert.ok(![victim, survivor].includes(replacement));
    assert.ok(isAlive(replacement) && isAlive(survivor) && !isAlive(victim));
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await request(service.base, '/api/')).status);
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200]);
  });

  it('stops every worker gracefully on SIGTERM and exits 0', async () => {
    const workers = workerPids().filter(isAlive);
    assert.equal(workers.length, 2);
    const exit = await service.stop();
    assert.deepEqual(exit, { code: 0, signal: null }, service.output());
    for (const pid of workers) assert.ok(!isAlive(pid), `worker ${pid} is gone`);
    const shutdowns = service.logs.filter((l) => l.msg === 'shutting down').map((l) => l.pid);
    assert.deepEqual(new Set(shutdowns), new Set(workers), 'each worker closed its server itself');
  });
});

describe('waiting for the database at startup', { concurrency: true }, () => {
  const waits = (service: Service) => service.logs.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('waiting for the database'));

  for (const args of [['serve'], ['serve', '--workers', '2']]) {
    it(`${args.join(' ')}: retries an unreachable PostgreSQL with growing delays, then stops cleanly on SIGTERM`, async () => {
      const dbPort = await freePort();
      const port = await freePort();
      const service = await startService(args, {
        DATABASE_URL: `postgres://postgres:s3cret@127.0.0.1:${dbPort}/x`,
        LOG_LEVEL: 'info',
        PORT: String(port),
      });
      await service.waitForLog(() => waits(service).length >= 2, 'two failed attempts');
      const [first, second] = waits(service);
      assert.equal(first.code, 'ECONNREFUSED');
      assert.equal(first.database, `postgres://postgres:***@127.0.0.1:${dbPort}/x`);
      assert.deepEqual([first.retryInMs, second.retryInMs], [500, 1000]);
      assert.equal(first.level, 40, 'logged as a warning');
      assert.match(String(first.msg), new RegExp(`127\\.0\\.0\\.1:${dbPort}.*ECONNREFUSED.*next attempt in 0\\.5 s`));
      assert.ok(!service.output().includes('s3cret'), 'the password is never logged');
      await assert.rejects(request(`http://127.0.0.1:${port}`, '/api/'), 'nothing listens before the database answers');
      assert.ok(!service.logs.some((l) => typeof l.msg === 'string' && l.msg.includes('is serving')), 'no worker was started');
      const exit = await service.stop();
      assert.deepEqual(exit, { code: 0, signal: null }, service.output());
      assert.ok(service.logs.some((l) => /stopped by SIGTERM while waiting for the database/.test(String(l.msg))));
    });
  }

  it('starts serving once PostgreSQL becomes reachable', postgresOnly('a PostgreSQL server to become reachable (SQLite opens a file)'), async () => {
    const fresh = await withSampleData();
    const url = new URL(fresh.url);
    // The database is "down": a proxy to the real server whose port is closed for now.
    const proxy = await TcpProxy.start({ host: url.hostname, port: Number(url.port || 5432) });
    await proxy.refuse();
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    try {
      const service = await startService(['serve', '--workers', '2'], { DATABASE_URL: url.toString(), LOG_LEVEL: 'info', PORT: String(await freePort()) });
      await service.waitForLog(() => waits(service).length >= 2, 'two failed attempts');
      // The database "comes up" on the port the service was told.
      await proxy.restore();
      await waitUntilServing(service);
      assert.ok(
        service.logs.some((l) => /answered after \d+ attempts/.test(String(l.msg))),
        service.output(),
      );
      assert.equal((await request(service.base, '/api/users/')).json().count, 30);
      assert.deepEqual(await service.stop(), { code: 0, signal: null }, service.output());
    } finally {
      await proxy.close();
      await fresh.cleanup();
    }
  });

  it('an SQLite file that cannot be opened stops the service at once, exit code 1', async () => {
    const fresh = await freshDatabase();
    try {
      // A directory where the database file should be.
      const service = await startService(['serve', '--workers', '2'], { DATABASE_URL: `sqlite:${fresh.dir}`, LOG_LEVEL: 'info', PORT: String(await freePort()) });
      const exit = await service.exited;
      assert.deepEqual(exit, { code: 1, signal: null }, service.output());
      assert.match(service.stderr(), /cannot open the SQLite file .*SQLITE_CANTOPEN/);
      assert.equal(waits(service).length, 0, 'no waiting for a file that cannot be opened');
    } finally {
      await fresh.cleanup();
    }
  });

  it('PostgreSQL refusing the credentials stops the service at once, exit code 1', postgresOnly('credentials to refuse (SQLite has none)'), async () => {
    const url = new URL(process.env.TEST_POSTGRES_URL!);
    url.username = 'no_such_role_scale_out';
    url.password = 'pw';
    const service = await startService(['serve'], { DATABASE_URL: url.toString(), LOG_LEVEL: 'info', PORT: String(await freePort()) });
    const exit = await service.exited;
    assert.deepEqual(exit, { code: 1, signal: null }, service.output());
    assert.match(service.stderr(), /refused the credentials \(28[0-9A-Z]{3}: .*\): check the user and password in DATABASE_URL/);
    assert.equal(waits(service).length, 0, 'authentication failures are not waited for');
    assert.ok(!service.output().includes(':pw@'), 'the password is never logged');
  });
});
