import type { FastifyReply } from 'fastify';
import { clearCookie, cookieName, isHttps, parseCookies, setCookie } from '../request/cookies.js';
import type { RequestFacts } from '../request/facts.js';
import type { MessageKey } from '../i18n/words.js';

/**
 * The one way a member's form confirms what it did (members.md §4): the 303 after it sets a
 * cookie naming one notice of a fixed list (web/notices.ts and the apps': nothing typed is echoed), and the
 * page it lands on shows it and removes it. Only pages built for a logged-in member take it:
 * they are private, never cached, so a notice never reaches anyone else.
 */
const NOTICE_COOKIE = 'notice';

/** Sets the notice the next page shows (a session cookie: it dies with the browser if never shown). */
export function setNotice(reply: FastifyReply, facts: RequestFacts, notice: string): void {
  reply.header('set-cookie', setCookie(NOTICE_COOKIE, notice, { https: isHttps(facts.base), maxAgeSeconds: null }));
}

/** The words of the notice waiting for this page (`notices`: every notice by its code), removed as it is shown; null when there is none. */
export function takeNotice(reply: FastifyReply, facts: RequestFacts, header: string | undefined, notices: Readonly<Record<string, MessageKey>>): MessageKey | null {
  if (header === undefined) return null;
  const https = isHttps(facts.base);
  const code = parseCookies(header).get(cookieName(NOTICE_COOKIE, https));
  if (code === undefined) return null;
  reply.header('set-cookie', clearCookie(NOTICE_COOKIE, https));
  // A cookie as sent may hold anything: a code that names no notice shows nothing.
  return Object.hasOwn(notices, code) ? notices[code] : null;
}
