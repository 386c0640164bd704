/**
 * Table-driven unit tests of the pure modules behind the wire format: query parsing and
 * rebuilding, pagination numbers, links, routes, negotiation and times.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../src/drf/errors.js';
import { apiUrl, avatarUrl, baseUrlOf, linkStyle, mediaPath, pageUrl } from '../src/drf/links.js';
import { checkAccept, requestedFormat } from '../src/drf/negotiation.js';
import { pageCount, pageNumberOf, pageSizeOf, parsePositiveInteger } from '../src/drf/pagination.js';
import { compareCodePoints, decodeComponent, encodeComponent, lastValue, parseQuery, rebuildQuery, type QueryPair } from '../src/drf/query.js';
import { decodePath, parseId, type RouteMatch } from '../src/drf/routes.js';
import { INSTALLED_COLLECTIONS } from '../src/installed-apps.js';
import { apiOf } from '../src/routes/api.js';

/** The API routes of the route table with every installed app on. */
const matchApiPath = apiOf(INSTALLED_COLLECTIONS).routeOf;
import { formatIsoUtc, parseIsoMicros, TimeFormatter } from '../src/time.js';

describe('query', () => {
  describe('parseQuery: parse_qsl with blanks kept', () => {
    const cases: [raw: string, pairs: [string, string][]][] = [
      ['', []],
      [
        'a=1&b=2',
        [
          ['a', '1'],
          ['b', '2'],
        ],
      ],
      ['flag', [['flag', '']]],
      ['flag=', [['flag', '']]],
      ['&&a=1&&', [['a', '1']]],
      ['=x', [['', 'x']]],
      ['a=1;b=2', [['a', '1;b=2']]],
      ['foo=a+b', [['foo', 'a b']]],
      ['foo=a%2Bb', [['foo', 'a+b']]],
      ['foo=a%20b', [['foo', 'a b']]],
      ['a==b', [['a', '=b']]],
      ['k%3D=v', [['k=', 'v']]],
      ['%41=%42', [['A', 'B']]],
      ['foo=-._~%7E%41', [['foo', '-._~~A']]],
      ['foo=%E9', [['foo', '\uFFFD']]],
      ['foo=%C3%A9', [['foo', 'é']]],
      ['%F0%9F%90%9C=1', [['🐜', '1']]],
      ['a=%', [['a', '%']]],
      ['a=%zz', [['a', '%zz']]],
      ['a=%4', [['a', '%4']]],
      [
        'b=1&a=2&b=3',
        [
          ['b', '1'],
          ['a', '2'],
          ['b', '3'],
        ],
      ],
    ];
    for (const [raw, pairs] of cases) {
      it(`${JSON.stringify(raw)} → ${JSON.stringify(pairs)}`, () => {
        assert.deepEqual(parseQuery(raw), pairs);
      });
    }
  });

  describe('decodeComponent', () => {
    const cases: [string, string][] = [
      ['plain', 'plain'],
      ['a+b', 'a b'],
      ['%2B', '+'],
      ['%e9%E9', '\uFFFD\uFFFD'],
      ['%C3%A9', 'é'],
      ['100%', '100%'],
    ];
    for (const [text, expected] of cases) {
      it(`${JSON.stringify(text)} → ${JSON.stringify(expected)}`, () => assert.equal(decodeComponent(text), expected));
    }
  });

  describe('encodeComponent: quote_plus', () => {
    const cases: [string, string][] = [
      ['', ''],
      ['a b', 'a+b'],
      ['-._~', '-._~'],
      ['AZaz09', 'AZaz09'],
      [';', '%3B'],
      ['=', '%3D'],
      ['&', '%26'],
      ['+', '%2B'],
      ['/', '%2F'],
      ['%', '%25'],
      ["!'()*", '%21%27%28%29%2A'],
      ['é', '%C3%A9'],
      ['\uFFFD', '%EF%BF%BD'],
      ['🐜', '%F0%9F%90%9C'],
      ['ｚ', '%EF%BD%9A'],
    ];
    for (const [text, expected] of cases) {
      it(`${JSON.stringify(text)} → ${expected}`, () => assert.equal(encodeComponent(text), expected));
    }
  });

  describe('compareCodePoints', () => {
    const cases: [string, string, -1 | 0 | 1][] = [
      ['a', 'b', -1],
      ['b', 'a', 1],
      ['a', 'a', 0],
      ['ab', 'abc', -1],
      ['abc', 'ab', 1],
      ['', 'a', -1],
      ['Z', 'a', -1],
      [' x', '0', -1],
      ['ｚｅｄ', '🐜ant', -1], // U+FF5A < U+1F41C although 0xFF5A > 0xD83D in UTF-16
      ['\uE000', '🐜', -1],
      ['\uFFFF', '😀', -1],
      ['🐜', '\uFFFD', 1],
      ['x🐜y', 'xｚ', 1],
      ['😀', '🐜', 1], // U+1F600 > U+1F41C
    ];
    for (const [a, b, sign] of cases) {
      it(`${JSON.stringify(a)} vs ${JSON.stringify(b)} → ${sign}`, () => {
        assert.equal(Math.sign(compareCodePoints(a, b)), sign);
      });
    }
  });

  describe('lastValue', () => {
    it('gives the last value of a key', () => {
      assert.equal(
        lastValue(
          [
            ['page', '1'],
            ['x', 'y'],
            ['page', '2'],
          ],
          'page',
        ),
        '2',
      );
    });
    it('gives undefined for a missing key', () => {
      assert.equal(lastValue([['x', 'y']], 'page'), undefined);
    });
    it('gives an empty value as such', () => {
      assert.equal(
        lastValue(
          [
            ['page', '2'],
            ['page', ''],
          ],
          'page',
        ),
        '',
      );
    });
  });

  describe('rebuildQuery: the contract examples (request → next)', () => {
    const cases: [request: string, next: string][] = [
      ['zzz=1&aaa=2&page_size=3&page=2', 'aaa=2&page=3&page_size=3&zzz=1'],
      ['foo=1&page_size=3&bar=x&foo=2&page=2', 'bar=x&foo=1&foo=2&page=3&page_size=3'],
      ['flag&page_size=3&page=2', 'flag=&page=3&page_size=3'],
      ['foo=a%20b&page_size=3&page=2', 'foo=a+b&page=3&page_size=3'],
      ['foo=-._~%7E%41&page_size=3&page=2', 'foo=-._~~A&page=3&page_size=3'],
      ['a=1;b=2&page_size=3&page=2', 'a=1%3Bb%3D2&page=3&page_size=3'],
      ['foo=%E9&page_size=3&page=2', 'foo=%EF%BF%BD&page=3&page_size=3'],
      // and the other rules of the section
      ['=x&page_size=3&page=2', '=x&page=3&page_size=3'],
      ['&&foo=1&&page_size=3&page=2', 'foo=1&page=3&page_size=3'],
      ['page=1&page=2&page_size=3', 'page=3&page_size=3'],
      ['format=api&page=2', 'format=api&page=3'],
      ['page_size=abc&page=2', 'page=3&page_size=abc'],
      ['b=1&a=2&b=0&page=2', 'a=2&b=1&b=0&page=3'],
      ['%F0%9F%90%9C=1&%EF%BD%9A=2&page=2', 'page=3&%EF%BD%9A=2&%F0%9F%90%9C=1'],
      ['%F0%9F%90%9C=1&%EE%80%80=2&page=2', 'page=3&%EE%80%80=2&%F0%9F%90%9C=1'],
    ];
    for (const [requestQuery, next] of cases) {
      it(`?${requestQuery} → ?${next}`, () => {
        assert.equal(rebuildQuery(parseQuery(requestQuery), 'page', '3'), next);
      });
    }
  });

  describe('rebuildQuery: removing page (previous of page 2)', () => {
    const cases: [string, string][] = [
      ['page=2', ''],
      ['page=2&page_size=3', 'page_size=3'],
      ['zzz=1&page=2&aaa=2', 'aaa=2&zzz=1'],
      ['page=1&page=2', ''],
    ];
    for (const [requestQuery, previous] of cases) {
      it(`?${requestQuery} → ${JSON.stringify(previous)}`, () => {
        assert.equal(rebuildQuery(parseQuery(requestQuery), 'page', null), previous);
      });
    }
  });
});

