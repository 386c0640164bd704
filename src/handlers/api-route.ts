import type { ApiView } from '../drf/api-view.js';
import type { Collection } from '../drf/collections.js';
import type { ApiPathMatch } from '../drf/serializer.js';

/** What an API route declares beyond its match: the headers of every answer, errors included, the methods that write, and the API's routing (for hyperlinks in bodies). */
export interface ApiRoute {
  readonly headers: Readonly<{ allow: string; vary: string }>;
  readonly writeMethods: ReadonlySet<string>;
  readonly routeOf: ApiPathMatch;
  /** The collection of a list or detail route; null for the others. */
  readonly collection: Collection | null;
  /** The view of a collection's view route (drf/api-view.ts); null for the others. */
  readonly view: ApiView | null;
  /** The collections the API root lists: those of the apps that are on. */
  readonly root: readonly Collection[];
}
