import type { Db } from '../../../db/connection.js';
import { currentSpaceState } from '../openings.js';
import { keyHolderNames } from '../../users/index.js';
import type { SpaceApiSetup } from './setup.js';

/** As the original service did: clients and proxies may reuse the document for 30 s. */
export const SPACEAPI_MAX_AGE_SECONDS = 30;

/** The live parts of a document, from the database. */
export interface LiveParts {
  /** The latest opening, or nulls before the first one. */
  isOpen: boolean | null;
  sinceUs: number | null;
  /** Usernames of the users with a key (code-point order), when the operator opted in. */
  keyHolders: readonly string[];
}

/**
 * The document as published: `api_compatibility` first, then the file's fields in its order, with
 * `state.open`/`state.lastchange` (omitted while the state is unknown: SpaceAPI's "unknown") and,
 * when opted in and there are any, `contact.keymasters`.
 */
export function spaceApiDocument(setup: Pick<SpaceApiSetup, 'document' | 'keymasters' | 'compatibility'>, live: LiveParts): Record<string, unknown> {
  const document: Record<string, unknown> = { api_compatibility: [...setup.compatibility], ...setup.document };
  const known = live.isOpen !== null && live.sinceUs !== null ? { open: live.isOpen, lastchange: Math.floor(live.sinceUs / 1_000_000) } : {};
  document.state = { ...known, ...(isObject(setup.document.state) ? setup.document.state : {}) };
  if (setup.keymasters !== null && live.keyHolders.length > 0) {
    const field = setup.keymasters;
    const contact = isObject(setup.document.contact) ? setup.document.contact : {};
    document.contact = { ...contact, keymasters: live.keyHolders.map((username) => ({ [field]: username })) };
  }
  return document;
}

/** The live parts the setup asks for: one indexed query, two with key holders. */
export async function readLiveParts(db: Db, setup: Pick<SpaceApiSetup, 'keymasters'>): Promise<LiveParts> {
  const state = await currentSpaceState(db);
  const keyHolders = setup.keymasters === null ? [] : await keyHolderNames(db);
  return { isOpen: state.isOpen, sinceUs: state.sinceUs, keyHolders };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