describe('pagination', () => {
  const config = { pageSize: 3, maxPageSize: 5 };
  const q = (...pairs: [string, string][]): QueryPair[] => pairs;

  describe('parsePositiveInteger: Python int() syntax, positive', () => {
    const valid: [string, number][] = [
      ['1', 1],
      ['3', 3],
      [' 3 ', 3],
      ['+5', 5],
      ['007', 7],
      [' +007 ', 7],
      ['\t2\n', 2],
      ['100', 100],
    ];
    for (const [text, value] of valid) {
      it(`${JSON.stringify(text)} → ${value}`, () => assert.equal(parsePositiveInteger(text), value));
    }
    const invalid = ['0', '00', '-3', '-0', 'abc', '5.0', '1.5', '', ' ', '+', '0x2', '1e3', '+-1', '++1', '1 2', 'last'];
    for (const text of invalid) {
      it(`${JSON.stringify(text)} → null`, () => assert.equal(parsePositiveInteger(text), null));
    }
    it('a number too large is still "positive" (larger than any page count)', () => {
      const value = parsePositiveInteger('99999999999999999999999999999');
      assert.ok(value !== null && value > Number.MAX_SAFE_INTEGER);
    });
  });

  describe('pageSizeOf', () => {
    const cases: [QueryPair[], number][] = [
      [q(), 3],
      [q(['page_size', '2']), 2],
      [q(['page_size', '+4']), 4],
      [q(['page_size', ' 4 ']), 4],
      [q(['page_size', '004']), 4],
      [q(['page_size', '5']), 5],
      [q(['page_size', '6']), 5],
      [q(['page_size', '99999999999999999999999']), 5],
      [q(['page_size', '0']), 3],
      [q(['page_size', '-3']), 3],
      [q(['page_size', 'abc']), 3],
      [q(['page_size', '5.0']), 3],
      [q(['page_size', '']), 3],
      [q(['page_size', '2'], ['page_size', '4']), 4],
      [q(['page_size', '4'], ['page_size', 'abc']), 3],
      [q(['PAGE_SIZE', '4']), 3],
    ];
    for (const [pairs, size] of cases) {
      it(`${JSON.stringify(pairs)} → ${size}`, () => assert.equal(pageSizeOf(pairs, config), size));
    }
  });

  describe('pageCount', () => {
    const cases: [number, number, number][] = [
      [0, 3, 1],
      [1, 3, 1],
      [3, 3, 1],
      [4, 3, 2],
      [30, 3, 10],
      [31, 3, 11],
    ];
    for (const [count, size, pages] of cases) {
      it(`${count} records by ${size} → ${pages} pages`, () => assert.equal(pageCount(count, size), pages));
    }
  });

  describe('pageNumberOf', () => {
    const valid: [QueryPair[], number, number][] = [
      [q(), 10, 1],
      [q(['page', '']), 10, 1],
      [q(['page', '1']), 10, 1],
      [q(['page', 'last']), 10, 10],
      [q(['page', 'last']), 1, 1],
      [q(['page', '1']), 1, 1],
      [q(['page', ' 2 ']), 10, 2],
      [q(['page', '+2']), 10, 2],
      [q(['page', '02']), 10, 2],
      [q(['page', '10']), 10, 10],
      [q(['page', 'abc'], ['page', '2']), 10, 2],
      [q(['page', '2'], ['page', '']), 10, 1],
    ];
    for (const [pairs, pages, page] of valid) {
      it(`${JSON.stringify(pairs)} of ${pages} pages → ${page}`, () => assert.equal(pageNumberOf(pairs, pages), page));
    }
    const invalid = ['0', '-1', 'abc', '1.5', '2.0', 'LAST', 'Last', ' last', 'last ', '0x2', '11', '1e1', '99999999999999999999999'];
    for (const value of invalid) {
      it(`page=${JSON.stringify(value)} of 10 pages → 404 Invalid page.`, () => {
        assert.throws(
          () => pageNumberOf(q(['page', value]), 10),
          (error: unknown) => {
            assert.ok(error instanceof ApiError);
            assert.equal(error.status, 404);
            assert.equal(error.detail, 'Invalid page.');
            return true;
          },
        );
      });
    }
    it('page 2 of an empty collection (1 page) → 404 Invalid page.', () => {
      assert.throws(
        () => pageNumberOf(q(['page', '2']), 1),
        (e: unknown) => e instanceof ApiError && e.detail === 'Invalid page.',
      );
    });
    it('the last page parameter wins even when it is invalid', () => {
      assert.throws(
        () => pageNumberOf(q(['page', '2'], ['page', 'abc']), 10),
        (e: unknown) => e instanceof ApiError && e.status === 404,
      );
    });
  });
});

