import type { FastifyReply } from 'fastify';
import type { Catalogue } from '../i18n/catalogue.js';
import type { Words } from '../i18n/words.js';
import type { RequestFacts, SessionViewer } from '../request/facts.js';
import type { AccountNav } from '../web/layout.js';
import type { PageViewer } from '../web/page-context.js';

/**
 * Who looks at a page or a browsable API answer (members.md §2), as the app that keeps the
 * sessions tells it (apps/users/handlers/viewer.ts): the pages ask it and know no member.
 */
export interface Viewing {
  /** Whom the request's session cookie names, looked up once per request (facts.viewer); null for a visitor. */
  of(facts: RequestFacts): Promise<SessionViewer | null>;
  /** The navigation's account part for the request. */
  nav(facts: RequestFacts, viewer: SessionViewer | null): AccountNav;
  /** The viewer as a page built for them names them, with their forms' CSRF token. */
  page(viewer: SessionViewer, csrf: string): PageViewer;
  /** The session cookie on an answer built for its holder: renewed, or removed when it names no session. */
  settle(reply: FastifyReply, facts: RequestFacts, viewer: SessionViewer | null): void;
  /** The language the viewer chose on their profile; null for none. */
  language(viewer: SessionViewer): string | null;
  /** Keeps the viewer's choice of language (the switch on every page, `/i18n/setlang/`). */
  chooseLanguage(viewer: SessionViewer, language: string): Promise<void>;
}

/**
 * The words of an answer for its viewer: a member's chosen language (pages built for them alone),
 * else the request's (the language cookie, Accept-Language, LANGUAGE_CODE: request/facts.ts).
 */
export function wordsFor(catalogue: Catalogue, viewing: Viewing, facts: RequestFacts, viewer: SessionViewer | null): Words {
  const own = viewer === null ? null : viewing.language(viewer);
  const language = own !== null && catalogue.offered.includes(own) ? own : (facts.language ?? catalogue.defaultLanguage);
  return catalogue.words(language);
}

/** An answer that may be built for one member: no cache, shared or the browser's, may keep it (members.md §2). */
export const PRIVATE = 'private, no-store';
