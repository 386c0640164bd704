import * as client from 'openid-client';
import type { OidcSettings } from '../../config.js';
import type { Logger } from '../../log.js';
import { AnswerRefused, ProviderUnavailable } from './oidc-errors.js';

/**
 * The service as a client of the space's OpenID provider (members.md §5), through openid-client
 * (certified, maintained, WebCrypto and fetch: Node 20). Discovery runs when the app starts and
 * again, with a growing delay, while the provider does not answer; nothing waits for it. A login
 * asked for meanwhile tries once more at once, and is told the provider is unavailable (503).
 */

/** What the provider says of the person, from the ID token and the UserInfo endpoint. */
export interface ProviderIdentity {
  /** The provider's issuer identifier (OidcClient.issuer). */
  issuer: string;
  subject: string;
  email: string | null;
  emailVerified: boolean;
  preferredUsername: string | null;
  givenName: string | null;
  familyName: string | null;
}

/** What the callback must check, kept server-side between the two steps (apps/users/oidc-flows.ts). */
export interface FlowChecks {
  state: string;
  nonce: string;
  codeVerifier: string;
}

export const OIDC_SCOPES = 'openid email profile';

export interface DiscoveryTiming {
  /** Delay before the first retry of a failed discovery; each next one doubles, up to maxRetryMs. */
  firstRetryMs: number;
  maxRetryMs: number;
  /** Longest wait for one answer of the provider, in seconds (openid-client's timeout). */
  timeoutSeconds: number;
}

const DEFAULT_TIMING: DiscoveryTiming = { firstRetryMs: 1000, maxRetryMs: 60_000, timeoutSeconds: 5 };

export class OidcClient {
  /** The issuer as links are kept under it: OIDC_ISSUER as a URL (discovery checks the provider's own is the same). */
  readonly issuer: string;
  private config: client.Configuration | null = null;
  private attempt: Promise<client.Configuration | null> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private nextDelayMs: number;
  private closed = false;

  constructor(
    readonly settings: OidcSettings,
    private readonly log: Pick<Logger, 'info' | 'warn'>,
    private readonly timing: DiscoveryTiming = DEFAULT_TIMING,
  ) {
    this.nextDelayMs = timing.firstRetryMs;
    this.issuer = new URL(settings.issuer).href;
  }

  /** Starts discovery in the background; retries until the provider answers or close(). */
  start(): void {
    void this.discover();
  }

  close(): void {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  /**
   * Step one: where to send the browser, and what the callback will check. The redirect URI is
   * `<base>/accounts/oidc/callback/` (base: PUBLIC_URL or the request's).
   */
  async begin(redirectUri: string): Promise<{ url: string; checks: FlowChecks }> {
    const config = await this.ready();
    const checks: FlowChecks = { state: client.randomState(), nonce: client.randomNonce(), codeVerifier: client.randomPKCECodeVerifier() };
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: OIDC_SCOPES,
      state: checks.state,
      nonce: checks.nonce,
      code_challenge: await client.calculatePKCECodeChallenge(checks.codeVerifier),
      code_challenge_method: 'S256',
    });
    return { url: url.href, checks };
  }

  /**
   * Step two: the callback's URL (as the provider sent the browser to it) checked against the
   * flow's state, the code exchanged with the PKCE verifier, the ID token's signature, audience
   * and nonce checked; the e-mail and username from UserInfo when the ID token lacks them.
   */
  async finish(callbackUrl: URL, checks: FlowChecks): Promise<ProviderIdentity> {
    const config = await this.ready();
    try {
      const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        pkceCodeVerifier: checks.codeVerifier,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (claims === undefined) throw new AnswerRefused('no ID token');
      let info: Record<string, unknown> = claims;
      // Providers that follow the core spec strictly (oidc-provider) put the scopes' claims in UserInfo only.
      if (claims.email_verified === undefined || claims.preferred_username === undefined) {
        info = { ...(await client.fetchUserInfo(config, tokens.access_token, claims.sub)), ...claims };
      }
      return {
        issuer: this.issuer,
        subject: claims.sub,
        email: stringClaim(info.email),
        emailVerified: info.email_verified === true,
        preferredUsername: stringClaim(info.preferred_username),
        givenName: stringClaim(info.given_name),
        familyName: stringClaim(info.family_name),
      };
    } catch (error) {
      throw classify(error);
    }
  }

  /** The discovered configuration, or one more attempt now (shared with any under way); ProviderUnavailable if it fails. */
  private async ready(): Promise<client.Configuration> {
    const config = this.config ?? (await this.discover());
    if (config === null) throw new ProviderUnavailable('the provider has not been reached');
    return config;
  }

  private discover(): Promise<client.Configuration | null> {
    if (this.config !== null) return Promise.resolve(this.config);
    this.attempt ??= this.discoverOnce().finally(() => {
      this.attempt = null;
    });
    return this.attempt;
  }

  private async discoverOnce(): Promise<client.Configuration | null> {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const { issuer, clientId, clientSecret } = this.settings;
    const url = new URL(issuer);
    try {
      // http:// is accepted only for a provider on loopback (config.ts).
      const execute = url.protocol === 'http:' ? [client.allowInsecureRequests] : [];
      const config = await client.discovery(url, clientId, clientSecret, undefined, { execute, timeout: this.timing.timeoutSeconds });
      if (this.closed) return null;
      this.config = config;
      this.log.info({ oidc: issuer }, 'OpenID provider discovered');
      return config;
    } catch (error) {
      if (this.closed) return null;
      const delayMs = this.nextDelayMs;
      this.nextDelayMs = Math.min(this.nextDelayMs * 2, this.timing.maxRetryMs);
      this.log.warn({ oidc: issuer, code: codeOf(error), retryInMs: delayMs }, 'OpenID provider not reached: single sign-on waits for it');
      this.timer = setTimeout(() => void this.discover(), delayMs);
      this.timer.unref();
      return null;
    }
  }
}

function stringClaim(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

/** An error's code for the log: the library's or the provider's, else its name (never its message: it may quote a response). */
function codeOf(error: unknown): string {
  if (error instanceof client.ResponseBodyError || error instanceof client.AuthorizationResponseError) return error.error;
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'string') return code;
  const cause = (error as { cause?: { code?: unknown } })?.cause?.code;
  return typeof cause === 'string' ? cause : ((error as Error)?.name ?? 'unknown');
}

/** What an error of step two means: the provider unreachable (503), or an answer refused (400, nothing logged in). */
function classify(error: unknown): Error {
  if (error instanceof AnswerRefused || error instanceof ProviderUnavailable) return error;
  if (error instanceof client.AuthorizationResponseError) return new AnswerRefused(error.error, true);
  const name = (error as Error)?.name;
  // fetch's network failures are TypeErrors; timeouts and aborts DOMExceptions.
  if (error instanceof TypeError || name === 'TimeoutError' || name === 'AbortError') return new ProviderUnavailable(codeOf(error));
  const cause = (error as { cause?: unknown })?.cause;
  if (cause instanceof Response && cause.status >= 500) return new ProviderUnavailable(`HTTP ${cause.status}`);
  return new AnswerRefused(codeOf(error));
}
