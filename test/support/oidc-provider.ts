import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import Provider from 'oidc-provider';
import { Browser } from './members.js';

/**
 * A real OpenID provider for the tests (members.md §5): `oidc-provider`, certified, on a port of
 * this machine, with its own login and consent pages (its development interactions: any login
 * name is accepted, and is the account's id). The accounts' claims are what the tests set.
 */

export const CLIENT_ID = 'hackerspace-api';
export const CLIENT_SECRET = 'a client secret the tests share with the provider';

export interface AccountClaims {
  email?: string;
  email_verified?: boolean;
  preferred_username?: string;
  given_name?: string;
  family_name?: string;
}

export interface TestProvider {
  /** `http://127.0.0.1:<port>`: OIDC_ISSUER. */
  issuer: string;
  /** The people the provider knows, by account id (their subject): set or change before logging in. */
  accounts: Map<string, AccountClaims>;
  stop(): Promise<void>;
}

/** The service's environment for this provider. */
export function oidcEnv(issuer: string, extra: Record<string, string> = {}): Record<string, string> {
  return { OIDC_ISSUER: issuer, OIDC_CLIENT_ID: CLIENT_ID, OIDC_CLIENT_SECRET: CLIENT_SECRET, OIDC_NAME: 'Spacekey', ...extra };
}

/** Starts the provider on `port`, its client allowed to come back to each of `redirectUris`. */
export async function startProvider(port: number, redirectUris: string[]): Promise<TestProvider> {
  const issuer = `http://127.0.0.1:${port}`;
  const accounts = new Map<string, AccountClaims>();
  const provider = new Provider(issuer, {
    clients: [{ client_id: CLIENT_ID, client_secret: CLIENT_SECRET, redirect_uris: redirectUris, grant_types: ['authorization_code'], response_types: ['code'] }],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['preferred_username', 'given_name', 'family_name'] },
    findAccount: (_ctx, id) => {
      const claims = accounts.get(id);
      return claims === undefined ? undefined : { accountId: id, claims: () => ({ sub: id, ...claims }) };
    },
    cookies: { keys: ['test cookie key'] },
    features: { devInteractions: { enabled: true } },
  });
  // An error inside the provider would otherwise show only as a 500 at its pages.
  provider.on('server_error', (_ctx, error) => process.stderr.write(`oidc-provider: ${String(error)}\n`));
  const server: Server = await new Promise((resolve, reject) => {
    const listening = provider.listen(port, '127.0.0.1', () => resolve(listening));
    listening.once('error', reject);
  });
  return {
    issuer,
    accounts,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A person at the provider, from `authorizationUrl` (the authorization request as the service
 * sent it, or as a test altered it): follows the provider's redirects, signs in as `account` on
 * its login page and continues on its consent page, with the provider's own cookies, until the
 * provider sends the browser back to the service. Returns that address (the callback with
 * `code` and `state`), not yet requested.
 */
export async function throughProvider(provider: TestProvider, authorizationUrl: string, account: string): Promise<string> {
  const person = new Browser(provider.issuer);
  let url = new URL(authorizationUrl);
  for (let step = 0; step < 12; step++) {
    if (url.origin !== provider.issuer) return url.href;
    const res = await person.get(url.pathname + url.search);
    if (res.status >= 300 && res.status < 400) {
      url = new URL(String(res.headers.location), url);
      continue;
    }
    assert.equal(res.status, 200, `the provider's page ${url.pathname}: ${res.body.slice(0, 500)}`);
    const form = /<form[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/.exec(res.body);
    assert.ok(form, `a form on the provider's page ${url.pathname}`);
    const fields: Record<string, string> = {};
    for (const input of form[2].matchAll(/<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)) fields[input[1]] = input[2];
    if (fields.prompt === 'login') Object.assign(fields, { login: account, password: 'any' });
    const sent = await person.post(new URL(form[1], url).pathname, fields);
    assert.ok(sent.status >= 300 && sent.status < 400, `the provider's form ${form[1]}: ${sent.status} ${sent.body.slice(0, 500)}`);
    url = new URL(String(sent.headers.location), url);
  }
  assert.fail('the provider never sent the browser back');
}
