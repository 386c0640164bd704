/**
 * Cookies as RFC 6265 has them: the request's `Cookie` header read into names and values, and
 * the `Set-Cookie` of the service's own cookies (the session, the login form's pre-session
 * token). Pure, without Fastify.
 */

/** The service's cookies are secret-bearing: never readable by scripts, not sent on cross-site subrequests, for the whole site. */
const ATTRIBUTES = 'HttpOnly; SameSite=Lax; Path=/';

/**
 * The pairs of a `Cookie` header (RFC 6265 §5.4: `name=value; name=value`). A name sent twice
 * keeps its first value (browsers send the most specific path first); pieces without `=` are
 * skipped; values keep their bytes (a quoted value loses its quotes).
 */
export function parseCookies(header: string): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const piece of header.split(';')) {
    const eq = piece.indexOf('=');
    if (eq === -1) continue;
    const name = piece.slice(0, eq).trim();
    if (name === '' || cookies.has(name)) continue;
    let value = piece.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    cookies.set(name, value);
  }
  return cookies;
}

/** One cookie of a `Cookie` header (the first of its name), or null; cheaper than parsing all. */
export function cookieValue(header: string, name: string): string | null {
  if (!header.includes(name)) return null;
  const value = parseCookies(header).get(name);
  return value === undefined || value === '' ? null : value;
}

/**
 * A cookie's name on this site: on HTTPS the `__Host-` prefix, which browsers accept only with
 * Secure, Path=/ and no Domain, so that no other host (a subdomain, a plain-HTTP twin) can set it.
 */
export function cookieName(name: string, https: boolean): string {
  return https ? `__Host-${name}` : name;
}

/** Whether a base URL (the facts' base) is HTTPS: PUBLIC_URL's scheme, or a trusted proxy's X-Forwarded-Proto. */
export function isHttps(base: string | null): boolean {
  return base !== null && base.startsWith('https:');
}

/** The `Set-Cookie` of one of the service's cookies: HttpOnly, SameSite=Lax, Path=/, Secure on HTTPS; a session cookie when maxAgeSeconds is null. */
export function setCookie(name: string, value: string, options: { https: boolean; maxAgeSeconds: number | null }): string {
  if (!/^[A-Za-z0-9_-]*$/.test(value)) throw new RangeError('a cookie value of the service is base64url');
  const maxAge = options.maxAgeSeconds === null ? '' : `; Max-Age=${Math.max(0, Math.floor(options.maxAgeSeconds))}`;
  return `${cookieName(name, options.https)}=${value}; ${ATTRIBUTES}${options.https ? '; Secure' : ''}${maxAge}`;
}

/** The `Set-Cookie` that removes one of the service's cookies. */
export function clearCookie(name: string, https: boolean): string {
  return setCookie(name, '', { https, maxAgeSeconds: 0 });
}
