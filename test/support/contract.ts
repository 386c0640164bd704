/**
 * Shared helpers of the contract tests: the sample fixture seen as typed records, expected values
 * computed independently of src/ (code-point order, wire times, avatars), dumpdata builders for
 * small fixtures, and assertions used by several files.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type http from 'node:http';
import { request, type HttpResponse } from './http.js';
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

/** Microseconds since the epoch of a fixture instant, computed without src/time.ts. */
export function fixtureMicros(iso: string): bigint {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?Z$/.exec(iso);
  if (!m) throw new Error(`not a UTC fixture time: ${iso}`);
  return BigInt(Date.parse(m[1] + 'Z')) * 1000n + BigInt(((m[2] ?? '') + '000000').slice(0, 6));
}

export function expectedAvatar(email: string, hash: 'md5' | 'sha256' = 'md5', style = 'wavatar'): string {
  return `//www.gravatar.com/avatar/${createHash(hash).update(email.toLowerCase(), 'utf8').digest('hex')}?d=${style}`;
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
export function assertJson(res: HttpResponse, status: number, body: unknown, what = ''): void {
  assert.equal(res.status, status, `${what} status (body ${res.body.slice(0, 200)})`);
  assert.equal(res.headers['content-type'], 'application/json', `${what} content-type`);
  assert.deepEqual(res.json(), body, `${what} body`);
}

export function varyTokens(headers: http.IncomingHttpHeaders | Record<string, string>): string[] {
  const vary = headers.vary;
  const text = Array.isArray(vary) ? vary.join(',') : (vary ?? '');
  return text.split(',').map((t) => t.trim().toLowerCase()).filter(Boolean);
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
      password: '!unusable', last_login: null, is_superuser: false, username, email,
      created: '2020-01-01T00:00:00Z', edited: '2020-01-01T00:00:00Z', first_name: '', last_name: '',
      balance: '0.00', has_key: hasKey, hide_pamela: false, newsletter: false, is_active: true,
      description: '', groups: [], user_permissions: [],
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
      title: `Project ${pk}`, maintainer, participants: [], created: '2020-01-01T00:00:00Z',
      modified: '2020-01-01T00:00:00Z', status: 'p', progress: 0, dependencies: [], picture: '',
      short_description: '', content: '', ...extra,
    },
  };
}

export function event(pk: number, start: string | null, stop: string | null, extra: Record<string, any> = {}): DumpRecord {
  return {
    model: 'events.event',
    pk,
    fields: {
      title: `Event ${pk}`, place: '', start, stop, status: 'r', organizer: 1, description: '',
      picture: '', interested: [], is_talk: false, ...extra,
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
    await Promise.all(settled.map((s) => (s.status === 'fulfilled' ? s.value.close() : undefined)));
    throw failure.reason;
  }
  return Object.fromEntries(names.map((name, i) => [name, (settled[i] as PromiseFulfilledResult<TestServer>).value])) as Record<K, TestServer>;
}

export async function closeServers(servers: Partial<Record<string, TestServer>> | undefined): Promise<void> {
  await Promise.all(Object.values(servers ?? {}).map((s) => s?.close()));
}
