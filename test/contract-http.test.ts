/**
 * Contract tests over real HTTP and a real SQLite database: representation and headers
 * (Content-Type, Vary, Allow, security headers, HEAD, OPTIONS, format, suffixes, Accept) and
 * errors (301, unknown paths, 401 before anything else, database failures).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ALLOW, assertSecurityHeaders, closeServers, COLLECTION_PATHS, sample, startServers, varyTokens } from './support/contract.js';
import { request, assertJson } from './support/http.js';
import { rawRequest } from './support/raw-http.js';
import { startServer, type TestServer } from './support/server.js';

describe('representation and headers', () => {
  /*
   * Contract: "Representation and headers" — Content-Type, Vary, Allow per route kind (also on
   * the route's errors), security headers on every response, HEAD, OPTIONS bodies, `format`,
   * format suffixes and Accept negotiation.
   */
  let server: TestServer;

  before(async () => {
    server = await startServer({ records: sample(), env: { PAGE_SIZE: '3' } });
  });

  after(async () => {
    await server?.close();
  });

  type Kind = keyof typeof ALLOW;
  const VIEW_NAMES: Record<string, string> = {
    users: 'User',
    'space/openings': 'Openings',
    projects: 'Project',
    meetings: 'Meeting',
    events: 'Event',
  };
  const ROUTES: { path: string; kind: Kind; name: string; description: string }[] = [
    { path: '/api/', kind: 'root', name: 'Api Root', description: 'The default basic root view for DefaultRouter' },
    ...COLLECTION_PATHS.map((c) => ({ path: `/api/${c}/`, kind: 'list' as const, name: `${VIEW_NAMES[c]} List`, description: '' })),
    ...COLLECTION_PATHS.map((c) => ({ path: `/api/${c}/1/`, kind: 'detail' as const, name: `${VIEW_NAMES[c]} Instance`, description: '' })),
  ];

  /** A 404 of each route kind that is still "that route". */
  const ROUTE_404S: { path: string; kind: Kind; detail: string }[] = [
    { path: '/api/?format=xml', kind: 'root', detail: 'Not found.' },
    { path: '/api/.xml', kind: 'root', detail: 'Not found.' },
    { path: '/api/users/?page=99', kind: 'list', detail: 'Invalid page.' },
    { path: '/api/users/?format=JSON', kind: 'list', detail: 'Not found.' },
    { path: '/api/users.xml', kind: 'list', detail: 'Not found.' },
    { path: '/api/space/openings.csv', kind: 'list', detail: 'Not found.' },
    { path: '/api/users/999/', kind: 'detail', detail: 'Not found.' },
    { path: '/api/events/abc/', kind: 'detail', detail: 'Not found.' },
    { path: '/api/users/1/?format=html', kind: 'detail', detail: 'Not found.' },
    { path: '/api/users/1.xml', kind: 'detail', detail: 'Not found.' },
  ];

  function assertRouteHeaders(headers: Record<string, any>, kind: Kind, what: string) {
    assert.equal(headers['content-type'], 'application/json', `${what} content-type`);
    assert.equal(headers.allow, ALLOW[kind], `${what} allow`);
    assert.ok(varyTokens(headers).includes('accept'), `${what} vary ${headers.vary}`);
    assertSecurityHeaders(headers, what);
  }

  describe('200 responses', () => {
    for (const route of ROUTES) {
      it(`GET ${route.path}: Content-Type application/json exactly, Allow ${ALLOW[route.kind]}, Vary: Accept, security headers`, async () => {
        const res = await request(server.base, route.path);
        assert.equal(res.status, 200);
        assertRouteHeaders(res.headers, route.kind, route.path);
        JSON.parse(res.body);
      });
    }

    it('JSON is compact', async () => {
      for (const path of ['/api/', '/api/users/', '/api/events/1/']) {
        const res = await request(server.base, path);
        assert.equal(res.body, JSON.stringify(res.json()), path);
      }
    });
  });

  describe('errors of a route carry its Allow and Vary', () => {
    for (const { path, kind, detail } of ROUTE_404S) {
      it(`404 ${path}: ${detail} with Allow ${ALLOW[kind]}`, async () => {
        const res = await request(server.base, path);
        assertJson(res, 404, { detail }, path);
        assertRouteHeaders(res.headers, kind, path);
      });
    }

    for (const route of ROUTES) {
      it(`406 ${route.path}: Allow ${ALLOW[route.kind]}`, async () => {
        const res = await request(server.base, route.path, { headers: { Accept: 'text/csv' } });
        assertJson(res, 406, { detail: 'Could not satisfy the request Accept header.' });
        assertRouteHeaders(res.headers, route.kind, route.path);
      });

      it(`401 POST ${route.path}: Allow ${ALLOW[route.kind]}`, async () => {
        const res = await request(server.base, route.path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
        assertJson(res, 401, { detail: 'Authentication credentials were not provided.' });
        assertRouteHeaders(res.headers, route.kind, route.path);
      });
    }
  });

  describe('no Allow on redirects and unknown paths; security headers everywhere', () => {
    const noAllow: [path: string, status: number][] = [
      ['/api', 301],
      ['/api/users', 301],
      ['/api/users/1', 301],
      ['/api/space/openings', 301],
      ['/api/nope', 404],
      ['/api/nope/', 404],
      ['/api/users/1/extra/', 404],
      ['/api/space/', 404],
      ['/api/users.JSON', 404],
      ['/api/%E9/', 404],
      ['/api/%zz/', 404],
    ];
    for (const [path, status] of noAllow) {
      it(`${path} → ${status} without Allow, with the security headers`, async () => {
        const res = await request(server.base, path);
        assert.equal(res.status, status);
        assert.equal(res.headers.allow, undefined);
        assertSecurityHeaders(res.headers, path);
        if (status === 404) assertJson(res, 404, { detail: 'Not found.' }, path);
      });
    }

    it('security headers outside /api/ too', async () => {
      // `/` is the dashboard now (web.md §3), with its own Allow: checked in web-pages.test.ts.
      for (const path of ['/nope', '/media/x.png']) {
        const res = await request(server.base, path);
        assert.equal(res.headers.allow, undefined, path);
        assertSecurityHeaders(res.headers, `${path} (${res.status})`);
      }
    });

    it('security headers on HEAD, OPTIONS, 401, 406 and invalid-page responses', async () => {
      const cases: [string, { method?: string; headers?: Record<string, string> }][] = [
        ['/api/users/', { method: 'HEAD' }],
        ['/api/users/', { method: 'OPTIONS' }],
        ['/api/users/', { method: 'DELETE' }],
        ['/api/users/', { headers: { Accept: 'text/html' } }],
        ['/api/users/?page=0', {}],
        ['/api/users', { method: 'POST' }],
      ];
      for (const [path, options] of cases) {
        const res = await request(server.base, path, options);
        assertSecurityHeaders(res.headers, `${options.method ?? 'GET'} ${path} (${res.status})`);
      }
    });
  });

  describe('HEAD: the GET status and headers, no body', () => {
    const paths = [
      '/api/',
      '/api/users/',
      '/api/users/?page=2',
      '/api/space/openings/?format=api',
      '/api/users.json',
      '/api/users/1/',
      '/api/events/11/',
      '/api/users/?page=99',
      '/api/users/999/',
      '/api/users/?format=xml',
    ];
    const ignored = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);
    for (const path of paths) {
      it(`HEAD ${path}`, async () => {
        const get = await rawRequest(server.port, path);
        const head = await rawRequest(server.port, path, { method: 'HEAD' });
        assert.equal(head.status, get.status);
        const strip = (h: Record<string, string>) => Object.fromEntries(Object.entries(h).filter(([k]) => !ignored.has(k)));
        assert.deepEqual(strip(head.headers), strip(get.headers));
        assert.equal(head.headers['content-length'], String(get.body.length));
        assert.equal(head.body.length, 0);
      });
    }

    it('HEAD with an unacceptable Accept → 406 like GET', async () => {
      const get = await request(server.base, '/api/users/', { headers: { Accept: 'application/xml' } });
      const head = await request(server.base, '/api/users/', { method: 'HEAD', headers: { Accept: 'application/xml' } });
      assert.equal(get.status, 406);
      assert.equal(head.status, 406);
      assert.equal(head.headers['content-length'], get.headers['content-length']);
      assert.equal(head.body, '');
    });
  });

  describe('OPTIONS', () => {
    const parses = ['application/json', 'application/x-www-form-urlencoded'];
    for (const route of ROUTES) {
      it(`OPTIONS ${route.path} → ${route.name}`, async () => {
        const res = await request(server.base, route.path, { method: 'OPTIONS' });
        assert.equal(res.status, 200);
        assertRouteHeaders(res.headers, route.kind, route.path);
        const body = res.json();
        assert.deepEqual(body, { name: route.name, description: route.description, renders: ['application/json'], parses });
        assert.deepEqual(Object.keys(body), ['name', 'description', 'renders', 'parses']);
      });
    }

    it('OPTIONS with a suffix or format is the same view', async () => {
      for (const [path, name] of [
        ['/api/users.json', 'User List'],
        ['/api/events/2.api', 'Event Instance'],
        ['/api/?format=api', 'Api Root'],
      ]) {
        const res = await request(server.base, path, { method: 'OPTIONS' });
        assert.equal(res.status, 200, path);
        assert.equal(res.json().name, name, path);
      }
    });
  });

  describe('format', () => {
    for (const route of ROUTES) {
      it(`${route.path}: format=json and format=api give JSON; unknown formats → 404 with Allow`, async () => {
        for (const format of ['json', 'api']) {
          const res = await request(server.base, `${route.path}?format=${format}`);
          assert.equal(res.status, 200, format);
          assertRouteHeaders(res.headers, route.kind, `${route.path}?format=${format}`);
          JSON.parse(res.body);
        }
        for (const format of ['JSON', 'Api', 'xml', 'html', 'csv', 'jsonp', 'json%20', 'yaml']) {
          const res = await request(server.base, `${route.path}?format=${format}`);
          assertJson(res, 404, { detail: 'Not found.' }, `${route.path}?format=${format}`);
          assertRouteHeaders(res.headers, route.kind, `${route.path}?format=${format}`);
        }
      });
    }

    it('the body is the same JSON for no format, format=json and format=api (no hyperlinks in users)', async () => {
      const plain = (await request(server.base, '/api/users/2/')).json();
      assert.deepEqual((await request(server.base, '/api/users/2/?format=json')).json(), plain);
      assert.deepEqual((await request(server.base, '/api/users/2/?format=api')).json(), plain);
    });
  });

  describe('format suffixes', () => {
    const ok: [path: string, kind: Kind][] = [
      ['/api/.json', 'root'],
      ['/api/.api', 'root'],
      ['/api/users.json', 'list'],
      ['/api/users.api', 'list'],
      ['/api/space/openings.json', 'list'],
      ['/api/projects.api', 'list'],
      ['/api/meetings.json', 'list'],
      ['/api/events.json', 'list'],
      ['/api/users/7.json', 'detail'],
      ['/api/users/7.api', 'detail'],
      ['/api/space/openings/5.json', 'detail'],
      ['/api/projects/1.json', 'detail'],
      ['/api/meetings/1.api', 'detail'],
      ['/api/events/2.json', 'detail'],
    ];
    for (const [path, kind] of ok) {
      it(`${path} → 200 JSON`, async () => {
        const res = await request(server.base, path);
        assert.equal(res.status, 200, res.body.slice(0, 200));
        assertRouteHeaders(res.headers, kind, path);
      });
    }

    it('a suffix gives the same records as the plain path', async () => {
      assert.deepEqual((await request(server.base, '/api/users/7.json')).json(), (await request(server.base, '/api/users/7/')).json());
      assert.deepEqual((await request(server.base, '/api/space/openings.json')).json().results, (await request(server.base, '/api/space/openings/')).json().results);
    });

    const bad: [path: string, kind: Kind][] = [
      ['/api/.xml', 'root'],
      ['/api/.html', 'root'],
      ['/api/users.xml', 'list'],
      ['/api/users.csv', 'list'],
      ['/api/space/openings.txt', 'list'],
      ['/api/users/7.xml', 'detail'],
      ['/api/users/7.html', 'detail'],
      ['/api/events/2.yaml', 'detail'],
    ];
    for (const [path, kind] of bad) {
      it(`${path} → 404 Not found. with Allow ${ALLOW[kind]}`, async () => {
        const res = await request(server.base, path);
        assertJson(res, 404, { detail: 'Not found.' }, path);
        assertRouteHeaders(res.headers, kind, path);
      });
    }

    it('an upper-case suffix is no suffix: 404', async () => {
      for (const path of ['/api/users.JSON', '/api/users/7.JSON', '/api/.JSON']) {
        assertJson(await request(server.base, path), 404, { detail: 'Not found.' }, path);
      }
    });
  });

  describe('Accept', () => {
    const acceptable: (string | undefined)[] = [
      undefined,
      '*/*',
      'application/*',
      'application/json',
      'application/json;q=0.5;indent=4',
      'application/json; charset=utf-8',
      // web.md §1: on a tie JSON, as listed first (a preference for HTML gets the browsable page: web-pages.test.ts).
      'application/json, text/html',
    ];
    for (const accept of acceptable) {
      it(`Accept ${accept ?? '(absent)'} → 200 application/json on every route kind`, async () => {
        for (const path of ['/api/', '/api/users/', '/api/users/1/']) {
          const res = await request(server.base, path, { headers: accept === undefined ? {} : { Accept: accept } });
          assert.equal(res.status, 200, `${path} ${res.body.slice(0, 100)}`);
          assert.equal(res.headers['content-type'], 'application/json');
        }
      });
    }

    // `text/html` and `text/*` admit HTML now (web.md §1): no longer 406.
    const unacceptable = ['application/xml', 'text/csv', 'garbage', 'image/png', 'text/plain, application/xml;q=0.9'];
    for (const accept of unacceptable) {
      it(`Accept ${accept} → 406 with the contract's body`, async () => {
        for (const route of ROUTES) {
          const res = await request(server.base, route.path, { headers: { Accept: accept } });
          assertJson(res, 406, { detail: 'Could not satisfy the request Accept header.' }, `${route.path}`);
          assertRouteHeaders(res.headers, route.kind, route.path);
        }
      });
    }
  });
});

