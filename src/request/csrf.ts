import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Cross-site request forgery (members.md §2): every form that changes something carries a token
 * that only this site's pages can know: an HMAC-SHA256 keyed by the member's session id (a
 * secret the browser holds in an HttpOnly cookie), or, for the login form, by a random
 * pre-session cookie. A foreign page can send the cookie along but can neither read it nor
 * compute the token. Checked with the request's Origin, when the browser sends one.
 */

/** The form field, named as Django names it. */
export const CSRF_FIELD = 'csrfmiddlewaretoken';

/** The pre-session cookie of the login form (`__Host-csrftoken` on HTTPS). */
export const CSRF_COOKIE = 'csrftoken';

/** The token of the forms of a page built for the holder of `key` (a session id or the pre-session cookie). */
export function csrfToken(key: string): string {
  return createHmac('sha256', key).update('hackerspace-api csrf v1').digest('base64url');
}

/** Whether a posted token is the one `key` makes, compared in constant time. */
export function csrfTokenMatches(key: string | null, presented: string | undefined): boolean {
  if (key === null || key === '' || presented === undefined) return false;
  const expected = Buffer.from(csrfToken(key));
  const given = Buffer.from(presented);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * Whether a POST's `Origin` allows it: absent (an older browser, or a program) is left to the
 * token; present, it must be this site's origin, as the facts' base URL names it. `null` (a
 * sandboxed frame, a redirect across sites, a `data:` page) is refused.
 */
export function originAllowed(origin: string | undefined, base: string | null): boolean {
  if (origin === undefined) return true;
  if (base === null) return false;
  let own: string;
  try {
    own = new URL(base).origin;
  } catch {
    return false;
  }
  return origin.trim().toLowerCase() === own.toLowerCase();
}
