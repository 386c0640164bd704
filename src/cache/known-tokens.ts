import type { VersionSnapshot } from '../db/table-versions.js';
import { LAST_USED_RESOLUTION_US, type TokenInfo } from '../resources/tokens.js';

/** Enough for every door, script and dashboard of a space; past it, the memo starts again. */
const MAX_KNOWN = 1000;

interface Known {
  /** The tokens' version (table_versions) read before the token was found valid. */
  version: number;
  /** Its last use as stored (tokens.ts touchToken), in microseconds. */
  lastUsedUs: number;
}

/**
 * The tokens this process found valid, by the hash of their secret (never the secret itself), so
 * that the fast path can answer a read that presents one without asking the database: the answer
 * of such a read is the anonymous one, and the full path's only other effect, stamping the
 * token's last use, is due again only LAST_USED_RESOLUTION_US after the last stamp, when the read
 * goes to the full path again. A token is known only under the tokens' version read before it
 * was looked up: revoking or deleting any token bumps it (migration 0008), so a revoked token
 * gets its 401 from the full path on the next request.
 */
export class KnownTokens {
  private readonly known = new Map<string, Known>();

  /** Whether a read presenting the token of this hash may be answered as the full path would, without it. */
  has(hash: string, snapshot: VersionSnapshot, nowUs: number): boolean {
    const known = this.known.get(hash);
    if (known === undefined) return false;
    if (known.version !== snapshot.api_tokens.version) {
      this.known.delete(hash);
      return false;
    }
    return nowUs - known.lastUsedUs < LAST_USED_RESOLUTION_US;
  }

  /** Notes a token the full path found valid, under the snapshot read before it looked the token up. */
  remember(hash: string, token: TokenInfo, before: VersionSnapshot): void {
    if (token.lastUsedUs === null) return;
    if (this.known.size >= MAX_KNOWN) this.known.clear();
    this.known.set(hash, { version: before.api_tokens.version, lastUsedUs: token.lastUsedUs });
  }
}