describe('errors', () => {
  /*
   * Contract: "Errors" — the trailing-slash 301, unknown paths, and 401 for writes without
   * credentials (after routing, before method, body or validation checks).
   */
  let servers: Record<'server' | 'broken', TestServer> | undefined;
  let server: TestServer;
  let broken: TestServer;

  before(async () => {
    servers = await startServers({
      server: { records: sample(), env: { PAGE_SIZE: '3' } },
      broken: { records: sample() },
    });
    ({ server, broken } = servers);
    // The database goes away under a running server.
    await broken.database.close();
  });

  after(async () => {
    await closeServers(servers);
  });

  const METHODS = ['GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH', 'DELETE'];
  const WRITES = ['POST', 'PUT', 'PATCH', 'DELETE'];
  const NOT_AUTHENTICATED = { detail: 'Authentication credentials were not provided.' };

  describe('301 for a missing trailing slash', () => {
    const cases: [path: string, location: string][] = [
      ['/api', '/api/'],
      ['/api/users', '/api/users/'],
      ['/api/space/openings', '/api/space/openings/'],
      ['/api/projects', '/api/projects/'],
      ['/api/meetings', '/api/meetings/'],
      ['/api/events', '/api/events/'],
      ['/api/users/7', '/api/users/7/'],
      ['/api/space/openings/5', '/api/space/openings/5/'],
      ['/api/users/999', '/api/users/999/'],
      ['/api/events/3?format=api', '/api/events/3/?format=api'],
      ['/api/users?page=2&x=a%20b&flag&y=%E9;z', '/api/users/?page=2&x=a%20b&flag&y=%E9;z'],
      ['/api/users?page=abc', '/api/users/?page=abc'],
    ];
    for (const [path, location] of cases) {
      it(`${path} → Location ${location}, for every method, empty body, no Allow`, async () => {
        for (const method of METHODS) {
          const res = await request(server.base, path, { method });
          assert.equal(res.status, 301, `${method} ${path}`);
          assert.equal(res.headers.location, location, `${method} ${path}`);
          assert.equal(res.body, '', `${method} ${path} body`);
          assert.equal(res.headers.allow, undefined, `${method} ${path} allow`);
          assertSecurityHeaders(res.headers, `${method} ${path}`);
        }
      });
    }

    it('the 301 wins over a write with a bad body', async () => {
      const res = await request(server.base, '/api/users', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"broken',
      });
      assert.equal(res.status, 301);
      assert.equal(res.headers.location, '/api/users/');
    });

    it('the 301 wins over an unacceptable Accept and an unknown format', async () => {
      const res = await request(server.base, '/api/users?format=xml', { headers: { Accept: 'text/csv' } });
      assert.equal(res.status, 301);
      assert.equal(res.headers.location, '/api/users/?format=xml');
    });

    it('the Location is relative (no scheme or host), on a raw socket too', async () => {
      const res = await rawRequest(server.port, '/api/users?page=2', { host: 'example.org' });
      assert.equal(res.status, 301);
      assert.equal(res.headers.location, '/api/users/?page=2');
      assert.equal(res.body.length, 0);
    });
  });

  describe('unknown paths → 404 {"detail":"Not found."}', () => {
    const paths = [
      '/api/nope',
      '/api/nope/',
      '/api/users/7/extra',
      '/api/users/7/extra/',
      '/api/space',
      '/api/space/',
      '/api/Users/',
      '/api/users//',
      '/api//users/',
      '/api/space/openings/1/2/',
    ];
    for (const path of paths) {
      it(`${path}, for every method, without Allow`, async () => {
        for (const method of METHODS) {
          const res = await request(server.base, path, { method });
          assert.equal(res.status, 404, `${method} ${path}`);
          assert.equal(res.headers.allow, undefined, `${method} ${path}`);
          assert.equal(res.headers['www-authenticate'], undefined, `${method} ${path}`);
          if (method !== 'HEAD') assertJson(res, 404, { detail: 'Not found.' }, `${method} ${path}`);
        }
      });
    }
  });

  describe('401 for writes without credentials', () => {
    const routes: [path: string, kind: keyof typeof ALLOW][] = [
      ['/api/', 'root'],
      ...COLLECTION_PATHS.map((c) => [`/api/${c}/`, 'list'] as [string, 'list']),
      ...COLLECTION_PATHS.map((c) => [`/api/${c}/1/`, 'detail'] as [string, 'detail']),
      ['/api/users.json', 'list'],
      ['/api/users/1.json', 'detail'],
    ];
    for (const [path, kind] of routes) {
      it(`${WRITES.join('/')} ${path} → 401, WWW-Authenticate: Token, Allow ${ALLOW[kind]}`, async () => {
        for (const method of WRITES) {
          const res = await request(server.base, path, {
            method,
            headers: { 'Content-Type': 'application/json' },
            body: '{"title":"x"}',
          });
          assertJson(res, 401, NOT_AUTHENTICATED, `${method} ${path}`);
          assert.equal(res.headers['www-authenticate'], 'Token', `${method} ${path}`);
          assert.equal(res.headers.allow, ALLOW[kind], `${method} ${path}`);
          assertSecurityHeaders(res.headers, `${method} ${path}`);
        }
      });
    }

    it('without any body', async () => {
      for (const method of WRITES) {
        const res = await request(server.base, '/api/projects/', { method });
        assertJson(res, 401, NOT_AUTHENTICATED, method);
        assert.equal(res.headers['www-authenticate'], 'Token');
      }
    });

    const bodies: [what: string, contentType: string, body: string][] = [
      ['an unsupported content type', 'text/plain', 'hello'],
      ['another unsupported content type', 'application/xml', '<a/>'],
      ['malformed JSON', 'application/json', '{"title": '],
      ['a JSON body that is not an object', 'application/json', '[1,2,3]'],
      ['invalid fields', 'application/json', '{"progress": 1000, "status": "zz"}'],
      ['a malformed form', 'application/x-www-form-urlencoded', '%%%&&=='],
      ['an empty JSON body', 'application/json', ''],
    ];
    for (const [what, contentType, body] of bodies) {
      it(`401 wins over ${what}`, async () => {
        for (const [method, path] of [
          ['POST', '/api/projects/'],
          ['PUT', '/api/projects/1/'],
          ['PATCH', '/api/events/1/'],
        ]) {
          const res = await request(server.base, path, { method, headers: { 'Content-Type': contentType }, body });
          assertJson(res, 401, NOT_AUTHENTICATED, `${method} ${path}`);
          assert.equal(res.headers['www-authenticate'], 'Token');
        }
      });
    }

    it('401 wins over a method the route does not allow (PUT on a collection, POST on a detail, DELETE on the root)', async () => {
      for (const [method, path] of [
        ['PUT', '/api/users/'],
        ['PATCH', '/api/events/'],
        ['POST', '/api/users/1/'],
        ['DELETE', '/api/'],
      ]) {
        const res = await request(server.base, path, { method });
        assertJson(res, 401, NOT_AUTHENTICATED, `${method} ${path}`);
        assert.equal(res.headers['www-authenticate'], 'Token');
      }
    });

    it('401 wins over an unknown or invalid id (checked after routing only)', async () => {
      for (const path of ['/api/users/999/', '/api/users/abc/', '/api/projects/0/', '/api/events/18446744073709551617/']) {
        const res = await request(server.base, path, { method: 'DELETE' });
        assertJson(res, 401, NOT_AUTHENTICATED, path);
      }
    });

    it('bad credentials → 401 Invalid token.', async () => {
      for (const method of ['POST', 'GET']) {
        const res = await request(server.base, '/api/projects/', { method, headers: { Authorization: 'Token not-a-real-token' } });
        assertJson(res, 401, { detail: 'Invalid token.' }, method);
        assert.equal(res.headers['www-authenticate'], 'Token');
        assert.equal(res.headers.allow, ALLOW.list);
      }
    });
  });

  describe('failures of the database', () => {
    const failures: Record<number, { detail: string }> = {
      500: { detail: 'Internal server error.' },
      503: { detail: 'Service temporarily unavailable.' },
    };
    for (const path of ['/api/users/', '/api/users/1/', '/api/events/?ordering=-start', '/api/space/openings/?page=last']) {
      it(`GET ${path} with the database gone → 500 or 503 with the contract's body, never a stack trace`, async () => {
        const res = await request(broken.base, path);
        assert.ok(res.status === 500 || res.status === 503, `status ${res.status}: ${res.body.slice(0, 200)}`);
        assertJson(res, res.status, failures[res.status], path);
        if (res.status === 503) assert.match(String(res.headers['retry-after']), /^\d+$/);
        assertSecurityHeaders(res.headers, path);
      });
    }
  });
});