describe('links', () => {
  const BASE = 'http://h.example:8000';

  describe('pageUrl (next/previous)', () => {
    const cases: [rawPath: string, query: string, page: number, url: string][] = [
      ['/api/users/', 'zzz=1&aaa=2&page_size=3&page=2', 3, `${BASE}/api/users/?aaa=2&page=3&page_size=3&zzz=1`],
      ['/api/users/', 'foo=1&page_size=3&bar=x&foo=2&page=2', 3, `${BASE}/api/users/?bar=x&foo=1&foo=2&page=3&page_size=3`],
      ['/api/users/', 'flag&page_size=3&page=2', 3, `${BASE}/api/users/?flag=&page=3&page_size=3`],
      ['/api/users/', 'foo=a%20b&page_size=3&page=2', 3, `${BASE}/api/users/?foo=a+b&page=3&page_size=3`],
      ['/api/users/', 'foo=-._~%7E%41&page_size=3&page=2', 3, `${BASE}/api/users/?foo=-._~~A&page=3&page_size=3`],
      ['/api/users/', 'a=1;b=2&page_size=3&page=2', 3, `${BASE}/api/users/?a=1%3Bb%3D2&page=3&page_size=3`],
      ['/api/users/', 'foo=%E9&page_size=3&page=2', 3, `${BASE}/api/users/?foo=%EF%BF%BD&page=3&page_size=3`],
      ['/api/users/', 'page=2', 1, `${BASE}/api/users/`],
      ['/api/users/', 'page=2&page_size=3', 1, `${BASE}/api/users/?page_size=3`],
      ['/api/users/', 'page=3', 2, `${BASE}/api/users/?page=2`],
      ['/api/users/', '', 2, `${BASE}/api/users/?page=2`],
      ['/api/users.json', 'page=2', 3, `${BASE}/api/users.json?page=3`],
      ['/api/users.json', 'page=2', 1, `${BASE}/api/users.json`],
      ['/api/space/openings/', 'format=api', 2, `${BASE}/api/space/openings/?format=api&page=2`],
    ];
    for (const [rawPath, query, page, url] of cases) {
      it(`${rawPath}?${query} page ${page} → ${url}`, () => {
        assert.equal(pageUrl(BASE, rawPath, parseQuery(query), page), url);
      });
    }
  });

  describe('apiUrl / linkStyle: hyperlinks carry the request format', () => {
    const cases: [suffix: string | null, format: 'json' | 'api' | null, id: number | undefined, url: string][] = [
      [null, null, 7, `${BASE}/api/users/7/`],
      [null, 'api', 7, `${BASE}/api/users/7/?format=api`],
      [null, 'json', 7, `${BASE}/api/users/7/?format=json`],
      ['json', 'json', 7, `${BASE}/api/users/7.json`],
      ['api', 'api', 7, `${BASE}/api/users/7.api`],
      [null, null, undefined, `${BASE}/api/users/`],
      [null, 'api', undefined, `${BASE}/api/users/?format=api`],
      ['json', 'json', undefined, `${BASE}/api/users.json`],
    ];
    for (const [suffix, format, id, url] of cases) {
      it(`suffix ${suffix} format ${format} id ${id} → ${url}`, () => {
        assert.equal(apiUrl(linkStyle(BASE, suffix, format), 'users', id), url);
      });
    }
    it('root entries of space/openings keep their slash inside', () => {
      assert.equal(apiUrl(linkStyle(BASE, 'json', 'json'), 'space/openings'), `${BASE}/api/space/openings.json`);
      assert.equal(apiUrl(linkStyle(BASE, null, null), 'space/openings'), `${BASE}/api/space/openings/`);
    });
  });

  describe('mediaPath: stored path percent-encoded as a URL path', () => {
    const cases: [string, string][] = [
      ['event_pictures/affiche été 2019.png', 'event_pictures/affiche%20%C3%A9t%C3%A9%202019.png'],
      ['event_pictures/poster.jpg', 'event_pictures/poster.jpg'],
      ['a b/c#d?.png', 'a%20b/c%23d%3F.png'],
      ["x!~*'()-_.png", "x!~*'()-_.png"],
      ['100%.png', '100%25.png'],
      ['🐜.png', '%F0%9F%90%9C.png'],
    ];
    for (const [stored, encoded] of cases) {
      it(`${stored} → ${encoded}`, () => assert.equal(mediaPath(stored), encoded));
    }
  });

  describe('avatarUrl', () => {
    const md5Config = { avatarHash: 'md5' as const, avatarDefault: 'wavatar' };
    // The MD5 of each address lower-cased with full Unicode rules, computed by hand outside the
    // code: `printf %s '<lower case>' | md5sum` (see AVATAR_HASHES in support/contract.ts).
    const emails: [email: string, md5: string][] = [
      ['Alice@Example.COM', 'c160f8cc69a4f0bf2b0362752353d060'], // md5 of 'alice@example.com'
      ['ÉLODIE@EXAMPLE.FR', '2e44faff35603494059af25dce9cb068'], // md5 of 'élodie@example.fr'
      ['ZOË@EXÄMPLE.BE', '74fd910d24f89412611589dba0a45b0c'], // md5 of 'zoë@exämple.be'
      ['İSTANBUL@example.com.tr', '9ac0515db91b2d9e27d7d773801b138b'], // md5 of 'i̇stanbul@example.com.tr'
      ['ΟΔΥΣΣΕΥΣ@example.gr', 'c6400a39bff985f5e9c5d622f83bbda2'], // md5 of 'οδυσσευς@example.gr'
      ['Дмитрий@пример.рф', 'de2de86f169e83a82e6d43f5eafac34a'], // md5 of 'дмитрий@пример.рф'
      ['ant+🐜@example.org', '720f04399f782efdcb80a286c46ca474'], // md5 of 'ant+🐜@example.org'
      ['STRASSE@example.de', '0d116788e10dce89465c74359bddae7e'], // md5 of 'strasse@example.de'
    ];
    for (const [email, md5] of emails) {
      it(`md5 of ${email} lower-cased with toLowerCase()`, () => {
        assert.equal(avatarUrl(email, md5Config), `//www.gravatar.com/avatar/${md5}?d=wavatar`);
      });
    }
    it('SHA-256 when selected', () => {
      assert.equal(
        avatarUrl('ÉLODIE@EXAMPLE.FR', { avatarHash: 'sha256', avatarDefault: 'wavatar' }),
        // printf %s 'élodie@example.fr' | sha256sum
        '//www.gravatar.com/avatar/55586a3ae97963d9cecced29d1fc0452833388eee31429c47549a8fe1e37ce3d?d=wavatar',
      );
    });
    it('the d style is configurable', () => {
      assert.equal(
        avatarUrl('a@b.c', { avatarHash: 'md5', avatarDefault: 'identicon' }),
        // printf %s 'a@b.c' | md5sum
        '//www.gravatar.com/avatar/5d60d4e28066df254d5452f92c910092?d=identicon',
      );
    });
  });

  describe('baseUrlOf', () => {
    const fake = (host: string, protocol: 'http' | 'https' = 'http', localAddress = '127.0.0.1', localPort = 8123) => ({ host, protocol, localAddress, localPort });
    const hosts = ['example.org', 'Example.ORG:8080', 'example.org.', '[::1]:8000', '127.0.0.1:9', 'localhost'];
    for (const host of hosts) {
      it(`Host ${host} → http://${host}`, () => {
        assert.equal(baseUrlOf(fake(host), { publicUrl: null }), `http://${host}`);
      });
    }
    it('PUBLIC_URL wins over Host', () => {
      assert.equal(baseUrlOf(fake('example.org'), { publicUrl: 'https://api.example.net' }), 'https://api.example.net');
    });
    it('no Host: the local address and port', () => {
      assert.equal(baseUrlOf(fake(''), { publicUrl: null }), 'http://127.0.0.1:8123');
    });
    it('no Host on IPv6: bracketed local address', () => {
      assert.equal(baseUrlOf(fake('', 'http', '::1', 8123), { publicUrl: null }), 'http://[::1]:8123');
    });
    it('https when the request protocol is https', () => {
      assert.equal(baseUrlOf(fake('example.org', 'https'), { publicUrl: null }), 'https://example.org');
    });
    for (const host of ['exa mple.org', 'example.org/evil', 'example.org:123456', 'ex@mple.org']) {
      it(`Host ${JSON.stringify(host)} is refused (null: Django's 400 where links are made)`, () => {
        assert.equal(baseUrlOf(fake(host), { publicUrl: null }), null);
      });
    }
  });
});

