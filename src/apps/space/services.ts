import type { Representation } from '../../cache/representation.js';
import type { SpaceFeed } from './live/space-feed.js';
import type { SpaceApiSetup } from './spaceapi/setup.js';

declare module '../../http/services.js' {
  /** The space's parts of the services (buildApp, app.ts, makes them): only its routes use them. */
  interface Services {
    /** The push stream's feed (handlers/stream.ts). */
    readonly feed: SpaceFeed;
    /** The operator's SpaceAPI file and the document last built from it; null without SPACEAPI_CONFIG. */
    readonly spaceApi: { readonly setup: SpaceApiSetup; latest: Representation | undefined } | null;
  }
}
