import type { FastifyReply } from 'fastify';
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
}

/** An answer that may be built for one member: no cache, shared or the browser's, may keep it (members.md §2). */
export const PRIVATE = 'private, no-store';