describe('routes and negotiation', () => {
  describe('matchApiPath (the API routes of the route table)', () => {
    const cases: [string, RouteMatch | null][] = [
      ['/api/', { kind: 'root', collection: null, id: null, suffix: null }],
      ['/api/.json', { kind: 'root', collection: null, id: null, suffix: 'json' }],
      ['/api/.api', { kind: 'root', collection: null, id: null, suffix: 'api' }],
      ['/api/users/', { kind: 'list', collection: 'users', id: null, suffix: null }],
      ['/api/users.json', { kind: 'list', collection: 'users', id: null, suffix: 'json' }],
      ['/api/users.xml', { kind: 'list', collection: 'users', id: null, suffix: 'xml' }],
      ['/api/space/openings/', { kind: 'list', collection: 'space/openings', id: null, suffix: null }],
      ['/api/space/openings/5/', { kind: 'detail', collection: 'space/openings', id: '5', suffix: null }],
      ['/api/users/7/', { kind: 'detail', collection: 'users', id: '7', suffix: null }],
      ['/api/users/7.json', { kind: 'detail', collection: 'users', id: '7', suffix: 'json' }],
      ['/api/users/ 39/', { kind: 'detail', collection: 'users', id: ' 39', suffix: null }],
      ['/api/projects/', { kind: 'list', collection: 'projects', id: null, suffix: null }],
      ['/api/meetings/3/', { kind: 'detail', collection: 'meetings', id: '3', suffix: null }],
      ['/api/events/', { kind: 'list', collection: 'events', id: null, suffix: null }],
      ['/api', null],
      ['/api/users', null],
      ['/api/users/7', null],
      ['/api/nope/', null],
      ['/api/space/', null],
      ['/api/Users/', null],
      ['/api/users//', null],
      ['/api/users/7/extra/', null],
      ['/', null],
    ];
    for (const [path, match] of cases) {
      it(`${path} → ${JSON.stringify(match)}`, () => assert.deepEqual(matchApiPath(path), match));
    }
  });

  describe('decodePath', () => {
    const cases: [string, string | null][] = [
      ['/api/users/', '/api/users/'],
      ['/api/users/%2039/', '/api/users/ 39/'],
      ['/api/users/%2B39/', '/api/users/+39/'],
      ['/api/users/+39/', '/api/users/+39/'],
      ['/api/%75sers/', '/api/users/'],
      ['/api/%C3%A9/', '/api/é/'],
      ['/api/%zz/', '/api/%zz/'],
      ['/api/%E9/', null],
    ];
    for (const [raw, decoded] of cases) {
      it(`${raw} → ${JSON.stringify(decoded)}`, () => assert.equal(decodePath(raw), decoded));
    }
  });

  describe('parseId', () => {
    const valid: [string, number][] = [
      ['39', 39],
      ['039', 39],
      ['+39', 39],
      [' 39', 39],
      ['39 ', 39],
      [' +0039 ', 39],
      ['1', 1],
    ];
    for (const [text, id] of valid) {
      it(`${JSON.stringify(text)} → ${id}`, () => assert.equal(parseId(text), id));
    }
    const invalid = [
      '0',
      '00',
      '-1',
      '-39',
      'abc',
      '3x',
      '0x27',
      '1e1',
      '3.9',
      '',
      ' ',
      '+',
      '++39',
      '+-39',
      '3 9',
      '9007199254740993',
      '9223372036854775808',
      '18446744073709551616',
      '18446744073709551617',
      '99999999999999999999999999999',
    ];
    for (const text of invalid) {
      it(`${JSON.stringify(text)} → null`, () => assert.equal(parseId(text), null));
    }
  });

  describe('requestedFormat', () => {
    const q = (...pairs: [string, string][]): QueryPair[] => pairs;
    const valid: [string | null, QueryPair[], 'json' | 'api' | null][] = [
      [null, q(), null],
      [null, q(['format', 'json']), 'json'],
      [null, q(['format', 'api']), 'api'],
      ['json', q(), 'json'],
      ['api', q(), 'api'],
      [null, q(['format', 'xml'], ['format', 'api']), 'api'],
    ];
    for (const [suffix, pairs, format] of valid) {
      it(`suffix ${suffix} query ${JSON.stringify(pairs)} → ${format}`, () => assert.equal(requestedFormat(suffix, pairs), format));
    }
    const invalid: [string | null, QueryPair[]][] = [
      [null, q(['format', 'JSON'])],
      [null, q(['format', 'xml'])],
      [null, q(['format', 'html'])],
      [null, q(['format', 'api '])],
      ['xml', q()],
      ['html', q()],
    ];
    for (const [suffix, pairs] of invalid) {
      it(`suffix ${suffix} query ${JSON.stringify(pairs)} → 404 Not found.`, () => {
        assert.throws(
          () => requestedFormat(suffix, pairs),
          (e: unknown) => e instanceof ApiError && e.status === 404 && e.detail === 'Not found.',
        );
      });
    }
  });

  describe('checkAccept', () => {
    const acceptable = [
      undefined,
      '',
      '*/*',
      'application/*',
      'application/json',
      'application/json;q=0.5;indent=4',
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'text/html, application/json;q=0.9',
      'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
    ];
    for (const accept of acceptable) {
      it(`${JSON.stringify(accept)} is acceptable`, () => assert.doesNotThrow(() => checkAccept(accept)));
    }
    // `text/html` and `text/*` admit the HTML page now (web.md §1).
    const unacceptable = ['application/xml', 'text/csv', 'garbage', 'image/png', 'application/jsonx', 'text/plain'];
    for (const accept of unacceptable) {
      it(`${JSON.stringify(accept)} → 406`, () => {
        assert.throws(
          () => checkAccept(accept),
          (e: unknown) => e instanceof ApiError && e.status === 406 && e.detail === 'Could not satisfy the request Accept header.',
        );
      });
    }
  });
});

