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

/**
 * What the service keeps between requests to find where deep pages start, each part optional: the
 * app whose collection keeps one declares it (module augmentation: apps/space/opening-positions.ts).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by the apps' augmentations.
export interface PagePositions {}

/** One page of a collection: `offset` records skipped, at most `limit` returned. */
export interface PageWindow extends PagePositions {
  offset: number;
  limit: number;
}
