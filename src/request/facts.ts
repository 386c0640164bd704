import { IncomingMessage } from 'node:http';
import type { Config } from '../config.js';
import type { VersionSnapshot } from '../db/table-versions.js';
import { presentedSecret } from '../drf/auth.js';
import { baseUrlOf } from '../drf/links.js';
import { preferredMedia, type Media } from '../drf/negotiation.js';
import { sortedQuery, type QueryPair } from '../drf/query.js';
import { parseTarget, type Target } from '../drf/request.js';
import { acceptedLanguage, matchLanguage } from '../i18n/languages.js';
import { hashSecret } from '../resources/tokens.js';
import { cookieName, cookieValue, isHttps } from './cookies.js';
import { forwardedOrigin, proxyTrust } from './proxy-trust.js';

/**
 * Which answers of a path share a cache entry: an API route's JSON, the same route's browsable
 * HTML (what a browser's Accept picks), or a web page (always HTML, whatever the Accept).
 */
export type Variant = Media | 'page';

/** A token presented on a read, not known valid under `snapshot`: remembered if the full path finds it valid. */
export interface TokenCheck {
  readonly hash: string;
  readonly snapshot: VersionSnapshot;
}

/**
 * Who a session cookie names, as the app that keeps the sessions declares it (apps/users/sessions.ts
 * fills this interface in by module augmentation): the request only carries it.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- its fields are the sessions' app's.
export interface SessionViewer {}

/**
 * What a request is, read once when it arrives (RequestReader) and handed to every layer that
 * needs it: the fast path, the router, the checks, the handlers and the metrics.
 */
export class RequestFacts {
  /** The versions the fast path read for this request: the full path answers under them (one read, not two). */
  versions: Promise<VersionSnapshot> | undefined = undefined;
  /** A token the fast path could not vouch for (cache/known-tokens.ts). */
  tokenCheck: TokenCheck | undefined = undefined;
  /** Who the session cookie names, once a handler looked them up (http/viewing.ts): null for none, undefined before. */
  viewer: SessionViewer | null | undefined = undefined;

  constructor(
    readonly method: string,
    /** The path and query as sent, split once. */
    readonly target: Target,
    /** `{base}` of the contract (PUBLIC_URL, else scheme and Host); null when the Host is invalid (a 400 where links are made). */
    readonly base: string | null,
    /** The media the Accept header picks among JSON and HTML; null when it admits neither (406 on an API route). */
    readonly preferred: Media | null,
    /** The cache entry's variant: the preferred media on an API route, `page` elsewhere. */
    readonly variant: Variant | null,
    /** The cache key of a GET or HEAD (everything its body depends on); null for other methods, when unknowable, or with a session cookie (an answer that may be built for a member). */
    readonly key: string | null,
    /** The SHA-256 of a well-formed `Token`/`Bearer` secret; null without one (a malformed header is the checks' 401). */
    readonly secretHash: string | null,
    /** The session cookie's value (`session`, `__Host-session` on HTTPS) as sent, not yet checked; null without one. */
    readonly session: string | null,
    /** The language of a page or browsable answer for a visitor (the language cookie, else Accept-Language, else LANGUAGE_CODE); null for JSON. */
    readonly language: string | null,
  ) {}
}

/**
 * The request class of the HTTP server (http/node-server.ts): Node's, carrying its facts, so that
 * they travel with the request itself rather than through a side table.
 */
export class ArrivedRequest extends IncomingMessage {
  facts: RequestFacts | undefined = undefined;
}

/**
 * The cache key of a GET: the variant, the base URL (links are absolute), the path as sent (links
 * repeat it; it names the route and any format suffix) and the query as the page links rebuild it
 * (pairs sorted by key, re-encoded), so `?page=2&page_size=5` and `?page_size=5&page=2` share one
 * entry. The content coding is chosen within the entry.
 */
export function cacheKey(base: string, rawPath: string, pairs: readonly QueryPair[], variant: Variant, language: string | null = null): string {
  const key = pairs.length === 0 ? `${base} ${rawPath}` : `${base} ${rawPath}?${sortedQuery(pairs)}`;
  if (variant === 'json') return key;
  return language === null ? `${variant} ${key}` : `${variant} ${language} ${key}`;
}

/** The languages a page may be in (i18n/catalogue.ts): those offered and the space's own. */
export interface LanguageChoice {
  readonly offered: readonly string[];
  readonly defaultLanguage: string;
}

/** The cookie that keeps a visitor's choice of language, named as Django names it (`/i18n/setlang/`). */
export const LANGUAGE_COOKIE = 'django_language';

/** Turns requests into their facts; per app, for its PUBLIC_URL and TRUST_PROXY. */
export class RequestReader {
  /** Whether a peer's X-Forwarded-* headers count (TRUST_PROXY); null when none do. */
  private readonly trusted: ((address: string | undefined) => boolean) | null;
  /** Behind a proxy every request comes from the same few addresses: the last one's answer is kept. */
  private lastPeer: string | undefined = undefined;
  private lastPeerTrusted = false;
  /** Requests of one client name the same host: the last valid base is reused without a check. */
  private lastOrigin = '';
  private lastBase = '';
  /** Browsers send a few Accept-Language headers over and over: each one's language, read once (at most ACCEPT_MEMORY of them). */
  private readonly accepted = new Map<string, string>();

