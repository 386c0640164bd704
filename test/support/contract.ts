/**
 * Shared helpers of the contract tests: the sample fixture seen as typed records, expected values
 * computed independently of src/ (code-point order, wire times, avatars written out), dumpdata builders for
 * small fixtures, and assertions used by several files.
 */
import assert from 'node:assert/strict';
import type http from 'node:http';
import { request } from './http.js';
import { sampleRecords, startServer, type TestServer } from './server.js';

export interface DumpRecord {
  model: string;
  pk: number;
  fields: Record<string, any>;
}

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
  'cross-origin-opener-policy': 'same-origin',
  'x-frame-options': 'DENY',
};

export const ALLOW = {
  root: 'GET, HEAD, OPTIONS',
  list: 'GET, POST, HEAD, OPTIONS',
  detail: 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS',
} as const;

export const COLLECTION_PATHS = ['users', 'space/openings', 'projects', 'meetings', 'events'] as const;

let cachedSample: DumpRecord[] | undefined;

/** The shared sample fixture (a fresh deep copy each call, so tests may not disturb each other). */
export function sample(): DumpRecord[] {
  cachedSample ??= sampleRecords() as DumpRecord[];
  return structuredClone(cachedSample);
}

export function sampleOf(model: string): DumpRecord[] {
  return sample().filter((r) => r.model === model);
}

