import type { FastifyReply } from 'fastify';
import { hereOf } from '../../../request/next-path.js';
import { findSession, type MemberSession } from '../sessions.js';
import { clearCookie, isHttps, setCookie } from '../../../request/cookies.js';
import { csrfToken } from '../../../request/csrf.js';
import { SESSION_COOKIE, type RequestFacts } from '../../../request/facts.js';
import type { Services } from '../../../http/services.js';
import type { Viewing } from '../../../http/viewing.js';
import type { AccountNav } from '../../../web/layout.js';

/**
 * Who sends a request (members.md §2): the member whose session the cookie names, or null (no
 * cookie, an id never issued, a session ended or expired, an inactive account). Looked up once
 * per request, in the database, so that a logout or a deactivation in any process counts at once.
 */
export async function viewerOf({ facts, services }: { facts: RequestFacts; services: Pick<Services, 'database' | 'config'> }): Promise<MemberSession | null> {
  if (facts.viewer !== undefined) return facts.viewer;
  if (facts.session === null) return (facts.viewer = null);
  const found = await findSession(services.database.db, facts.session, Date.now() * 1000, services.config.members.sessionDays);
  return (facts.viewer = found);
}

/** The navigation's account part for a request: the member's, or a visitor's with the way back to a GET page. */
export function navOf(facts: RequestFacts, viewer: MemberSession | null): AccountNav {
  if (viewer !== null && facts.session !== null) return { member: { name: viewer.member.username, csrf: csrfToken(facts.session) } };
  return { member: null, next: facts.method === 'GET' || facts.method === 'HEAD' ? hereOf(facts) : null };
}

/**
 * The session cookie on an answer to its holder: a cookie that names no session is removed (the
 * browser's next requests are a visitor's again, on the fast path); a live one is sent again
 * with the session's remaining life, which moves with its use.
 */
export function settleSessionCookie(reply: FastifyReply, facts: RequestFacts, viewer: MemberSession | null): void {
  if (facts.session === null) return;
  const https = isHttps(facts.base);
  if (viewer === null) {
    reply.header('set-cookie', clearCookie(SESSION_COOKIE, https));
    return;
  }
  const remainingSeconds = (viewer.expiresUs - Date.now() * 1000) / 1_000_000;
  if (/^[A-Za-z0-9_-]+$/.test(facts.session)) reply.header('set-cookie', setCookie(SESSION_COOKIE, facts.session, { https, maxAgeSeconds: remainingSeconds }));
}

/** Who views the site's pages: the member of the session, for the machinery's pages (http/viewing.ts). */
export function memberViewing(services: Pick<Services, 'database' | 'config'>): Viewing {
  return {
    of: (facts) => viewerOf({ facts, services }),
    nav: navOf,
    page: (viewer, csrf) => ({ id: viewer.member.id, username: viewer.member.username, csrf }),
    settle: settleSessionCookie,
    language: (viewer) => viewer.member.language,
    chooseLanguage: async (viewer, language) => {
      await services.database.db.updateTable('users').set({ language }).where('id', '=', viewer.member.id).execute();
    },
  };
}
