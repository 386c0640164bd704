import type { Route } from '../../../http/route.js';
import { originalAddress } from '../../../routes/original-addresses.js';
import { userIdByName } from '../users.js';

/**
 * `/accounts/<username>` (case-insensitive) to the member's page. `reserved`: the names of our own
 * `/accounts/<name>/` pages, whose address without the slash keeps its redirect to them.
 */
export function originalMemberAddress(reserved: ReadonlySet<string>): Route {
  return originalAddress({
    name: 'original member page',
    template: '/accounts/{username}',
    match: ({ decoded }) => {
      const name = decoded === null ? undefined : /^\/accounts\/([^/]+)\/?$/.exec(decoded)?.[1];
      return name === undefined || reserved.has(name) ? null : name;
    },
    to: async (name, ex) => {
      const id = await userIdByName(ex.services.database.db, name);
      return id === null ? null : `/members/${id}/`;
    },
  });
}