describe('time', () => {
  /** Microseconds of a UTC wall time, computed with Date.UTC only. */
  function micros(iso: string, fraction = 0): number {
    return Date.parse(iso + 'Z') * 1000 + fraction;
  }

  describe('TimeFormatter.format', () => {
    const cases: [zone: string, instant: number, wire: string][] = [
      ['Europe/Brussels', micros('2021-03-28T00:59:59'), '2021-03-28T01:59:59+01:00'],
      ['Europe/Brussels', micros('2021-03-28T01:00:00'), '2021-03-28T03:00:00+02:00'],
      ['Europe/Brussels', micros('2021-03-28T00:59:59', 500_000), '2021-03-28T01:59:59.500000+01:00'],
      ['Europe/Brussels', micros('2021-10-31T00:59:59'), '2021-10-31T02:59:59+02:00'],
      ['Europe/Brussels', micros('2021-10-31T01:00:00'), '2021-10-31T02:00:00+01:00'],
      ['Europe/Brussels', micros('2021-10-31T00:30:00'), '2021-10-31T02:30:00+02:00'],
      ['Europe/Brussels', micros('2021-10-31T01:30:00'), '2021-10-31T02:30:00+01:00'],
      ['Europe/Brussels', micros('2021-06-01T12:00:00', 1), '2021-06-01T14:00:00.000001+02:00'],
      ['Europe/Brussels', micros('2021-01-15T23:30:00', 123_456), '2021-01-16T00:30:00.123456+01:00'],
      ['Europe/Brussels', micros('1969-12-31T23:59:59', 500_000), '1970-01-01T00:59:59.500000+01:00'],
      ['UTC', micros('2015-01-07T06:35:19', 369_318), '2015-01-07T06:35:19.369318+00:00'],
      ['UTC', micros('2015-03-29T01:00:00'), '2015-03-29T01:00:00+00:00'],
      ['UTC', micros('1969-12-31T23:59:59', 500_000), '1969-12-31T23:59:59.500000+00:00'],
      ['UTC', 0, '1970-01-01T00:00:00+00:00'],
      ['Asia/Kolkata', micros('2021-07-01T12:00:00'), '2021-07-01T17:30:00+05:30'],
      ['America/St_Johns', micros('2021-07-01T12:00:00'), '2021-07-01T09:30:00-02:30'],
      ['America/St_Johns', micros('2021-01-01T12:00:00'), '2021-01-01T08:30:00-03:30'],
    ];
    for (const [zone, instant, wire] of cases) {
      it(`${zone} ${instant} → ${wire}`, () => assert.equal(new TimeFormatter(zone).format(instant), wire));
    }
    it('never uses Z, and gives the same answer from a warm cache', () => {
      const formatter = new TimeFormatter('UTC');
      for (let i = 0; i < 3; i++) assert.equal(formatter.format(micros('2020-02-02T02:02:02')), '2020-02-02T02:02:02+00:00');
    });
    it('a formatter reused across a transition gives both offsets', () => {
      const formatter = new TimeFormatter('Europe/Brussels');
      assert.equal(formatter.format(micros('2021-03-28T00:59:59')), '2021-03-28T01:59:59+01:00');
      assert.equal(formatter.format(micros('2021-03-28T01:00:00')), '2021-03-28T03:00:00+02:00');
      assert.equal(formatter.format(micros('2021-03-28T00:59:59')), '2021-03-28T01:59:59+01:00');
    });
  });

  describe('parseIsoMicros', () => {
    const valid: [string, number][] = [
      ['2015-01-07T06:35:19.369318Z', micros('2015-01-07T06:35:19', 369_318)],
      ['2015-02-05T08:20:20.232Z', micros('2015-02-05T08:20:20', 232_000)],
      ['2015-03-29T01:00:00Z', micros('2015-03-29T01:00:00')],
      ['2021-03-28T03:00:00+02:00', micros('2021-03-28T01:00:00')],
      ['2021-03-28T01:59:59.500000+01:00', micros('2021-03-28T00:59:59', 500_000)],
      ['2021-07-01T09:30:00-02:30', micros('2021-07-01T12:00:00')],
      ['1969-12-31T23:59:59.5Z', micros('1969-12-31T23:59:59', 500_000)],
    ];
    for (const [text, value] of valid) {
      it(`${text} → ${value}`, () => assert.equal(parseIsoMicros(text), value));
    }
    const invalid = ['2021-03-28T01:00:00', '2021-02-30T00:00:00Z', 'yesterday', '2021-13-01T00:00:00Z', ''];
    for (const text of invalid) {
      it(`${JSON.stringify(text)} → null`, () => assert.equal(parseIsoMicros(text), null));
    }
    it('round-trips through formatIsoUtc', () => {
      for (const text of ['2015-01-07T06:35:19.369318Z', '2015-03-29T01:00:00Z', '1969-12-31T23:59:59.500000Z']) {
        assert.equal(formatIsoUtc(parseIsoMicros(text)!), text);
      }
    });
  });
});
