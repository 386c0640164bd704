import type { SpaceApiVersion } from './schema.js';

/*
 * What the operator's SpaceAPI file configures: read by config-file.ts, used by document.ts
 * (which config-file.ts calls to validate the file), so here, below both. config-file.ts
 * re-exports it.
 */

/** Keymaster fields a username may be published as (never `email`, never `phone`). */
export const KEYMASTER_FIELDS = ['name', 'irc_nick', 'matrix', 'mastodon', 'xmpp', 'twitter'] as const;
export type KeymasterField = (typeof KEYMASTER_FIELDS)[number];

/** What the operator's file says: the static parts of the document, and which live parts to add. */
export interface SpaceApiSetup {
  /** The file, as configured (absolute). */
  readonly file: string;
  /** The document's static parts, in the file's order, without the `live` section. */
  readonly document: Readonly<Record<string, unknown>>;
  /** `contact.keymasters` from the users who have a key, their username in this field; null: off. */
  readonly keymasters: KeymasterField | null;
  /** The versions the document is valid for and claims (`api_compatibility`). */
  readonly compatibility: readonly SpaceApiVersion[];
  /** Why a version the service supports is not claimed (the document is not valid for it). */
  readonly notes: readonly string[];
}