/** Python-style comparison: by Unicode code point (JavaScript's `<` compares UTF-16 units). */
export function byCodePoint(a: string, b: string): number {
  const x = Array.from(a, (c) => c.codePointAt(0)!);
  const y = Array.from(b, (c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

/**
 * The wire form of a fixture instant (`…Z`, any number of fraction digits) for TIME_ZONE=UTC:
 * `+00:00`, fraction as 6 digits only when not zero.
 */
export function wireUtc(iso: string): string {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?Z$/.exec(iso);
  if (!m) throw new Error(`not a UTC fixture time: ${iso}`);
  const fraction = ((m[2] ?? '') + '000000').slice(0, 6);
  return m[1] + (/^0+$/.test(fraction) ? '' : '.' + fraction) + '+00:00';
}

/**
 * The wire form for TIME_ZONE=UTC of an instant in microseconds since the epoch, computed without
 * src/time.ts (through wireUtc above).
 */
export function wireUtcMicros(us: number): string {
  const fraction = ((us % 1_000_000) + 1_000_000) % 1_000_000;
  const seconds = (us - fraction) / 1_000_000;
  const iso = new Date(seconds * 1000).toISOString().slice(0, 19);
  return wireUtc(`${iso}${fraction ? '.' + String(fraction).padStart(6, '0') : ''}Z`);
}

/** Microseconds since the epoch of a fixture instant, computed without src/time.ts. */
export function fixtureMicros(iso: string): bigint {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?Z$/.exec(iso);
  if (!m) throw new Error(`not a UTC fixture time: ${iso}`);
  return BigInt(Date.parse(m[1] + 'Z')) * 1000n + BigInt(((m[2] ?? '') + '000000').slice(0, 6));
}

/**
 * The avatar hashes of every e-mail address the tests use, written out: each address lower-cased
 * with full Unicode rules (`lowered`, by Python's str.lower(): the same Unicode case mappings as
 * JavaScript's toLowerCase(), final sigma and dotted İ included), then hashed as UTF-8 by
 * coreutils, `printf %s '<lowered>' | md5sum` and `| sha256sum`. Computed once, outside this code
 * and src/, so that a mistake in src/'s hashing cannot be repeated here.
 */
const AVATAR_HASHES: Readonly<Record<string, { lowered: string; md5: string; sha256: string }>> = {
  'leadingspace.1@example.net': {
    lowered: 'leadingspace.1@example.net',
    md5: '74011e8b99fd55a4cd5d8559663dc902',
    sha256: 'aed932331ef21da29976c7db9f8a89332e1095b1b192ce360a76e5b0fda17ae9',
  },
  '0day.2@example.org': { lowered: '0day.2@example.org', md5: '49e1f4e041ef6e12d02e30b604f2889d', sha256: 'a9c1781a617ae8454d9d2718a02ac6c802724ddd504e165c1439ed81aeec5522' },
  '42.3@mail.example.co.uk': {
    lowered: '42.3@mail.example.co.uk',
    md5: '461bc006484afb9d55ff43569cecaebf',
    sha256: 'c08afa11103d941b7f5ca8122e38ca7f5a667c1e193754f25c6ff0364cc58fcf',
  },
  'Alice@Example.COM': { lowered: 'alice@example.com', md5: 'c160f8cc69a4f0bf2b0362752353d060', sha256: 'ff8d9819fc0e12bf0d24892e45987e249a28dce836a85cad60e28eaaa8c6d976' },
  'alicew.5@example.com': { lowered: 'alicew.5@example.com', md5: '0c6c8a47b0faf4f200970b8628356b8d', sha256: '66a4192fd4733fe04b14719fd0da117d22106213bf6ed0cc0dc9c72b10a0e3f6' },
  'BOB@EXAMPLE.ORG': { lowered: 'bob@example.org', md5: '10ac39056a4b6f1f6804d724518ff2dc', sha256: '686b5e4cf4f963adf8f51468a48028ef8d15bd02fa335f821279a3d1678c9615' },
  'zorro.7@example.net': { lowered: 'zorro.7@example.net', md5: 'e96ef1dca4d71839fe800558e0c47394', sha256: 'd5c91ceb1e95ebe73ee111c0d132fa71301563d9921e0ac59f276873448f6482' },
  'zoé@exämple.be': { lowered: 'zoé@exämple.be', md5: 'a410b5d147e594bf8e1d5b55eaf7f91c', sha256: '5494ae5fa8902e53495e809950ad396d17b69c8aed057f5953763f46876dc334' },
  'ZOË@EXÄMPLE.BE': { lowered: 'zoë@exämple.be', md5: '74fd910d24f89412611589dba0a45b0c', sha256: '9098be461be3a51d3912cd9709dbcf14f8040df6a5bf6278d2b629664b1e6ff3' },
  'ÉLODIE@EXAMPLE.FR': { lowered: 'élodie@example.fr', md5: '2e44faff35603494059af25dce9cb068', sha256: '55586a3ae97963d9cecced29d1fc0452833388eee31429c47549a8fe1e37ce3d' },
  'Elodienfd.11@Example.ORG': {
    lowered: 'elodienfd.11@example.org',
    md5: '3d67f5b13ba71c85a82f508417c53824',
    sha256: 'b086123c8d3b9643591c468e0d0245048960999fd89f07623981256d3da1e598',
  },
  'ber.12@mail.example.co.uk': {
    lowered: 'ber.12@mail.example.co.uk',
    md5: '59bcef66a7a6b0f3b518e0b8ebb8b66a',
    sha256: '85d9f3eb87f6cfe005044e72ce51880f31ecd2f91eb15aa5e86cbb0c02ac2c02',
  },
  'STRASSE@example.de': { lowered: 'strasse@example.de', md5: '0d116788e10dce89465c74359bddae7e', sha256: '562244ce9f6121225e3425a5ad38e9fd6a91fefc92985eb48c688f1514ad6ce7' },
  'Дмитрий@пример.рф': { lowered: 'дмитрий@пример.рф', md5: 'de2de86f169e83a82e6d43f5eafac34a', sha256: '1c70953f63e73eccf3bc29b4c6e373ac7c020cf472a64a84daa0fed8dcdc78a3' },
  '王小明@例子.中国': { lowered: '王小明@例子.中国', md5: '1265227d8bf828330904af0093076479', sha256: 'aaa1ab5f1abb295efc1fe645848607af917f719594749b63a1933063a1d77db2' },
  'İSTANBUL@example.com.tr': {
    lowered: 'i̇stanbul@example.com.tr',
    md5: '9ac0515db91b2d9e27d7d773801b138b',
    sha256: '932150875e9074496feb98d0779d3d975fad9e835abe9a8bf323aafcff4de283',
  },
  'ΟΔΥΣΣΕΥΣ@example.gr': { lowered: 'οδυσσευς@example.gr', md5: 'c6400a39bff985f5e9c5d622f83bbda2', sha256: '75a04c845c47e02b9ec4e23df38715b8e593205aa5f61167c702e0d46bf9118a' },
  'nnligature.18@example.org': {
    lowered: 'nnligature.18@example.org',
    md5: '4e17968f340e0256df23f3cdfceb630c',
    sha256: '43ee8084fb258af9369d74e7d6d3897035cff3470208a2474fbbd84cb357b958',
  },
  'U.19@ulb.example.be': { lowered: 'u.19@ulb.example.be', md5: '23999706daf1aa07e6bbb8af43f33245', sha256: '913166138df7503d35407c55adc65e057737b492e32f8c964df04258aa925506' },
  'ant+🐜@example.org': { lowered: 'ant+🐜@example.org', md5: '720f04399f782efdcb80a286c46ca474', sha256: '2d61b36f876042004eae749b1a0568734f46a0448ee82b5b97f57a2f99294c28' },
  'xy.21@example.org': { lowered: 'xy.21@example.org', md5: '48f688ac82d88b37c84bb746b7edc5fa', sha256: 'ca8c953cd0d092be39aaadd0a6ef63cabbadd661d27d03410ab5adac0e6a16c7' },
  'jane.doe@example.org': { lowered: 'jane.doe@example.org', md5: 'b49be4c6d5b60918bf27d1189d8f326d', sha256: '7f73355bf032dcbb8e5a3f51f1e4a8ba92ef1344de2d95382634cf91da6d6181' },
  'locbenot.23@example.net': {
    lowered: 'locbenot.23@example.net',
    md5: 'd73971af952150abfc35588398502b66',
    sha256: '8aa7c694f81adeeffa2e115c2b427124b07874c7b75f3bf15c0a13a94be35b87',
  },
  '45.24@mail.example.co.uk': {
    lowered: '45.24@mail.example.co.uk',
    md5: 'c0284bde9a9532b093ce819a35b6146a',
    sha256: '9ea5907cc29c111a14f3881ce4acc98bc728e3d456f13df30d1c5fb849da1afc',
  },
  '2163.25@example.net': { lowered: '2163.25@example.net', md5: '090b6dac80d163de875d55b152865e6e', sha256: '92c40fa6470cd8203dd104caa845c9cb3efba6340a1a2f0950e5d6a475d2272b' },
  'Ursulax.26@ulb.example.be': {
    lowered: 'ursulax.26@ulb.example.be',
    md5: '1c6d8239561b8c7a4576ae2e36a61b69',
    sha256: '281f19d96b4ecadeba9fa727191a2dc21643d009ea609c1ae9bf045746332d42',
  },
  'Nguyn.27@example.com': { lowered: 'nguyn.27@example.com', md5: '1bb75f563a8f7a926ddd2489e6299e05', sha256: 'ac5fe6af5d6e552374a3a265dbbbb0723324c9e8c6027bc6c16d15e7397a29bf' },
  'adrien9821.28@exämple.be': {
    lowered: 'adrien9821.28@exämple.be',
    md5: '4272e109af76eeb47850a2b50ff610de',
    sha256: 'ca83f3ca3d25d899c1ca140d4e25a21c1ca4716989d5e11fc83a6cda6c5728e1',
  },
  'zoltn.29@mail.example.co.uk': {
    lowered: 'zoltn.29@mail.example.co.uk',
    md5: '2527e2720478ce5fc24a0735db39399d',
    sha256: 'c2745de6e218ec76364daae226c26a03dfcba8ea80691d94b1ded9e9e8140cf7',
  },
  'wimkarim.30@example.net': {
    lowered: 'wimkarim.30@example.net',
    md5: 'cd22c4d2f442b43609b5f90997a321b2',
    sha256: 'b2362908bb49a05b5783cfc31418d9dbebfb81458d89c335450433c808804095',
  },
  'User39@Example.ORG': { lowered: 'user39@example.org', md5: 'ba10fd1b5e30e8954e68b93087562d2c', sha256: '1794f0e3126dbbce5e32401d3ca283ccb832944e13c4c8ef2552234e9e88c480' },
  'New.Bie@Example.org': { lowered: 'new.bie@example.org', md5: 'ed1fd950d5d558022bb19fd7593ae4c1', sha256: 'dbc9c842c288b66b04939d25d1e0771fdb1ae59dc073c8999c8aff47445faccd' },
  '': { lowered: '', md5: 'd41d8cd98f00b204e9800998ecf8427e', sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' },
  'Form@Example.org': { lowered: 'form@example.org', md5: '89390333ed141a82824e8e66963ed6bf', sha256: '4a1617b231126cf9ed8b3166b7cd5630478629a5bff9ddf33df3bb4dd4df0c94' },
  'a@example.org': { lowered: 'a@example.org', md5: '22c2268861a8547b97a84c1c112b9525', sha256: 'e16bfe08be114c7b3737aa01ce504ebcb5d13fc44897c38c6cac63ddc7151463' },
  'B.Other@Example.org': { lowered: 'b.other@example.org', md5: '08f43159a31459b08cd1e533d39ca122', sha256: '5f707d1eaaca910e64d3abb445a92a37cf8a81948c7dcc0be593ca23f5351d66' },
  'a@b.c': { lowered: 'a@b.c', md5: '5d60d4e28066df254d5452f92c910092', sha256: 'd648b243a3e817eaa3309e00e183483f2867baadf522099f0c2121770536b25a' },
};

/** The contract's avatar URL for `email`, from the hashes above (an address not listed is a mistake of the test). */
export function expectedAvatar(email: string, hash: 'md5' | 'sha256' = 'md5', style = 'wavatar'): string {
  const hashes = AVATAR_HASHES[email];
  if (!hashes) throw new Error(`no hand-computed avatar hash for ${JSON.stringify(email)}: add it to AVATAR_HASHES`);
  return `//www.gravatar.com/avatar/${hashes[hash]}?d=${style}`;
}

/** Path and query of an absolute URL, as sent (no normalisation of the query). */
export function pathOf(url: string): string {
  const m = /^https?:\/\/[^/]+(\/.*)$/.exec(url);
  if (!m) throw new Error(`not an absolute URL: ${url}`);
  return m[1];
}

export async function getOk(base: string, path: string, headers?: Record<string, string>): Promise<any> {
  const res = await request(base, path, { headers });
  assert.equal(res.status, 200, `GET ${path} → ${res.status} ${res.body.slice(0, 200)}`);
  return res.json();
}

export interface Walk {
  pages: any[];
  records: any[];
}

/** Follows `next` from `path` to the last page (at most `limit` pages). */
export async function walkPages(base: string, path: string, limit = 500): Promise<Walk> {
  const pages: any[] = [];
  let next: string | null = path;
  while (next !== null) {
    assert.ok(pages.length < limit, `more than ${limit} pages from ${path}`);
    const page: any = await getOk(base, next);
    pages.push(page);
    next = page.next === null ? null : pathOf(page.next);
  }
  return { pages, records: pages.flatMap((p) => p.results) };
}

export function assertSecurityHeaders(headers: http.IncomingHttpHeaders | Record<string, string>, what = ''): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
    assert.equal(headers[name], value, `${what} ${name}`);
  }
}

/** Status, `Content-Type: application/json` exactly, and the parsed body. */
export function varyTokens(headers: http.IncomingHttpHeaders | Record<string, string>): string[] {
  const vary = headers.vary;
  const text = Array.isArray(vary) ? vary.join(',') : (vary ?? '');
  return text
    .split(',')
    .map((t) => t.trim().toLowerCase())
    .filter(Boolean);
}

/** The hyperlink fields of a record of a collection (picture excluded: it never carries a format). */
export function hyperlinksOf(collection: string, record: any): string[] {
  switch (collection) {
    case 'projects':
      return [record.maintainer, ...record.participants];
    case 'meetings':
      return [record.event, ...record.members];
    case 'events':
      return [record.organizer, record.meeting].filter((u): u is string => u !== null);
    default:
      return [];
  }
}

// ---------------------------------------------------------------------------------------------
// dumpdata builders for small fixtures (every field the original exports, so any importer works)

export function user(pk: number, username: string, email = `user${pk}@example.org`, hasKey = false): DumpRecord {
  return {
    model: 'users.user',
    pk,
    fields: {
      password: '!unusable',
      last_login: null,
      is_superuser: false,
      username,
      email,
      created: '2020-01-01T00:00:00Z',
      edited: '2020-01-01T00:00:00Z',
      first_name: '',
      last_name: '',
      balance: '0.00',
      has_key: hasKey,
      hide_pamela: false,
      newsletter: false,
      is_active: true,
      description: '',
      groups: [],
      user_permissions: [],
    },
  };
}

export function opening(pk: number, time: string, isOpen = true): DumpRecord {
  return { model: 'space.spacestatus', pk, fields: { time, is_open: isOpen } };
}

export function project(pk: number, maintainer: number, extra: Record<string, any> = {}): DumpRecord {
  return {
    model: 'projects.project',
    pk,
    fields: {
      title: `Project ${pk}`,
      maintainer,
      participants: [],
      created: '2020-01-01T00:00:00Z',
      modified: '2020-01-01T00:00:00Z',
      status: 'p',
      progress: 0,
      dependencies: [],
      picture: '',
      short_description: '',
      content: '',
      ...extra,
    },
  };
}

export function event(pk: number, start: string | null, stop: string | null, extra: Record<string, any> = {}): DumpRecord {
  return {
    model: 'events.event',
    pk,
    fields: {
      title: `Event ${pk}`,
      place: '',
      start,
      stop,
      status: 'r',
      organizer: 1,
      description: '',
      picture: '',
      interested: [],
      is_talk: false,
      ...extra,
    },
  };
}

export function meeting(pk: number, eventId: number, extra: Record<string, any> = {}): DumpRecord {
  return {
    model: 'events.meeting',
    pk,
    fields: { event: eventId, OJ: '', PV: '', members: [], pad: '', ongoing: false, ...extra },
  };
}

// ---------------------------------------------------------------------------------------------

type StartOptions = Parameters<typeof startServer>[0];

/**
 * Starts several servers at once. If one fails to start, the others are closed before the
 * error propagates, so that a broken start never leaves a listening server behind (which
 * would keep the test process alive).
 */
export async function startServers<K extends string>(specs: Record<K, StartOptions>): Promise<Record<K, TestServer>> {
  const names = Object.keys(specs) as K[];
  const settled = await Promise.allSettled(names.map((name) => startServer(specs[name])));
  const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failure) {
    await Promise.all(settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value.close()] : [])));
    throw failure.reason;
  }
  return Object.fromEntries(names.map((name, i) => [name, (settled[i] as PromiseFulfilledResult<TestServer>).value])) as Record<K, TestServer>;
}

export async function closeServers(servers: Partial<Record<string, TestServer>> | undefined): Promise<void> {
  await Promise.all(Object.values(servers ?? {}).flatMap((s) => (s ? [s.close()] : [])));
}
