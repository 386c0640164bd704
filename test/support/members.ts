import assert from 'node:assert/strict';
import type { Db } from '../../src/db/connection.js';
import { PasswordHasher } from '../../src/apps/users/passwords.js';
import { request, type HttpResponse } from './http.js';

/** PBKDF2 iterations for test passwords (PASSWORD_ITERATIONS=1000 in the servers tests start): fast, and still the real hasher. */
/** The nine rights of members.md §3, spelled out from the spec for the tests, not read from the module under test. */
export const SPEC_RIGHTS = [
  'projects.add_project',
  'projects.change_project',
  'projects.delete_project',
  'events.add_event',
  'events.change_event',
  'events.delete_event',
  'events.add_meeting',
  'events.change_meeting',
  'events.delete_meeting',
] as const;

/**
 * The slate's and the shop's rights (ledger.md §1), spelled out from the spec: the original's
 * `users.change_balance`, Django's model rights on products and categories, and the treasury's
 * (`stock.view_paymenttransaction`, as the original's "Trésorerie" group holds it).
 */
export const LEDGER_RIGHTS = [
  'users.change_balance',
  'stock.add_category',
  'stock.change_category',
  'stock.delete_category',
  'stock.add_product',
  'stock.change_product',
  'stock.delete_product',
  'stock.view_paymenttransaction',
] as const;

export const TEST_ITERATIONS = 1000;

const hasher = new PasswordHasher({ iterations: TEST_ITERATIONS, concurrency: 2, queueLimit: 1000 });

export interface NewMember {
  username: string;
  email?: string;
  password?: string;
  superuser?: boolean;
  active?: boolean;
  firstName?: string;
}

/** A member in the database with a real password hash (the service's own hasher); returns the id. */
export async function addMember(db: Db, member: NewMember): Promise<number> {
  const now = Date.now() * 1000;
  const row = await db
    .insertInto('users')
    .values({
      username: member.username,
      email: member.email ?? `${member.username.toLowerCase()}@example.org`,
      has_key: 0,
      password: member.password === undefined ? '!unusable' : await hasher.hash(member.password),
      is_superuser: member.superuser ? 1 : 0,
      is_active: member.active === false ? 0 : 1,
      first_name: member.firstName ?? '',
      created_us: now,
      edited_us: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The notice at the top of a page (a form's confirmation, members.md §4), or null for none. */
export function noticeOf(page: string): string | null {
  return /<p class="notice" role="status" id="notice">([^<]*)<\/p>/.exec(page)?.[1] ?? null;
}

/** The value of the hidden CSRF field of the page's own form (in <main>, not the navigation's log-out button). */
export function csrfOf(page: string): string {
  const main = /<main[\s\S]*<\/main>/.exec(page)?.[0] ?? page;
  const m = /name="csrfmiddlewaretoken" value="([^"]*)"/.exec(main);
  assert.ok(m, `a CSRF token in the page: ${page.slice(0, 300)}`);
  return m[1];
}

/** An urlencoded form body. */
export function formBody(fields: Record<string, string> | [string, string][]): string {
  return new URLSearchParams(Array.isArray(fields) ? fields : Object.entries(fields)).toString();
}

/**
 * A browser's cookie jar over real HTTP: it keeps the cookies the service sets (Set-Cookie, with
 * Max-Age=0 removing one) and sends them back, as a browser on one site does. `headers` are sent
 * with every request (a client address through X-Forwarded-For, an Origin).
 */
export class Browser {
  constructor(
    readonly base: string,
    readonly headers: Record<string, string> = {},
    readonly cookies = new Map<string, string>(),
  ) {}

  /** The same browser (its cookies, shared) talking to another process of the same site. */
  at(base: string): Browser {
    return new Browser(base, this.headers, this.cookies);
  }

  cookieHeader(): string | undefined {
    return this.cookies.size === 0 ? undefined : [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  async get(path: string, headers: Record<string, string> = {}): Promise<HttpResponse> {
    return this.send(path, { method: 'GET', headers });
  }

  /** POSTs a form (fields urlencoded, or a body as given). */
  async post(path: string, fields: Record<string, string> | [string, string][] | Buffer | string, headers: Record<string, string> = {}): Promise<HttpResponse> {
    const body = typeof fields === 'string' || Buffer.isBuffer(fields) ? fields : formBody(fields);
    return this.send(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body });
  }

  /** GETs the page of a form and POSTs the form with the page's CSRF token. */
  async submit(path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<HttpResponse> {
    const page = await this.get(path);
    return this.post(path, { csrfmiddlewaretoken: csrfOf(page.body), ...fields }, headers);
  }

  async send(path: string, options: { method: string; headers?: Record<string, string>; body?: string | Buffer }): Promise<HttpResponse> {
    const cookie = this.cookieHeader();
    const res = await request(this.base, path, {
      method: options.method,
      headers: { ...this.headers, ...(cookie === undefined ? {} : { cookie }), ...options.headers },
      body: options.body,
    });
    this.keep(res);
    return res;
  }

  private keep(res: HttpResponse): void {
    for (const line of res.headers['set-cookie'] ?? []) {
      const [pair, ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const gone = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === '';
      if (gone) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
}

/** Logs in through the login form (GET for its token, then POST); asserts the 303 and returns the browser, its session cookie set. */
export async function logIn(base: string, username: string, password: string, options: { headers?: Record<string, string>; next?: string } = {}): Promise<Browser> {
  const browser = new Browser(base, options.headers);
  const res = await browser.submit(options.next === undefined ? '/accounts/login/' : `/accounts/login/?next=${encodeURIComponent(options.next)}`, { username, password });
  assert.equal(res.status, 303, `logging in as ${username}: ${res.status} ${res.body.slice(0, 300)}`);
  return browser;
}

/** The session cookie a browser holds (`session` or `__Host-session`), or undefined. */
export function sessionOf(browser: Browser): string | undefined {
  return browser.cookies.get('session') ?? browser.cookies.get('__Host-session');
}
