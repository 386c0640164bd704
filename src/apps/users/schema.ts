import type { Generated } from 'kysely';

/**
 * The tables as Kysely sees them. Booleans are 0/1 integers (SQLite has no boolean type) and
 * instants are integer microseconds since the epoch (see time.ts).
 */
export interface UsersTable {
  id: Generated<number>;
  username: string;
  /** Only ever used to derive the avatar hash; never sent in a response. */
  email: string;
  has_key: number;
  // The original's fields the API does not show (migration 0009): kept for the round trip with
  // the original, written only by `export`. Never select them for a response, a page or a log.
  // Generated: the column has the original's default.
  password: string;
  last_login_us: Generated<number | null>;
  is_superuser: Generated<number>;
  created_us: number;
  edited_us: number;
  first_name: Generated<string>;
  last_name: Generated<string>;
  /** The original's DecimalField(6, 2), in hundredths. */
  balance_cents: Generated<number>;
  hide_pamela: Generated<number>;
  newsletter: Generated<number>;
  is_active: Generated<number>;
  description: Generated<string | null>;
  /** Not the original's: whether the member's public page shows their first and last name. */
  show_name: Generated<number>;
  /** Not the original's: the language the member chose for pages and mails (a tag of LANGUAGES), '' for none. */
  language: Generated<string>;
}

/** The original's auth many-to-many fields. A number may name a group or permission that no import brought (no foreign key). */
export interface UserGroupsTable {
  user_id: number;
  group_id: number;
}

export interface UserPermissionsTable {
  user_id: number;
  permission_id: number;
}

/** The original's `contenttypes.contenttype`: a permission's model. */
export interface ContentTypesTable {
  id: Generated<number>;
  app_label: string;
  model: string;
}

/** The original's `auth.permission`, all of them, used or not (export gives them back). */
export interface AuthPermissionsTable {
  id: Generated<number>;
  content_type_id: number;
  codename: string;
  name: string;
}

/** The original's `auth.group`. */
export interface AuthGroupsTable {
  id: Generated<number>;
  name: string;
}

export interface GroupPermissionsTable {
  group_id: number;
  permission_id: number;
}

/** A logged-in browser: only the SHA-256 of its session id is kept. */
export interface SessionsTable {
  id_hash: string;
  user_id: number;
  created_us: number;
  last_seen_us: number;
  expires_us: number;
}

/** One failed password login, counted by the throttling of every process. */
export interface LoginFailuresTable {
  id: Generated<number>;
  time_us: number;
  /** SHA-256 of the name typed, lowercased: never the name itself (it may be an e-mail address). */
  account: string;
  /** The client's address. */
  client: string;
}

/** A one-time set-password link: only the SHA-256 of its token is kept. */
export interface PasswordLinksTable {
  token_hash: string;
  /** Null for the link that creates the first superuser. */
  user_id: number | null;
  purpose: 'invitation' | 'reset' | 'first-superuser';
  created_us: number;
  expires_us: number;
  used_us: number | null;
}

/** A member's personal API token: it may do what its owner may. Only a hash of the secret is kept. */
export interface MemberTokensTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  secret_hash: string;
  created_us: number;
  last_used_us: number | null;
  revoked_us: number | null;
}

/** A member's account at an OpenID provider: the provider's subject, linked on a first login by verified e-mail or by creation. */
export interface OidcLinksTable {
  issuer: string;
  subject: string;
  user_id: number;
  created_us: number;
  last_login_us: number;
}

/** A single sign-on begun and not yet finished: what its callback must check, found by the hash of the browser's flow cookie. */
export interface OidcFlowsTable {
  id_hash: string;
  state: string;
  nonce: string;
  code_verifier: string;
  next_path: string;
  expires_us: number;
}

/** A member's passkey (WebAuthn credential), as the authenticator registered it; ids and keys base64url. */
export interface PasskeysTable {
  id: Generated<number>;
  user_id: number;
  credential_id: string;
  public_key: string;
  /** The authenticator's signature counter when last used (0: it keeps none). */
  counter: number;
  /** How the browser may reach the authenticator ("internal,hybrid"), as it said at registration. */
  transports: string;
  /** The WebAuthn user handle of the member: one per member, so that an authenticator keeps one passkey per account. */
  user_handle: string;
  name: string;
  created_us: number;
  last_used_us: number | null;
}

/** A passkey challenge given and not yet answered, by its hash: a registration's names its member. */
export interface PasskeyChallengesTable {
  challenge_hash: string;
  /** The hash of what the asking page's forms are tied to: only that browser may answer. */
  browser_hash: string;
  purpose: 'register' | 'login';
  user_id: number | null;
  /** The user handle a registration gave the authenticator. */
  user_handle: string | null;
  expires_us: number;
}

/** The users app's tables, added to the Database type every query is checked against (db/schema.ts). */
declare module '../../db/schema.js' {
  interface Database {
    users: UsersTable;
    user_groups: UserGroupsTable;
    user_permissions: UserPermissionsTable;
    content_types: ContentTypesTable;
    auth_permissions: AuthPermissionsTable;
    auth_groups: AuthGroupsTable;
    group_permissions: GroupPermissionsTable;
    sessions: SessionsTable;
    login_failures: LoginFailuresTable;
    password_links: PasswordLinksTable;
    member_tokens: MemberTokensTable;
    oidc_links: OidcLinksTable;
    oidc_flows: OidcFlowsTable;
    passkeys: PasskeysTable;
    passkey_challenges: PasskeyChallengesTable;
  }
}
