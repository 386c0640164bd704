import type { FastifyReply } from 'fastify';
import { clearCookie, cookieName, isHttps, parseCookies, setCookie } from '../request/cookies.js';
import type { RequestFacts } from '../request/facts.js';

/**
 * The short confirmation after a form (members.md §4), carried to the next page by a cookie that
 * names one of a fixed list of notices (nothing typed is echoed) and is removed by the page that
 * shows it. Only pages built for a logged-in member show it: they are private, never cached, so a
 * notice never reaches anyone else.
 */
const NOTICE_COOKIE = 'notice';

const NOUNS = { projects: 'project', events: 'event', meetings: 'meeting' } as const;
const DONE = { created: 'created', saved: 'saved', deleted: 'deleted' } as const;

export type NoticeKind = keyof typeof NOUNS;
export type NoticeDone = keyof typeof DONE;

function noticeText(code: string): string | null {
  const [kind, done] = code.split('-') as [string, string | undefined];
  if (!Object.hasOwn(NOUNS, kind) || done === undefined || !Object.hasOwn(DONE, done)) return null;
  return `The ${NOUNS[kind as NoticeKind]} is ${DONE[done as NoticeDone]}.`;
}

/** Sets the notice the next page shows (a session cookie: it dies with the browser if never shown). */
export function setNotice(reply: FastifyReply, facts: RequestFacts, kind: NoticeKind, done: NoticeDone): void {
  reply.header('set-cookie', setCookie(NOTICE_COOKIE, `${kind}-${done}`, { https: isHttps(facts.base), maxAgeSeconds: null }));
}

/** The notice waiting for this page, removed as it is shown; null when there is none. */
export function takeNotice(reply: FastifyReply, facts: RequestFacts, header: string | undefined): string | null {
  if (header === undefined) return null;
  const https = isHttps(facts.base);
  const code = parseCookies(header).get(cookieName(NOTICE_COOKIE, https));
  if (code === undefined) return null;
  reply.header('set-cookie', clearCookie(NOTICE_COOKIE, https));
  return noticeText(code);
}
