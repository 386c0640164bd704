/**
 * Contract tests over real HTTP and a real SQLite database: the pagination envelope, link
 * construction (`next`, `previous`) and absolute URLs. Each section starts its own servers.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  byCodePoint,
  closeServers,
  COLLECTION_PATHS,
  event,
  meeting,
  opening,
  pathOf,
  project,
  sample,
  sampleOf,
  startServers,
  user,
  walkPages,
  type DumpRecord,
} from './support/contract.js';
import { request, assertJson } from './support/http.js';
import { rawRequest } from './support/raw-http.js';
import { startServer, type TestServer } from './support/server.js';

describe('pagination envelope', () => {
  /*
   * Contract: "Pagination envelope" — key order, count, page sizes, `page` and `page_size` syntax,
   * invalid pages, repeated parameters, previous of page 2. PAGE_SIZE=3, MAX_PAGE_SIZE=5 keep the
   * data small (sample fixture: 30 users, 300 openings, 15 projects, 12 meetings, 20 events).
   */
  let servers: Record<'small' | 'empty' | 'defaults', TestServer> | undefined;
  let small: TestServer;
  let empty: TestServer;
  let defaults: TestServer;

  /** Usernames of the sample in the contract's order: the expected content of every users page. */
  const USERNAMES = sampleOf('users.user')
    .map((u) => u.fields.username as string)
    .sort(byCodePoint);
  const COUNTS: Record<string, number> = {
    users: 30,
    'space/openings': 300,
    projects: 15,
    meetings: 12,
    events: 20,
  };

  before(async () => {
    const many = Array.from({ length: 1005 }, (_, i) => opening(i + 1, new Date(Date.UTC(2020, 0, 1) + i * 60_000).toISOString().replace('.000Z', 'Z'), i % 2 === 0));
    servers = await startServers({
      small: { records: sample(), env: { PAGE_SIZE: '3', MAX_PAGE_SIZE: '5' } },
      empty: { records: [], env: { PAGE_SIZE: '3', MAX_PAGE_SIZE: '5' } },
      defaults: { records: many },
    });
    ({ small, empty, defaults } = servers);
  });

  after(async () => {
    await closeServers(servers);
  });

  async function page(server: TestServer, path: string): Promise<any> {
    const res = await request(server.base, path);
    assert.equal(res.status, 200, `${path} → ${res.status} ${res.body.slice(0, 200)}`);
    return res.json();
  }

  async function usernamesOf(path: string): Promise<string[]> {
    return (await page(small, path)).results.map((u: any) => u.username);
  }

  describe('envelope', () => {
    for (const collection of COLLECTION_PATHS) {
      it(`${collection}: keys count, next, previous, results in this order, compact JSON`, async () => {
        const res = await request(small.base, `/api/${collection}/?page=2`);
        assert.equal(res.status, 200);
        assert.deepEqual(Object.keys(res.json()), ['count', 'next', 'previous', 'results']);
        assert.match(res.body, /^\{"count":\d+,"next":("[^"]*"|null),"previous":("[^"]*"|null),"results":\[/);
      });
    }

    for (const collection of COLLECTION_PATHS) {
      it(`${collection}: count is the total on every page; pages cover the collection exactly once`, async () => {
        // openings: 300 records, walked at the maximum size (5) to keep the test fast
        const size = collection === 'space/openings' ? 5 : 3;
        const { pages, records } = await walkPages(small.base, `/api/${collection}/${size === 3 ? '' : `?page_size=${size}`}`);
        const total = COUNTS[collection];
        assert.equal(pages.length, Math.ceil(total / size));
        for (const [i, p] of pages.entries()) {
          assert.equal(p.count, total, `count on page ${i + 1}`);
          assert.equal(p.results.length, i < pages.length - 1 ? size : total - size * (pages.length - 1), `size of page ${i + 1}`);
          assert.equal(p.previous === null, i === 0, `previous on page ${i + 1}`);
          assert.equal(p.next === null, i === pages.length - 1, `next on page ${i + 1}`);
        }
        assert.equal(records.length, total);
        const keys = records.map((r) => JSON.stringify(r));
        assert.equal(new Set(keys).size, total, 'a record appears on two pages');
      });
    }

    it('an empty collection still has page 1 (and page=1, page=last)', async () => {
      const expected = { count: 0, next: null, previous: null, results: [] };
      for (const collection of COLLECTION_PATHS) {
        for (const query of ['', '?page=1', '?page=last', '?page=', '?page_size=5']) {
          assertJson(await request(empty.base, `/api/${collection}/${query}`), 200, expected, `${collection}${query}`);
        }
      }
    });

    it('an empty collection has no page 2', async () => {
      assertJson(await request(empty.base, '/api/users/?page=2'), 404, { detail: 'Invalid page.' });
    });
  });

  describe('page size', () => {
    it('default size is 100 when not configured', async () => {
      const body = await page(defaults, '/api/space/openings/');
      assert.equal(body.count, 1005);
      assert.equal(body.results.length, 100);
      assert.equal(pathOf(body.next), '/api/space/openings/?page=2');
      const last = await page(defaults, '/api/space/openings/?page=last');
      assert.equal(last.results.length, 5);
      assert.equal(pathOf(last.previous), '/api/space/openings/?page=10');
    });

    it('the default maximum is 1000', async () => {
      const body = await page(defaults, '/api/space/openings/?page_size=5000');
      assert.equal(body.results.length, 1000);
      assert.equal(pathOf(body.next), '/api/space/openings/?page=2&page_size=5000');
      const second = await page(defaults, '/api/space/openings/?page_size=5000&page=2');
      assert.equal(second.results.length, 5);
      assert.equal(second.next, null);
    });

    it('configured default size (PAGE_SIZE=3)', async () => {
      assert.deepEqual(await usernamesOf('/api/users/'), USERNAMES.slice(0, 3));
    });

    const sizes: [query: string, size: number, nextQuery: string][] = [
      ['page_size=4', 4, 'page=2&page_size=4'],
      ['page_size=%2B5', 5, 'page=2&page_size=%2B5'],
      ['page_size=%203%20', 3, 'page=2&page_size=+3+'],
      ['page_size=%204%20', 4, 'page=2&page_size=+4+'],
      ['page_size=+4', 4, 'page=2&page_size=+4'],
      ['page_size=004', 4, 'page=2&page_size=004'],
      ['page_size=%2B002', 2, 'page=2&page_size=%2B002'],
      ['page_size=1', 1, 'page=2&page_size=1'],
    ];
    for (const [query, size, nextQuery] of sizes) {
      it(`?${query} → ${size} per page, next ?${nextQuery}`, async () => {
        const body = await page(small, `/api/users/?${query}`);
        assert.deepEqual(
          body.results.map((u: any) => u.username),
          USERNAMES.slice(0, size),
        );
        assert.equal(body.count, 30);
        assert.equal(pathOf(body.next), `/api/users/?${nextQuery}`);
      });
    }

    const invalid: [query: string, carried: string][] = [
      ['page_size=0', 'page_size=0'],
      ['page_size=-3', 'page_size=-3'],
      ['page_size=abc', 'page_size=abc'],
      ['page_size=5.0', 'page_size=5.0'],
      ['page_size=', 'page_size='],
      ['page_size', 'page_size='],
      ['page_size=0x4', 'page_size=0x4'],
      ['page_size=%E9', 'page_size=%EF%BF%BD'],
    ];
    for (const [query, carried] of invalid) {
      it(`invalid ?${query} is ignored (default size) but carried into the links`, async () => {
        const body = await page(small, `/api/users/?${query}`);
        assert.deepEqual(
          body.results.map((u: any) => u.username),
          USERNAMES.slice(0, 3),
        );
        assert.equal(pathOf(body.next), `/api/users/?page=2&${carried}`);
        const second = await page(small, `/api/users/?${query}&page=2`);
        assert.deepEqual(
          second.results.map((u: any) => u.username),
          USERNAMES.slice(3, 6),
        );
        assert.equal(pathOf(second.previous), `/api/users/?${carried}`);
      });
    }

    const clamped = ['6', '100', '1000', '99999999999999999999999999', '18446744073709551617'];
    for (const size of clamped) {
      it(`page_size=${size} is clamped to MAX_PAGE_SIZE (5)`, async () => {
        const body = await page(small, `/api/users/?page_size=${size}`);
        assert.deepEqual(
          body.results.map((u: any) => u.username),
          USERNAMES.slice(0, 5),
        );
        assert.equal(body.count, 30);
        assert.equal(pathOf(body.next), `/api/users/?page=2&page_size=${size}`);
      });
    }

    it('clamped pages: 30 users at 5 per page end on page 6', async () => {
      const body = await page(small, '/api/users/?page_size=100&page=last');
      assert.deepEqual(
        body.results.map((u: any) => u.username),
        USERNAMES.slice(25),
      );
      assert.equal(body.next, null);
      assert.equal(pathOf(body.previous), '/api/users/?page=5&page_size=100');
      assert.equal((await request(small.base, '/api/users/?page_size=100&page=7')).status, 404);
    });
  });

  describe('page', () => {
    it('page=last is the last page', async () => {
      const body = await page(small, '/api/users/?page=last');
      assert.deepEqual(
        body.results.map((u: any) => u.username),
        USERNAMES.slice(27),
      );
      assert.equal(body.next, null);
      assert.equal(pathOf(body.previous), '/api/users/?page=9');
    });

    it('page=last of a partial last page', async () => {
      const body = await page(small, '/api/projects/?page=last&page_size=4');
      assert.deepEqual(
        body.results.map((p: any) => p.id),
        [13, 14, 15],
      );
      assert.equal(body.next, null);
      assert.equal(pathOf(body.previous), '/api/projects/?page=3&page_size=4');
    });

    it('page=last of a collection with a single page', async () => {
      const body = await page(small, '/api/projects/?page=last&page_size=5000');
      assert.equal(body.results.length, 5);
      const one = await page(small, '/api/meetings/?page=last&page_size=5');
      assert.deepEqual(
        one.results.map((m: any) => m.id),
        [11, 12],
      );
    });

    const firstPage = ['', '?page=', '?page=1', '?page=%201', '?page=01'];
    for (const query of firstPage) {
      it(`${query || 'no page'} → first page, previous null`, async () => {
        const body = await page(small, `/api/users/${query}`);
        assert.deepEqual(
          body.results.map((u: any) => u.username),
          USERNAMES.slice(0, 3),
        );
        assert.equal(body.previous, null);
        assert.equal(pathOf(body.next), '/api/users/?page=2');
      });
    }

    const second = ['page=2', 'page=%202%20', 'page=%2B2', 'page=+2', 'page=02', 'page=0002', 'page=%2B02%20'];
    for (const query of second) {
      it(`?${query} → page 2`, async () => {
        const body = await page(small, `/api/users/?${query}`);
        assert.deepEqual(
          body.results.map((u: any) => u.username),
          USERNAMES.slice(3, 6),
        );
        assert.equal(pathOf(body.next), '/api/users/?page=3');
        assert.equal(pathOf(body.previous), '/api/users/');
      });
    }

    const invalidPages = [
      '0',
      '00',
      '-1',
      '-0',
      'abc',
      '1.5',
      '2.0',
      'LAST',
      'Last',
      '%20last',
      'last%20',
      '0x2',
      '1e1',
      '11',
      '12',
      '99999999999999999999',
      '9007199254740993',
      '18446744073709551617',
      '%2B-1',
      '2%203',
      '%E9',
    ];
    for (const value of invalidPages) {
      it(`page=${value} → 404 {"detail":"Invalid page."}`, async () => {
        assertJson(await request(small.base, `/api/users/?page=${value}`), 404, { detail: 'Invalid page.' });
      });
    }

    it('a page past the last on every collection → 404 Invalid page.', async () => {
      for (const collection of COLLECTION_PATHS) {
        const pages = Math.ceil(COUNTS[collection] / 3);
        assert.equal((await request(small.base, `/api/${collection}/?page=${pages}`)).status, 200);
        assertJson(await request(small.base, `/api/${collection}/?page=${pages + 1}`), 404, { detail: 'Invalid page.' }, collection);
      }
    });
  });

  describe('repeated parameters: the last page and the last page_size win', () => {
    it('?page=1&page=2 → page 2, and the links hold one page pair', async () => {
      const body = await page(small, '/api/users/?page=1&page=2');
      assert.deepEqual(
        body.results.map((u: any) => u.username),
        USERNAMES.slice(3, 6),
      );
      assert.equal(pathOf(body.next), '/api/users/?page=3');
      assert.equal(pathOf(body.previous), '/api/users/');
    });

    it('?page=2&page=1 → page 1', async () => {
      assert.deepEqual(await usernamesOf('/api/users/?page=2&page=1'), USERNAMES.slice(0, 3));
    });

    it('?page=abc&page=3 → page 3', async () => {
      assert.deepEqual(await usernamesOf('/api/users/?page=abc&page=3'), USERNAMES.slice(6, 9));
    });

    it('?page=3&page=abc → 404 Invalid page.', async () => {
      assertJson(await request(small.base, '/api/users/?page=3&page=abc'), 404, { detail: 'Invalid page.' });
    });

    it('?page=2&page=last → last page', async () => {
      assert.deepEqual(await usernamesOf('/api/users/?page=2&page=last'), USERNAMES.slice(27));
    });

    it('?page_size=2&page_size=4 → 4 per page; both page_size pairs carried', async () => {
      const body = await page(small, '/api/users/?page_size=2&page_size=4');
      assert.deepEqual(
        body.results.map((u: any) => u.username),
        USERNAMES.slice(0, 4),
      );
      assert.equal(pathOf(body.next), '/api/users/?page=2&page_size=2&page_size=4');
    });

    it('?page_size=4&page_size=abc → default size (the last one is invalid)', async () => {
      assert.deepEqual(await usernamesOf('/api/users/?page_size=4&page_size=abc'), USERNAMES.slice(0, 3));
    });
  });

  describe('previous of page 2 has no page pair', () => {
    const cases: [request: string, previous: string][] = [
      ['/api/users/?page=2', '/api/users/'],
      ['/api/users/?page=2&page_size=4', '/api/users/?page_size=4'],
      ['/api/users/?format=json&page=2', '/api/users/?format=json'],
      ['/api/users/?page=2&format=api', '/api/users/?format=api'],
      ['/api/users.json?page=2', '/api/users.json'],
      ['/api/space/openings/?page=2', '/api/space/openings/'],
      ['/api/users/?page=3', '/api/users/?page=2'],
      ['/api/users/?page=1&page=2', '/api/users/'],
    ];
    for (const [path, previous] of cases) {
      it(`${path} → previous ${previous}`, async () => {
        const body = await page(small, path);
        assert.equal(body.previous, `${small.base}${previous}`);
      });
    }
  });
});

