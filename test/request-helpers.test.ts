/**
 * Table-driven tests of the pure modules behind the members' pages (members.md §2, §6): the
 * Cookie header, Set-Cookie, urlencoded forms, the `next` rule, CSRF tokens and the Origin check.
 * Expected values come from RFC 6265, the HTML form encoding and the spec's cases.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clearCookie, cookieValue, parseCookies, setCookie } from '../src/request/cookies.js';
import { csrfToken, csrfTokenMatches, originAllowed } from '../src/request/csrf.js';
import { isFormType, MAX_FORM_FIELDS, parseForm } from '../src/request/form.js';
import { loginUrl, safeNext } from '../src/request/next-path.js';

describe('cookies', () => {
  it('parses a Cookie header; a name sent twice keeps its first value', () => {
    const cookies = parseCookies('a=1; session=first;session=second ; junk; "q"="x"; quoted="v w"; =nameless; empty=');
    assert.equal(cookies.get('a'), '1');
    assert.equal(cookies.get('session'), 'first');
    assert.equal(cookies.get('quoted'), 'v w');
    assert.equal(cookies.get('empty'), '');
    assert.equal(cookies.has('junk'), false);
    assert.equal(cookies.has(''), false);
  });

  it('reads one cookie by its exact name, null when absent or empty', () => {
    assert.equal(cookieValue('xsession=no; session=yes', 'session'), 'yes');
    assert.equal(cookieValue('__Host-session=https-one', 'session'), null);
    assert.equal(cookieValue('__Host-session=https-one; session=plain', '__Host-session'), 'https-one');
    assert.equal(cookieValue('session=', 'session'), null);
    assert.equal(cookieValue('other=1', 'session'), null);
  });

  it('sets cookies HttpOnly, SameSite=Lax, Path=/; on HTTPS Secure with the __Host- prefix', () => {
    assert.equal(setCookie('session', 'abc_-1', { https: false, maxAgeSeconds: 60 }), 'session=abc_-1; HttpOnly; SameSite=Lax; Path=/; Max-Age=60');
    assert.equal(setCookie('session', 'abc', { https: true, maxAgeSeconds: 1.9 }), '__Host-session=abc; HttpOnly; SameSite=Lax; Path=/; Secure; Max-Age=1');
    assert.equal(setCookie('csrftoken', 'x', { https: false, maxAgeSeconds: null }), 'csrftoken=x; HttpOnly; SameSite=Lax; Path=/');
    assert.equal(clearCookie('session', true), '__Host-session=; HttpOnly; SameSite=Lax; Path=/; Secure; Max-Age=0');
    assert.throws(() => setCookie('session', 'a;b', { https: false, maxAgeSeconds: null }), RangeError);
  });
});

describe('urlencoded forms', () => {
  const read = (body: string | Buffer) => {
    const reading = parseForm(typeof body === 'string' ? Buffer.from(body, 'latin1') : body);
    return reading.ok ? Object.fromEntries(reading.form) : reading.problem;
  };

  it('decodes + and %XX as UTF-8, keeps the first of a repeated field', () => {
    assert.deepEqual(read('username=al+ice&password=p%C3%A9%26%3D&username=mallory&flag&=x'), { username: 'al ice', password: 'pé&=', flag: '', '': 'x' });
    assert.deepEqual(read(''), {});
    assert.deepEqual(read('a=%zz%4'), { a: '%zz%4' });
  });

  it('keeps every value of a repeated field, in order, for a list of checkboxes sharing a name', () => {
    const reading = parseForm('a=1&b=x&a=2');
    assert.deepEqual(reading.ok ? [...reading.lists] : reading.problem, [
      ['a', ['1', '2']],
      ['b', ['x']],
    ]);
  });

  it('refuses a body that is not UTF-8 once decoded', () => {
    assert.equal(read('username=%FF'), 'The form was not sent as UTF-8 text.');
    assert.equal(read('username=%C3'), 'The form was not sent as UTF-8 text.');
    assert.equal(read(Buffer.from([0x61, 0x3d, 0xe9])), 'The form was not sent as UTF-8 text.');
    assert.deepEqual(read(Buffer.from('a=é', 'utf8')), { a: 'é' });
  });

  it('refuses more fields than any form has', () => {
    assert.deepEqual(Object.keys(read(Array.from({ length: MAX_FORM_FIELDS }, (_, i) => `f${i}=1`).join('&')) as object).length, MAX_FORM_FIELDS);
    assert.equal(read(Array.from({ length: MAX_FORM_FIELDS + 1 }, (_, i) => `f${i}=1`).join('&')), 'The form has more than 1000 fields.');
  });

  it('knows the form content type, with or without parameters', () => {
    assert.equal(isFormType('application/x-www-form-urlencoded'), true);
    assert.equal(isFormType('Application/X-WWW-Form-Urlencoded; charset=UTF-8'), true);
    assert.equal(isFormType('multipart/form-data; boundary=x'), false);
    assert.equal(isFormType(undefined), false);
  });
});

describe('next', () => {
  const cases: [given: string | undefined, expected: string][] = [
    [undefined, '/'],
    ['', '/'],
    ['/projects/3/', '/projects/3/'],
    ['/events/?page=2&x=%2F', '/events/?page=2&x=%2F'],
    ['/members/é/', '/members/%C3%A9/'],
    // members.md §6, and their relatives
    ['//evil.example', '/'],
    ['/\\evil.example', '/'],
    ['https://evil.example', '/'],
    ['%2F%2Fevil.example', '/'],
    ['/%2Fevil.example', '/'],
    ['/%5Cevil.example', '/'],
    ['/%2f%2fevil.example', '/'],
    ['\\\\evil.example', '/'],
    ['/\t/evil.example', '/'],
    ['/\n/evil.example', '/'],
    ['/%09/evil.example', '/'],
    ['/%0d%0aSet-Cookie:x', '/'],
    ['/a\u0085b', '/'],
    ['javascript:alert(1)', '/'],
    ['evil.example', '/'],
    ['/%E0%A4%A', '/'],
  ];
  for (const [given, expected] of cases) {
    it(`${JSON.stringify(given)} → ${expected}`, () => assert.equal(safeNext(given), expected));
  }

  it('the login link carries the page back', () => {
    assert.equal(loginUrl('/'), '/accounts/login/');
    assert.equal(loginUrl('/events/?page=2'), '/accounts/login/?next=%2Fevents%2F%3Fpage%3D2');
  });
});

describe('CSRF', () => {
  it('a token is tied to its key', () => {
    const token = csrfToken('session-one');
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(csrfTokenMatches('session-one', token), true);
    assert.equal(csrfTokenMatches('session-two', token), false);
    assert.equal(csrfTokenMatches('session-one', token.slice(1)), false);
    assert.equal(csrfTokenMatches('session-one', undefined), false);
    assert.equal(csrfTokenMatches(null, token), false);
    assert.equal(csrfTokenMatches('', csrfToken('')), false);
  });

  it('an Origin must be this site', () => {
    assert.equal(originAllowed(undefined, 'http://127.0.0.1:8000'), true);
    assert.equal(originAllowed('http://127.0.0.1:8000', 'http://127.0.0.1:8000'), true);
    assert.equal(originAllowed('https://space.example.org', 'https://space.example.org/'), true);
    assert.equal(originAllowed('http://space.example.org', 'https://space.example.org'), false);
    assert.equal(originAllowed('https://evil.example', 'https://space.example.org'), false);
    assert.equal(originAllowed('null', 'https://space.example.org'), false);
    assert.equal(originAllowed('https://space.example.org', null), false);
  });
});
