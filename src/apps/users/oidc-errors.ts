/** What a single sign-on can fail with (members.md §5), apart from openid-client, which is loaded only with a provider (apps/users/oidc-client.ts). */

/** The provider cannot be reached (down, a timeout, a 5xx), or it was never discovered: try again later. */
export class ProviderUnavailable extends Error {
  override name = 'ProviderUnavailable';
}

/** The provider's answer failed a check (state, code, PKCE, nonce, signature, subject): no one is logged in. */
export class AnswerRefused extends Error {
  override name = 'AnswerRefused';
  constructor(
    /** What failed, for the log: an error code of the library or the provider, never a token. */
    readonly code: string,
    /** The provider said so itself (`error=access_denied` in the callback): the person cancelled or was refused. */
    readonly byProvider = false,
  ) {
    super(code);
  }
}