describe('link construction', () => {
  /*
   * Contract: "Link construction (next, previous)" — every example of the section, exactly, plus
   * the rules around them: empty pairs, empty keys, `.json` suffix, raw UTF-8 bytes, code-point
   * sorting of astral keys. Users (30) at PAGE_SIZE=3 have 10 pages, so page 3 always exists.
   */
  let server: TestServer;

  before(async () => {
    server = await startServer({ records: sample(), env: { PAGE_SIZE: '3' } });
  });

  after(async () => {
    await server?.close();
  });

  async function links(path: string): Promise<{ next: string | null; previous: string | null }> {
    const res = await request(server.base, path);
    assert.equal(res.status, 200, `${path} → ${res.status} ${res.body.slice(0, 200)}`);
    const body = res.json();
    return { next: body.next, previous: body.previous };
  }

  describe('the contract examples (request → next)', () => {
    const examples: [query: string, next: string][] = [
      ['?zzz=1&aaa=2&page_size=3&page=2', '?aaa=2&page=3&page_size=3&zzz=1'],
      ['?foo=1&page_size=3&bar=x&foo=2&page=2', '?bar=x&foo=1&foo=2&page=3&page_size=3'],
      ['?flag&page_size=3&page=2', '?flag=&page=3&page_size=3'],
      ['?foo=a%20b&page_size=3&page=2', '?foo=a+b&page=3&page_size=3'],
      ['?foo=-._~%7E%41&page_size=3&page=2', '?foo=-._~~A&page=3&page_size=3'],
      ['?a=1;b=2&page_size=3&page=2', '?a=1%3Bb%3D2&page=3&page_size=3'],
      ['?foo=%E9&page_size=3&page=2', '?foo=%EF%BF%BD&page=3&page_size=3'],
    ];
    for (const [query, next] of examples) {
      it(`${query} → ${next}`, async () => {
        assert.equal((await links(`/api/users/${query}`)).next, `${server.base}/api/users/${next}`);
      });
    }
  });

  describe('previous of those examples (page 2 → no page pair)', () => {
    const examples: [query: string, previous: string][] = [
      ['?zzz=1&aaa=2&page_size=3&page=2', '?aaa=2&page_size=3&zzz=1'],
      ['?foo=1&page_size=3&bar=x&foo=2&page=2', '?bar=x&foo=1&foo=2&page_size=3'],
      ['?flag&page_size=3&page=2', '?flag=&page_size=3'],
      ['?a=1;b=2&page_size=3&page=2', '?a=1%3Bb%3D2&page_size=3'],
    ];
    for (const [query, previous] of examples) {
      it(`${query} → ${previous}`, async () => {
        assert.equal((await links(`/api/users/${query}`)).previous, `${server.base}/api/users/${previous}`);
      });
    }
  });

  describe('the other rules of the rebuilt query', () => {
    const cases: [what: string, query: string, next: string][] = [
      ['an empty key is kept', '?=x&page_size=3&page=2', '?=x&page=3&page_size=3'],
      ['empty pairs are dropped', '?&&foo=1&&page_size=3&page=2&&', '?foo=1&page=3&page_size=3'],
      ['+ is a space', '?foo=a+b&page=2', '?foo=a+b&page=3'],
      ['an encoded + stays a plus', '?foo=a%2Bb&page=2', '?foo=a%2Bb&page=3'],
      ['keys are percent-decoded', '?k%3Dy=1&page=2', '?k%3Dy=1&page=3'],
      ['an encoded key equal to page is the page', '?p%61ge=2&x=1', '?page=3&x=1'],
      ['an invalid escape is data', '?foo=%zz&page=2', '?foo=%25zz&page=3'],
      ['lower-case escapes come out upper-case', '?foo=%c3%a9&page=2', '?foo=%C3%A9&page=3'],
      ['sorting is stable for equal keys', '?b=1&a=2&b=0&page=2', '?a=2&b=1&b=0&page=3'],
      ['upper case sorts before lower case', '?foo=2&FOO=1&page=2', '?FOO=1&foo=2&page=3'],
      ['format=api is carried', '?format=api&page=2', '?format=api&page=3'],
      ['format=json is carried', '?page=2&format=json', '?format=json&page=3'],
      ['unknown parameters are carried', '?ordering=-start&x=&page=2', '?ordering=-start&page=3&x='],
      ['an invalid page_size is carried', '?page_size=abc&page=2', '?page=3&page_size=abc'],
      ['several page pairs become one', '?page=9&page=2&page_size=3', '?page=3&page_size=3'],
      ['only A-Z a-z 0-9 _ . - ~ are left as is', "?v=!*'()/:@$,&page=2", '?page=3&v=%21%2A%27%28%29%2F%3A%40%24%2C'],
      ['= inside a value is encoded', '?v=a=b&page=2', '?page=3&v=a%3Db'],
      ['a percent-encoded astral character', '?v=%F0%9F%90%9C&page=2', '?page=3&v=%F0%9F%90%9C'],
    ];
    for (const [what, query, next] of cases) {
      it(`${what}: ${query} → ${next}`, async () => {
        assert.equal((await links(`/api/users/${query}`)).next, `${server.base}/api/users/${next}`);
      });
    }

    it('no page in the request: next is page 2 with the query kept', async () => {
      assert.equal((await links('/api/users/?zzz=1&aaa=2')).next, `${server.base}/api/users/?aaa=2&page=2&zzz=1`);
    });

    it('previous of page 2 without any other pair has no ?', async () => {
      assert.equal((await links('/api/users/?page=2')).previous, `${server.base}/api/users/`);
      assert.equal((await links('/api/users/?&page=2&')).previous, `${server.base}/api/users/`);
    });

    it('previous of page 3 keeps page=2', async () => {
      assert.equal((await links('/api/users/?b=1&page=3')).previous, `${server.base}/api/users/?b=1&page=2`);
    });

    it('the last page keeps the query in previous', async () => {
      const { next, previous } = await links('/api/users/?z=1&page=last');
      assert.equal(next, null);
      assert.equal(previous, `${server.base}/api/users/?page=9&z=1`);
    });
  });

  describe('astral-plane keys are sorted by code point', () => {
    const cases: [query: string, next: string][] = [
      // U+FF5A (ｚ) < U+1F41C (🐜) in code points, but 0xFF5A > 0xD83D in UTF-16
      ['?%F0%9F%90%9C=1&%EF%BD%9A=2&page=2', '?page=3&%EF%BD%9A=2&%F0%9F%90%9C=1'],
      // U+E000 (private use) < U+1F41C
      ['?%F0%9F%90%9C=1&%EE%80%80=2&page=2', '?page=3&%EE%80%80=2&%F0%9F%90%9C=1'],
      // U+FFFD < U+1F600
      ['?%F0%9F%98%80=1&%EF%BF%BD=2&page=2', '?page=3&%EF%BF%BD=2&%F0%9F%98%80=1'],
      // U+1F41C < U+1F600, and a prefix sorts first
      ['?%F0%9F%98%80=1&%F0%9F%90%9Cx=2&%F0%9F%90%9C=3&page=2', '?page=3&%F0%9F%90%9C=3&%F0%9F%90%9Cx=2&%F0%9F%98%80=1'],
    ];
    for (const [query, next] of cases) {
      it(`${query} → ${next}`, async () => {
        assert.equal((await links(`/api/users/${query}`)).next, `${server.base}/api/users/${next}`);
      });
    }
  });

  describe('the path of the request is kept', () => {
    const cases: [path: string, next: string | null, previous: string | null][] = [
      ['/api/users.json?page=2', '/api/users.json?page=3', '/api/users.json'],
      ['/api/users.api?page=2', '/api/users.api?page=3', '/api/users.api'],
      ['/api/users.json?x=1&page=2', '/api/users.json?page=3&x=1', '/api/users.json?x=1'],
      ['/api/space/openings.json?page=2', '/api/space/openings.json?page=3', '/api/space/openings.json'],
      ['/api/space/openings/?page=2', '/api/space/openings/?page=3', '/api/space/openings/'],
      ['/api/projects/?page=2', '/api/projects/?page=3', '/api/projects/'],
      ['/api/meetings/?page=2', '/api/meetings/?page=3', '/api/meetings/'],
      ['/api/events/?page=2', '/api/events/?page=3', '/api/events/'],
    ];
    for (const [path, next, previous] of cases) {
      it(`${path} → next ${next}, previous ${previous}`, async () => {
        const body = await links(path);
        assert.equal(body.next, next && `${server.base}${next}`);
        assert.equal(body.previous, previous && `${server.base}${previous}`);
      });
    }
  });

  /*
   * The contract decodes raw (unencoded) UTF-8 bytes in a query as UTF-8. Node's HTTP parser
   * (llhttp 9, Node 20, even with insecureHTTPParser) rejects any byte above 0x7f in the request
   * line before the application sees it, so the service cannot receive them: it answers the
   * contract's JSON error shape instead. The same bytes percent-encoded follow the decoding rules.
   */
  describe('non-ASCII bytes in the query', () => {
    const utf8 = (text: string) => Buffer.from(text, 'utf8');
    const cases: [what: string, raw: Buffer, encoded: string, next: string][] = [
      ['UTF-8 value é', utf8('/api/users/?foo=é&page_size=3&page=2'), '/api/users/?foo=%C3%A9&page_size=3&page=2', '?foo=%C3%A9&page=3&page_size=3'],
      ['UTF-8 key 🐜', utf8('/api/users/?🐜=1&page_size=3&page=2'), '/api/users/?%F0%9F%90%9C=1&page_size=3&page=2', '?page=3&page_size=3&%F0%9F%90%9C=1'],
      ['astral and BMP keys sorted by code point', utf8('/api/users/?🐜=1&ｚ=2&page=2'), '/api/users/?%F0%9F%90%9C=1&%EF%BD%9A=2&page=2', '?page=3&%EF%BD%9A=2&%F0%9F%90%9C=1'],
      ['an invalid byte becomes U+FFFD', Buffer.concat([utf8('/api/users/?foo='), Buffer.from([0xe9]), utf8('&page=2')]), '/api/users/?foo=%E9&page=2', '?foo=%EF%BF%BD&page=3'],
      [
        'a truncated sequence becomes U+FFFD',
        Buffer.concat([utf8('/api/users/?foo=a'), Buffer.from([0xf0, 0x9f]), utf8('&page=2')]),
        '/api/users/?foo=a%F0%9F&page=2',
        '?foo=a%EF%BF%BD&page=3',
      ],
    ];
    for (const [what, raw, encoded, next] of cases) {
      it(`${what}, percent-encoded → ${next}`, async () => {
        const res = await request(server.base, encoded);
        assert.equal(res.status, 200, res.body.slice(0, 200));
        assert.equal(res.json().next, `${server.base}/api/users/${next}`);
      });
      it(`${what}, raw on the socket → JSON 400 from the HTTP parser, never a 5xx`, async () => {
        const res = await rawRequest(server.port, raw);
        assert.equal(res.status, 400, res.text.slice(0, 200));
        assert.equal(res.headers['content-type'], 'application/json');
        assert.match(res.json().detail, /percent-encoded/);
      });
    }
  });
});

