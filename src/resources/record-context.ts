import type { OpeningPositions } from '../apps/space/opening-positions.js';
/**
 * What a record needs to know about the request that reads it: how to spell hyperlinks (base URL
 * and format), times (zone) and avatars. Built once per request by the HTTP layer (or by any
 * other reader), so that resource modules stay free of HTTP.
 */
export interface RecordContext {
  userUrl(id: number): string;
  eventUrl(id: number): string;
  meetingUrl(id: number): string;
  /** URL of a stored media file (event pictures). */
  mediaUrl(storedPath: string): string;
  /** An instant in microseconds, in the wire format. */
  time(micros: number): string;
  /** Avatar URL derived from an e-mail address (the address itself is never published). */
  avatar(email: string): string;
  /** The name the avatar field is published under (`avatar` or, for old clients, `gravatar`). */
  readonly avatarField: 'avatar' | 'gravatar';
}

/** One page of a collection: `offset` records skipped, at most `limit` returned. */
export interface PageWindow {
  offset: number;
  limit: number;
  /** Where deep pages of openings start, kept between requests (openings.ts); optional. */
  openingPositions?: OpeningPositions;
}