  constructor(
    private readonly config: Pick<Config, 'publicUrl' | 'trustProxy'>,
    private readonly languages: LanguageChoice = { offered: ['en'], defaultLanguage: 'en' },
  ) {
    const trust = proxyTrust(config.trustProxy);
    this.trusted =
      trust &&
      ((address) => {
        if (address !== this.lastPeer || address === undefined) {
          this.lastPeerTrusted = trust(address);
          this.lastPeer = address;
        }
        return this.lastPeerTrusted;
      });
  }

  /** The facts the server read when the request arrived, or (for a request made in-process, `inject`) read now. */
  of(request: IncomingMessage): RequestFacts {
    const carried = (request as Partial<ArrivedRequest>).facts;
    return carried ?? this.read(request);
  }

  read(request: IncomingMessage): RequestFacts {
    const method = request.method ?? 'GET';
    const url = request.url ?? '/';
    const target = parseTarget(url);
    const base = this.baseOf(request);
    const accept = request.headers.accept;
    const preferred = preferredMedia(accept);
    const variant: Variant | null = isApiPath(target.rawPath) ? preferred : 'page';
    // An answer to a session's holder may be built for a member: never filed under a shared key.
    const cookie = request.headers.cookie;
    const session = cookie === undefined ? null : cookieValue(cookie, isHttps(base) ? HTTPS_SESSION_COOKIE : SESSION_COOKIE);
    const language = variant === null || variant === 'json' ? null : this.languageOf(cookie, request.headers['accept-language'], base);
    // One language offered: the key stays as it was, with no language in it.
    const keyLanguage = this.languages.offered.length > 1 ? language : null;
    const key =
      session === null && base !== null && variant !== null && (method === 'GET' || method === 'HEAD') ? cacheKey(base, target.rawPath, target.query, variant, keyLanguage) : null;
    const authorization = request.headers.authorization;
    let secretHash: string | null = null;
    if (authorization !== undefined) {
      const secret = presentedSecret(authorization);
      if (typeof secret === 'string' && secret !== '') secretHash = hashSecret(secret);
    }
    const facts = new RequestFacts(method, target, base, preferred, variant, key, secretHash, session, language);
    (request as Partial<ArrivedRequest>).facts = facts;
    return facts;
  }

  /** A visitor's language, as Django's LocaleMiddleware finds it: the cookie's choice, else Accept-Language, else LANGUAGE_CODE. */
  private languageOf(cookie: string | undefined, accept: string | undefined, base: string | null): string {
    const { offered, defaultLanguage } = this.languages;
    if (cookie !== undefined) {
      const chosen = cookieValue(cookie, isHttps(base) ? HTTPS_LANGUAGE_COOKIE : LANGUAGE_COOKIE);
      const language = chosen === null ? null : matchLanguage(chosen, offered);
      if (language !== null) return language;
    }
    if (accept === undefined || offered.length === 1) return defaultLanguage;
    let language = this.accepted.get(accept);
    if (language === undefined) {
      language = acceptedLanguage(accept, offered) ?? defaultLanguage;
      // A client sending a new header with every request cannot make it grow: past the bound it starts again.
      if (this.accepted.size >= ACCEPT_MEMORY) this.accepted.clear();
      if (accept.length <= 256) this.accepted.set(accept, language);
    }
    return language;
  }

  private baseOf(request: IncomingMessage): string | null {
    const { publicUrl } = this.config;
    if (publicUrl !== null) return publicUrl;
    const { protocol, host } = forwardedOrigin(request, this.trusted);
    if (host !== undefined && host !== '') {
      if (host === this.lastOrigin && protocol === 'http') return this.lastBase;
      const base = baseUrlOf({ protocol, host }, this.config);
      if (base !== null && protocol === 'http') {
        this.lastOrigin = host;
        this.lastBase = base;
      }
      return base;
    }
    // HTTP/1.0 without Host: the address the server answered on.
    const { localAddress, localPort } = request.socket;
    return baseUrlOf({ protocol, host: undefined, localAddress, localPort }, this.config);
  }
}

/** How many Accept-Language headers a reader remembers the language of. */
const ACCEPT_MEMORY = 256;

/** The session cookie's name (members.md §2). */
export const SESSION_COOKIE = 'session';
const HTTPS_SESSION_COOKIE = cookieName(SESSION_COOKIE, true);
const HTTPS_LANGUAGE_COOKIE = cookieName(LANGUAGE_COOKIE, true);

/** Under /api/ every path is the API's, but for its reference, a page (web.md §4). */
function isApiPath(rawPath: string): boolean {
  return rawPath.startsWith('/api/') && rawPath !== '/api/docs/';
}
