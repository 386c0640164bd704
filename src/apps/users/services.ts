import type { Mailer } from './mail.js';
import type { OidcClient } from './oidc-client.js';
import type { PasswordHasher } from './passwords.js';

/** The users app's parts of the services every request's Exchange carries (http/services.ts), made by buildApp. */
declare module '../../http/services.js' {
  interface Services {
    /** The process's one password hasher: its bound on hashings at once is per process (members.md §1). */
    readonly hasher: PasswordHasher;
    /** Invitations and resets by mail (SMTP_URL); null when the site sends no mail. */
    readonly mailer: Mailer | null;
    /** Single sign-on with the space's OpenID provider (OIDC_ISSUER); null without one. */
    readonly oidc: OidcClient | null;
  }
}