describe('absolute URLs', () => {
  /*
   * Contract: "Absolute URLs" — `{base}` is PUBLIC_URL when configured, else `http://` + Host as
   * sent; HTTP/1.0 without Host uses the listen address; X-Forwarded-* only with TRUST_PROXY.
   * Every kind of absolute URL is checked: root entries, next/previous, record hyperlinks, pictures.
   */
  const RECORDS: DumpRecord[] = [
    user(1, 'ada'),
    user(2, 'bob'),
    user(3, 'cyd'),
    project(1, 1, { participants: [2] }),
    event(1, '2021-01-01T10:00:00Z', '2021-01-01T12:00:00Z', { organizer: 1, picture: 'p q.png' }),
    meeting(1, 1, { members: [3] }),
  ];

  let servers: Record<string, TestServer>;

  before(async () => {
    const envs: Record<string, Record<string, string>> = {
      plain: {},
      publicUrl: { PUBLIC_URL: 'https://hackerspace.example.org' },
      publicUrlPath: { PUBLIC_URL: 'https://example.org/hs' },
      trusted: { TRUST_PROXY: 'true' },
      trustedWithPublicUrl: { TRUST_PROXY: 'true', PUBLIC_URL: 'https://canonical.example' },
    };
    servers = await startServers(Object.fromEntries(Object.entries(envs).map(([name, env]) => [name, { records: RECORDS, env: { PAGE_SIZE: '1', ...env } }])));
  });

  after(async () => {
    await closeServers(servers);
  });

  /** Every absolute URL the API writes, for a given base. */
  function expectedLinks(base: string) {
    return {
      root: {
        events: `${base}/api/events/`,
        meetings: `${base}/api/meetings/`,
        users: `${base}/api/users/`,
        projects: `${base}/api/projects/`,
        'stock/categories': `${base}/api/stock/categories/`,
        'stock/products': `${base}/api/stock/products/`,
        'streams/urtip': `${base}/api/streams/urtip/`,
        'space/openings': `${base}/api/space/openings/`,
      },
      usersNext: `${base}/api/users/?page=2`,
      usersPrevious: `${base}/api/users/`,
      project: { maintainer: `${base}/api/users/1/`, participants: [`${base}/api/users/2/`] },
      meeting: { event: `${base}/api/events/1/` },
      event: { organizer: `${base}/api/users/1/`, meeting: `${base}/api/meetings/1/`, picture: `${base}/media/p%20q.png` },
    };
  }

  type Fetch = (path: string) => Promise<any>;

  async function actualLinks(get: Fetch) {
    const root = await get('/api/');
    const users = await get('/api/users/');
    const users2 = await get('/api/users/?page=2');
    const p = (await get('/api/projects/')).results[0];
    const m = (await get('/api/meetings/')).results[0];
    const e = (await get('/api/events/')).results[0];
    const pDetail = await get('/api/projects/1/');
    assert.deepEqual(pDetail.maintainer, p.maintainer, 'detail and list agree');
    return {
      root,
      usersNext: users.next,
      usersPrevious: users2.previous,
      project: { maintainer: p.maintainer, participants: p.participants },
      meeting: { event: m.event },
      event: { organizer: e.organizer, meeting: e.meeting, picture: e.picture },
    };
  }

  function viaHttp(server: TestServer, headers: Record<string, string>): Fetch {
    return async (path) => {
      const res = await request(server.base, path, { headers });
      assert.equal(res.status, 200, `${path} with ${JSON.stringify(headers)} → ${res.status} ${res.body.slice(0, 200)}`);
      return res.json();
    };
  }

  describe('Host header as sent', () => {
    const hosts = ['example.org', 'Example.ORG', 'EXAMPLE.org:8080', 'example.org.', 'Example.Org.:81', '[::1]:8000', '[::1]', 'localhost', '127.0.0.1:9', 'my-host-1.example'];
    for (const host of hosts) {
      it(`Host: ${host} → http://${host}`, async () => {
        const actual = await actualLinks(viaHttp(servers.plain, { Host: host }));
        assert.deepEqual(actual, expectedLinks(`http://${host}`));
      });
    }

    it('the default Host of the client (127.0.0.1:<port>)', async () => {
      const actual = await actualLinks(viaHttp(servers.plain, {}));
      assert.deepEqual(actual, expectedLinks(servers.plain.base));
    });
  });

  describe('meeting members', () => {
    // Kept apart from the snapshots above so that a members problem does not hide a base problem.
    it('members use the base of the request', async () => {
      const res = await request(servers.plain.base, '/api/meetings/1/', { headers: { Host: 'Example.ORG.:81' } });
      assert.equal(res.status, 200);
      assert.deepEqual(res.json().members, ['http://Example.ORG.:81/api/users/3/']);
    });

    it('members use PUBLIC_URL', async () => {
      const res = await request(servers.publicUrl.base, '/api/meetings/1/', { headers: { Host: 'example.org' } });
      assert.equal(res.status, 200);
      assert.deepEqual(res.json().members, ['https://hackerspace.example.org/api/users/3/']);
    });
  });

  describe('PUBLIC_URL', () => {
    it('is the base whatever the Host', async () => {
      for (const host of ['example.org', 'Other.Example:9999', '[::1]:8000']) {
        const actual = await actualLinks(viaHttp(servers.publicUrl, { Host: host }));
        assert.deepEqual(actual, expectedLinks('https://hackerspace.example.org'), host);
      }
    });

    it('may carry a path prefix', async () => {
      const actual = await actualLinks(viaHttp(servers.publicUrlPath, { Host: 'example.org' }));
      assert.deepEqual(actual, expectedLinks('https://example.org/hs'));
    });

    it('ignores X-Forwarded-* (untrusted)', async () => {
      const actual = await actualLinks(
        viaHttp(servers.publicUrl, {
          Host: 'example.org',
          'X-Forwarded-Proto': 'http',
          'X-Forwarded-Host': 'evil.example',
        }),
      );
      assert.deepEqual(actual, expectedLinks('https://hackerspace.example.org'));
    });

    it('wins over trusted X-Forwarded-* too', async () => {
      const actual = await actualLinks(
        viaHttp(servers.trustedWithPublicUrl, {
          Host: 'example.org',
          'X-Forwarded-Proto': 'http',
          'X-Forwarded-Host': 'proxy.example',
        }),
      );
      assert.deepEqual(actual, expectedLinks('https://canonical.example'));
    });
  });

  describe('X-Forwarded-Proto / X-Forwarded-Host', () => {
    const forwarded = { Host: 'example.org', 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'proxy.example' };

    it('are ignored without TRUST_PROXY', async () => {
      const actual = await actualLinks(viaHttp(servers.plain, forwarded));
      assert.deepEqual(actual, expectedLinks('http://example.org'));
    });

    it('X-Forwarded-Proto alone is ignored without TRUST_PROXY', async () => {
      const actual = await actualLinks(viaHttp(servers.plain, { Host: 'example.org', 'X-Forwarded-Proto': 'https' }));
      assert.deepEqual(actual, expectedLinks('http://example.org'));
    });

    it('X-Forwarded-Host alone is ignored without TRUST_PROXY', async () => {
      const actual = await actualLinks(viaHttp(servers.plain, { Host: 'example.org', 'X-Forwarded-Host': 'proxy.example' }));
      assert.deepEqual(actual, expectedLinks('http://example.org'));
    });

    it('are honoured with TRUST_PROXY=true', async () => {
      const actual = await actualLinks(viaHttp(servers.trusted, forwarded));
      assert.deepEqual(actual, expectedLinks('https://proxy.example'));
    });

    it('X-Forwarded-Proto alone is honoured with TRUST_PROXY=true (Host kept)', async () => {
      const actual = await actualLinks(viaHttp(servers.trusted, { Host: 'example.org', 'X-Forwarded-Proto': 'https' }));
      assert.deepEqual(actual, expectedLinks('https://example.org'));
    });

    it('X-Forwarded-Host alone is honoured with TRUST_PROXY=true', async () => {
      const actual = await actualLinks(viaHttp(servers.trusted, { Host: 'example.org', 'X-Forwarded-Host': 'Proxy.Example:8443' }));
      assert.deepEqual(actual, expectedLinks('http://Proxy.Example:8443'));
    });

    it('without them, a trusting server uses Host', async () => {
      const actual = await actualLinks(viaHttp(servers.trusted, { Host: 'example.org' }));
      assert.deepEqual(actual, expectedLinks('http://example.org'));
    });
  });

  describe('HTTP/1.0', () => {
    const viaRaw =
      (server: TestServer, host: string | null): Fetch =>
      async (path) => {
        const res = await rawRequest(server.port, path, { version: '1.0', host });
        assert.equal(res.status, 200, `${path} → ${res.status} ${res.text.slice(0, 200)}`);
        return res.json();
      };

    it('without Host uses the address the server listens on', async () => {
      const actual = await actualLinks(viaRaw(servers.plain, null));
      assert.deepEqual(actual, expectedLinks(`http://127.0.0.1:${servers.plain.port}`));
    });

    it('with Host uses it', async () => {
      const actual = await actualLinks(viaRaw(servers.plain, 'Old.Example:8000'));
      assert.deepEqual(actual, expectedLinks('http://Old.Example:8000'));
    });

    it('without Host, PUBLIC_URL still wins', async () => {
      const actual = await actualLinks(viaRaw(servers.publicUrl, null));
      assert.deepEqual(actual, expectedLinks('https://hackerspace.example.org'));
    });
  });
});
